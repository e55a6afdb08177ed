//! Hash files and trees with lanesum's SIMD lanes, in bounded memory, results in order.
//!
//! The file pipeline of the `lanesum` command, as a library that the command, a Python
//! package and a C ABI share:
//!
//! ```no_run
//! use lanesum::Algorithm;
//! use lanesum_files::{hash_paths, Options};
//!
//! let opts = Options { recursive: true, ..Default::default() };
//! // Err only for bad options (a bad exclude glob).
//! for f in hash_paths(["dir", "a.txt"], &[Algorithm::Sha256], &opts)? {
//!     match f.result {
//!         Ok(h) => println!("{} {:?} {}", h.digests[0].to_hex(), f.path, h.size),
//!         Err(e) => eprintln!("{:?}: {e}", f.path),
//!     }
//! }
//! # Ok::<(), lanesum_files::ExcludeError>(())
//! ```
//!
//! Results come in input order (a walk's files sorted by name in each directory), one per
//! file, each with its own error: one bad file never stops the others. Underneath, on
//! every thread of a rayon pool (the caller's, or one of [`Options::threads`] threads):
//! * small files are opened, read and hashed together in lanes (`lanesum::hash_many`) by
//!   each thread for its own runs of a window, big ones streamed side by side
//!   (`lanesum::StreamBatch`) by one worker per thread, a mapped window at a time; a
//!   lone big file of BLAKE3, CRCs or XXH3 is read by every thread at once, a window of
//!   1 MiB per thread (at least 8 MiB) at a time;
//! * memory grows with the work and at most linearly with the threads: per thread a
//!   buffer of at most 8 MiB of small files (as large as its files need: a 3-byte file
//!   takes 4 bytes), 256 MiB of big files mapped and at most 64 MiB of big-file read
//!   buffers (only where maps are refused), a lone big file's window, 32,768 results
//!   held back at once, at most
//!   8,192 jobs per window and 256 big files open, fewer under a lower `ulimit -n`; a
//!   buffer that can't be allocated is an error ([`std::io::ErrorKind::OutOfMemory`]) on
//!   the file that needed it, never an abort;
//! * standard input (the operand `-`), FIFOs and devices are streamed as they come.
//!
//! Programs (not libraries) make two calls first thing, before any thread starts:
//! [`install_sigbus_handler`], without which no file is ever mapped (so that a file
//! truncated by another process can't kill the caller with SIGBUS), and
//! [`reserve_descriptors`], which raises the limit on open files and grows the descriptor
//! table while that is cheap. Neither is made behind the caller's back.
//!
//! The lower-level pieces the command uses are public too: [`jobs`] (operands to
//! [`Job`]s, walking directories, with [`Found`] counters for a progress bar),
//! [`hash_jobs`] and [`hash_inputs`] (the pipeline), [`hash_reader`] (one stream),
//! [`open_source`] (whole inputs for per-block modes, with [`read_chunk`] and
//! [`within_address_space`] to size what they read), [`read_list`] (`--files-from`),
//! and [`manifest`]: the lines of checksum files (`sha256sum -c`'s), which the command's
//! `--check` and the language bindings' `check` read alike.

#![deny(unsafe_code)]
#![deny(clippy::undocumented_unsafe_blocks)]
#![warn(missing_docs)]
#![warn(missing_debug_implementations)]

mod bigs;
#[allow(unsafe_code)]
mod fds;
mod hashed;
mod input;
mod lone;
pub mod manifest;
#[allow(unsafe_code)]
mod mapped;
mod memory;
mod opened;
mod options;
mod pipeline;
mod smalls;
mod source;
mod stream;
mod walk;

use std::ffi::OsString;

use lanesum::Algorithm;

pub use hashed::{by_input, Hashed, HashedFile};
pub use input::{open_operand, stdin_file, Input, Job};
pub use mapped::install_sigbus_handler;
pub use memory::within_address_space;
pub use options::{most_threads, Options};
pub use pipeline::{hash_inputs, hash_jobs, hashes_on_caller, reserve_descriptors, Pipeline};
pub use source::{open_source, Contents, Source};
pub use stream::{hash_reader, read_chunk, read_full, CHUNK};
pub use walk::{jobs, read_list, reads_stdin, ExcludeError, Excludes, Found, Jobs};

/// Hash `paths` (files, `-` for standard input unless [`Options::dash_is_stdin`] is
/// off, and with [`Options::recursive`] the regular files below directories) under every
/// algorithm of `algs`.
///
/// Returns an iterator of one [`HashedFile`] per file, in order; each carries its own
/// error. `Err` only for bad options: an exclude pattern that is not a glob.
pub fn hash_paths<P: Into<OsString>>(
    paths: impl IntoIterator<Item = P>,
    algs: &[Algorithm],
    opts: &Options,
) -> Result<Pipeline<Jobs>, ExcludeError> {
    let jobs = walk::jobs(paths.into_iter().map(Into::into).collect(), opts)?;
    Ok(pipeline::hash_jobs(jobs, algs, opts))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;
    use std::fs;
    use std::io;

    fn opts() -> Options {
        install_sigbus_handler(mapped::tests::TEST_MESSAGE);
        Options::default()
    }

    /// A tree, a file beside it, a missing file and an excluded one: results in order,
    /// each file's digests those of `lanesum::hash`.
    #[test]
    fn hash_paths_walks_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("t/sub/deep")).unwrap();
        fs::create_dir_all(root.join("t/skipped")).unwrap();
        let files: [(&str, Vec<u8>); 7] = [
            ("t/b", b"bee".to_vec()),
            ("t/a", vec![]),
            ("t/sub/c.txt", vec![7; 3 << 20]),
            ("t/sub/deep/d", b"dee".to_vec()),
            ("t/sub/e.tmp", b"excluded".to_vec()),
            ("t/skipped/f", b"excluded too".to_vec()),
            ("a.txt", b"hello\n".to_vec()),
        ];
        for (name, data) in &files {
            fs::write(root.join(name), data).unwrap();
        }
        let p = |name: &str| root.join(name).into_os_string();
        let opts = Options {
            recursive: true,
            excludes: vec!["*.tmp".into(), "skipped".into()],
            ..opts()
        };
        let algs = [Algorithm::Sha256, Algorithm::Md5, Algorithm::Blake3(32)];
        let got: Vec<HashedFile> = hash_paths([p("t"), p("missing"), p("a.txt")], &algs, &opts)
            .unwrap()
            .collect();
        let want = [
            ("t/a", Some(1)),
            ("t/b", Some(0)),
            ("t/sub/c.txt", Some(2)),
            ("t/sub/deep/d", Some(3)),
            ("missing", None),
            ("a.txt", Some(6)),
        ];
        assert_eq!(got.len(), want.len(), "{got:?}");
        for (f, (name, data)) in got.iter().zip(want) {
            assert_eq!(f.path, p(name));
            match data {
                None => {
                    let e = f.result.as_ref().unwrap_err();
                    assert_eq!(e.kind(), io::ErrorKind::NotFound, "{name}");
                }
                Some(i) => {
                    let h = f.result.as_ref().unwrap();
                    let data = &files[i].1;
                    assert_eq!(h.size, data.len() as u64, "{name}");
                    for (d, &a) in h.digests.iter().zip(&algs) {
                        assert_eq!(*d, lanesum::hash(a, data), "{a} of {name}");
                    }
                }
            }
        }
    }

    /// Without `recursive` a directory operand is an error in its place, and the files
    /// around it are still hashed.
    #[test]
    fn hash_paths_refuses_directories_without_recursion() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("x"), b"x").unwrap();
        let x = dir.path().join("x");
        let paths = [x.as_os_str(), dir.path().as_os_str(), x.as_os_str()];
        let got: Vec<HashedFile> = hash_paths(paths, &[Algorithm::Sha1], &opts())
            .unwrap()
            .collect();
        assert_eq!(got.len(), 3);
        assert_eq!(got[1].path, dir.path().as_os_str());
        let e = got[1].result.as_ref().unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::EISDIR));
        for f in [&got[0], &got[2]] {
            let h = f.result.as_ref().unwrap();
            assert_eq!(h.digests, [lanesum::hash(Algorithm::Sha1, b"x")]);
        }
    }

    /// Without `dash_is_stdin`, `-` is the file of that name (as a file or as a directory
    /// walked), never standard input.
    #[test]
    fn dash_is_a_file_when_asked() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("-"), b"dash").unwrap();
        fs::create_dir(dir.path().join("d")).unwrap();
        fs::create_dir(dir.path().join("d/-")).unwrap();
        fs::write(dir.path().join("d/-/f"), b"f").unwrap();
        for recursive in [false, true] {
            let opts = Options {
                dash_is_stdin: false,
                recursive,
                ..opts()
            };
            let jobs = walk::jobs(vec!["-".into()], &opts).unwrap();
            let inputs: Vec<Input> = jobs.map(|j| j.input.unwrap()).collect();
            assert_eq!(inputs, [Input::Path("-".into())], "recursive {recursive}");
        }
        let opts = Options {
            dash_is_stdin: false,
            recursive: true,
            ..opts()
        };
        let p = dir.path().join("-");
        let got: Vec<HashedFile> =
            hash_paths([&p, &dir.path().join("d")], &[Algorithm::Md5], &opts)
                .unwrap()
                .collect();
        assert_eq!(got.len(), 2);
        assert_eq!(
            got[0].result.as_ref().unwrap().digests,
            [lanesum::hash(Algorithm::Md5, b"dash")]
        );
        assert_eq!(got[1].path, dir.path().join("d/-/f").into_os_string());
    }

    /// A bad glob is the one error before anything is read; no algorithm gives sizes.
    #[test]
    fn bad_excludes_and_no_algorithms() {
        let opts = Options {
            recursive: true,
            excludes: vec!["ok".into(), "[".into()],
            ..opts()
        };
        let e = hash_paths(["."], &[Algorithm::Md5], &opts).unwrap_err();
        assert_eq!(e.pattern(), Some("["));
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("big");
        fs::write(&big, vec![1u8; 5 << 20]).unwrap();
        let small = dir.path().join("small");
        fs::write(&small, b"abc").unwrap();
        let got: Vec<HashedFile> = hash_paths([&big, &small], &[], &Options::default())
            .unwrap()
            .collect();
        let sizes: Vec<u64> = got
            .iter()
            .map(|f| f.result.as_ref().unwrap().size)
            .collect();
        assert_eq!(sizes, [5 << 20, 3]);
        assert!(got
            .iter()
            .all(|f| f.result.as_ref().unwrap().digests.is_empty()));
        assert_eq!(got[1].path, OsStr::new(&small));
    }
}
