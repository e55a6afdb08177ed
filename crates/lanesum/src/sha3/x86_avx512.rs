//! AVX-512 Keccak-f[1600]: eight states side by side, one 64-bit lane of a zmm each.
//!
//! Each of the 25 state words of the eight messages is one zmm, and a round is the FIPS
//! 202 steps on whole vectors, in fewer instructions than AVX2 needs: `vprolq` rotates
//! in one instruction (AVX2 takes three), `vpternlogq` computes theta's five-way XOR in
//! two, theta's `a ^ c[x-1] ^ rot(c[x+1])` in one, and chi's `b ^ (!b1 & b2)` in one. A
//! round is about 95 instructions for eight messages, where AVX2's is about 170 for
//! four.
//!
//! Blocks are read eight words of each lane at a time and transposed (unpack, then two
//! rounds of 128-bit shuffles); a rate's last words (17 of SHA3-256's are 2 x 8 + 1) are
//! read with masked loads, which touch no byte past the block.
#![allow(unsafe_code)]

use core::arch::x86_64::*;

use super::lanes::{EngineSponge, KeccakLanes, LanesBody};
use super::portable::{by_rate, RC};
use crate::isa::Avx512;
use crate::lanes::LaneKernel;
use crate::uarch::est;

/// The kernel, which `t` proves this CPU can run.
pub(crate) fn kernel(t: Avx512) -> KeccakLanes<8> {
    KeccakLanes::new::<Avx512x8>(t)
}

/// The same kernel for the lane engine's sponges of rate `RATE` bytes (see
/// `sha3::family`), which `t` proves this CPU can run.
pub(crate) fn lane_kernel<const RATE: usize>(t: Avx512) -> LaneKernel<u64> {
    // SHA3-256, 64 messages (`lanesum speed`): Zen 5 3.4 GB/s at 1 KiB, 4.8-5.0 at
    // 16 KiB (the AVX2 kernel 1.3 / 1.5, the `sha3` crate 0.48 / 0.51). Zen 4 splits each zmm
    // op in two and Intel runs zmm on two ports, so there it is estimated at half, still
    // twice AVX2's estimate; a permutation costs the same at every rate, so the rate
    // scales it.
    let gbps = est(2.0, 2.0, 4.9) * RATE as f32 / 136.0;
    LaneKernel::new::<EngineSponge<Avx512x8, 8, RATE>>(t, "avx512x8", 8, gbps)
}

/// Eight lanes per call.
struct Avx512x8;

impl LanesBody<8> for Avx512x8 {
    type Token = Avx512;

    unsafe fn absorb(st: &mut [[u64; 8]; 25], blocks: &[&[u8]; 8], nblocks: usize, rate: usize) {
        // SAFETY: the caller holds an `Avx512` token and checked the shapes (the trait's
        // contract); each instance reads `WORDS` words per block, `WORDS * 8 == rate`.
        unsafe { by_rate!(rate, absorb, (st, blocks, nblocks)) }
    }
}

/// Absorb `nblocks` blocks of `WORDS` words from each lane (the rate a constant, so the
/// loads unroll: SHA3-256 ran 4.4-4.5 GB/s with the rate a variable, 4.9-5.0 so).
///
/// # Safety
/// The CPU has AVX-512F and each `blocks[l]` holds at least `nblocks * WORDS * 8` bytes.
#[target_feature(enable = "avx512f")]
unsafe fn absorb<const WORDS: usize>(st: &mut [[u64; 8]; 25], blocks: &[&[u8]; 8], nblocks: usize) {
    debug_assert!(WORDS <= 25);
    // SAFETY: each `st[w]` is 64 readable bytes; unaligned loads.
    let mut a: [__m512i; 25] =
        core::array::from_fn(|w| unsafe { _mm512_loadu_si512(st[w].as_ptr().cast()) });
    let p = blocks.map(|b| b.as_ptr().cast::<u64>());
    for b in 0..nblocks {
        let base = b * WORDS;
        let mut w = 0;
        while w < WORDS {
            // Words w..w+8 of each lane's block b, or the rate's last ones.
            let mask: __mmask8 = if WORDS - w >= 8 {
                0xff
            } else {
                (1u8 << (WORDS - w)) - 1
            };
            // SAFETY: the words the mask selects lie within each lane's slice (the
            // caller's bound); masked-off words are not read and cannot fault.
            let rows = unsafe { p.map(|q| _mm512_maskz_loadu_epi64(mask, q.add(base + w).cast())) };
            for (k, v) in transpose(rows).into_iter().enumerate().take(WORDS - w) {
                a[w + k] = _mm512_xor_si512(a[w + k], v);
            }
            w += 8;
        }
        permute(&mut a);
    }
    for (s, v) in st.iter_mut().zip(a) {
        // SAFETY: each `st[w]` is 64 writable bytes; unaligned stores.
        unsafe { _mm512_storeu_si512(s.as_mut_ptr().cast(), v) };
    }
}

/// Rows are lanes, columns words: one vector per word (word `k` of lane `l` in element
/// `l` of output `k`).
#[target_feature(enable = "avx512f")]
#[inline]
fn transpose(r: [__m512i; 8]) -> [__m512i; 8] {
    // Pairs of lanes: even words, odd words.
    let t: [__m512i; 8] = core::array::from_fn(|i| {
        let (x, y) = (r[i & !1], r[i | 1]);
        if i & 1 == 0 {
            _mm512_unpacklo_epi64(x, y)
        } else {
            _mm512_unpackhi_epi64(x, y)
        }
    });
    // Quads of lanes: u[0] words 0 and 4, u[1] 2 and 6, u[2] 1 and 5, u[3] 3 and 7 of
    // lanes 0-3; u[4..8] the same of lanes 4-7.
    let u = [
        _mm512_shuffle_i64x2::<0x88>(t[0], t[2]),
        _mm512_shuffle_i64x2::<0xdd>(t[0], t[2]),
        _mm512_shuffle_i64x2::<0x88>(t[1], t[3]),
        _mm512_shuffle_i64x2::<0xdd>(t[1], t[3]),
        _mm512_shuffle_i64x2::<0x88>(t[4], t[6]),
        _mm512_shuffle_i64x2::<0xdd>(t[4], t[6]),
        _mm512_shuffle_i64x2::<0x88>(t[5], t[7]),
        _mm512_shuffle_i64x2::<0xdd>(t[5], t[7]),
    ];
    [
        _mm512_shuffle_i64x2::<0x88>(u[0], u[4]),
        _mm512_shuffle_i64x2::<0x88>(u[2], u[6]),
        _mm512_shuffle_i64x2::<0x88>(u[1], u[5]),
        _mm512_shuffle_i64x2::<0x88>(u[3], u[7]),
        _mm512_shuffle_i64x2::<0xdd>(u[0], u[4]),
        _mm512_shuffle_i64x2::<0xdd>(u[2], u[6]),
        _mm512_shuffle_i64x2::<0xdd>(u[1], u[5]),
        _mm512_shuffle_i64x2::<0xdd>(u[3], u[7]),
    ]
}

/// `x ^ y ^ z`.
#[target_feature(enable = "avx512f")]
#[inline]
fn xor3(x: __m512i, y: __m512i, z: __m512i) -> __m512i {
    _mm512_ternarylogic_epi64::<0x96>(x, y, z)
}

/// Keccak-f[1600] on eight states.
#[target_feature(enable = "avx512f")]
#[inline]
fn permute(a: &mut [__m512i; 25]) {
    for rc in RC {
        // theta: column parities c, then each word XORed with c[x-1] and rot(c[x+1]).
        let c: [__m512i; 5] =
            core::array::from_fn(|x| xor3(xor3(a[x], a[x + 5], a[x + 10]), a[x + 15], a[x + 20]));
        let r: [__m512i; 5] = core::array::from_fn(|x| _mm512_rol_epi64::<1>(c[(x + 1) % 5]));
        let t = |i: usize| xor3(a[i], c[(i + 4) % 5], r[i % 5]);
        // rho and pi: b[pi(i)] = rot(t(i), rho(i)).
        let b = [
            t(0),
            _mm512_rol_epi64::<44>(t(6)),
            _mm512_rol_epi64::<43>(t(12)),
            _mm512_rol_epi64::<21>(t(18)),
            _mm512_rol_epi64::<14>(t(24)),
            _mm512_rol_epi64::<28>(t(3)),
            _mm512_rol_epi64::<20>(t(9)),
            _mm512_rol_epi64::<3>(t(10)),
            _mm512_rol_epi64::<45>(t(16)),
            _mm512_rol_epi64::<61>(t(22)),
            _mm512_rol_epi64::<1>(t(1)),
            _mm512_rol_epi64::<6>(t(7)),
            _mm512_rol_epi64::<25>(t(13)),
            _mm512_rol_epi64::<8>(t(19)),
            _mm512_rol_epi64::<18>(t(20)),
            _mm512_rol_epi64::<27>(t(4)),
            _mm512_rol_epi64::<36>(t(5)),
            _mm512_rol_epi64::<10>(t(11)),
            _mm512_rol_epi64::<15>(t(17)),
            _mm512_rol_epi64::<56>(t(23)),
            _mm512_rol_epi64::<62>(t(2)),
            _mm512_rol_epi64::<55>(t(8)),
            _mm512_rol_epi64::<39>(t(14)),
            _mm512_rol_epi64::<41>(t(15)),
            _mm512_rol_epi64::<2>(t(21)),
        ];
        // chi: b ^ (!b[x+1] & b[x+2]) in one ternary op.
        for y in 0..5 {
            for x in 0..5 {
                a[x + 5 * y] = _mm512_ternarylogic_epi64::<0xd2>(
                    b[x + 5 * y],
                    b[(x + 1) % 5 + 5 * y],
                    b[(x + 2) % 5 + 5 * y],
                );
            }
        }
        // iota
        a[0] = _mm512_xor_si512(a[0], _mm512_set1_epi64(rc as i64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sha3::portable;
    use rand::{Rng, SeedableRng};

    /// Random states and blocks, every FIPS 202 rate and an odd one, lanes fed different
    /// data: the kernel against the portable permutation, lane by lane.
    #[test]
    fn avx512_absorb_matches_portable() {
        let Some(t) = Avx512::detect() else {
            return;
        };
        let k = kernel(t);
        let mut rng = rand::rngs::StdRng::seed_from_u64(8);
        for rate in [168, 144, 136, 104, 72, 8, 64, 200] {
            for nblocks in [0, 1, 3] {
                let mut st = [[0u64; 8]; 25];
                st.iter_mut().flatten().for_each(|w| *w = rng.random());
                let data: Vec<Vec<u8>> = (0..8)
                    .map(|_| (0..nblocks * rate).map(|_| rng.random()).collect())
                    .collect();
                let blocks: [&[u8]; 8] = core::array::from_fn(|l| &data[l][..]);
                let mut want = st;
                portable::kernel::<8>().absorb(&mut want, &blocks, nblocks, rate);
                k.absorb(&mut st, &blocks, nblocks, rate);
                assert_eq!(st, want, "rate {rate}, {nblocks} blocks");
            }
        }
    }
}
