//! Helpers shared by the integration tests and (via `#[path]`) the unit tests of the
//! reference modules and the CLI's tests, so every test finds the vector folder the same
//! way.

use std::path::PathBuf;

/// The known-answer vectors kept in the repository, `crates/lanesum/tests/vectors` (see
/// its README.md), found from either crate's tests (both live in `crates/`). A missing
/// folder is a test failure, never a skip.
pub fn vectors() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../lanesum/tests/vectors");
    assert!(
        dir.join("README.md").is_file(),
        "the known-answer vectors are missing from {} (they are part of the repository)",
        dir.display()
    );
    dir
}
