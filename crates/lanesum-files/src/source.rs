//! Whole inputs, for modes that need all of a file at once (S3 ETags, per-block digests,
//! torrent pieces, BLAKE3's keyed modes): a regular file whole, anything else a reader.

use std::fmt;
use std::fs::File;
use std::io::{self, Read};

use crate::input::Input;
use crate::mapped;
use crate::options::Options;

/// A whole input in memory: read, or mapped when it is a large regular file (kept with
/// the file, to see whether it shrank). Derefs to its bytes.
#[derive(Debug)]
pub struct Contents(Held);

#[derive(Debug)]
enum Held {
    Mapped(memmap2::Mmap, File),
    Read(Vec<u8>),
}

impl Contents {
    /// Whether a mapped file now ends before `end`. Pages past a truncation fault (SIGBUS,
    /// see [`open_source`]), but the bytes past the new end within its last page read as
    /// zeros without a fault: only the size tells. Asked after those bytes were hashed.
    pub fn shrank_below(&self, end: usize) -> bool {
        match &self.0 {
            Held::Mapped(_, f) => mapped::ends_before(f, end as u64),
            Held::Read(_) => false,
        }
    }

    /// Whether the bytes are a map of the file rather than a copy read from it.
    pub fn is_mapped(&self) -> bool {
        matches!(self.0, Held::Mapped(..))
    }
}

impl std::ops::Deref for Contents {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match &self.0 {
            Held::Read(v) => v,
            Held::Mapped(m, _) => m,
        }
    }
}

/// Regular files at least this large are mapped by [`open_source`].
const MMAP_MIN: u64 = 16 << 20;

/// An input for the modes that work on whole inputs (`--etag`, `--blocks`,
/// `--torrent-pieces`, b3sum's keyed modes): a regular file whole (mapped when large),
/// anything else (standard input, FIFOs, devices, large files that may not be mapped)
/// as a reader to take a chunk at a time, in bounded memory.
pub enum Source {
    /// A regular file, all of it.
    Whole(Contents),
    /// Everything else, to be read to its end.
    Stream(Box<dyn Read + Send>),
}

impl fmt::Debug for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Whole(c) => f.debug_tuple("Whole").field(c).finish(),
            Source::Stream(_) => f.write_str("Stream(..)"),
        }
    }
}

/// Open `input` for the whole-input modes. Large files are mapped where `opts` and the
/// program allow it ([`Options::mmap`]), else streamed.
///
/// A file truncated under such a map is not survived as the pipeline's windows are: the
/// handler installed by [`install_sigbus_handler`](crate::install_sigbus_handler) prints
/// its message and ends the process with status 1.
pub fn open_source(input: &Input, opts: &Options) -> io::Result<Source> {
    open_source_with(input, opts.mmap && mapped::handler_installed())
}

fn open_source_with(input: &Input, may_map: bool) -> io::Result<Source> {
    let mut f = input.open()?;
    if *input == Input::Stdin {
        return Ok(Source::Stream(Box::new(f)));
    }
    let m = f.metadata()?;
    if !m.is_file() {
        return Ok(Source::Stream(Box::new(f)));
    }
    if m.len() >= MMAP_MIN {
        if let (true, Ok(len)) = (may_map, usize::try_from(m.len())) {
            if let Some(map) = mapped::map_whole(&f, len) {
                return Ok(Source::Whole(Contents(Held::Mapped(map, f))));
            }
        }
        // Not mapped: read a chunk at a time rather than all of it into memory.
        return Ok(Source::Stream(Box::new(f)));
    }
    let mut v = Vec::new();
    f.read_to_end(&mut v)?;
    Ok(Source::Whole(Contents(Held::Read(v))))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A large file is mapped, or streamed where it may not be (it was read whole).
    #[test]
    fn large_files_map_or_stream() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sparse");
        File::create(&path).unwrap().set_len(MMAP_MIN).unwrap();
        let input = Input::Path(path.into_os_string());
        assert!(matches!(
            open_source_with(&input, true).unwrap(),
            Source::Whole(c) if c.is_mapped()
        ));
        assert!(matches!(
            open_source_with(&input, false).unwrap(),
            Source::Stream(_)
        ));
    }
}
