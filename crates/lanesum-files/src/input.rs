//! What there is to hash: standard input or a path, and the jobs the pipeline takes.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io;
use std::os::fd::AsFd;

/// Something to hash: standard input (the operand `-`) or a path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// Standard input, read through a duplicate of descriptor 0 ([`stdin_file`]).
    Stdin,
    /// A file system path, opened when its turn comes.
    Path(OsString),
}

impl Input {
    /// `-` means standard input, as for every *sum tool.
    pub fn from_operand(op: &OsStr) -> Input {
        if op == "-" {
            Input::Stdin
        } else {
            Input::Path(op.to_os_string())
        }
    }

    /// The input's file: for standard input a duplicate of descriptor 0 ([`stdin_file`]).
    pub fn open(&self) -> io::Result<File> {
        match self {
            Input::Stdin => stdin_file(),
            Input::Path(p) => File::open(p),
        }
    }
}

/// Open the file an operand names, `-` being standard input (check files, name lists).
pub fn open_operand(op: &OsStr) -> io::Result<File> {
    Input::from_operand(op).open()
}

/// Standard input as a file of its own (a duplicate of descriptor 0). The standard
/// library's `Stdin` takes the error EBADF (descriptor 0 open for writing only) for the
/// end of input, which would give the digest of nothing where coreutils says "Bad file
/// descriptor". Every reader of standard input uses this, so none of its bytes wait in
/// `Stdin`'s buffer where another would miss them.
pub fn stdin_file() -> io::Result<File> {
    Ok(File::from(io::stdin().as_fd().try_clone_to_owned()?))
}

/// One thing to report: the name it is printed under, and what to hash, or the error met
/// while finding it (a directory the walk could not read, a symlink loop).
#[derive(Debug)]
pub struct Job {
    /// The name results are reported under: the operand as given, or the path found.
    pub name: OsString,
    /// What to hash, or why there is nothing to hash (reported in the job's place).
    pub input: io::Result<Input>,
    /// A directory walk saw a regular file here: open it at once, without a stat first.
    pub(crate) found_regular: bool,
}

impl Job {
    /// A job hashing `input` under `name`, or reporting the error in its place.
    pub fn new(name: OsString, input: io::Result<Input>) -> Job {
        Job {
            name,
            input,
            found_regular: false,
        }
    }

    /// The job of an operand hashed as named (`-`: standard input).
    pub fn operand(op: OsString) -> Job {
        let input = Ok(Input::from_operand(&op));
        Job::new(op, input)
    }
}
