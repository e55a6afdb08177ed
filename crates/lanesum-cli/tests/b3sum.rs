//! End-to-end tests of the b3sum personality, with expectations taken from b3sum 1.8.7
//! (its output was compared byte for byte while these were written) and from BLAKE3's
//! official test vectors.

mod common;

use std::fs;
use std::process::Output;

use common::{hex, pattern, Run, BIN};

/// BLAKE3 of `hello\n`.
const HELLO: &str = "8e4c7c1b99dbfd50e7a95185fead5ee1448fa904a2fdd778eaf5f2dbfd629a99";
/// The official vectors' key and context.
const KEY: &[u8; 32] = b"whats the Elvish word for friend";
const CONTEXT: &str = "BLAKE3 2019-12-27 16:29:52 test vectors context";

struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(BIN, dir.path().join("b3sum")).unwrap();
        let f = Fixture { dir };
        f.write("a", b"hello\n");
        f
    }

    fn write(&self, name: &str, content: &[u8]) {
        fs::write(self.dir.path().join(name), content).unwrap();
    }

    /// The personality, through a symlink named b3sum.
    fn cmd(&self, args: &[&str], stdin: &[u8]) -> Run {
        Run::new(self.dir.path().join("b3sum"), self.dir.path())
            .env_remove("LANESUM_NO_MMAP")
            .args(args)
            .stdin(stdin)
    }

    fn b3sum(&self, args: &[&str], stdin: &[u8]) -> Output {
        self.cmd(args, stdin).output()
    }

    /// Stdout of a run that must succeed.
    fn ok(&self, args: &[&str], stdin: &[u8]) -> String {
        self.cmd(args, stdin).ok()
    }
}

#[test]
fn hashes_escapes_and_checks() {
    let f = Fixture::new();
    f.write("new\nline", b"hello\n");
    f.write("cr\rret", b"hello\n");
    let out = f.b3sum(&["a", "new\nline", "cr\rret", "missing"], b"");
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!("{HELLO}  a\n\\{HELLO}  new\\nline\n\\{HELLO}  cr\\rret\n")
    );
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "b3sum: missing: No such file or directory (os error 2)\n"
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        f.ok(&["--no-names", "-l", "8", "a"], b""),
        format!("{}\n", &HELLO[..16])
    );
    f.write(
        "sums.b3",
        format!(
            "{HELLO}  a\n\\{HELLO}  new\\nline\n\\{HELLO}  cr\\rret\r\n{HELLO}  missing\nshort\n"
        )
        .as_bytes(),
    );
    let out = f.b3sum(&["-c", "sums.b3"], b"");
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "a: OK\n\\new\\nline: OK\n\\cr\\rret: OK\n\
         missing: FAILED (No such file or directory (os error 2))\n"
    );
    assert_eq!(
        out.stderr,
        b"b3sum: Invalid check line format\nb3sum: WARNING: 2 computed checksums did NOT match\n"
    );
    assert_eq!(out.status.code(), Some(1));
    // A digest that doesn't match; --quiet keeps only what failed.
    f.write("b", b"other\n");
    f.write("mixed", format!("{HELLO}  a\n{HELLO}  b\n").as_bytes());
    let out = f.b3sum(&["-c", "mixed"], b"");
    assert_eq!(out.stdout, b"a: OK\nb: FAILED\n");
    assert_eq!(
        out.stderr,
        b"b3sum: WARNING: 1 computed checksum did NOT match\n"
    );
    assert_eq!(out.status.code(), Some(1));
    let out = f.b3sum(&["-c", "--quiet", "mixed"], b"");
    assert_eq!(
        (out.stdout, out.status.code()),
        (b"b: FAILED\n".to_vec(), Some(1))
    );
    // --check reads the output from --seek, as b3sum does.
    let seeked = f.ok(&["--seek", "5", "a", "b"], b"");
    f.write("seeked", seeked.as_bytes());
    assert_eq!(
        f.ok(&["-c", "--seek", "5", "seeked"], b""),
        "a: OK\nb: OK\n"
    );
    assert_eq!(
        f.b3sum(&["-c", "seeked"], b"").stdout,
        b"a: FAILED\nb: FAILED\n"
    );
    // Options --check can't take are usage errors.
    for bad in [
        "-l",
        "--derive-key",
        "--tag",
        "--raw",
        "--no-names",
        "--keyed",
    ] {
        let mut args = vec!["-c", bad];
        if matches!(bad, "-l" | "--derive-key") {
            args.push("8");
        }
        args.push("sums.b3");
        assert_eq!(f.b3sum(&args, b"").status.code(), Some(2), "{args:?}");
    }
    // An empty output, as b3sum prints it, whichever way the input is read (standard
    // input is streamed; it once panicked there).
    f.write("big", &vec![7u8; 3 << 20]);
    assert_eq!(
        f.ok(&["-l", "0", "a", "-", "big"], b"x"),
        "  a\n  -\n  big\n"
    );
}

#[test]
fn tag_lines_print_and_check() {
    let f = Fixture::new();
    f.write("back\\slash", b"hello\n");
    let sums = f.ok(&["--tag", "a", "back\\slash"], b"");
    assert_eq!(
        sums,
        format!("BLAKE3 (a) = {HELLO}\n\\BLAKE3 (back\\\\slash) = {HELLO}\n")
    );
    // --no-names wins over --tag, --raw over both.
    assert_eq!(
        f.ok(&["--tag", "--no-names", "a"], b""),
        format!("{HELLO}\n")
    );
    assert_eq!(f.b3sum(&["--tag", "--raw", "a"], b"").stdout.len(), 32);
    f.write("sums", sums.as_bytes());
    assert_eq!(f.ok(&["-c", "sums"], b""), "a: OK\n\\back\\\\slash: OK\n");
    // A name holding `) = ` splits at the last one.
    f.write("x) = y", b"hello\n");
    f.write("odd", format!("BLAKE3 (x) = y) = {HELLO}\n").as_bytes());
    assert_eq!(f.ok(&["-c", "odd"], b""), "x) = y: OK\n");
}

#[test]
fn keyed_derive_key_and_seek_match_the_official_vectors() {
    let f = Fixture::new();
    let text = fs::read_to_string(common::vectors().join("blake3/test_vectors.json")).unwrap();
    let tv: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(tv["key"].as_str().unwrap().as_bytes(), KEY);
    assert_eq!(tv["context_string"], CONTEXT);
    let cases = tv["cases"].as_array().unwrap();
    assert!(!cases.is_empty());
    for c in cases {
        let s = |k: &str| c[k].as_str().unwrap().to_string();
        let len = c["input_len"].as_u64().unwrap() as usize;
        let (hash, keyed, derived) = (s("hash"), s("keyed_hash"), s("derive_key"));
        f.write("in", &pattern(len));
        let hex = |args: &[&str], stdin: &[u8]| {
            let mut all = vec!["--no-names"];
            all.extend_from_slice(args);
            all.push("in");
            f.ok(&all, stdin).trim_end().to_string()
        };
        let full = (hash.len() / 2).to_string();
        assert_eq!(hex(&["-l", &full], b""), hash, "{len}");
        assert_eq!(hex(&["-l", "20", "--seek", "5"], b""), hash[10..50]);
        assert_eq!(hex(&["--keyed", "-l", &full], KEY), keyed, "{len}");
        assert_eq!(hex(&["--derive-key", CONTEXT, "-l", &full], b""), derived);
        assert_eq!(
            hex(&["--keyed", "--seek", "1", "-l", "20"], KEY),
            keyed[2..42]
        );
    }
}

#[test]
fn keyed_mode_refuses_a_bad_key_and_stdin() {
    let f = Fixture::new();
    let key_hex = |args: &[&str]| {
        let mut all = vec!["--keyed"];
        all.extend_from_slice(args);
        f.b3sum(&all, KEY)
    };
    let out = key_hex(&["a", "-"]);
    assert!(String::from_utf8(out.stdout).unwrap().ends_with("  a\n"));
    assert_eq!(out.stderr, b"b3sum: -: Cannot open `-` in keyed mode\n");
    assert_eq!(out.status.code(), Some(1));
    for (key, msg) in [
        (
            &KEY[..31],
            "Error: expected 32 key bytes from stdin, found 31\n",
        ),
        (
            &[0u8; 33][..],
            "Error: read more than 32 key bytes from stdin\n",
        ),
    ] {
        let out = f.b3sum(&["--keyed", "a"], key);
        assert_eq!((out.status.code(), out.stdout.len()), (Some(1), 0));
        assert_eq!(String::from_utf8(out.stderr).unwrap(), msg);
    }
    // A file is needed (standard input holds the key), and the modes exclude each other.
    assert_eq!(f.b3sum(&["--keyed"], KEY).status.code(), Some(2));
    let out = f.b3sum(&["--keyed", "--derive-key", "x", "a"], KEY);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn long_outputs_stream_and_read_paths_agree() {
    let f = Fixture::new();
    // Large enough to be mapped (16 MiB), and to stream where it may not be.
    let data = pattern(17 << 20);
    f.write("big", &data);
    // Past what the lanes compute (64 KiB): the blake3 crate's reader, from the start.
    let long = f.ok(&["--no-names", "-l", "70000", "a"], b"");
    assert_eq!(long.len(), 140_001);
    assert_eq!(&long[..64], HELLO);
    let raw = f
        .b3sum(&["--raw", "-l", "70000", "--seek", "7", "a"], b"")
        .stdout;
    assert_eq!(hex(&raw[..25]), long[14..64]);
    // Mapped, read, streamed from a pipe, and in key-derivation mode mapped or read.
    let want = format!("{}  big\n", hex(blake3::hash(&data).as_bytes()));
    assert_eq!(f.ok(&["big"], b""), want);
    assert_eq!(f.ok(&["--no-mmap", "big"], b""), want);
    assert_eq!(f.ok(&["-"], &data), want.replace("big", "-"));
    let derived = blake3::Hasher::new_derive_key("c").update(&data).finalize();
    let want = format!("{}  big\n", hex(derived.as_bytes()));
    assert_eq!(f.ok(&["--derive-key", "c", "big"], b""), want);
    assert_eq!(f.ok(&["--derive-key", "c", "--no-mmap", "big"], b""), want);
    assert_eq!(
        f.ok(&["--derive-key", "c", "--num-threads", "1", "big"], b""),
        want
    );
    assert_eq!(
        f.b3sum(&["--num-threads", "x", "a"], b"").status.code(),
        Some(2)
    );
}

/// b3sum opens what it is given; a directory fails on read, as in b3sum.
#[test]
fn a_directory_is_an_error_in_every_mode() {
    let f = Fixture::new();
    fs::create_dir(f.dir.path().join("d")).unwrap();
    for args in [&["d", "a"][..], &["--derive-key", "x", "d", "a"]] {
        let out = f.b3sum(args, b"");
        assert_eq!(out.status.code(), Some(1));
        assert_eq!(out.stderr, b"b3sum: d: Is a directory (os error 21)\n");
        assert!(String::from_utf8(out.stdout).unwrap().ends_with("  a\n"));
    }
}

/// Usage errors are clap's, as b3sum's: a near miss is suggested, an empty name refused.
#[test]
fn usage_errors_as_b3sum() {
    let f = Fixture::new();
    let out = f.b3sum(&["--no-name", "a"], b"");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("tip: a similar argument exists: '--no-names'"),
        "{err}"
    );
    for args in [
        &[""][..],
        &["-c", "a", ""],
        &["-l", "x", "a"],
        &["--seek", "-1", "a"],
    ] {
        let out = f.b3sum(args, b"");
        assert_eq!(
            (out.status.code(), out.stdout.len()),
            (Some(2), 0),
            "{args:?}"
        );
    }
}
