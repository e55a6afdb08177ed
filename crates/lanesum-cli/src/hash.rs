//! Hashing mode: every input (operands, `--files-from` names, walked trees) read once by
//! `lanesum_files`, one line per algorithm per input, file-major, or one JSON record per
//! input.

use std::os::unix::ffi::OsStrExt;

use lanesum::Algorithm;

use crate::options::Options;
use crate::progress::Progress;
use crate::report::Reporter;
use crate::{json, output};

/// Hash every input of `opts`; returns the exit status.
pub fn run(opts: &Options, rep: &mut Reporter) -> i32 {
    let legacy = opts.personality.legacy_formats();
    let jobs = match lanesum_files::jobs(opts.files.clone(), &opts.input) {
        Ok(jobs) => jobs,
        Err(e) => rep.usage_error(&match e.pattern() {
            Some(p) => format!("invalid --exclude pattern {p:?}: {}", e.reason()),
            None => e.reason().to_string(),
        }),
    };
    let mut progress = Progress::new(opts.progress, jobs.found());
    let mut ok = true;
    let mut line = Vec::with_capacity(256);
    let mut debug = CrcDebug::default();
    let mut files = lanesum_files::hash_jobs(jobs, &opts.algs, &opts.input);
    for f in files.by_ref() {
        let name = f.path.as_bytes();
        // GNU opens a directory and fails to read it: its checks ran.
        if opts.debug
            && (f.result.as_ref().err())
                .is_none_or(|e| e.kind() == std::io::ErrorKind::IsADirectory)
        {
            debug.opened(&opts.algs, rep);
        }
        match f.result {
            Ok(h) => {
                progress.step(h.size);
                if opts.json {
                    line = json::record(&opts.algs, name, &h).to_string().into_bytes();
                    line.push(if opts.style.zero { 0 } else { b'\n' });
                } else {
                    line.clear();
                    for (alg, d) in opts.algs.iter().zip(&h.digests) {
                        if opts.raw {
                            line.extend_from_slice(d.as_bytes());
                        } else if legacy && output::is_legacy(*alg) {
                            let shown = opts.operands.then_some(name);
                            output::push_legacy_line(
                                &mut line,
                                *alg,
                                d,
                                h.size,
                                shown,
                                opts.style.zero,
                            );
                        } else {
                            output::push_line(&mut line, *alg, d, name, opts.style);
                        }
                    }
                }
                rep.write(&line);
                rep.flush();
            }
            Err(e) => {
                progress.step(0);
                rep.file_error(name, &e);
                ok = false;
            }
        }
    }
    // The process exits next, and its memory goes with it. Freeing the pipeline's buffers
    // here (up to twice 2-8 MiB per thread) unmapped them page by page while the pool's
    // threads still ran, a TLB flush on every core each time: on a 16-core Xeon VM the
    // last 5 ms of a 60 ms run over 20,000 small files, on this thread alone.
    std::mem::forget(files);
    i32::from(!ok)
}

/// cksum's `--debug`: GNU's hardware checks for its CRC code, on standard error, at the
/// points where GNU runs them. The POSIX CRC tries AVX-512, AVX2, then PCLMUL (aarch64:
/// VMULL), each check printing "using NAME hardware support" or "NAME support not
/// detected", once per run, when the first input is opened; CRC-32 (`crc32b`) checks
/// PCLMUL alone, at every input. Other algorithms print nothing. The lines say what the
/// CPU offers, as GNU's do; lanesum's CRC library picks its own code from the same
/// features.
#[derive(Default)]
struct CrcDebug {
    crc_checked: bool,
}

impl CrcDebug {
    /// Before an opened input's output (or its read error).
    fn opened(&mut self, algs: &[Algorithm], rep: &mut Reporter) {
        for alg in algs {
            let checks: &[&str] = match alg {
                Algorithm::Crc if !self.crc_checked => {
                    self.crc_checked = true;
                    &["avx512", "avx2", "pclmul", "vmull"]
                }
                Algorithm::Crc32 => &["pclmul"],
                _ => continue,
            };
            for &name in checks {
                let Some(found) = gnu_check(name) else {
                    continue;
                };
                if found {
                    rep.error(&format!("using {name} hardware support"));
                    break;
                }
                rep.error(&format!("{name} support not detected"));
            }
        }
    }
}

/// GNU cksum's test for its CRC code `name` (`__builtin_cpu_supports`), or `None` where
/// GNU has no such code for this architecture.
#[cfg(target_arch = "x86_64")]
fn gnu_check(name: &str) -> Option<bool> {
    use std::arch::is_x86_feature_detected as has;
    match name {
        "avx512" => Some(has!("vpclmulqdq") && has!("avx512bw") && has!("avx512f")),
        "avx2" => Some(has!("vpclmulqdq") && has!("avx2")),
        "pclmul" => Some(has!("pclmulqdq") && has!("avx")),
        _ => None,
    }
}

/// GNU cksum's test for its CRC code `name` (`getauxval`): only VMULL here.
#[cfg(target_arch = "aarch64")]
fn gnu_check(name: &str) -> Option<bool> {
    (name == "vmull").then(|| std::arch::is_aarch64_feature_detected!("pmull"))
}

/// GNU cksum has no hardware CRC code for this architecture.
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
fn gnu_check(_name: &str) -> Option<bool> {
    None
}
