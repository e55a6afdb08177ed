//! Turning operands into jobs: `-r` directory walks, `--exclude`, `--files-from`.
//!
//! Without `-r` every operand is one job, whatever it is (a directory then fails with
//! "Is a directory", as in coreutils). With `-r` a directory operand is walked with
//! `walkdir` on a helper thread, entries sorted by name in each directory, so the output
//! order depends only on the tree, never on thread timing. The walk hands jobs over a
//! bounded channel: memory stays bounded however large the tree, and hashing starts at
//! once. (Where no thread can be started, a process limit, each operand is walked whole
//! when its turn comes, its jobs held at once.) In a walk only regular files are hashed:
//! symlinks are skipped unless `-L` (then followed, loops reported), FIFOs, sockets and
//! devices are skipped (they are read only when named explicitly). Errors (unreadable
//! directories, loops) become jobs in their place, so they are reported in order and make
//! the exit status 1.

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::io::{self, Read};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::sync_channel;
use std::sync::Arc;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use walkdir::WalkDir;

use crate::input::{open_operand, stdin_file, Input, Job};
use crate::options::Options;

/// How many jobs a walk has produced so far, and whether it is over: progress counters,
/// read while the jobs are hashed on another thread.
#[derive(Debug, Default)]
pub struct Found {
    jobs: AtomicU64,
    complete: AtomicBool,
}

impl Found {
    /// Jobs produced so far.
    pub fn jobs(&self) -> u64 {
        self.jobs.load(Ordering::Relaxed)
    }

    /// Whether every job has been produced, so that [`jobs`](Found::jobs) is the total.
    pub fn complete(&self) -> bool {
        self.complete.load(Ordering::Relaxed)
    }
}

/// A bad [`Options::excludes`] pattern: the one options error.
#[derive(Debug)]
pub struct ExcludeError {
    pattern: Option<String>,
    reason: String,
}

impl ExcludeError {
    /// The pattern refused, if one alone was at fault.
    pub fn pattern(&self) -> Option<&str> {
        self.pattern.as_deref()
    }

    /// Why: the glob compiler's words.
    pub fn reason(&self) -> &str {
        &self.reason
    }
}

impl fmt::Display for ExcludeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.pattern {
            Some(p) => write!(f, "invalid exclude pattern {p:?}: {}", self.reason),
            None => f.write_str(&self.reason),
        }
    }
}

impl std::error::Error for ExcludeError {}

/// The jobs of a list of operands, in order: an iterator of [`Job`]s, produced on a
/// helper thread when directories are walked. See [`jobs`].
pub struct Jobs {
    iter: Box<dyn Iterator<Item = Job> + Send>,
    found: Arc<Found>,
}

impl Jobs {
    /// The counters of the jobs produced so far, for a progress display.
    pub fn found(&self) -> Arc<Found> {
        self.found.clone()
    }
}

impl Iterator for Jobs {
    type Item = Job;
    fn next(&mut self) -> Option<Job> {
        self.iter.next()
    }
}

impl fmt::Debug for Jobs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Jobs")
            .field("found", &self.found)
            .finish_non_exhaustive()
    }
}

/// Jobs sent ahead of the hashing: enough to keep the pipeline fed, bounded memory.
const AHEAD: usize = 16 * 1024;

/// Compile the exclude patterns; `Err` names the bad one.
fn exclude_set(patterns: &[String]) -> Result<GlobSet, ExcludeError> {
    let mut b = GlobSetBuilder::new();
    for p in patterns {
        let g = GlobBuilder::new(p)
            .literal_separator(true)
            .backslash_escape(true)
            .build()
            .map_err(|e| ExcludeError {
                pattern: Some(p.clone()),
                reason: e.kind().to_string(),
            })?;
        b.add(g);
    }
    b.build().map_err(|e| ExcludeError {
        pattern: None,
        reason: e.to_string(),
    })
}

/// The jobs for `operands`, in order: each operand as named, or with
/// [`Options::recursive`] a directory's regular files (see the module's rules). `Err` only
/// for a bad exclude pattern, before anything is read.
pub fn jobs(operands: Vec<OsString>, opts: &Options) -> Result<Jobs, ExcludeError> {
    let excludes = Excludes::new(&opts.excludes)?;
    let found = Arc::new(Found::default());
    let iter = walk(operands, opts, excludes, found.clone());
    Ok(Jobs { iter, found })
}

/// The jobs for `operands`, in order. `found` counts them as they are produced.
fn walk(
    operands: Vec<OsString>,
    opts: &Options,
    excludes: Excludes,
    found: Arc<Found>,
) -> Box<dyn Iterator<Item = Job> + Send> {
    if !opts.recursive {
        found.jobs.store(operands.len() as u64, Ordering::Relaxed);
        found.complete.store(true, Ordering::Relaxed);
        let opts = opts.clone();
        return Box::new(operands.into_iter().map(move |op| operand_job(op, &opts)));
    }
    let (tx, rx) = sync_channel::<Job>(AHEAD);
    let opts = opts.clone();
    // The walk's inputs go to its thread once it has started, so that they are still
    // here, not copied, if it can't start.
    let (start, started) = std::sync::mpsc::channel::<(Vec<OsString>, Options, Excludes)>();
    let counts = found.clone();
    let walker = move || {
        let Ok((operands, opts, excludes)) = started.recv() else {
            return;
        };
        let send = |job: Job| {
            counts.jobs.fetch_add(1, Ordering::Relaxed);
            tx.send(job).is_ok()
        };
        for op in operands {
            if !walk_operand(op, &opts, &excludes, &send) {
                return;
            }
        }
        counts.complete.store(true, Ordering::Relaxed);
    };
    if std::thread::Builder::new().spawn(walker).is_ok() {
        let _ = start.send((operands, opts, excludes));
        return Box::new(rx.into_iter());
    }
    // No thread to spare (a process limit): walk each operand when the jobs before it
    // are taken, holding its jobs at once.
    let done = found.clone();
    let walked = operands.into_iter().flat_map(move |op| {
        let jobs = std::cell::RefCell::new(Vec::new());
        walk_operand(op, &opts, &excludes, &|job| {
            found.jobs.fetch_add(1, Ordering::Relaxed);
            jobs.borrow_mut().push(job);
            true
        });
        jobs.into_inner()
    });
    Box::new(walked.chain(std::iter::from_fn(move || {
        done.complete.store(true, Ordering::Relaxed);
        None
    })))
}

/// The job of an operand hashed as named.
fn operand_job(op: OsString, opts: &Options) -> Job {
    if !opts.dash_is_stdin {
        let path = Input::Path(op.clone());
        return Job::new(op, Ok(path));
    }
    if opts.stdin_consumed && op == "-" {
        // The command's words: --files-from is what reads standard input first.
        let err = io::Error::other("standard input was read for --files-from");
        return Job::new(op, Err(err));
    }
    Job::operand(op)
}

/// Send the jobs of one operand; false once the receiver is gone.
fn walk_operand(
    op: OsString,
    opts: &Options,
    excludes: &Excludes,
    send: &dyn Fn(Job) -> bool,
) -> bool {
    // Anything but a directory is hashed as named, as without -r.
    if (op == "-" && opts.dash_is_stdin) || !std::fs::metadata(&op).is_ok_and(|m| m.is_dir()) {
        return send(operand_job(op, opts));
    }
    let root_len = op.len();
    let walker = WalkDir::new(&op)
        .follow_links(opts.follow_links)
        .same_file_system(opts.one_file_system)
        // By name, compared as the whole paths' bytes: siblings share their parent's path,
        // so that is the same order, without parsing each path for its last component at
        // every comparison (walkdir's `sort_by_file_name`, ~8% of `-r` over 100,000 tiny
        // files).
        .sort_by(|a, b| {
            a.path()
                .as_os_str()
                .as_bytes()
                .cmp(b.path().as_os_str().as_bytes())
        })
        .into_iter()
        .filter_entry(|e| {
            e.depth() == 0 || !excluded(excludes, e.file_name(), e.path().as_os_str(), root_len)
        });
    for entry in walker {
        let job = match entry {
            Ok(e) if e.file_type().is_file() => {
                let p = e.into_path().into_os_string();
                Job {
                    input: Ok(Input::Path(p.clone())),
                    name: p,
                    found_regular: true,
                }
            }
            // Directories, unfollowed symlinks, FIFOs, sockets, devices.
            Ok(_) => continue,
            Err(e) => {
                let name = e
                    .path()
                    .map(|p| p.as_os_str().to_os_string())
                    .unwrap_or_else(|| op.clone());
                let err = match e.loop_ancestor() {
                    Some(a) => io::Error::other(format!(
                        "File system loop detected: it leads back to {}",
                        a.display()
                    )),
                    None => e
                        .into_io_error()
                        .unwrap_or_else(|| io::Error::other("walk error")),
                };
                Job::new(name, Err(err))
            }
        };
        if !send(job) {
            return false;
        }
    }
    true
}

/// Whether an entry is excluded: its name matches, or its path below the operand does.
fn excluded(set: &Excludes, name: &OsStr, path: &OsStr, root_len: usize) -> bool {
    let rel = path.as_bytes().get(root_len..).unwrap_or_default();
    let rel = rel.strip_prefix(b"/").unwrap_or(rel);
    set.matches(name, OsStr::from_bytes(rel))
}

/// [`Options::excludes`] compiled, for a caller that lists directories itself and must
/// skip what the walk would (the Python package's listing for Spark and Ray, which
/// hands the deeper directories to the walk): the same globs, the same rules.
#[derive(Clone, Debug)]
pub struct Excludes(GlobSet);

impl Excludes {
    /// Compile `patterns`; `Err` names the bad one.
    pub fn new(patterns: &[String]) -> Result<Excludes, ExcludeError> {
        exclude_set(patterns).map(Excludes)
    }

    /// Whether the entry `name`, at `rel` below its walk's operand (no leading `/`), is
    /// skipped, with everything below it.
    pub fn matches(&self, name: &OsStr, rel: &OsStr) -> bool {
        !self.0.is_empty() && (self.0.is_match(name) || self.0.is_match(rel))
    }
}

/// Read the names listed in `file` (`-`: standard input), one per line, or NUL-separated
/// with `nul` (`--files-from`). Empty names are skipped.
pub fn read_list(file: &OsStr, nul: bool) -> io::Result<Vec<OsString>> {
    let mut data = Vec::new();
    open_operand(file)?.read_to_end(&mut data)?;
    let sep = if nul { 0 } else { b'\n' };
    Ok(data
        .split(|&b| b == sep)
        .filter(|n| !n.is_empty())
        .map(|n| OsString::from_vec(n.to_vec()))
        .collect())
}

/// Whether reading the list `file` takes standard input's bytes, so that an operand `-`
/// can no longer be hashed ([`Options::stdin_consumed`]): it is `-`, or it names the pipe,
/// socket or device open as standard input (`/dev/stdin`, `/dev/fd/0`). A regular file
/// opened by name is read from its start, leaving standard input as it was.
pub fn reads_stdin(file: &OsStr) -> bool {
    use std::os::unix::fs::MetadataExt;
    if file == "-" {
        return true;
    }
    let stdin = stdin_file().and_then(|f| f.metadata());
    match (std::fs::metadata(file), stdin) {
        (Ok(named), Ok(stdin)) => {
            !stdin.is_file() && named.dev() == stdin.dev() && named.ino() == stdin.ino()
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excludes_match_names_and_relative_paths() {
        let set = Excludes::new(&["*.tmp".into(), "sub/skip".into()]).unwrap();
        let m = |name: &str, path: &str| {
            excluded(&set, OsStr::new(name), OsStr::new(path), "root".len())
        };
        assert!(m("a.tmp", "root/x/a.tmp"));
        assert!(m("skip", "root/sub/skip"));
        assert!(!m("skip", "root/other/skip"));
        assert!(!m("a.txt", "root/a.txt"));
        assert!(exclude_set(&["[".into()]).is_err());
    }

    #[test]
    fn lists_split_on_newline_or_nul() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("list");
        std::fs::write(&p, b"a\nb c\n\nd").unwrap();
        assert_eq!(read_list(p.as_os_str(), false).unwrap(), ["a", "b c", "d"]);
        std::fs::write(&p, b"a\nb\0c\0").unwrap();
        assert_eq!(read_list(p.as_os_str(), true).unwrap(), ["a\nb", "c"]);
    }
}
