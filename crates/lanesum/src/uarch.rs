//! Which core design the kernel speed estimates should follow.

use std::sync::OnceLock;

use crate::sys::cpuid;

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
    /// Reads the CPU vendor and family (CPUID leaves 0 and 1).
    pub fn detect() -> Uarch {
        let Some([max_leaf, b, c, d]) = cpuid(0) else {
            return Uarch::Other;
        };
        let amd = [b, d, c] == [*b"Auth", *b"enti", *b"cAMD"].map(u32::from_le_bytes);
        if !amd || max_leaf < 1 {
            return Uarch::Other;
        }
        let eax = cpuid(1).map_or(0, |r| r[0]);
        let family = ((eax >> 8) & 0xf) + ((eax >> 20) & 0xff);
        if family >= 0x1a {
            Uarch::Zen5
        } else if family == 0x19 && crate::isa::Avx512::detect().is_some() {
            Uarch::Zen4
        } else {
            Uarch::Other
        }
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
