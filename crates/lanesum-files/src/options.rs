//! How inputs are found and read: the one options type every entry point takes.

/// How operands are expanded into files and how files are read.
///
/// Plain data, so that a command line, a Python call or a C struct can fill it. The
/// default hashes each operand as named and maps big files where it is safe to (see
/// [`mmap`](Options::mmap)).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Walk directory operands and hash the regular files below them (`-r`), sorted by
    /// name in each directory. Without it a directory operand is an error ("Is a
    /// directory"), as for the *sum tools.
    pub recursive: bool,
    /// Follow symbolic links met in a walk (`-L`; loops are reported). Without it they
    /// are skipped. Operands named explicitly are always followed.
    pub follow_links: bool,
    /// Don't descend into directories on other file systems than their operand's (`-x`).
    pub one_file_system: bool,
    /// Glob patterns (`--exclude`): a walked entry whose name, or path below its operand,
    /// matches one is skipped, a directory with everything below it. `*` does not cross
    /// `/`; `\` escapes.
    pub excludes: Vec<String>,
    /// An operand `-` is standard input, as for every *sum tool. Default: true. Callers
    /// whose paths are only paths (the Python package) set it false: `-` is then the
    /// file named `-`, as `open("-")` would read.
    pub dash_is_stdin: bool,
    /// Standard input has been read already (it held a list of names): an operand `-`
    /// is then an error rather than the digest of what is left of it.
    pub stdin_consumed: bool,
    /// Map big files rather than copy them through read() (BLAKE3 on a 1 GiB file: 0.27 s
    /// mapped against 0.36 s read on 2 cores). Maps are used only once the program has
    /// called [`install_sigbus_handler`](crate::install_sigbus_handler), which turns a
    /// file truncated under a map into an error rather than a crash; without it files are
    /// always read. Default: true.
    pub mmap: bool,
    /// Threads that hash: 0 (the default) runs on the rayon pool the pipeline is driven
    /// from (the global pool unless the caller `install`ed another; rayon sizes the
    /// global one from `RAYON_NUM_THREADS` or `std::thread::available_parallelism`, which
    /// honours the CPU affinity mask and the cgroup CPU quota); N > 0 starts a pool of N
    /// threads of the pipeline's own, kept as long as the pipeline, at most
    /// [`most_threads`].
    pub threads: usize,
}

/// The most threads a pipeline's own pool starts ([`Options::threads`] asks for more in
/// vain): 256, or twice the CPUs this process may use where that is more. More threads
/// than that only wait on one another: rayon's start-up grows with the square of the
/// threads (one 3-byte file took 0.03 s on 256 threads, 1.0 s on 1,024, 9 s on 3,000),
/// and threads beyond the CPUs overlap nothing but slow reads.
pub fn most_threads() -> usize {
    let cpus = std::thread::available_parallelism().map_or(1, usize::from);
    256.max(2 * cpus)
}

impl Default for Options {
    fn default() -> Options {
        Options {
            recursive: false,
            follow_links: false,
            one_file_system: false,
            excludes: Vec::new(),
            dash_is_stdin: true,
            stdin_consumed: false,
            mmap: true,
            threads: 0,
        }
    }
}
