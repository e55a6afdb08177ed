//! End-to-end tests of what GNU cksum 9.9 does and 9.1 (the installed reference, see
//! tests/coreutils.rs for what they share) did not: `-a sha2`/`sha3` with `-l`, `crc32b`,
//! `--base64`, `--raw`, `-b`/`-t` rules, base64 and SHA2-/SHA3- tagged lines in
//! `--check`, 9.9's escaping of check results, its messages. Expected outputs are
//! written from GNU's manual and source; digests from Python's hashlib and zlib.

mod common;

use std::fs;
use std::path::Path;
use std::process::Output;

use common::{Run, BIN};

const MD5: &str = "b1946ac92492d2347c6235b4d2611184";
const MD5_B64: &str = "sZRqySSS0jR8YjW00mERhA==";
const SHA256: &str = "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03";
const SHA256_B64: &str = "WJG1tSLV3whtD/CxEPvZ0hu0/HFjrzTQgoai6Eb2vgM=";
const SHA384: &str = "1d0f284efe3edea4b9ca3bd514fa134b17eae361ccc7a1eefeff801b9bd6604e01f21f6bf249ef030599f0c218f2ba8c";
const SHA3_256: &str = "b314e28493eae9dab57ac4f0c6d887bddbbeb810e900d818395ace558e96516d";
const SHA3_256_B64: &str = "sxTihJPq6dq1esTwxtiHvdu+uBDpANgYOVrOVY6WUW0=";
const SHA3_512: &str = "ac766ba623301e0ad63c48cb2fc469d10145f65c9f1f28fe761c78c386ed295a1fda1b05e280354e620757d8a83e05a45f66438dd734278668c1c27ac6f27150";
const BLAKE2B_160: &str = "d2f799bb9610968a2efa8f7682d5f2f1d45163d7";
const BLAKE2B_160_B64: &str = "0veZu5YQloou+o92gtXy8dRRY9c=";
/// `cksum` of "hello\n" (POSIX CRC), and its CRC-32 (`zlib.crc32`) for `-a crc32b`.
const CRC: u32 = 3015617425;
const CRC32B: u32 = 909783072;

struct Dir(tempfile::TempDir);

impl Dir {
    fn new() -> Dir {
        let d = Dir(tempfile::tempdir().unwrap());
        d.write("a", b"hello\n");
        d.write("b", b"hello\n");
        d.write("back\\slash", b"hello\n");
        d.write("empty", b"");
        for tool in ["cksum", "sum"] {
            std::os::unix::fs::symlink(BIN, d.0.path().join(tool)).unwrap();
        }
        d
    }

    fn path(&self) -> &Path {
        self.0.path()
    }

    fn write(&self, name: &str, data: &[u8]) {
        fs::write(self.path().join(name), data).unwrap();
    }

    fn run(&self, tool: &str, args: &[&str], stdin: &[u8]) -> Output {
        Run::new(self.path().join(tool), self.path())
            .arg0(tool)
            .env("LC_ALL", "C")
            .args(args)
            .stdin(stdin)
            .output()
    }

    fn cksum(&self, args: &[&str]) -> Output {
        self.run("cksum", args, b"")
    }
}

/// Standard output, standard error and exit status, for one assertion.
type Outcome = (String, String, i32);

fn all(o: &Output) -> Outcome {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
        o.status.code().unwrap_or(-1),
    )
}

fn ok(out: &str) -> Outcome {
    (out.to_string(), String::new(), 0)
}

fn fails(err: &str) -> Outcome {
    (String::new(), err.to_string(), 1)
}

fn usage(err: &str) -> Outcome {
    fails(&format!(
        "cksum: {err}\nTry 'cksum --help' for more information.\n"
    ))
}

#[test]
fn sha2_and_sha3_need_a_length() {
    let d = Dir::new();
    let cases: &[(&[&str], Outcome)] = &[
        (
            &["-a", "sha2", "-l", "256", "a"],
            ok(&format!("SHA256 (a) = {SHA256}\n")),
        ),
        (
            &["-a", "sha2", "-l", "384", "--untagged", "a"],
            ok(&format!("{SHA384}  a\n")),
        ),
        (
            &["-a", "sha3", "-l", "256", "a"],
            ok(&format!("SHA3-256 (a) = {SHA3_256}\n")),
        ),
        (
            &["-a", "sha3", "-l512", "a"],
            ok(&format!("SHA3-512 (a) = {SHA3_512}\n")),
        ),
        (
            &["-a", "sha2", "a"],
            fails("cksum: --algorithm=sha2 requires specifying --length 224, 256, 384, or 512\n"),
        ),
        (
            &["-a", "sha3", "-l", "100", "a"],
            fails(
                "cksum: invalid length: '100'\n\
                 cksum: digest length for 'SHA3' must be 224, 256, 384, or 512\n",
            ),
        ),
        (
            &["-a", "md5", "-l", "128", "a"],
            fails("cksum: --length is only supported with --algorithm blake2b, sha2, or sha3\n"),
        ),
        (
            &["-a", "md5", "-l", "0", "a"],
            ok(&format!("MD5 (a) = {MD5}\n")),
        ),
        (
            &["-a", "blake2b", "-l", "160", "a"],
            ok(&format!("BLAKE2b-160 (a) = {BLAKE2B_160}\n")),
        ),
        (
            &["-a", "blake2b", "-l", "12", "a"],
            fails("cksum: invalid length: '12'\ncksum: length is not a multiple of 8\n"),
        ),
    ];
    for (args, want) in cases {
        assert_eq!(&all(&d.cksum(args)), want, "{args:?}");
    }
}

#[test]
fn crc32b_base64_and_raw() {
    let d = Dir::new();
    let cases: &[(&[&str], Outcome)] = &[
        (&["a"], ok(&format!("{CRC} 6 a\n"))),
        (
            &["-a", "crc32b", "a", "empty"],
            ok(&format!("{CRC32B} 6 a\n0 0 empty\n")),
        ),
        // The legacy formats have no digest text to encode.
        (&["--base64", "a"], ok(&format!("{CRC} 6 a\n"))),
        (
            &["--base64", "-a", "md5", "a"],
            ok(&format!("MD5 (a) = {MD5_B64}\n")),
        ),
        (
            &["--base64", "--untagged", "-a", "sha2", "-l", "256", "a"],
            ok(&format!("{SHA256_B64}  a\n")),
        ),
        (
            &["--base64", "--raw", "a"],
            usage("--base64 and --raw are mutually exclusive"),
        ),
        (
            &["--raw", "a", "b"],
            fails("cksum: the --raw option is not supported with multiple files\n"),
        ),
        (
            &["-t", "-a", "md5", "a"],
            usage("--text mode is only supported with --untagged"),
        ),
        (
            &["--untagged", "-t", "-a", "md5", "a"],
            ok(&format!("{MD5}  a\n")),
        ),
        (
            &["--untagged", "-b", "-a", "md5", "a"],
            ok(&format!("{MD5} *a\n")),
        ),
        (
            &["--tag", "--untagged", "-t", "-a", "md5", "a"],
            ok(&format!("{MD5}  a\n")),
        ),
        (
            &["--tag", "-c", "x"],
            usage("the --binary and --text options are meaningless when verifying checksums"),
        ),
        (
            &["-a", "crc32b", "-c", "x"],
            fails("cksum: --check is not supported with --algorithm={bsd,sysv,crc,crc32b}\n"),
        ),
    ];
    for (args, want) in cases {
        assert_eq!(&all(&d.cksum(args)), want, "{args:?}");
    }
    let raw = |args: &[&str]| d.cksum(args).stdout;
    assert_eq!(raw(&["--raw", "a"]), CRC.to_be_bytes());
    assert_eq!(raw(&["--raw", "-a", "crc32b"]), 0u32.to_be_bytes());
    assert_eq!(
        raw(&["--raw", "-a", "md5", "a"]),
        common::md5_bytes(b"hello\n")
    );
    let bsd = d.run("cksum", &["--raw", "-a", "bsd", "a"], b"").stdout;
    assert_eq!(bsd, 36979u16.to_be_bytes());
    let sysv = d.run("cksum", &["--raw", "-a", "sysv", "a"], b"").stdout;
    assert_eq!(sysv, 542u16.to_be_bytes());
}

#[test]
fn invalid_algorithm_lists_gnu_names() {
    let d = Dir::new();
    let mut want =
        "cksum: invalid argument 'md6' for '--algorithm'\nValid arguments are:\n".to_string();
    for n in [
        "bsd", "sysv", "crc", "crc32b", "md5", "sha1", "sha224", "sha256", "sha384", "sha512",
        "sha2", "sha3", "blake2b", "sm3",
    ] {
        want.push_str(&format!("  - '{n}'\n"));
    }
    want.push_str("Try 'cksum --help' for more information.\n");
    assert_eq!(all(&d.cksum(&["-a", "md6", "a"])), fails(&want));
    // GNU's names are exact: another case or spacing is unknown, as in GNU, even where
    // lanesum itself would read it.
    for name in ["SHA256", "Md5", " md5", "SHA3-256"] {
        let want = want.replace("'md6'", &format!("'{name}'"));
        assert_eq!(all(&d.cksum(&["-a", name, "a"])), fails(&want), "{name}");
    }
    // lanesum's own names work too.
    let out = d.cksum(&["-a", "sha3-256", "a"]);
    assert_eq!(all(&out), ok(&format!("SHA3-256 (a) = {SHA3_256}\n")));
}

#[test]
fn check_detects_each_line_and_base64() {
    let d = Dir::new();
    let sums = format!(
        "MD5 (a) = {MD5_B64}\n\
         SHA2-256 (a) = {SHA256}\n\
         SHA3-256 (b) = {SHA3_256_B64}\n\
         SHA256 (a) = {SHA256_B64}\n\
         BLAKE2b-160 (a) = {BLAKE2B_160_B64}\n\
         CRC32B (a) = 12345678\n\
         {MD5}  a\n\
         MD5 (a) = {}\n",
        &MD5_B64.to_lowercase()
    );
    d.write("sums", sums.as_bytes());
    let out = d.cksum(&["-c", "-w", "sums"]);
    assert_eq!(
        all(&out),
        (
            "a: OK\na: OK\nb: OK\na: OK\na: OK\na: FAILED\n".to_string(),
            "cksum: sums: 6: improperly formatted BLAKE2b checksum line\n\
             cksum: sums: 7: improperly formatted BLAKE2b checksum line\n\
             cksum: WARNING: 2 lines are improperly formatted\n\
             cksum: WARNING: 1 computed checksum did NOT match\n"
                .to_string(),
            1
        )
    );
    // Untagged lines with -a: hex or base64 of the algorithm's length (sha2 and blake2b
    // read it off the digest).
    d.write("untagged", format!("{MD5_B64}  a\n{MD5} *b\n").as_bytes());
    assert_eq!(
        all(&d.cksum(&["-c", "-a", "md5", "untagged"])),
        ok("a: OK\nb: OK\n")
    );
    d.write("sha2", format!("{SHA256_B64}  a\n{SHA384}  b\n").as_bytes());
    assert_eq!(
        all(&d.cksum(&["-c", "-a", "sha2", "sha2"])),
        ok("a: OK\nb: OK\n")
    );
    d.write(
        "b2",
        format!("{BLAKE2B_160_B64}  a\n{BLAKE2B_160}  b\n").as_bytes(),
    );
    assert_eq!(
        all(&d.cksum(&["-c", "-a", "blake2b", "b2"])),
        ok("a: OK\nb: OK\n")
    );
    // Without -a, untagged lines are not read.
    assert_eq!(
        all(&d.cksum(&["-c", "untagged"])),
        fails("cksum: untagged: no properly formatted checksum lines found\n")
    );
}

/// 9.9 escapes a checked name holding a backslash or CR too (9.1: only a LF).
#[test]
fn check_results_escape_as_9_9() {
    let d = Dir::new();
    d.write("s", format!("\\MD5 (back\\\\slash) = {MD5}\n").as_bytes());
    assert_eq!(all(&d.cksum(&["-c", "s"])), ok("\\back\\\\slash: OK\n"));
}

/// What GNU cksum's `--debug` prints on this CPU for the POSIX CRC and for crc32b.
fn gnu_debug_lines() -> (String, String) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        let clmul = has!("vpclmulqdq");
        let pclmul = has!("pclmulqdq") && has!("avx");
        let mut crc = String::new();
        for (name, found) in [
            ("avx512", clmul && has!("avx512bw") && has!("avx512f")),
            ("avx2", clmul && has!("avx2")),
            ("pclmul", pclmul),
        ] {
            if found {
                crc += &format!("cksum: using {name} hardware support\n");
                break;
            }
            crc += &format!("cksum: {name} support not detected\n");
        }
        let crc32b = match pclmul {
            true => "cksum: using pclmul hardware support\n",
            false => "cksum: pclmul support not detected\n",
        };
        (crc, crc32b.to_string())
    }
    #[cfg(target_arch = "aarch64")]
    {
        let crc = match std::arch::is_aarch64_feature_detected!("pmull") {
            true => "cksum: using vmull hardware support\n",
            false => "cksum: vmull support not detected\n",
        };
        (crc.to_string(), String::new())
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    (String::new(), String::new())
}

/// `--debug` prints GNU's checks for its CRC code, as GNU does: the POSIX CRC tries
/// AVX-512, AVX2 and PCLMUL once, at the first input opened; crc32b checks PCLMUL at each
/// input; the other algorithms print nothing.
#[test]
fn debug_prints_gnus_hardware_checks() {
    let d = Dir::new();
    let (crc, crc32b) = gnu_debug_lines();
    let out = d.cksum(&["--debug", "missing", "a", "b"]);
    let want_err = format!("cksum: missing: No such file or directory\n{crc}");
    let want_out = format!("{CRC} 6 a\n{CRC} 6 b\n");
    assert_eq!(all(&out), (want_out, want_err, 1));
    let out = d.cksum(&["--debug", "-a", "crc32b", "a", "b"]);
    let want_out = format!("{CRC32B} 6 a\n{CRC32B} 6 b\n");
    assert_eq!(all(&out), (want_out, crc32b.repeat(2), 0));
    let out = d.cksum(&["--debug", "-a", "md5", "a"]);
    assert_eq!(all(&out), ok(&format!("MD5 (a) = {MD5}\n")));
}

/// Standard descriptors closed at start fail as in coreutils (Rust's runtime would have
/// them read as empty and write into /dev/null): a closed stdin is a read error at each
/// use and again at exit, a closed stdout a write error once anything is written.
#[test]
fn closed_standard_descriptors_fail_as_in_coreutils() {
    let d = Dir::new();
    let sh = |script: &str| {
        let o = std::process::Command::new("sh")
            .args(["-c", script])
            .current_dir(d.path())
            .env("LC_ALL", "C")
            .output()
            .unwrap();
        all(&o)
    };
    let bad_stdin =
        "./cksum: -: Bad file descriptor\n./cksum: standard input: Bad file descriptor\n";
    assert_eq!(sh("./cksum <&-"), fails(bad_stdin));
    assert_eq!(
        sh("./cksum a - <&-"),
        (format!("{CRC} 6 a\n"), bad_stdin.to_string(), 1)
    );
    assert_eq!(sh("./cksum a <&-"), ok(&format!("{CRC} 6 a\n")));
    assert_eq!(
        sh("./cksum -c <&-"),
        fails(
            "./cksum: 'standard input': read error\n\
             ./cksum: standard input: Bad file descriptor\n"
        )
    );
    assert_eq!(
        sh("./cksum a >&-"),
        fails("./cksum: write error: Bad file descriptor\n")
    );
    assert_eq!(
        sh("./sum -s a >&-"),
        fails("./sum: write error: Bad file descriptor\n")
    );
    // Nothing written, nothing to fail.
    assert_eq!(
        sh("./cksum --status -c missing >&-"),
        fails("./cksum: missing: No such file or directory\n")
    );
}

/// A directory is a read error (9.1's cksum printed the CRC of nothing for it).
#[test]
fn directories_are_read_errors() {
    let d = Dir::new();
    fs::create_dir(d.path().join("dir")).unwrap();
    assert_eq!(
        all(&d.cksum(&["a", "dir"])),
        (
            format!("{CRC} 6 a\n"),
            "cksum: dir: Is a directory\n".to_string(),
            1
        )
    );
}

#[test]
fn sum_prints_names_for_named_files() {
    let d = Dir::new();
    let out = d.run("sum", &["a"], b"");
    assert_eq!(all(&out), ok("36979     1 a\n"));
    let out = d.run("sum", &["-s"], b"hello\n");
    assert_eq!(all(&out), ok("542 1\n"));
}

/// lanesum's `--base64` lines are tagged, and `lanesum -c` verifies them.
#[test]
fn lanesum_base64_round_trips() {
    let d = Dir::new();
    let out = Run::lanesum(d.path())
        .args(["--base64", "-a", "sha256", "a"])
        .ok();
    assert_eq!(out, format!("SHA256 (a) = {SHA256_B64}\n"));
    d.write("s", out.as_bytes());
    let out = Run::lanesum(d.path()).args(["-c", "s"]).ok();
    assert_eq!(out, "a: OK\n");
}
