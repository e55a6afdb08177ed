//! `lanesum --s3`: what S3 reports after a multipart upload, checked against values the
//! AWS SDK for Go v2 publishes in its tests (single PUTs of "hello world") and against
//! an independent Python implementation (tests/s3_oracle.py: zlib, hashlib, CRC tables
//! of its own, full-object CRCs in one pass) for one part, many parts, a short last
//! part, an empty file and standard input.

mod common;

use std::fs;
use std::path::Path;
use std::process::Command;

use common::{pattern, Run};

const ALL: &str = "crc32,crc32c,crc64nvme,sha1,sha256";

fn lanesum(dir: &Path, args: &[&str], stdin: &[u8]) -> String {
    Run::lanesum(dir).args(args).stdin(stdin).ok()
}

#[test]
fn single_put_values_published_by_aws() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("hw"), b"hello world").unwrap();
    fs::write(dir.path().join("Hw"), b"Hello world").unwrap();
    fs::write(dir.path().join("e"), b"").unwrap();
    let out = lanesum(
        dir.path(),
        &["--s3", "-a", "crc32,crc64nvme,sha256", "hw"],
        b"",
    );
    assert_eq!(
        out,
        "ETAG (hw) = 5eb63bbbe01eeed093cb22bb8f5acdc3\n\
         CRC32 FULL_OBJECT (hw) = DUoRhQ==\n\
         CRC64NVME FULL_OBJECT (hw) = jSnVw/bqjr4=\n\
         SHA256 FULL_OBJECT (hw) = uU0nuZNNPgilLlLX2n2r+sSE7+N6U4DukIj3rOLvzek=\n"
    );
    let out = lanesum(dir.path(), &["--s3=1M", "-a", "CRC32C", "Hw"], b"");
    assert_eq!(
        out,
        "ETAG (Hw) = 3e25960a79dbc69b674cd4ec67a72c62\nCRC32C FULL_OBJECT (Hw) = crUfeA==\n"
    );
    // An empty object; crc32 is the default algorithm.
    let out = lanesum(dir.path(), &["--s3", "e"], b"");
    assert_eq!(
        out,
        "ETAG (e) = d41d8cd98f00b204e9800998ecf8427e\nCRC32 FULL_OBJECT (e) = AAAAAA==\n"
    );
}

/// The Python oracle's lines for `lanesum --s3=PART -a ALGS FILE`.
fn oracle(dir: &Path, part: usize, file: &str) -> Option<String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/s3_oracle.py");
    let out = Command::new("python3")
        .arg(script)
        .args([&part.to_string(), ALL, file])
        .current_dir(dir)
        .output()
        .ok()?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8(out.stdout).unwrap())
}

#[test]
fn equals_an_independent_implementation() {
    let dir = tempfile::tempdir().unwrap();
    let data = pattern(3 << 20);
    let part = 1 << 20;
    let cases = [
        ("empty", 0),
        ("one", 1000),
        ("exact", part),
        ("two", part + 1),
        ("many", 3 * part),
        ("short_last", 2 * part + 12345),
    ];
    for (name, len) in cases {
        fs::write(dir.path().join(name), &data[..len]).unwrap();
    }
    if Command::new("python3").arg("--version").output().is_err() {
        eprintln!("python3 not found: the oracle comparison is skipped");
        return;
    }
    for (name, len) in cases {
        let part_arg = format!("--s3={part}");
        let got = lanesum(dir.path(), &[&part_arg, "-a", ALL, name], b"");
        let want = oracle(dir.path(), part, name).unwrap();
        assert_eq!(got, want, "{name}");
        // Standard input, read a part at a time, gives the same values.
        let got = lanesum(dir.path(), &[&part_arg, "-a", ALL], &data[..len]);
        assert_eq!(
            got,
            want.replace(&format!("({name})"), "(-)"),
            "{name} on stdin"
        );
        // LANESUM_NO_MMAP: read() instead of a map.
        let got = Run::lanesum(dir.path())
            .env("LANESUM_NO_MMAP", "1")
            .args([&part_arg, "-a", ALL, name])
            .ok();
        assert_eq!(got, want, "{name} read()");
    }
    // Small parts: many of them, through every core.
    let got = lanesum(dir.path(), &["--s3=1000", "-a", ALL, "short_last"], b"");
    assert_eq!(got, oracle(dir.path(), 1000, "short_last").unwrap());
}

#[test]
fn usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let out = Run::lanesum(dir.path())
        .args(["--s3", "-a", "md5", "x"])
        .output();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown S3 checksum algorithm 'md5'"));
    let out = Run::lanesum(dir.path()).args(["--s3=0", "x"]).output();
    assert_eq!(out.status.code(), Some(1));
    let out = Run::lanesum(dir.path())
        .args(["--s3", "--etag=5M", "x"])
        .output();
    assert_eq!(out.status.code(), Some(1));
    let out = Run::lanesum(dir.path())
        .args(["--s3", "--tag", "x"])
        .output();
    assert_eq!(out.status.code(), Some(1));
}
