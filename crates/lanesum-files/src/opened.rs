//! Opening one job: open and fstat, and what kind of input it turned out to be.

use std::fs::File;
use std::io;
use std::os::unix::fs::OpenOptionsExt;

use crate::input::Input;

/// Regular files up to this size are read whole and hashed in lanes with others.
pub(crate) const SMALL_MAX: u64 = 1 << 20;

/// A job after open and fstat.
pub(crate) enum Opened {
    Failed(io::Error),
    /// A regular file of at most `SMALL_MAX` bytes (its size when stat'ed).
    Small(File, u64),
    /// A larger regular file.
    Big(File),
    /// Standard input or a path that is not a regular file: opened (a FIFO may block
    /// until a writer comes) and read when its turn comes.
    Stream(Input),
}

/// Open and stat one job. An operand is stat'ed first and opened only if it is a regular
/// file: opening a FIFO would block, or (without blocking) connect to its writer and lose
/// what it wrote; anything else is opened when its turn comes. A file the walk found is
/// opened at once (one path lookup fewer per file), without blocking in case it was
/// replaced by a FIFO meanwhile.
pub(crate) fn open(input: io::Result<Input>, found_regular: bool) -> Opened {
    let p = match input {
        Err(e) => return Opened::Failed(e),
        Ok(Input::Stdin) => return Opened::Stream(Input::Stdin),
        Ok(Input::Path(p)) => p,
    };
    let opened = if found_regular {
        File::options()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&p)
            .and_then(|f| Ok((f.metadata()?, Some(f))))
    } else {
        std::fs::metadata(&p).map(|m| (m, None))
    };
    let (m, f) = match opened {
        Ok(v) => v,
        Err(e) => return Opened::Failed(e),
    };
    if m.is_dir() {
        // As coreutils, which opens it and fails to read it: an unreadable directory
        // is "Permission denied".
        return Opened::Failed(match File::open(&p) {
            Err(e) => e,
            Ok(_) => io::Error::from_raw_os_error(libc::EISDIR),
        });
    }
    if !m.is_file() {
        if f.is_some() {
            return Opened::Failed(io::Error::other("no longer a regular file"));
        }
        return Opened::Stream(Input::Path(p));
    }
    // The size may change before or while the file is read; small_run and big_run read
    // to the end whatever it is.
    let f = match f {
        Some(f) => f,
        None => match File::open(&p) {
            Ok(f) => f,
            Err(e) => return Opened::Failed(e),
        },
    };
    if m.len() <= SMALL_MAX {
        Opened::Small(f, m.len())
    } else {
        Opened::Big(f)
    }
}
