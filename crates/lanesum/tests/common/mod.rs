//! Helpers shared by the integration tests and (via `#[path]`) the unit tests of the
//! reference modules, so every test finds the vector folder the same way.

use std::path::PathBuf;

/// The shared vector folder: `$LANESUM_VECTORS`, else `shared/vectors` beside the
/// repository checkout (`X/main` with `X/shared`).
///
/// `None` (after printing a note) when the default folder is missing, so a bare checkout
/// still passes on its hand-written known answers. A `LANESUM_VECTORS` that names no
/// folder is a mistake and panics rather than silently skipping.
pub fn vectors_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("LANESUM_VECTORS") {
        let dir = PathBuf::from(dir);
        assert!(
            dir.is_dir(),
            "LANESUM_VECTORS={} is not a directory",
            dir.display()
        );
        return Some(dir);
    }
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/vectors");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "note: {} not found (set LANESUM_VECTORS); skipping file-based vectors",
            dir.display()
        );
        None
    }
}
