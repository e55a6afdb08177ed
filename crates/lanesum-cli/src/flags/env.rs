//! What the environment says about parsing and reading.

/// Files may be mapped: `LANESUM_NO_MMAP` is not set (any value reads with read()).
pub fn mmap_allowed() -> bool {
    std::env::var_os("LANESUM_NO_MMAP").is_none()
}

/// `POSIXLY_CORRECT` is set: options end at the first operand, as getopt has them.
pub fn posixly_correct() -> bool {
    std::env::var_os("POSIXLY_CORRECT").is_some()
}
