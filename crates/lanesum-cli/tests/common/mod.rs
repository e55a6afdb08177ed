//! Helpers shared by the CLI's integration tests (`mod common;` in each): running lanesum
//! or another program with given arguments and standard input, digests in hex, the
//! vectors' folder and input pattern.

// Each test file uses a part of this module.
#![allow(dead_code)]

#[path = "../../../lanesum/tests/common/mod.rs"]
mod library;

use std::ffi::OsStr;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

#[allow(unused_imports)] // b3sum.rs only
pub use library::vectors;

pub const BIN: &str = env!("CARGO_BIN_EXE_lanesum");

/// A program to run with its standard input given up front: lanesum (`Run::lanesum`) or
/// any other (`Run::new`), always without a forced `LANESUM_ISA` level.
pub struct Run {
    cmd: Command,
    stdin: Vec<u8>,
}

impl Run {
    pub fn new(program: impl AsRef<OsStr>, dir: &Path) -> Run {
        let mut cmd = Command::new(program);
        cmd.current_dir(dir).env_remove("LANESUM_ISA");
        Run {
            cmd,
            stdin: Vec::new(),
        }
    }

    /// The lanesum binary, run in `dir`.
    pub fn lanesum(dir: &Path) -> Run {
        Run::new(BIN, dir)
    }

    pub fn arg0(mut self, arg0: impl AsRef<OsStr>) -> Run {
        std::os::unix::process::CommandExt::arg0(&mut self.cmd, arg0);
        self
    }

    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Run {
        self.cmd.arg(arg);
        self
    }

    pub fn args(mut self, args: impl IntoIterator<Item = impl AsRef<OsStr>>) -> Run {
        self.cmd.args(args);
        self
    }

    pub fn env(mut self, key: &str, value: impl AsRef<OsStr>) -> Run {
        self.cmd.env(key, value);
        self
    }

    pub fn env_remove(mut self, key: &str) -> Run {
        self.cmd.env_remove(key);
        self
    }

    pub fn stdin(mut self, data: &[u8]) -> Run {
        self.stdin = data.to_vec();
        self
    }

    /// Runs it: standard input is written from another thread (so a large input can't
    /// block on a full output pipe), and the program may leave without reading it.
    pub fn output(mut self) -> Output {
        let mut child = self
            .cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{:?}: {e}", self.cmd));
        let mut pipe = child.stdin.take().unwrap();
        let data = std::mem::take(&mut self.stdin);
        let writer = std::thread::spawn(move || match pipe.write_all(&data) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
            r => r.unwrap(),
        });
        let out = child.wait_with_output().unwrap();
        writer.join().unwrap();
        out
    }

    /// Standard output of a run that must succeed (exit status 0).
    pub fn ok(self) -> String {
        let what = format!("{:?}", self.cmd);
        let out = self.output();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{what}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }
}

/// `lanesum ARGS` in `dir`, standard input `stdin`.
pub fn run_in(dir: &Path, args: &[&OsStr], stdin: &[u8]) -> Output {
    Run::lanesum(dir).args(args).stdin(stdin).output()
}

/// `lanesum ARGS` in `dir`, standard input empty.
pub fn run(dir: &Path, args: &[&str]) -> Output {
    Run::lanesum(dir).args(args).output()
}

/// Standard output of `lanesum ARGS` in `dir`, which must succeed.
pub fn ok(dir: &Path, args: &[&str]) -> String {
    Run::lanesum(dir).args(args).ok()
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub fn md5(data: &[u8]) -> String {
    lanesum::hash(lanesum::Algorithm::Md5, data).to_hex()
}

/// `pattern(N)` of the vector files: N bytes, byte i = i mod 251.
pub fn pattern(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i % 251) as u8).collect()
}

pub fn md5_bytes(data: &[u8]) -> Vec<u8> {
    lanesum::hash(lanesum::Algorithm::Md5, data)
        .as_bytes()
        .to_vec()
}
