//! The in-process instruction-set matrix of the integration tests.

/// Runs `f` at every level this CPU can be forced to (`lanesum::diagnostics::levels`:
/// portable, each extension alone, all of them) through `lanesum::isa::with_level`, so
/// one `cargo test` covers every kernel path. A failure names its level.
pub fn each_level(mut f: impl FnMut()) {
    for level in lanesum::diagnostics::levels() {
        let run = std::panic::AssertUnwindSafe(|| lanesum::isa::with_level(level, &mut f));
        if let Err(e) = std::panic::catch_unwind(run) {
            eprintln!("(at instruction-set level {level})");
            std::panic::resume_unwind(e);
        }
    }
}
