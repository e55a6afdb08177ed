//! End-to-end tests of whole-tree hashing: `-r`, `-L`, `--exclude`, `--files-from`, `-0`,
//! FIFOs, unreadable directories, non-UTF-8 names and big (streamed) files.

mod common;

use std::ffi::OsStr;
use std::fs;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::Path;
use std::process::{Command, Output, Stdio};

use lanesum::{hash, Algorithm};

use common::{md5, ok, run, run_in, BIN};

/// t/{b, a/{z, y}, c.tmp, sub/{x, deep/w}} with distinct contents.
fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t");
    fs::create_dir_all(t.join("a")).unwrap();
    fs::create_dir_all(t.join("sub/deep")).unwrap();
    for name in ["b", "a/z", "a/y", "c.tmp", "sub/x", "sub/deep/w"] {
        fs::write(t.join(name), name.as_bytes()).unwrap();
    }
    dir
}

fn lines(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| {
            let content = n.strip_prefix("t/").unwrap_or(n);
            format!("{}  {n}\n", md5(content.as_bytes()))
        })
        .collect()
}

#[test]
fn recursive_order_is_sorted_per_directory() {
    let f = tree();
    let d = f.path();
    let want = lines(&[
        "t/a/y",
        "t/a/z",
        "t/b",
        "t/c.tmp",
        "t/sub/deep/w",
        "t/sub/x",
    ]);
    assert_eq!(ok(d, &["-a", "md5", "-r", "t"]), want);
    // Operands keep their order; a file operand is hashed as named.
    let want2 = format!("{}{}", lines(&["t/b"]), lines(&["t/sub/deep/w", "t/sub/x"]));
    assert_eq!(ok(d, &["-a", "md5", "-r", "t/b", "t/sub"]), want2);
    // Without -r a directory is an error, as in coreutils; other operands still hashed.
    let o = run(d, &["-a", "md5", "t", "t/b"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&o.stdout), lines(&["t/b"]));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "lanesum: t: Is a directory\n"
    );
}

#[test]
fn exclude_prunes_names_and_paths() {
    let f = tree();
    let d = f.path();
    assert_eq!(
        ok(
            d,
            &[
                "-a",
                "md5",
                "-r",
                "--exclude",
                "*.tmp",
                "--exclude",
                "deep",
                "t"
            ]
        ),
        lines(&["t/a/y", "t/a/z", "t/b", "t/sub/x"])
    );
    assert_eq!(
        ok(d, &["-a", "md5", "-r", "--exclude", "a/*", "t"]),
        lines(&["t/b", "t/c.tmp", "t/sub/deep/w", "t/sub/x"])
    );
    let o = run(d, &["-r", "--exclude", "[", "t"]);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn files_from_newline_and_nul() {
    let f = tree();
    let d = f.path();
    fs::write(d.join("list"), "t/b\nt/a/y\n").unwrap();
    assert_eq!(
        ok(d, &["-a", "md5", "--files-from", "list"]),
        lines(&["t/b", "t/a/y"])
    );
    // NUL-separated from stdin; a name with a newline is kept whole (and escaped).
    fs::write(d.join("t/new\nline"), b"nl").unwrap();
    let args: Vec<&OsStr> = ["-a", "md5", "--files-from", "-", "-0", "-r"]
        .iter()
        .map(OsStr::new)
        .collect();
    let o = run_in(d, &args, b"t/new\nline\0t/sub\0");
    assert!(o.status.success());
    assert_eq!(
        String::from_utf8(o.stdout).unwrap(),
        format!(
            "\\{}  t/new\\nline\n{}",
            md5(b"nl"),
            lines(&["t/sub/deep/w", "t/sub/x"])
        )
    );
    let o = run(d, &["--files-from", "missing"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("missing"));
    // Standard input holds the list: a `-` there or among the operands is an error (it
    // gave the digest of nothing), and the other names are hashed.
    for (recursive, list) in [(false, "-"), (true, "-"), (false, "/dev/stdin")] {
        let mut args = vec!["-a", "md5", "--files-from", list, "-"];
        if recursive {
            args.push("-r");
        }
        let args: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
        let o = run_in(d, &args, b"t/b\n-\n");
        assert_eq!(o.status.code(), Some(1));
        assert_eq!(String::from_utf8(o.stdout).unwrap(), lines(&["t/b"]));
        assert_eq!(
            String::from_utf8(o.stderr).unwrap(),
            "lanesum: -: standard input was read for --files-from\n".repeat(2)
        );
    }
}

#[test]
fn symlinks_skipped_unless_dereferenced_and_loops_reported() {
    let f = tree();
    let d = f.path();
    symlink("../a", d.join("t/sub/link")).unwrap();
    symlink("b", d.join("t/lb")).unwrap();
    let plain = lines(&[
        "t/a/y",
        "t/a/z",
        "t/b",
        "t/c.tmp",
        "t/sub/deep/w",
        "t/sub/x",
    ]);
    assert_eq!(ok(d, &["-a", "md5", "-r", "t"]), plain);
    let o = ok(d, &["-a", "md5", "-r", "-L", "t"]);
    assert_eq!(
        o,
        format!(
            "{}{}  t/lb\n{}{}  t/sub/link/y\n{}  t/sub/link/z\n{}",
            lines(&["t/a/y", "t/a/z", "t/b", "t/c.tmp"]),
            md5(b"b"),
            lines(&["t/sub/deep/w"]),
            md5(b"a/y"),
            md5(b"a/z"),
            lines(&["t/sub/x"]),
        )
    );
    // A loop: reported, exit 1, every other file still hashed, no hang.
    symlink("..", d.join("t/a/up")).unwrap();
    let o = run(d, &["-a", "md5", "-r", "-L", "t"]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("t/a/up") && err.contains("loop"), "{err}");
    assert!(String::from_utf8_lossy(&o.stdout).contains("  t/sub/x\n"));
}

/// Run as a user without privileges: root, which reads anything, runs it through
/// `setpriv` as nobody (the fixture opened up to others); `None` if it cannot.
fn run_unprivileged(dir: &Path, args: &[&str]) -> Option<Output> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Some(run(dir, args));
    }
    run_as_nobody(dir, &[], args)
}

/// Run as nobody (root only; `None` if it cannot), through the command `wrapper` if any.
fn run_as_nobody(dir: &Path, wrapper: &[&str], args: &[&str]) -> Option<Output> {
    run_as_nobody_with_stdin(dir, wrapper, args, b"")
}

/// [`run_as_nobody`], with `stdin` on standard input (a pipe).
fn run_as_nobody_with_stdin(
    dir: &Path,
    wrapper: &[&str],
    args: &[&str],
    stdin: &[u8],
) -> Option<Output> {
    fs::set_permissions(dir, fs::Permissions::from_mode(0o755)).unwrap();
    let nobody = || {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .current_dir(dir)
            .env_remove("LANESUM_ISA");
        c
    };
    // Skip where setpriv is missing, or nobody cannot run the binary or reach the
    // fixture (a checkout or temporary directory under a private home).
    let reach = nobody()
        .args(["sh", "-c", "test -x \"$0\" && test -r t/b", BIN])
        .status()
        .ok()?;
    if !reach.success() {
        return None;
    }
    let mut child = nobody()
        .args(wrapper)
        .arg(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    let mut pipe = child.stdin.take()?;
    let stdin = stdin.to_vec();
    // Written meanwhile: a pipe holds less than the input.
    let writer = std::thread::spawn(move || pipe.write_all(&stdin));
    let out = child.wait_with_output().ok()?;
    let _ = writer.join();
    Some(out)
}

/// With few threads allowed (a process limit, which counts threads), lanesum works with
/// the threads it gets (the walk and the stream reader fall back to the main thread) or
/// says it can't start: never a panic.
#[test]
fn a_thread_limit_is_an_error_or_a_fallback_never_a_panic() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return; // only root can run it as nobody, whose limit is not shared with this run
    }
    if Command::new("prlimit").arg("--version").output().is_err() {
        return;
    }
    let f = tree();
    let d = f.path();
    let args = ["-a", "md5", "-r", "t", "-"];
    // More than the stream reader's first chunk, which this thread reads itself.
    let input = common::pattern(3 << 20);
    let want = common::Run::lanesum(d).args(args).stdin(&input).ok();
    // One pool thread whatever the core count: then some limit lets the pool start but
    // not the walk's thread or the stream reader's, whose fallbacks this is about. The
    // limit counts all of nobody's threads, so which limit that is may vary.
    for n in 1..=6 {
        let limit = format!("--nproc={n}");
        let wrapper = ["env", "RAYON_NUM_THREADS=1", "prlimit", &limit];
        let Some(o) = run_as_nobody_with_stdin(d, &wrapper, &args, &input) else {
            return;
        };
        let err = String::from_utf8_lossy(&o.stderr);
        match o.status.code() {
            Some(0) => assert_eq!(String::from_utf8_lossy(&o.stdout), want, "{n}"),
            Some(1) => assert_eq!(
                err,
                "lanesum: cannot start threads: \
                Resource temporarily unavailable (os error 11)\n",
                "{n}"
            ),
            code => panic!("--nproc={n}: {code:?}: {err}"),
        }
    }
}

/// A few small files (a missing one among them) are hashed on the main thread, and no
/// pool thread is started for them: they hash where no thread can start, as md5sum's
/// do (a long pipe too: its reader thread falls back to the main thread). The same
/// limit stops a run that wants the pool (so the limit does bite).
#[test]
fn a_few_small_files_start_no_thread() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return; // as above: only root can run it as nobody
    }
    if Command::new("prlimit").arg("--version").output().is_err() {
        return;
    }
    let f = tree();
    let d = f.path();
    fs::write(d.join("t/big"), vec![7u8; 3 << 20]).unwrap();
    let one = ["prlimit", "--nproc=1"];
    let small = ["-a", "md5", "t/b", "t/a/z", "t/sub/x"];
    let Some(o) = run_as_nobody(d, &one, &small) else {
        return;
    };
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        lines(&["t/b", "t/a/z", "t/sub/x"])
    );
    let o = run_as_nobody(d, &one, &["-a", "md5", "t/b", "missing"]).unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&o.stdout), lines(&["t/b"]));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err, "lanesum: missing: No such file or directory\n");
    // Standard input redirected from a small file is one too, and so is a pipe under one
    // algorithm that never spreads over the cores (it is read and hashed on the main
    // thread whatever its length).
    let redirected = [&one[..], &["sh", "-c", "exec \"$0\" \"$@\" < t/b"]].concat();
    let o = run_as_nobody(d, &redirected, &["-a", "md5", "t/a/z", "-"]).unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let want = format!("{}{}  -\n", lines(&["t/a/z"]), md5(b"b"));
    assert_eq!(String::from_utf8_lossy(&o.stdout), want);
    let input = common::pattern(3 << 20);
    let o = run_as_nobody_with_stdin(d, &one, &["-a", "md5", "t/b", "-"], &input).unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let want = format!("{}{}  -\n", lines(&["t/b"]), md5(&input));
    assert_eq!(String::from_utf8_lossy(&o.stdout), want);
    // Standard input is streamed however big: a big file redirected to it too.
    let big_in = [&one[..], &["sh", "-c", "exec \"$0\" \"$@\" < t/big"]].concat();
    let o = run_as_nobody(d, &big_in, &["-a", "md5", "-"]).unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let want = format!("{}  -\n", md5(&fs::read(d.join("t/big")).unwrap()));
    assert_eq!(String::from_utf8_lossy(&o.stdout), want);
    // The personalities ask with what they hash: sum's BSD checksum hashes a pipe here,
    // b3sum's BLAKE3 (and several algorithms, or a big file) want the pool.
    for name in ["sum", "b3sum"] {
        symlink(BIN, d.join(name)).unwrap();
    }
    let as_named = |script: &'static str| [&one[..], &["sh", "-c", script]].concat();
    let o = run_as_nobody_with_stdin(d, &as_named("exec ./sum \"$@\""), &[], &input).unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let want = common::Run::lanesum(d).arg0("sum").stdin(&input).ok();
    assert_eq!(String::from_utf8_lossy(&o.stdout), want);
    let o = run_as_nobody_with_stdin(d, &as_named("exec ./b3sum \"$@\""), &[], b"b").unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).starts_with("Error: "));
    for (args, stdin) in [
        (&["-a", "md5,sha1", "-"][..], &b"b"[..]),
        (&["-a", "blake3", "-"], b"b"),
        (&["-a", "md5", "t/b", "t/big"], b""),
    ] {
        let o = run_as_nobody_with_stdin(d, &one, args, stdin).unwrap();
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.starts_with("lanesum: cannot start threads"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn unreadable_directory_is_reported_and_the_rest_hashed() {
    let f = tree();
    let d = f.path();
    fs::set_permissions(d.join("t/sub"), fs::Permissions::from_mode(0o000)).unwrap();
    let walked = run_unprivileged(d, &["-a", "md5", "-r", "t"]);
    // Named without -r, as coreutils says: unreadable, or else a directory.
    let named = run_unprivileged(d, &["-a", "md5", "t/sub", "t/a", "t/b"]);
    fs::set_permissions(d.join("t/sub"), fs::Permissions::from_mode(0o755)).unwrap();
    let (Some(walked), Some(named)) = (walked, named) else {
        return;
    };
    assert_eq!(walked.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&walked.stdout),
        lines(&["t/a/y", "t/a/z", "t/b", "t/c.tmp"])
    );
    assert_eq!(
        String::from_utf8_lossy(&walked.stderr),
        "lanesum: t/sub: Permission denied\n"
    );
    assert_eq!(named.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&named.stdout), lines(&["t/b"]));
    assert_eq!(
        String::from_utf8_lossy(&named.stderr),
        "lanesum: t/sub: Permission denied\nlanesum: t/a: Is a directory\n"
    );
}

#[test]
fn fifos_read_when_named_skipped_in_walks() {
    let f = tree();
    let d = f.path();
    let fifo = d.join("t/fifo");
    let c = std::ffi::CString::new(fifo.as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let writer = std::thread::spawn({
        let fifo = fifo.clone();
        move || fs::write(fifo, b"through a pipe").unwrap()
    });
    assert_eq!(
        ok(d, &["-a", "md5", "t/b", "t/fifo"]),
        format!("{}{}  t/fifo\n", lines(&["t/b"]), md5(b"through a pipe"))
    );
    writer.join().unwrap();
    // In a walk the FIFO is not opened (nothing writes to it: it would block).
    assert_eq!(
        ok(d, &["-a", "md5", "-r", "t/sub", "t"]).lines().count(),
        2 + 6
    );
}

#[test]
fn non_utf8_names_print_as_coreutils() {
    let f = tree();
    let d = f.path();
    let name = OsStr::from_bytes(b"t/sub/bad\xffname");
    fs::write(d.join(name), b"x").unwrap();
    let mut want = Vec::new();
    want.extend_from_slice(format!("{}  ", md5(b"x")).as_bytes());
    want.extend_from_slice(b"t/sub/bad\xffname\n");
    want.extend_from_slice(lines(&["t/sub/deep/w", "t/sub/x"]).as_bytes());
    let o = run(d, &["-a", "md5", "-r", "t/sub"]);
    assert!(o.status.success());
    assert_eq!(o.stdout, want);
}

#[test]
fn big_files_streamed_match_the_library() {
    let f = tempfile::tempdir().unwrap();
    let d = f.path();
    fs::create_dir(d.join("big")).unwrap();
    // Over the 1 MiB window limit: three streamed side by side, plus a small one between.
    let mut all = Vec::new();
    for (i, n) in [
        (0u8, 3 << 20),
        (1, (1 << 20) + 1),
        (2, 100),
        (3, (5 << 20) + 77),
    ] {
        let data: Vec<u8> = (0..n)
            .map(|j: usize| (j * 31 + j / 977) as u8 ^ i)
            .collect();
        fs::write(d.join(format!("big/f{i}")), &data).unwrap();
        all.push(data);
    }
    let algs = [
        Algorithm::Md5,
        Algorithm::Sha1,
        Algorithm::Sha256,
        Algorithm::Sha512,
        Algorithm::Blake3(32),
    ];
    let out = ok(d, &["-a", "md5,sha1,sha256,sha512,blake3", "-r", "big"]);
    let mut want = String::new();
    for (i, data) in all.iter().enumerate() {
        for a in algs {
            want.push_str(&format!(
                "{} (big/f{i}) = {}\n",
                a.tag(),
                hash(a, data).to_hex()
            ));
        }
    }
    assert_eq!(out, want);
    // One algorithm, and the lone-file path; and checkable by -c.
    let one = ok(d, &["-a", "sha256", "big/f3"]);
    assert_eq!(
        one,
        format!("{}  big/f3\n", hash(Algorithm::Sha256, &all[3]).to_hex())
    );
    fs::write(d.join("sums"), &out).unwrap();
    assert_eq!(ok(d, &["-c", "--quiet", "sums"]), "");
}

#[test]
fn json_and_check_usage() {
    let f = tree();
    let d = f.path();
    let o = ok(d, &["-a", "md5", "-r", "--json", "t/sub"]);
    assert_eq!(o.lines().count(), 2);
    assert!(o.starts_with("{\"path\":\"t/sub/deep/w\",\"size\":10,\"md5\":"));
    let o = run(d, &["-c", "-r", "t"]);
    assert_eq!(o.status.code(), Some(1));
    // --progress on a pipe still draws on stderr only.
    let o = run(d, &["-a", "md5", "-r", "--progress", "t"]);
    assert!(o.status.success());
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        lines(&[
            "t/a/y",
            "t/a/z",
            "t/b",
            "t/c.tmp",
            "t/sub/deep/w",
            "t/sub/x"
        ])
    );
}
