//! The pipeline on many threads and in little memory: `-j`, results in order whatever
//! the pool, and address-space limits that give a digest or a clear error, never an
//! abort.

mod common;

use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use lanesum::{hash, Algorithm};

use common::{md5, ok, run, BIN};

/// Small files, big ones (streamed side by side) and a missing one, in one tree.
fn mixed_tree(root: &Path) -> Vec<(String, Option<Vec<u8>>)> {
    let t = root.join("t");
    fs::create_dir_all(&t).unwrap();
    let mut files = Vec::new();
    for i in 0..300usize {
        let name = format!("t/f{i:03}");
        let len = match i % 60 {
            5 => (2 << 20) + i,
            6 => 1 << 20 | 1,
            _ => i * 37 % 5000,
        };
        let data: Vec<u8> = (0..len).map(|k| (k * 31 + i) as u8).collect();
        fs::write(root.join(&name), &data).unwrap();
        files.push((name, Some(data)));
    }
    files
}

fn expected(files: &[(String, Option<Vec<u8>>)]) -> String {
    files
        .iter()
        .map(|(n, d)| format!("{}  {n}\n", md5(d.as_ref().unwrap())))
        .collect()
}

#[test]
fn every_thread_count_gives_the_same_lines_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let files = mixed_tree(dir.path());
    let want = expected(&files);
    for j in [
        None,
        Some("-j1"),
        Some("-j2"),
        Some("-j16"),
        Some("--threads=5"),
    ] {
        let mut args = vec!["-a", "md5", "-r", "t"];
        args.extend(j);
        assert_eq!(ok(dir.path(), &args), want, "{j:?}");
    }
    // RAYON_NUM_THREADS sizes the pool under every name.
    let out = common::Run::lanesum(dir.path())
        .arg0("md5sum")
        .env("RAYON_NUM_THREADS", "7")
        .args(files.iter().map(|(n, _)| n.as_str()))
        .ok();
    assert_eq!(out, want);
}

#[test]
fn thread_counts_are_checked_and_lanesum_only() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a"), b"abc").unwrap();
    for bad in ["0", "x", "-1", ""] {
        let o = run(dir.path(), &["-j", bad, "a"]);
        assert_eq!(o.status.code(), Some(1), "-j {bad:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("invalid number of threads"), "{err}");
    }
    let o = common::Run::lanesum(dir.path())
        .arg0("md5sum")
        .args(["-j", "2", "a"])
        .output();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("invalid option -- 'j'"));
}

/// `lanesum ARGS` under `ulimit -v KIB` (bash's), in `dir`.
fn limited(dir: &Path, kib: u32, args: &[&str]) -> Option<Output> {
    limited_with_stdin(dir, kib, args, b"")
}

/// [`limited`], with `stdin` on standard input (a pipe).
fn limited_with_stdin(dir: &Path, kib: u32, args: &[&str], stdin: &[u8]) -> Option<Output> {
    let bash = ["/bin/bash", "/usr/bin/bash"]
        .into_iter()
        .find(|b| Path::new(b).exists())?;
    let script = format!("ulimit -v {kib} && exec \"$0\" \"$@\"");
    let mut child = Command::new(bash)
        .arg("-c")
        .arg(script)
        .arg(BIN)
        .args(args)
        .current_dir(dir)
        .env_remove("LANESUM_ISA")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = child.stdin.take().unwrap();
    // A failed write (the child ended first) shows in its output.
    let _ = pipe.write_all(stdin);
    drop(pipe);
    Some(child.wait_with_output().unwrap())
}

/// A 3-byte file under 200 MiB of address space: md5sum works there, and so does
/// lanesum (it used to reserve 64 MiB up front and abort).
#[test]
fn a_small_file_under_an_address_space_limit() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("small"), b"abc").unwrap();
    for j in ["-j1", "-j2", "-j8"] {
        let Some(o) = limited(dir.path(), 204800, &["-a", "md5", j, "small"]) else {
            return;
        };
        assert_eq!(
            String::from_utf8_lossy(&o.stdout),
            format!("{}  small\n", md5(b"abc")),
            "{j}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert_eq!(o.status.code(), Some(0));
    }
}

/// 150 files just over the small-file limit under 80 MiB of address space: each is
/// hashed. The big-file streams' read buffers (where maps don't fit) once took all the
/// space left, and the next small allocation aborted the run.
#[test]
fn many_big_files_under_an_address_space_limit() {
    let dir = tempfile::tempdir().unwrap();
    let mut args = vec!["-a".to_string(), "md5".to_string()];
    for i in 0..150u64 {
        let name = format!("b{i:03}");
        let f = fs::File::create(dir.path().join(&name)).unwrap();
        f.set_len((1 << 20) + 1 + i).unwrap();
        args.push(name);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let want = ok(dir.path(), &args);
    for j in ["-j1", "-j2"] {
        let Some(o) = limited(dir.path(), 81920, &[&[j][..], &args].concat()) else {
            return;
        };
        assert_eq!(String::from_utf8_lossy(&o.stderr), "", "{j}");
        assert_eq!(o.status.code(), Some(0), "{j}");
        assert_eq!(String::from_utf8_lossy(&o.stdout), want, "{j}");
    }
}

/// The whole-input modes over three bytes of standard input under 64 MiB of address
/// space, and S3 parts larger than any buffer: each prints what it prints for the same
/// bytes in a file. They took a 64 MiB buffer (a whole part for `--s3`) up front and
/// aborted.
#[test]
fn modes_on_standard_input_under_an_address_space_limit() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("-"), b"abc").unwrap();
    for args in [
        &["--etag", "8M"][..],
        &["--blocks", "1K", "-a", "md5,sha256"],
        &["--torrent-pieces", "256K"],
        &["--s3"],
        &["--s3=64G", "-a", "crc32,crc32c,crc64nvme,sha1,sha256"],
    ] {
        let want = ok(dir.path(), &[args, &["./-"]].concat()).replace("./-", "-");
        let Some(o) = limited_with_stdin(dir.path(), 65536, args, b"abc") else {
            return;
        };
        assert_eq!(String::from_utf8_lossy(&o.stderr), "", "{args:?}");
        assert_eq!(o.status.code(), Some(0), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&o.stdout), want, "{args:?}");
    }
    // Two S3 parts, each larger than the chunk the limit leaves: streamed through
    // hashers a part at a time, the same lines as the file's.
    let big: Vec<u8> = (0..20_000_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    fs::write(dir.path().join("-"), &big).unwrap();
    let args = ["--s3=16M", "-a", "crc32,crc64nvme,sha256"];
    let want = ok(dir.path(), &[&args[..], &["./-"]].concat()).replace("./-", "-");
    let Some(o) = limited_with_stdin(dir.path(), 65536, &args, &big) else {
        return;
    };
    assert_eq!(String::from_utf8_lossy(&o.stderr), "");
    assert_eq!(String::from_utf8_lossy(&o.stdout), want);
}

/// A tree of many files, big ones among them, under 400 MiB of address space: it
/// completes, or each file that could not get memory is an error in its place (status
/// 1), never an abort.
#[test]
fn a_tree_under_an_address_space_limit_completes_or_fails_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let files = mixed_tree(dir.path());
    let Some(o) = limited(dir.path(), 409600, &["-a", "md5,sha256", "-r", "t"]) else {
        return;
    };
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "{:?}: {err}",
        o.status
    );
    assert!(!err.contains("memory allocation"), "{err}");
    let out = String::from_utf8_lossy(&o.stdout);
    for (name, data) in &files {
        let line = format!("MD5 ({name}) = {}", md5(data.as_ref().unwrap()));
        let sha = hash(Algorithm::Sha256, data.as_ref().unwrap()).to_hex();
        assert!(
            out.contains(&line) && out.contains(&sha) || err.contains(name.as_str()),
            "{name}: neither its digests nor an error"
        );
    }
}

/// Files named after `-` are read after standard input ends, as GNU's tools read them,
/// however many files come before it: the writer of standard input rewrites `after`
/// before it closes, and the digest printed is the new content's.
#[test]
fn files_after_standard_input_are_read_after_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut args: Vec<String> = vec!["-a".into(), "md5".into(), "-j4".into()];
    for i in 0..600 {
        let name = format!("f{i:03}");
        fs::write(dir.path().join(&name), name.as_bytes()).unwrap();
        args.push(name);
    }
    args.extend(["-".into(), "after".into()]);
    fs::write(dir.path().join("after"), b"old").unwrap();
    let script = format!(
        "{{ sleep 0.3; printf new > after; printf x; }} | \"{}\" {}",
        BIN,
        args.join(" ")
    );
    let out = Command::new("bash")
        .arg("-c")
        .arg(script)
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 602);
    assert_eq!(lines[600], format!("{}  -", md5(b"x")));
    assert_eq!(lines[601], format!("{}  after", md5(b"new")));
}

/// Many big files (over the small-file limit, so each stays open until its stream) under
/// a low limit on open files: the windows in flight and the big files gathered together
/// stay within it, and every file is hashed. (Sparse files: cheap to make.)
#[test]
fn big_files_under_a_low_open_file_limit() {
    let dir = tempfile::tempdir().unwrap();
    let mut names = Vec::new();
    for i in 0..150u64 {
        let name = format!("b{i:03}");
        let f = fs::File::create(dir.path().join(&name)).unwrap();
        f.set_len((1 << 20) + 1 + i).unwrap();
        names.push(name);
    }
    let mut args = vec!["-a", "md5", "-j2"];
    args.extend(names.iter().map(String::as_str));
    let want = ok(dir.path(), &args);
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!("ulimit -n 64 && exec \"{BIN}\" \"$@\""))
        .arg("bash")
        .args(&args)
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8(out.stdout).unwrap(), want);
    assert_eq!(want.lines().count(), names.len());
}
