//! End-to-end tests: lanesum under each personality against GNU coreutils 9.1 (compared
//! byte for byte: stdout, stderr, exit status), plus fixed expectations.
//!
//! Every comparison (`Fixture::compare`) is checked against the golden outputs recorded
//! from coreutils 9.1 in `tests/golden/TEST.txt` (format in `tests/golden/mod.rs`), so
//! it runs everywhere; where `/usr/bin/TOOL --version` says `(GNU coreutils) 9.1` it is
//! also run live, and the live output must equal the golden too (otherwise the golden is
//! stale). `LANESUM_COREUTILS_DIR=DIR` looks for the live tools in DIR instead (empty:
//! none, golden only). To record the goldens again, on a machine with coreutils 9.1 and
//! the C.UTF-8 locale:
//!
//! ```sh
//! LANESUM_RECORD_GOLDEN=1 cargo test -p lanesum-cli --test coreutils
//! ```
//!
//! which writes each comparing test's file when that test passes (lanesum is still
//! compared with the live tools as it records). Outputs hold no temporary path, user or
//! time: the fixture runs every case in its directory with relative names, the tool
//! named by argv[0], `LC_ALL=C` (or the locale a case sets) and neither `LANGUAGE` nor
//! `POSIXLY_CORRECT` unless a case sets it.

mod common;
mod golden;

use std::cell::RefCell;
use std::ffi::{OsStr, OsString};
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::{Run, BIN};
use golden::Golden;

const HELLO_MD5: &str = "b1946ac92492d2347c6235b4d2611184";

/// A scratch directory holding awkward file names and symlinks to lanesum; with the golden
/// file of the test when it compares with coreutils.
struct Fixture {
    dir: tempfile::TempDir,
    golden: Option<RefCell<Golden>>,
}

fn names() -> Vec<&'static [u8]> {
    vec![
        b"a",
        b"empty",
        b"sp ace",
        b"-lead",
        b"back\\slash",
        b"new\nline",
        b"cr\rret",
        b"bad\xffname",
        b"it's",
        b"x\x01y",
    ]
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let f = Fixture { dir, golden: None };
        for n in names() {
            let content: &[u8] = if n == b"empty" { b"" } else { b"hello\n" };
            fs::write(f.path(OsStr::from_bytes(n)), content).unwrap();
        }
        fs::create_dir(f.path("dir")).unwrap();
        fs::create_dir(f.path("bin")).unwrap();
        for tool in [
            "md5sum",
            "sha1sum",
            "sha224sum",
            "sha256sum",
            "sha384sum",
            "sha512sum",
            "b2sum",
            "b3sum",
            "cksum",
            "sum",
        ] {
            std::os::unix::fs::symlink(BIN, f.path("bin").join(tool)).unwrap();
        }
        f
    }

    /// A fixture whose comparisons are checked against `tests/golden/{test}.txt`.
    fn with_golden(test: &str) -> Fixture {
        Fixture {
            golden: Some(RefCell::new(Golden::open(test))),
            ..Fixture::new()
        }
    }

    fn path(&self, name: impl AsRef<Path>) -> PathBuf {
        self.dir.path().join(name)
    }

    fn write(&self, name: &str, content: &[u8]) {
        fs::write(self.path(name), content).unwrap();
    }

    /// `program` (a path) run as argv[0] `arg0` in the fixture directory, in the C locale.
    fn cmd(&self, program: &Path, arg0: &str) -> Run {
        Run::new(program, self.dir.path())
            .arg0(arg0)
            .env("LC_ALL", "C")
            .env_remove("LANGUAGE")
            .env_remove("POSIXLY_CORRECT")
    }

    /// Run `program` (a path) as argv[0] `arg0` in the fixture directory.
    fn run(&self, program: &Path, arg0: &str, args: &[&OsStr], stdin: &[u8]) -> Output {
        self.cmd(program, arg0).args(args).stdin(stdin).output()
    }

    /// Ours, via the symlink named `tool`.
    fn ours(&self, tool: &str, args: &[&OsStr], stdin: &[u8]) -> Output {
        self.run(&self.path("bin").join(tool), tool, args, stdin)
    }

    /// Ours compared with coreutils 9.1: the golden, and the live tool where installed.
    /// Returns our output.
    fn compare(&self, tool: &str, args: &[&OsStr], stdin: &[u8]) -> Output {
        self.compare_env(tool, args, &[], stdin)
    }

    /// `compare` with the variables `env` set as well (over `LC_ALL=C`, for one).
    fn compare_env(
        &self,
        tool: &str,
        args: &[&OsStr],
        env: &[(&str, &str)],
        stdin: &[u8],
    ) -> Output {
        let golden = self
            .golden
            .as_ref()
            .expect("a comparing test makes its fixture with Fixture::with_golden");
        let run = |program: &Path| {
            let mut cmd = self.cmd(program, tool).args(args).stdin(stdin);
            for (k, v) in env {
                cmd = cmd.env(k, v);
            }
            cmd.output()
        };
        // A locale the machine lacks would give coreutils the C locale's quoting (lanesum
        // goes by the variables' names): there only the golden is checked.
        let locales_exist = env.iter().all(|(k, v)| {
            !matches!(*k, "LC_ALL" | "LC_CTYPE" | "LANG")
                || matches!(*v, "C" | "POSIX")
                || golden::locale_exists(v)
        });
        let live = golden::live_tool(tool)
            .filter(|_| locales_exist)
            .map(|p| run(&p));
        let ours = run(&self.path("bin").join(tool));
        let what = golden::describe(tool, args, env, stdin);
        golden.borrow_mut().check(&what, &ours, live.as_ref());
        ours
    }
}

fn os(args: &[&str]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}

fn refs(v: &[OsString]) -> Vec<&OsStr> {
    v.iter().map(|s| s.as_os_str()).collect()
}

fn all_names() -> Vec<OsString> {
    let mut v: Vec<OsString> = names()
        .into_iter()
        .map(|n| {
            if n.starts_with(b"-") {
                let mut p = b"./".to_vec();
                p.extend_from_slice(n);
                OsStr::from_bytes(&p).to_os_string()
            } else {
                OsStr::from_bytes(n).to_os_string()
            }
        })
        .collect();
    v.push("dir".into());
    v.push("missing".into());
    v
}

#[test]
fn hashing_matches_coreutils() {
    let f = Fixture::with_golden("hashing_matches_coreutils");
    let files = all_names();
    for tool in ["md5sum", "sha1sum", "sha256sum", "sha512sum", "b2sum"] {
        for opts in [
            &[][..],
            &["--tag"],
            &["-b"],
            &["-z"],
            &["-z", "--tag"],
            &["-t", "--tag"],
        ] {
            let mut args = os(opts);
            args.extend(files.iter().cloned());
            f.compare(tool, &refs(&args), b"");
        }
        // stdin, `-`, `--`, options after names.
        f.compare(tool, &[], b"hello\n");
        f.compare(tool, &refs(&os(&["-", "a", "-"])), b"hello\n");
        f.compare(tool, &refs(&os(&["--", "-lead"])), b"");
        f.compare(tool, &refs(&os(&["a", "--tag"])), b"");
    }
}

#[test]
fn usage_errors_match_coreutils() {
    let f = Fixture::with_golden("usage_errors_match_coreutils");
    let cases: &[&[&str]] = &[
        &["--tag", "-t", "a"],
        &["-z", "-c", "x"],
        &["--tag", "-c", "x"],
        &["-b", "-c", "x"],
        &["--quiet", "a"],
        &["--status", "a"],
        &["-w", "a"],
        &["--strict", "a"],
        &["--ignore-missing", "a"],
        &["--foo"],
        &["--foo=bar"],
        &["--=x", "a"],
        &["--=", "a"],
        &["--s=x", "a"],
        &["-q"],
        &["-bq"],
        &["--s", "a"],
        &["--ta", "a"],
        &["--tag=x", "a"],
        &["--check=", "x"],
        &["-l", "8", "a"],
    ];
    for tool in ["md5sum", "sha256sum", "b2sum"] {
        for c in cases {
            f.compare(tool, &refs(&os(c)), b"");
        }
    }
    for l in [
        "7",
        "0",
        "8",
        "256",
        "512",
        "520",
        "abc",
        "-8",
        " 256",
        "256 ",
        "+256",
        "0x100",
        "",
        "99999999999",
        "99999999999999999999999",
        "it's",
        "\u{e9}",
        "7\n",
        "a\\b\t",
    ] {
        f.compare("b2sum", &refs(&os(&["-l", l, "a"])), b"");
        f.compare("b2sum", &refs(&os(&["--tag", "--length", l, "a"])), b"");
    }
    f.compare("b2sum", &refs(&os(&["-l"])), b"");
    f.compare("b2sum", &refs(&os(&["--length"])), b"");
    // A length not a multiple of 8 is refused where getopt meets it.
    for c in [
        &["-l", "7", "-l", "8", "a"][..],
        &["-l", "7", "--help"],
        &["-l", "7", "--bogus"],
    ] {
        f.compare("b2sum", &refs(&os(c)), b"");
    }
}

#[test]
fn posixly_correct_ends_options_at_the_first_operand() {
    let f = Fixture::with_golden("posixly_correct_ends_options_at_the_first_operand");
    for args in [
        &["a", "--tag"][..],
        &["--tag", "a", "-z"],
        &["-", "-b"],
        &["--", "a", "-t"],
    ] {
        let posixly = [("POSIXLY_CORRECT", "1")];
        let got = f.compare_env("sha256sum", &refs(&os(args)), &posixly, b"");
        assert_eq!(got.status.code(), Some(1), "{args:?}");
        let last = args[args.len() - 1];
        assert!(
            String::from_utf8_lossy(&got.stderr).contains(&format!("{last}: No such file")),
            "{args:?}"
        );
    }
}

/// Lines of every kind, well and badly formed, for md5sum-style check files.
fn md5_check_lines() -> Vec<Vec<u8>> {
    let h = HELLO_MD5;
    let mut v: Vec<Vec<u8>> = [
        format!("{h}  a"),
        format!("{h}  a\r"),
        format!("  \t{h}  a"),
        format!("{} *a", h.to_uppercase()),
        format!("MD5 (a) = {h}"),
        format!("MD5(a)= {h}"),
        format!("  MD5 (a)  =  {h}"),
        format!("\\MD5 (back\\\\slash) = {h}"),
        format!("\\{h}  back\\\\slash"),
        format!("\\{h}  new\\nline"),
        format!("\\{h}  cr\\rret"),
        format!("{h}  back\\slash"),
        "00000000000000000000000000000000  a".to_string(),
        format!("{h}  missing"),
        format!("{h}  dir"),
        format!("SHA1 (a) = {h}"),
        format!("FOO (a) = {h}"),
        format!("MD5  (a) = {h}"),
        format!("MD5 (a) = {h} "),
        format!("{h}x  a"),
        format!("{}  a", &h[1..]),
        format!("{}g  a", &h[1..]),
        h.to_string(),
        format!("{h}a"),
        format!("\\{h}  bad\\qescape"),
        // A NUL ends the name, but inside or right after the digest spoils the line.
        format!("{h}\0a"),
        format!("{h}\0 a"),
        format!("{h} \0a"),
        format!("{h}  a\0b"),
        "# comment".into(),
        " # not a comment".into(),
        "".into(),
        "   ".into(),
        "\r".into(),
    ]
    .into_iter()
    .map(String::into_bytes)
    .collect();
    v.push(b"\x00\xff\x01binary garbage)( = \x7f".to_vec());
    v.push(
        format!("{h}  bad")
            .into_bytes()
            .into_iter()
            .chain(*b"\xffname")
            .collect(),
    );
    v
}

#[test]
fn check_matches_coreutils() {
    let f = Fixture::with_golden("check_matches_coreutils");
    let lines = md5_check_lines();
    let mut all = Vec::new();
    for l in &lines {
        all.extend_from_slice(l);
        all.push(b'\n');
    }
    f.write("all.md5", &all);
    // Each line alone too, so every "no properly formatted lines" path is covered.
    for (i, l) in lines.iter().enumerate() {
        let mut c = l.clone();
        c.push(b'\n');
        f.write(&format!("line{i}.md5"), &c);
    }
    f.write("empty.md5", b"");
    f.write("noeol.md5", format!("{HELLO_MD5}  a").as_bytes());
    f.write(
        "reversed.md5",
        format!("{HELLO_MD5} a\n{HELLO_MD5}  a\n").as_bytes(),
    );
    f.write("stdin.md5", format!("{HELLO_MD5}  -\n").as_bytes());
    // Each line reads standard input again: the second one sees it empty.
    f.write(
        "stdin2.md5",
        format!("{HELLO_MD5}  -\n{HELLO_MD5}  -\n{HELLO_MD5}  a\n{HELLO_MD5}  a\n").as_bytes(),
    );
    f.write(
        "devstdin2.md5",
        format!("{HELLO_MD5}  /dev/stdin\n{HELLO_MD5}  /dev/stdin\n").as_bytes(),
    );
    let opt_sets: &[&[&str]] = &[
        &[],
        &["-w"],
        &["--quiet"],
        &["--status"],
        &["--strict"],
        &["--ignore-missing"],
        &["--strict", "--status"],
        &["--warn", "--quiet"],
        &["--status", "-w"],
    ];
    let mut files: Vec<String> = vec![
        "all.md5".into(),
        "empty.md5".into(),
        "noeol.md5".into(),
        "reversed.md5".into(),
        "stdin.md5".into(),
        "stdin2.md5".into(),
        "devstdin2.md5".into(),
        "missing.md5".into(),
        "dir".into(),
    ];
    files.extend((0..lines.len()).map(|i| format!("line{i}.md5")));
    for o in opt_sets {
        for file in &files {
            let mut args = os(&["-c"]);
            args.extend(os(o));
            args.push(file.into());
            f.compare("md5sum", &refs(&args), b"hello\n");
        }
    }
    // Check file on stdin, and several check files in one run.
    f.compare("md5sum", &refs(&os(&["-c"])), &all);
    f.compare("md5sum", &refs(&os(&["-c", "-"])), b"");
    let mut args = os(&["-c", "line0.md5", "missing.md5", "all.md5"]);
    args.push("line5.md5".into());
    f.compare("md5sum", &refs(&args), b"");
}

/// `sum` has not changed since 9.1: every output compared with it.
#[test]
fn sum_matches_coreutils() {
    let f = Fixture::with_golden("sum_matches_coreutils");
    f.write("big", &vec![b'x'; 5000]);
    f.write("k", &vec![7u8; 1024]);
    let files = all_names();
    for opts in [
        &[][..],
        &["-r"],
        &["-s"],
        &["--sysv"],
        &["-s", "-r"],
        &["-r", "-s"],
    ] {
        let mut args = os(opts);
        args.extend(files.iter().cloned());
        f.compare("sum", &refs(&args), b"");
        for one in [
            &["a"][..],
            &["big"],
            &["k"],
            &["empty"],
            &["-"],
            &["big", "k"],
        ] {
            let mut args = os(opts);
            args.extend(os(one));
            f.compare("sum", &refs(&args), b"hello\n");
        }
        f.compare("sum", &refs(&os(opts)), b"hello\n");
        f.compare("sum", &refs(&os(opts)), &vec![0xffu8; 70_000]);
    }
    for bad in [
        &["-x"][..],
        &["--foo"],
        &["--s"],
        &["-c", "a"],
        &["--sysv=1"],
        &["--r"],
    ] {
        f.compare("sum", &refs(&os(bad)), b"");
    }
}

/// cksum's behaviour that 9.9 shares with 9.1 (the installed reference): the CRC, BSD
/// and System V formats, tagged and untagged digests, `-z`, `-l` with blake2b, and
/// `--check` of tagged lines and of untagged lines with `-a`. What 9.9 changed is in
/// tests/cksum.rs.
#[test]
fn cksum_matches_coreutils() {
    let f = Fixture::with_golden("cksum_matches_coreutils");
    f.write("big", &vec![b'x'; 5000]);
    // 9.1's CRC of a directory is that of nothing; newer cksum reports the read error
    // (tests/cksum.rs).
    let files: Vec<OsString> = all_names().into_iter().filter(|n| n != "dir").collect();
    let algs: &[&[&str]] = &[
        &[],
        &["-a", "crc"],
        &["-a", "bsd"],
        &["-a", "sysv"],
        &["-a", "md5"],
        &["-a", "sha1"],
        &["-a", "sha256"],
        &["-a", "sha512"],
        &["-a", "blake2b"],
        &["-a", "blake2b", "-l", "256"],
        &["-a", "sm3"],
    ];
    for a in algs {
        for opts in [
            &[][..],
            &["--untagged"],
            &["-z"],
            &["--tag"],
            &["--untagged", "-z"],
        ] {
            let mut args = os(a);
            args.extend(os(opts));
            args.extend(files.iter().cloned());
            f.compare("cksum", &refs(&args), b"");
        }
        f.compare("cksum", &refs(&os(a)), b"hello\n");
        let mut args = os(a);
        args.extend(os(&["-", "big", "a"]));
        f.compare("cksum", &refs(&args), b"hello\n");
    }
    for bad in [
        &["-a", "blake2b", "-l", "7"][..],
        &["-a", "blake2b", "-l", "520"],
        &["-a", "blake2b", "-l", "x"],
        &["--untagged", "-c", "x"],
        &["-z", "-c", "x"],
        &["--quiet", "a"],
        &["--status", "a"],
        &["-w", "a"],
        &["--strict", "a"],
        &["--ignore-missing", "a"],
        &["--foo"],
        &["-q"],
        &["--s", "a"],
        &["--ta", "a"],
        &["--un", "a"],
    ] {
        f.compare("cksum", &refs(&os(bad)), b"");
    }

    // --check: tagged lines of several algorithms without -a, untagged ones with -a.
    // (No name with a `\` or CR: 9.9 escapes those in its results, 9.1 did not.)
    let hello = |alg: &str| -> String {
        let out = f.ours("cksum", &refs(&os(&["-a", alg, "--untagged", "a"])), b"");
        String::from_utf8(out.stdout).unwrap()[..]
            .split(' ')
            .next()
            .unwrap()
            .to_string()
    };
    let (md5, sha1, b2) = (hello("md5"), hello("sha1"), hello("blake2b"));
    let sha256 = hello("sha256");
    let tagged = format!(
        "MD5 (a) = {md5}\nSHA1 (a) = {sha1}\nBLAKE2b (a) = {b2}\nSHA256 (empty) = {sha256}\n\
         MD5 (missing) = {md5}\nMD5 (dir) = {md5}\ngarbage\n{md5}  a\nBSD (a) = 1234\n\
         \\MD5 (new\\nline) = {md5}\nBLAKE2b-256 (a) = {b2}\n"
    );
    f.write("tagged.sums", tagged.as_bytes());
    f.write(
        "untagged.md5",
        format!("{md5}  a\n{md5} *empty\nMD5 (a) = {md5}\nx  y\n").as_bytes(),
    );
    f.write("empty.sums", b"");
    for o in [
        &[][..],
        &["-w"],
        &["--quiet"],
        &["--status"],
        &["--strict"],
        &["--ignore-missing"],
    ] {
        for (file, alg) in [
            ("tagged.sums", &[][..]),
            ("untagged.md5", &["-a", "md5"]),
            ("untagged.md5", &[]),
            ("tagged.sums", &["-a", "md5"]),
            ("empty.sums", &[]),
            ("missing.sums", &[]),
        ] {
            let mut args = os(&["-c"]);
            args.extend(os(alg));
            args.extend(os(o));
            args.push(file.into());
            f.compare("cksum", &refs(&args), b"");
        }
    }
    f.compare("cksum", &refs(&os(&["-c"])), tagged.as_bytes());
}

#[test]
fn check_files_from_every_tool_verify() {
    let f = Fixture::with_golden("check_files_from_every_tool_verify");
    let files = all_names();
    let files = &files[..files.len() - 2]; // without dir and missing
    for (tool, extra) in [
        ("md5sum", &[][..]),
        ("md5sum", &["--tag"]),
        ("sha1sum", &[]),
        ("sha256sum", &["--tag"]),
        ("sha512sum", &[]),
        ("b2sum", &[]),
        ("b2sum", &["--tag"]),
        ("b2sum", &["-l", "256", "--tag"]),
        ("b2sum", &["-l", "128"]),
    ] {
        let mut args = os(extra);
        args.extend(files.iter().cloned());
        let sums = f.ours(tool, &refs(&args), b"");
        assert!(sums.status.success());
        f.write("sums", &sums.stdout);
        // The same tool, and plain lanesum, both accept them.
        let mut check = os(&["-c", "sums"]);
        if tool == "b2sum" || extra.contains(&"--tag") {
            check.insert(0, "-w".into());
        }
        f.compare(tool, &refs(&check), b"");
        let out = f.ours(tool, &refs(&check), b"");
        assert!(out.status.success(), "{tool} {extra:?}: {out:?}");
        let mut la = os(&["-c", "--strict", "sums"]);
        if tool == "b2sum" && !extra.contains(&"--tag") {
            la.insert(0, "-a".into());
            la.insert(1, "blake2b".into());
        }
        let out = f.run(Path::new(BIN), "lanesum", &refs(&la), b"");
        assert!(out.status.success(), "lanesum {la:?} on {tool}: {out:?}");
    }
}

#[test]
fn b2sum_check_rules_match() {
    let f = Fixture::with_golden("b2sum_check_rules_match");
    let b = String::from_utf8(f.ours("b2sum", &refs(&os(&["a"])), b"").stdout).unwrap();
    let b = &b[..128];
    let text = format!(
        "BLAKE2b-257 (a) = 00\nBLAKE2b-0 (a) = 00\nBLAKE2b-08 (a) = 27\nBLAKE2b-0x8 (a) = 27\n\
         BLAKE2b- 8 (a) = 27\nBLAKE2b-+8 (a) = 27\nBLAKE2b-8(a) = 27\nBLAKE2s (a) = 00\n\
         BLAKE2b-8  (a) = 27\nBLAKE2b  (a) = {b}\nBLAKE2bX(a) = {b}\nBLAKE2b(a) = {b}\n\
         BLAKE2b-512 (a) = {b}\nBLAKE2b-010 (a) = 27\n{b}  a\n27  a\n2  a\nBLAKE2b\n"
    );
    f.write("b.sum", text.as_bytes());
    for o in [
        &["-c", "b.sum"][..],
        &["-c", "-w", "b.sum"],
        &["-c", "--strict", "b.sum"],
    ] {
        f.compare("b2sum", &refs(&os(o)), b"");
    }
}

#[test]
fn locale_quoting_matches() {
    let f = Fixture::with_golden("locale_quoting_matches");
    // Without the C.UTF-8 locale, only the golden is checked (see compare_env).
    for loc in ["C", "C.UTF-8"] {
        for args in [
            vec![OsString::from("no such"), "it's".into(), "é'".into()],
            vec![OsStr::from_bytes(b"x\xff'y\x01").into(), "".into()],
        ] {
            f.compare_env("md5sum", &refs(&args), &[("LC_ALL", loc)], b"");
        }
    }
}

#[test]
fn fixed_expectations() {
    let f = Fixture::new();
    // -l applies to every listed family; one made equal to another prints once.
    let out = f.run(
        Path::new(BIN),
        "lanesum",
        &refs(&os(&["-a", "blake2b-256,blake2b,blake3", "-l", "128", "a"])),
        b"",
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(text.starts_with("BLAKE2b-128 (a) = ") && text.contains("\nBLAKE3-128 (a) = "));
    let out = f.ours(
        "md5sum",
        &refs(&os(&["a", "back\\slash", "missing", "dir"])),
        b"",
    );
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!("{HELLO_MD5}  a\n\\{HELLO_MD5}  back\\\\slash\n")
    );
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "md5sum: missing: No such file or directory\nmd5sum: dir: Is a directory\n"
    );
    assert_eq!(out.status.code(), Some(1));

    let out = f.ours("md5sum", &refs(&os(&["--tag", "-z", "new\nline"])), b"");
    assert_eq!(
        out.stdout,
        format!("MD5 (new\nline) = {HELLO_MD5}\0").as_bytes()
    );

    let out = f.ours("sha256sum", &[], b"abc");
    assert_eq!(
        out.stdout,
        b"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  -\n"
    );
    let out = f.ours("b2sum", &refs(&os(&["-l", "8", "a"])), b"");
    assert_eq!(out.stdout, b"27  a\n");
    let out = f.ours("b2sum", &refs(&os(&["-l", "7", "a"])), b"");
    assert_eq!(
        out.stderr,
        b"b2sum: invalid length: '7'\nb2sum: length is not a multiple of 8\n"
    );
    let out = f.ours("md5sum", &refs(&os(&["--s", "a"])), b"");
    assert_eq!(
        out.stderr,
        b"md5sum: option '--s' is ambiguous; possibilities: '--status' '--strict'\n\
          Try 'md5sum --help' for more information.\n"
    );
    assert_eq!(out.status.code(), Some(1));

    f.write(
        "c.md5",
        format!(
            "{HELLO_MD5}  a\nbogus\n0000000000000000000000000000000  a\n{HELLO_MD5}  missing\n"
        )
        .as_bytes(),
    );
    let out = f.ours("md5sum", &refs(&os(&["-c", "c.md5"])), b"");
    assert_eq!(out.stdout, b"a: OK\nmissing: FAILED open or read\n");
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "md5sum: missing: No such file or directory\n\
         md5sum: WARNING: 2 lines are improperly formatted\n\
         md5sum: WARNING: 1 listed file could not be read\n"
    );
    let out = f.ours(
        "md5sum",
        &refs(&os(&["-c", "--ignore-missing", "c.md5"])),
        b"",
    );
    assert_eq!(out.status.code(), Some(0));
    f.write("none.md5", format!("{HELLO_MD5}  missing\n").as_bytes());
    let out = f.ours(
        "md5sum",
        &refs(&os(&["-c", "--ignore-missing", "none.md5"])),
        b"",
    );
    assert_eq!(out.stderr, b"md5sum: none.md5: no file was verified\n");
    assert_eq!(out.status.code(), Some(1));

    // Invoked through a path, diagnostics carry that path, as coreutils' do.
    let sym = f.path("bin/md5sum");
    let out = Command::new(&sym)
        .arg("missing")
        .current_dir(f.dir.path())
        .env("LC_ALL", "C")
        .output()
        .unwrap();
    let expect = format!("{}: missing: No such file or directory\n", sym.display());
    assert_eq!(String::from_utf8_lossy(&out.stderr), expect);
}

/// A check file longer than the window of lines verified together (32,768), with the
/// lines that need reporting on both sides of window boundaries: a big file (streamed,
/// gathered across windows), a misformatted line, a mismatch and a missing file.
#[test]
fn check_spans_windows() {
    let f = Fixture::with_golden("check_spans_windows");
    let big: Vec<u8> = (0..(3 << 19)).map(|i: u32| (i * 7 % 251) as u8).collect();
    f.write("big", &big);
    let big_md5 = "1ed638c296872d677aa30258baeda5a0";
    let empty_md5 = "d41d8cd98f00b204e9800998ecf8427e";
    let mut sums = Vec::new();
    for i in 0..70_000u32 {
        let line = match i {
            32_767 | 65_537 => format!("{big_md5}  big\n"),
            40_000 => "bogus\n".to_string(),
            50_000 => format!("{empty_md5}  a\n"),
            60_000 => format!("{HELLO_MD5}  missing\n"),
            _ if i % 2 == 0 => format!("{HELLO_MD5}  a\n"),
            _ => format!("{empty_md5}  empty\n"),
        };
        sums.extend_from_slice(line.as_bytes());
    }
    f.write("long.md5", &sums);
    let args = os(&["-c", "long.md5"]);
    let out = f.ours("md5sum", &refs(&args), b"");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 69_999);
    assert_eq!(lines[32_767], "big: OK");
    assert_eq!(lines[49_999], "a: FAILED");
    assert_eq!(lines[59_999], "missing: FAILED open or read");
    assert_eq!(lines[65_536], "big: OK");
    assert_eq!(lines.iter().filter(|l| l.ends_with(": OK")).count(), 69_997);
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "md5sum: missing: No such file or directory\n\
         md5sum: WARNING: 1 line is improperly formatted\n\
         md5sum: WARNING: 1 listed file could not be read\n\
         md5sum: WARNING: 1 computed checksum did NOT match\n"
    );
    assert_eq!(out.status.code(), Some(1));
    f.compare("md5sum", &refs(&args), b"");
}

#[test]
fn multi_algorithm_equals_coreutils_tags() {
    let f = Fixture::with_golden("multi_algorithm_equals_coreutils_tags");
    let files = ["a", "empty", "back\\slash", "new\nline"];
    // Each tool's tagged lines, as coreutils prints them (compare checks that).
    let mut want = Vec::new();
    for name in files {
        for tool in ["md5sum", "sha1sum", "sha256sum", "sha512sum"] {
            want.extend(f.compare(tool, &refs(&os(&["--tag", name])), b"").stdout);
        }
    }
    let mut args = os(&["-a", "md5,sha1,sha256,sha512"]);
    args.extend(os(&files));
    let got = f.run(Path::new(BIN), "lanesum", &refs(&args), b"");
    assert_eq!(
        String::from_utf8_lossy(&got.stdout),
        String::from_utf8_lossy(&want)
    );
    f.write("multi.sum", &got.stdout);
    let out = f.run(
        Path::new(BIN),
        "lanesum",
        &refs(&os(&["-c", "multi.sum"])),
        b"",
    );
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        out.stdout
            .split(|&b| b == b'\n')
            .filter(|l| l.ends_with(b": OK"))
            .count(),
        16
    );
    // md5sum accepts only the MD5 lines of it.
    let out = f.ours("md5sum", &refs(&os(&["-c", "multi.sum"])), b"");
    assert!(String::from_utf8_lossy(&out.stderr).contains("12 lines are improperly formatted"));
}

#[test]
fn json_records() {
    let f = Fixture::new();
    let out = f.run(
        Path::new(BIN),
        "lanesum",
        &[
            OsStr::new("--json"),
            OsStr::new("-a"),
            OsStr::new("md5,blake3"),
            OsStr::new("a"),
            OsStr::from_bytes(b"bad\xffname"),
            OsStr::new("missing"),
        ],
        b"",
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[0].starts_with(&format!(
        "{{\"path\":\"a\",\"size\":6,\"md5\":\"{HELLO_MD5}\",\"blake3\":\""
    )));
    assert!(lines[1].contains("\"path_bytes\":\"626164ff6e616d65\""));
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn closed_stdout_and_bad_input_do_not_panic() {
    let f = Fixture::new();
    f.write("big", &vec![0u8; 4 << 20]);
    let mut child = Command::new(BIN)
        .args(["big", "big", "big", "big"])
        .current_dir(f.dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert!(
        out.stderr.is_empty(),
        "{:?}",
        String::from_utf8_lossy(&out.stderr)
    );
    for args in [
        &["-a", "blake3", "-l", "99999999999999999999999999"][..],
        &["-l", "18446744073709551608", "-a", "blake3"],
        &["-a", "blake2b-99999999"],
        &["-c", "big"],
        &["-a", ",,", "a"],
    ] {
        let out = f.run(Path::new(BIN), "lanesum", &refs(&os(args)), b"");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
    }
    for args in [
        &["speed", "--time", "nan"][..],
        &["speed", "--sizes", "0", "--modes", "--json"],
        &["speed", "--sizes", "512M", "-a", "md5"],
    ] {
        let out = f.run(Path::new(BIN), "lanesum", &refs(&os(args)), b"");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.starts_with("lanesum speed: invalid") || err.contains("at most 1 GiB"),
            "{args:?}: {err}"
        );
        assert_eq!(out.status.code(), Some(1), "{args:?}");
    }
    let out = f.run(
        Path::new(BIN),
        "lanesum",
        &refs(&os(&["speed", "-a", "md4"])),
        b"",
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).starts_with("lanesum speed: unknown algorithm 'md4'")
    );
}

/// `lanesum speed | head -1`: the reader leaves after one line; the report stops quietly
/// (SIGPIPE, like coreutils) instead of panicking on the failed write.
#[test]
fn speed_into_a_closed_pipe_stops_quietly() {
    use std::io::{BufRead, BufReader};
    use std::os::unix::process::ExitStatusExt;
    // 256 measurements of at least 10 ms each: the reader has gone long before the
    // last, however late this thread runs (whatever level the suite forces, since every
    // row is the auto path).
    let mut child = Command::new(BIN)
        .args([
            "speed",
            "-a",
            "md5,sha1,sha256,sha512",
            "--sizes",
            "64",
            "--counts",
            "--time",
            "0.01",
        ])
        .arg("--json")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with('{'), "{first}");
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.is_empty(), "{err}");
    assert_eq!(out.status.signal(), Some(libc::SIGPIPE), "{:?}", out.status);
}

#[test]
fn a_low_open_file_limit_still_hashes_every_file() {
    // With a hard limit of 24 descriptors (`ulimit -n` sets both), hashing many small
    // and big files, and checking them, opens fewer at once rather than failing some.
    let f = Fixture::new();
    let mut names = Vec::new();
    for i in 0..60 {
        f.write(&format!("s{i:02}"), format!("small {i}\n").as_bytes());
        names.push(format!("s{i:02}"));
    }
    for i in 0..12u8 {
        f.write(&format!("b{i:02}"), &vec![i; (1 << 20) + 4096 * i as usize]);
        names.push(format!("b{i:02}"));
    }
    let limited = |args: &[String], stdin: &[u8]| {
        let mut argv = os(&["-c", "ulimit -n 24 && exec \"$0\" \"$@\"", BIN]);
        argv.extend(args.iter().map(OsString::from));
        f.run(Path::new("/bin/sh"), "sh", &refs(&argv), stdin)
    };
    let mut args = vec!["-a".to_string(), "md5".to_string()];
    args.extend(names.iter().cloned());
    let want = f.run(
        Path::new(BIN),
        "lanesum",
        &refs(&os(&args.iter().map(String::as_str).collect::<Vec<_>>())),
        b"",
    );
    let got = limited(&args, b"");
    assert_eq!(String::from_utf8_lossy(&got.stderr), "");
    assert_eq!(got.status.code(), Some(0));
    assert_eq!(got.stdout, want.stdout);
    assert_eq!(
        got.stdout.iter().filter(|&&b| b == b'\n').count(),
        names.len()
    );
    let check = limited(
        &["-a".into(), "md5".into(), "-c".into(), "-".into()],
        &want.stdout,
    );
    assert_eq!(String::from_utf8_lossy(&check.stderr), "");
    assert_eq!(check.status.code(), Some(0));
}

#[test]
fn write_only_stdin_is_a_bad_descriptor() {
    // Reading descriptor 0 fails with EBADF: an error, as in coreutils, not the digest of
    // an empty input.
    let f = Fixture::new();
    let cases: [(&[&str], &str); 4] = [
        (&[], "lanesum: -: Bad file descriptor\n"),
        (&["a", "-"], "lanesum: -: Bad file descriptor\n"),
        (&["-c"], "lanesum: 'standard input': read error\n"),
        (&["--files-from", "-"], "Bad file descriptor"),
    ];
    for (args, err) in cases {
        let out = Command::new(BIN)
            .args(args)
            .current_dir(f.dir.path())
            .env("LC_ALL", "C")
            .stdin(Stdio::from(fs::File::create(f.path("sink")).unwrap()))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(err), "{args:?}: {stderr}");
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            !String::from_utf8_lossy(&out.stdout).contains("  -"),
            "{args:?}"
        );
    }
}

/// A bad `LANESUM_ISA` is refused with one message and status 2 (it was two messages:
/// the library's warning that it would go on, then the refusal).
#[test]
fn a_bad_isa_override_is_one_error() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a"), b"abc").unwrap();
    let o = common::Run::lanesum(dir.path())
        .env("LANESUM_ISA", "bogus")
        .args(["-a", "md5", "a"])
        .output();
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(o.stdout, b"");
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "lanesum: LANESUM_ISA: unknown level 'bogus' (use portable, shani, avx2, avx512 or auto)\n"
    );
}

/// Options that can't go together are refused naming each one; `speed` with standard
/// output closed reports its write error (it exited 0, its results thrown away).
#[test]
fn conflicts_and_a_closed_stdout_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a"), b"abc").unwrap();
    for (args, want) in [
        (
            &["--json", "--base64", "a"][..],
            "the --json and --base64 options are mutually exclusive",
        ),
        (
            &["--s3", "-r", "a"],
            "meaningless with --check, --etag, --s3, --blocks and --torrent-pieces",
        ),
    ] {
        let o = common::Run::lanesum(dir.path()).args(args).output();
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains(want),
            "{args:?}"
        );
    }
    let o = std::process::Command::new("sh")
        .args([
            "-c",
            "exec \"$0\" speed -a md5 --sizes 64 --time 0.01 >&-",
            common::BIN,
        ])
        .env_remove("LANESUM_ISA")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("write error"));
}
