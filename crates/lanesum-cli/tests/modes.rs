//! End-to-end tests of the whole-input modes: `-a md5p8/blake2bp/blake2sp/btv2`,
//! `--etag`, `--blocks`, `--torrent-pieces`.

mod common;

use std::fs;

use common::{md5, ok, pattern, run, Run};

fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("abc"), b"abc").unwrap();
    fs::write(dir.path().join("empty"), b"").unwrap();
    fs::write(dir.path().join("t"), b"test1test2").unwrap();
    // pattern(20971643) of s3-etag.txt.
    fs::write(dir.path().join("p"), pattern(20_971_643)).unwrap();
    dir
}

#[test]
fn mode_algorithms_print_and_check() {
    let f = fixture();
    let d = f.path();
    assert_eq!(
        ok(d, &["-a", "md5p8", "abc", "empty"]),
        "bf282d6afc7daacf5b7fdd55202e0ca0  abc\n9912387c72711229dba3cadff3ea28df  empty\n"
    );
    assert_eq!(
        ok(d, &["-a", "md5p8", "--tag", "abc"]),
        "MD5P8 (abc) = bf282d6afc7daacf5b7fdd55202e0ca0\n"
    );
    assert!(ok(d, &["-a", "blake2bp", "empty"]).starts_with("b5ef811a8038f70b628fa8b2"));
    assert!(ok(d, &["-a", "blake2sp", "empty"]).starts_with("dd0e891776933f43c7d032b0"));
    assert_eq!(
        ok(d, &["-a", "btv2", "abc", "empty"]),
        format!(
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  abc\n{}  empty\n",
            "0".repeat(64)
        )
    );
    // Tagged and untagged lists verify, including a non-default BLAKE2bp length.
    let tagged = ok(
        d,
        &["-a", "md5p8,blake2bp,blake2sp,btv2", "abc", "p", "empty"],
    );
    fs::write(d.join("tagged"), &tagged).unwrap();
    assert_eq!(
        ok(d, &["-c", "tagged"])
            .lines()
            .filter(|l| l.ends_with(": OK"))
            .count(),
        12
    );
    let short = ok(d, &["-a", "blake2bp", "-l", "256", "abc"]);
    assert_eq!(short.split_whitespace().next().unwrap().len(), 64);
    fs::write(d.join("short"), &short).unwrap();
    assert_eq!(ok(d, &["-a", "blake2bp", "-c", "short"]), "abc: OK\n");
    let plain = ok(d, &["-a", "md5p8", "abc", "p"]);
    fs::write(d.join("plain"), &plain).unwrap();
    assert_eq!(ok(d, &["-a", "md5p8", "-c", "plain"]), "abc: OK\np: OK\n");
    // Without -a, a 32-digit untagged line is MD5, which md5p8 digests are not.
    assert!(!run(d, &["-c", "plain"]).status.success());
}

#[test]
fn etag() {
    let f = fixture();
    let d = f.path();
    assert_eq!(
        ok(d, &["--etag", "8M", "p", "t", "empty"]),
        "db4d5483a7fd28b8045f7383a201a2e9-3  p\n\
         beff3fcba56f29677c5d52b843df365e  t\n\
         d41d8cd98f00b204e9800998ecf8427e  empty\n"
    );
    assert_eq!(
        ok(d, &["--etag=5", "t"]),
        "4b28e9aa66476ee94ee809b975bd8816-2  t\n"
    );
    assert_eq!(
        ok(d, &["--etag", "8388608", "p"]),
        ok(d, &["--etag", "8MiB", "p"])
    );
}

#[test]
fn blocks_and_torrent_pieces() {
    let f = fixture();
    let d = f.path();
    assert_eq!(
        ok(d, &["--blocks", "2", "-a", "md5", "abc", "empty"]),
        "187ef4436122d1cc2f40dc2b92f0eba0  abc:0\n4a8a08f09d37b73795649038408b5f33  abc:1\n"
    );
    assert_eq!(
        ok(d, &["--blocks", "2", "-a", "md5,sha1", "abc"]),
        "MD5 (abc:0) = 187ef4436122d1cc2f40dc2b92f0eba0\n\
         SHA1 (abc:0) = da23614e02469a0d7c7bd1bdab5c9c474b1904dc\n\
         MD5 (abc:1) = 4a8a08f09d37b73795649038408b5f33\n\
         SHA1 (abc:1) = 84a516841ba77a5b4648de2cd0dfcb30ea46dbb4\n"
    );
    let pieces = ok(d, &["--torrent-pieces", "1M", "p"]);
    assert_eq!(pieces.lines().count(), 21);
    assert_eq!(pieces, ok(d, &["--blocks", "1M", "-a", "sha1", "p"]));
    assert!(pieces.lines().last().unwrap().ends_with("  p:20"));
}

#[test]
fn blocks_past_one_chunk_keep_their_order() {
    // 327,682 blocks: hashed (and printed) 65,536 at a time, in bounded memory.
    let f = fixture();
    let d = f.path();
    let p = fs::read(d.join("p")).unwrap();
    let out = ok(d, &["--blocks", "64", "-a", "md5", "p"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), p.len().div_ceil(64));
    for i in [0, 65_535, 65_536, 65_537, 131_072, lines.len() - 1] {
        let block = &p[i * 64..((i + 1) * 64).min(p.len())];
        assert_eq!(lines[i], format!("{}  p:{i}", md5(block)));
    }
}

#[test]
fn bad_usage() {
    let f = fixture();
    let d = f.path();
    for args in [
        &["--etag", "0", "abc"][..],
        &["--etag", "1X", "abc"],
        &["--blocks", "", "abc"],
        &["--etag", "8M", "--blocks", "1K", "abc"],
        &["--etag", "8M", "-a", "sha1", "abc"],
        &["--torrent-pieces", "16K", "--tag", "abc"],
        &["--blocks", "1K", "-c", "abc"],
    ] {
        let o = run(d, args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(o.stdout.is_empty(), "{args:?}");
    }
}

/// Standard input is read a chunk at a time (bounded memory), with the same results as the
/// file read whole.
#[test]
fn modes_stream_standard_input() {
    let f = fixture();
    let d = f.path();
    let p = fs::read(d.join("p")).unwrap();
    for args in [
        &["--etag", "1M"][..],
        &["--etag", "100M"],
        &["--blocks", "64K", "-a", "md5,sha1"],
        &["--torrent-pieces", "256K"],
        &["--blocks", "64", "-a", "md5"],
    ] {
        let o = Run::lanesum(d).args(args).arg("-").stdin(&p).output();
        assert!(o.status.success(), "{args:?}");
        let whole = ok(d, &[args, &["p"]].concat());
        let streamed = String::from_utf8(o.stdout).unwrap();
        assert_eq!(
            streamed.replace("  -", "  p").replace("(-:", "(p:"),
            whole,
            "{args:?}"
        );
    }
}

/// A file large enough to be mapped is streamed where mapping is turned off (it was read
/// whole into memory; hashing.rs tests which way it is read): the results are the same.
#[test]
fn unmapped_large_files_stream_alike() {
    let f = fixture();
    let d = f.path();
    for args in [
        &["--etag", "1M", "p"][..],
        &["--blocks", "5M", "-a", "sha256,md5", "p"],
        &["--torrent-pieces", "4M", "p"],
        &["-a", "md5p8,blake2bp,btv2", "p"],
    ] {
        let read = Run::lanesum(d)
            .env("LANESUM_NO_MMAP", "1")
            .args(args)
            .output();
        assert!(read.status.success(), "{args:?}");
        assert_eq!(String::from_utf8(read.stdout).unwrap(), ok(d, args));
    }
}
