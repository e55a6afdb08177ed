//! MD5 in 2 to 4 interleaved scalar streams: any CPU, and on Zen 5 the fastest path for
//! 2 to 4 long streams on one core (big files a few per core, an engine round of a few
//! uploads, `hash_many` of a few long messages).
//!
//! One MD5 stream waits on its steps' latency, in general-purpose registers or in a SIMD
//! lane alike, but a SIMD lane's step is the slower of the two: on Zen 5 at 256 KiB one
//! scalar stream runs at 0.9 GB/s and each of 4 to 16 AVX-512 lanes at 0.45. Streams
//! interleaved in scalar registers fill the integer units while each waits: 2, 3 and 4
//! streams run at 1.7, 2.35 and 2.3 GB/s where 2 to 4 lanes of a SIMD kernel give 0.9 to
//! 1.85. Four already spill some of the 16 general-purpose registers; more fall behind.
//!
//! State is word-major, as every lane kernel's: word `w` of lane `l` at `state[w * N + l]`.

use super::{opaque, round_f, round_g, round_h, round_i, word_index, K, S};
use crate::lanes::{LaneKernel, Plain};
use crate::uarch::est;

/// The interleaved kernels, for [`Kernels::few`](crate::family::Kernels::few): each is
/// offered only to exactly as many streams as it has lanes, all of them long. Chosen only
/// on Zen 5, the one CPU they were measured on (`md5_kernel_speed`, 16 KiB lanes: x2
/// 1.72, x3 2.35, x4 2.30 GB/s); elsewhere their estimate keeps them out of the choice,
/// and the tests still run them everywhere. When a stream ends, the scheduler narrows to
/// the other kernels (rated at these estimates, they keep the streams until one is
/// left).
pub(crate) fn kernels() -> Vec<LaneKernel<u32>> {
    vec![
        LaneKernel::new::<Sets<2>>((), "scalar-x2", 2, est(0.1, 0.1, 1.65)),
        LaneKernel::new::<Sets<3>>((), "scalar-x3", 3, est(0.1, 0.1, 2.15)),
        LaneKernel::new::<Sets<4>>((), "scalar-x4", 4, est(0.1, 0.1, 2.05)),
    ]
}

/// `N` streams interleaved step by step.
struct Sets<const N: usize>;

#[allow(unsafe_code)] // an unsafe fn of the trait; the body is safe code
impl<const N: usize> Plain<u32> for Sets<N> {
    type Token = ();

    unsafe fn compress(state: &mut [u32], blocks: &[&[u8]], nblocks: usize) {
        assert_eq!(state.len(), 4 * N);
        assert_eq!(blocks.len(), N);
        assert!(blocks.iter().all(|b| b.len() >= nblocks * 64));
        compress_n::<N>(state, blocks, nblocks);
    }
}

/// Compress `nblocks` blocks of each of `N` lanes (`blocks[l]` at least `64 nblocks`
/// bytes), every step done for each lane in turn.
fn compress_n<const N: usize>(state: &mut [u32], blocks: &[&[u8]], nblocks: usize) {
    let (mut a, mut b, mut c, mut d) = ([0u32; N], [0u32; N], [0u32; N], [0u32; N]);
    for l in 0..N {
        (a[l], b[l], c[l], d[l]) = (state[l], state[N + l], state[2 * N + l], state[3 * N + l]);
    }
    for blk in 0..nblocks {
        let mut m = [[0u32; 16]; N];
        for (ml, lane) in m.iter_mut().zip(blocks) {
            let block = &lane[64 * blk..64 * blk + 64];
            for (w, bytes) in ml.iter_mut().zip(block.chunks_exact(4)) {
                *w = u32::from_le_bytes(bytes.try_into().unwrap());
            }
        }
        let (aa, bb, cc, dd) = (a, b, c, d);

        // The scalar reference's step (`compress_portable`), once per lane.
        macro_rules! step {
            ($f:expr, $a:ident, $b:ident, $c:ident, $d:ident, $i:expr, $s:expr) => {
                for l in 0..N {
                    let early =
                        opaque($a[l].wrapping_add(m[l][word_index($i)]).wrapping_add(K[$i]));
                    $a[l] = $b[l]
                        .wrapping_add(early.wrapping_add($f($b[l], $c[l], $d[l])).rotate_left($s));
                }
            };
        }
        macro_rules! quad {
            ($f:expr, $r:expr, $i:expr) => {
                md5_scalar_quad!(step, a, b, c, d, $f, $r, $i)
            };
        }
        md5_quads!(quad, round_f, round_g, round_h, round_i);

        for l in 0..N {
            a[l] = a[l].wrapping_add(aa[l]);
            b[l] = b[l].wrapping_add(bb[l]);
            c[l] = c[l].wrapping_add(cc[l]);
            d[l] = d[l].wrapping_add(dd[l]);
        }
    }
    for l in 0..N {
        (state[l], state[N + l], state[2 * N + l], state[3 * N + l]) = (a[l], b[l], c[l], d[l]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::md5::Md5;
    use crate::testing::check_kernel;

    /// Every lane of every interleaved kernel against the scalar reference, at several
    /// block counts and buffer offsets; the scheduler's and `hash_many`'s tests run them
    /// again wherever they are chosen.
    #[test]
    fn scalar_kernels_match_reference() {
        for k in kernels() {
            check_kernel::<Md5>(&k);
        }
    }
}
