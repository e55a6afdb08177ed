//! Values hidden from the optimiser, shared by the x86 kernels.
//!
//! LLVM reassociates a round's additions: it adds a constant (MD5's `K`) last, or folds
//! SHA-1's `rol5(a)` into the middle, which lengthens the dependent chain from one round
//! to the next (MD5 AVX-512: 10 cycles a step instead of 8). Passing a partial sum through
//! an empty `asm!` pins the order the kernel wrote.
#![allow(unsafe_code)]

use core::arch::x86_64::*;

/// Returns `x` unchanged, hidden from the optimiser.
#[inline]
#[target_feature(enable = "avx512f")]
pub(crate) fn opaque_zmm(mut x: __m512i) -> __m512i {
    // SAFETY: the asm is empty: it reads and writes only the register holding `x`.
    unsafe {
        core::arch::asm!("/* {0} */", inout(zmm_reg) x, options(pure, nomem, nostack, preserves_flags));
    }
    x
}

/// Returns `x` unchanged, hidden from the optimiser (registers ymm0-15: without
/// AVX-512VL the upper sixteen do not exist).
#[inline]
#[target_feature(enable = "avx2")]
pub(crate) fn opaque_ymm(mut x: __m256i) -> __m256i {
    // SAFETY: the asm is empty: it reads and writes only the register holding `x`.
    unsafe {
        core::arch::asm!("/* {0} */", inout(ymm_reg) x, options(pure, nomem, nostack, preserves_flags));
    }
    x
}
