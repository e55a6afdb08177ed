//! Results: the digests of one input, and one file's result under its name.

use std::ffi::OsString;
use std::io;

use lanesum::Digest;

/// The digests of one input, one per requested algorithm and in the same order.
#[derive(Clone, Debug)]
pub struct Hashed {
    /// Bytes hashed: what was read, which may differ from the size a file had when it was
    /// stat'ed (it grew or shrank meanwhile).
    pub size: u64,
    /// One digest per algorithm, in the order the algorithms were given.
    pub digests: Vec<Digest>,
}

/// One input's result, under the name it was given or found by.
#[derive(Debug)]
pub struct HashedFile {
    /// The operand as given, or the path a walk found (the operand joined with the names
    /// below it), byte for byte.
    pub path: OsString,
    /// Its digests, or why there are none (unreadable, missing, a directory without
    /// `recursive`, a loop met in a walk, a file that shrank while mapped).
    pub result: io::Result<Hashed>,
}

/// One digest list per algorithm (each of `count` inputs, in input order) turned into one
/// list per input (in algorithm order), as [`Hashed::digests`] holds them. With no
/// algorithms, each input gets an empty list.
pub fn by_input(per_alg: &[Vec<Digest>], count: usize) -> Vec<Vec<Digest>> {
    (0..count)
        .map(|i| per_alg.iter().map(|d| d[i].clone()).collect())
        .collect()
}
