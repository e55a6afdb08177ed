//! Instruction-set levels: detected once per process, overridable with `LANESUM_ISA`.
//!
//! Every fast path asks [`active`] which features it may use; nothing else reads CPUID.
//! `LANESUM_ISA` takes a comma-separated list of `portable`, `shani`, `avx2`, `avx512`
//! (or `auto`) so tests and benchmarks can force each path. Asking for a feature the CPU
//! lacks is an error ([`IsaError`]), never an illegal instruction.

use std::fmt;
use std::sync::OnceLock;

/// The instruction-set features lanesum's kernels use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Features {
    /// SHA-NI (with SSE4.1): SHA-1 and SHA-256 single/multi-stream.
    pub shani: bool,
    /// AVX2: 8-lane 32-bit / 4-lane 64-bit kernels.
    pub avx2: bool,
    /// AVX-512 F+BW+VL: 16-lane 32-bit / 8-lane 64-bit kernels.
    pub avx512: bool,
}

impl Features {
    /// Scalar code only.
    pub const PORTABLE: Features = Features {
        shani: false,
        avx2: false,
        avx512: false,
    };

    /// What this CPU supports.
    pub fn detect() -> Features {
        #[cfg(target_arch = "x86_64")]
        {
            Features {
                shani: std::arch::is_x86_feature_detected!("sha")
                    && std::arch::is_x86_feature_detected!("sse4.1")
                    && std::arch::is_x86_feature_detected!("ssse3"),
                avx2: std::arch::is_x86_feature_detected!("avx2"),
                avx512: std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512bw")
                    && std::arch::is_x86_feature_detected!("avx512vl"),
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            Features::PORTABLE
        }
    }

    /// Parse a `LANESUM_ISA` value and check it against `cpu`.
    pub fn parse(spec: &str, cpu: Features) -> Result<Features, IsaError> {
        let spec = spec.trim();
        if spec.is_empty() || spec.eq_ignore_ascii_case("auto") {
            return Ok(cpu);
        }
        let mut f = Features::PORTABLE;
        for word in spec.split(',').map(str::trim) {
            match word.to_ascii_lowercase().as_str() {
                "portable" | "scalar" => {}
                "shani" | "sha-ni" | "sha" => f.shani = true,
                "avx2" => f.avx2 = true,
                "avx512" | "avx-512" => f.avx512 = true,
                _ => return Err(IsaError::Unknown(word.to_string())),
            }
        }
        let missing: Vec<&str> = [
            (f.shani && !cpu.shani, "shani"),
            (f.avx2 && !cpu.avx2, "avx2"),
            (f.avx512 && !cpu.avx512, "avx512"),
        ]
        .iter()
        .filter(|(m, _)| *m)
        .map(|(_, n)| *n)
        .collect();
        if missing.is_empty() {
            Ok(f)
        } else {
            Err(IsaError::Unsupported(missing.join(",")))
        }
    }

    /// The names of the enabled features, `portable` if none.
    pub fn names(self) -> String {
        let v: Vec<&str> = [
            (self.shani, "shani"),
            (self.avx2, "avx2"),
            (self.avx512, "avx512"),
        ]
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, n)| *n)
        .collect();
        if v.is_empty() {
            "portable".into()
        } else {
            v.join(",")
        }
    }
}

impl fmt::Display for Features {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.names())
    }
}

/// A `LANESUM_ISA` value that cannot be honoured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IsaError {
    Unknown(String),
    Unsupported(String),
}

impl fmt::Display for IsaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IsaError::Unknown(w) => write!(
                f,
                "LANESUM_ISA: unknown level '{w}' (use portable, shani, avx2, avx512 or auto)"
            ),
            IsaError::Unsupported(w) => {
                write!(f, "LANESUM_ISA: this CPU does not support {w}")
            }
        }
    }
}

impl std::error::Error for IsaError {}

static ACTIVE: OnceLock<Result<Features, IsaError>> = OnceLock::new();

/// The features in force for this process: detected, or as `LANESUM_ISA` says.
///
/// Programs should call this once at start-up to report a bad override cleanly.
pub fn try_active() -> Result<Features, IsaError> {
    ACTIVE
        .get_or_init(|| {
            let cpu = Features::detect();
            match std::env::var("LANESUM_ISA") {
                Ok(spec) => Features::parse(&spec, cpu),
                Err(_) => Ok(cpu),
            }
        })
        .clone()
}

/// The features in force for this process.
///
/// # Panics
/// If `LANESUM_ISA` names an unknown level or one this CPU lacks; call [`try_active`]
/// first to report that as an error instead.
pub fn active() -> Features {
    match try_active() {
        Ok(f) => f,
        Err(e) => panic!("{e}"),
    }
}

/// The core design the kernel speed estimates were measured on. Correctness never
/// depends on it; it only decides which of several correct kernels is fastest.
///
/// Zen 5 gives simple 512-bit integer ops (add, rotate, ternlog) 2-cycle latency where
/// Intel cores and Zen 4 give 1, so on Zen 5 a kernel needs twice as many independent
/// lane sets in flight to fill its ports, and SHA-NI runs relatively faster.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Uarch {
    /// Intel, Zen 3 and older, anything unknown: the estimates from an Intel Xeon.
    Other,
    /// AMD family 0x19 with AVX-512: 512-bit ops split in two 256-bit halves, so the
    /// AVX-512 kernels gain less over AVX2 and SHA-NI, and MD5 wants 4 lane sets.
    Zen4,
    /// AMD family 0x1A and later.
    Zen5,
}

impl Uarch {
    /// Reads the CPU vendor and family (CPUID leaves 0 and 1). Miri cannot run CPUID.
    pub fn detect() -> Uarch {
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        {
            // SAFETY: CPUID exists on every x86-64 CPU; leaf 1 is read only when leaf 0
            // says it exists. (`__cpuid` is a safe fn from Rust 1.94; older ones need this.)
            #[allow(unused_unsafe)]
            let cpuid = |leaf| unsafe { std::arch::x86_64::__cpuid(leaf) };
            let leaf0 = cpuid(0);
            let amd = leaf0.ebx == u32::from_le_bytes(*b"Auth")
                && leaf0.edx == u32::from_le_bytes(*b"enti")
                && leaf0.ecx == u32::from_le_bytes(*b"cAMD");
            if amd && leaf0.eax >= 1 {
                let eax = cpuid(1).eax;
                let family = ((eax >> 8) & 0xf) + ((eax >> 20) & 0xff);
                if family >= 0x1a {
                    return Uarch::Zen5;
                }
                if family == 0x19 && std::arch::is_x86_feature_detected!("avx512f") {
                    return Uarch::Zen4;
                }
            }
        }
        Uarch::Other
    }
}

/// This CPU's [`Uarch`], read once.
pub fn uarch() -> Uarch {
    static UARCH: OnceLock<Uarch> = OnceLock::new();
    *UARCH.get_or_init(Uarch::detect)
}

/// A kernel's estimated GB/s per core on this CPU: `other` as measured on an Intel
/// Xeon (Emerald Rapids), `zen4` and `zen5` on AMD EPYC Zen 4 and Zen 5, all at 16 KiB
/// with full lanes (Zen 4: `hash_many_with` each kernel, 48 or 64 messages, best of 3).
pub(crate) fn est(other: f32, zen4: f32, zen5: f32) -> f32 {
    match uarch() {
        Uarch::Other => other,
        Uarch::Zen4 => zen4,
        Uarch::Zen5 => zen5,
    }
}

/// The logical CPU this thread runs on now (it may move at any time), for keeping data a
/// core wrote on that core; 0 where the OS does not say.
pub(crate) fn current_cpu() -> usize {
    #[cfg(all(target_os = "linux", not(miri)))]
    {
        // SAFETY: `sched_getcpu` takes no arguments and touches no memory of ours; it
        // returns -1 on failure, which maps to 0 below.
        let cpu = unsafe { libc::sched_getcpu() };
        usize::try_from(cpu).unwrap_or(0)
    }
    #[cfg(any(not(target_os = "linux"), miri))]
    {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_levels() {
        let all = Features {
            shani: true,
            avx2: true,
            avx512: true,
        };
        assert_eq!(Features::parse("portable", all), Ok(Features::PORTABLE));
        assert_eq!(Features::parse("auto", all), Ok(all));
        assert_eq!(
            Features::parse("avx2,shani", all),
            Ok(Features {
                shani: true,
                avx2: true,
                avx512: false
            })
        );
        assert!(matches!(
            Features::parse("avx512", Features::PORTABLE),
            Err(IsaError::Unsupported(_))
        ));
        assert!(matches!(
            Features::parse("sse9", all),
            Err(IsaError::Unknown(_))
        ));
    }

    #[test]
    fn active_is_supported() {
        let a = active();
        let cpu = Features::detect();
        assert!(!a.avx512 || cpu.avx512);
        assert!(!a.avx2 || cpu.avx2);
        assert!(!a.shani || cpu.shani);
    }
}
