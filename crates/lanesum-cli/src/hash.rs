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
    if opts.debug {
        debug_note(opts, rep);
    }
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
    for f in lanesum_files::hash_jobs(jobs, &opts.algs, &opts.input) {
        let name = f.path.as_bytes();
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
    i32::from(!ok)
}

/// cksum's `--debug`: which code computes the CRC, on standard error, as GNU names its
/// hardware paths (`pclmul`, `avx2`, `avx512`, `vmull`, `generic`).
fn debug_note(opts: &Options, rep: &mut Reporter) {
    if !opts
        .algs
        .iter()
        .any(|a| matches!(a, Algorithm::Crc | Algorithm::Crc32))
    {
        return;
    }
    let path = crc_path();
    rep.error(&format!("using {path} hardware support"));
}

fn crc_path() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("vpclmulqdq") {
            if std::arch::is_x86_feature_detected!("avx512bw") {
                return "avx512";
            }
            return "avx2";
        }
        if std::arch::is_x86_feature_detected!("pclmulqdq") {
            return "pclmul";
        }
    }
    #[cfg(target_arch = "aarch64")]
    {
        if std::arch::is_aarch64_feature_detected!("aes") {
            return "vmull";
        }
    }
    "generic"
}
