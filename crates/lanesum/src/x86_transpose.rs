//! Transposes shared by the x86 multi-lane kernels: each lane's block arrives as rows
//! (one vector per lane) and the rounds want columns (one vector per message word).
//! Also the loads and stores of the lanes' word-major chaining state.
#![allow(unsafe_code)]

/// 512-bit: 16 lanes of u32.
pub(crate) mod avx512 {
    use crate::lanes::Cursor;
    use core::arch::x86_64::*;

    /// Byte-swap each u32 (vpshufb indices, repeated per 128-bit lane).
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(crate) fn bswap_u32(v: __m512i) -> __m512i {
        let idx = _mm512_set4_epi32(0x0c0d_0e0f, 0x0809_0a0b, 0x0405_0607, 0x0001_0203);
        _mm512_shuffle_epi8(v, idx)
    }

    /// Word-major lane state (see `lanes`) as `W` words of `S` vectors: word `w` of
    /// vector set `s` is the 64 bytes at `p + (w * S + s) * 64`, for u32 and u64 words.
    ///
    /// # Safety
    /// `p` must be readable for `64 W S` bytes; the CPU must have AVX-512F.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(crate) unsafe fn load_sets<const S: usize, const W: usize>(
        p: *const u8,
    ) -> [[__m512i; S]; W] {
        // Loops, not `array::from_fn`: its closure is compiled apart, without AVX-512, so
        // each load was a call (a balanced-tail plan reloads the state at every switch).
        let mut v = [[_mm512_setzero_si512(); S]; W];
        for (w, word) in v.iter_mut().enumerate() {
            for (s, x) in word.iter_mut().enumerate() {
                // SAFETY: (w * S + s) * 64 + 64 <= 64 W S, readable by the contract.
                *x = unsafe { _mm512_loadu_si512(p.add((w * S + s) * 64).cast()) };
            }
        }
        v
    }

    /// The store matching [`load_sets`].
    ///
    /// # Safety
    /// `p` must be writable for `64 W S` bytes; the CPU must have AVX-512F.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(crate) unsafe fn store_sets<const S: usize, const W: usize>(
        p: *mut u8,
        v: &[[__m512i; S]; W],
    ) {
        for (w, word) in v.iter().enumerate() {
            for (s, x) in word.iter().enumerate() {
                // SAFETY: as for `load_sets`, writable by the contract.
                unsafe { _mm512_storeu_si512(p.add((w * S + s) * 64).cast(), *x) };
            }
        }
    }

    /// A switched call's state on entry: the switches at block 0 applied, then loaded
    /// (see [`load_sets`]).
    ///
    /// # Safety
    /// `state` must hold `64 W S` bytes; the CPU must have AVX-512F.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(crate) unsafe fn enter_sets<T: Copy, const S: usize, const W: usize>(
        state: &mut [T],
        cur: &mut Cursor<'_, '_, T>,
    ) -> [[__m512i; S]; W] {
        debug_assert_eq!(size_of_val(state), 64 * W * S);
        if cur.state_at() == 0 {
            cur.apply_states(0, state);
        }
        // SAFETY: by the contract.
        unsafe { load_sets(state.as_ptr().cast()) }
    }

    /// The switches before block `blk` (not 0), if any: the registers `st` go through
    /// `state`.
    ///
    /// # Safety
    /// As [`enter_sets`].
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(crate) unsafe fn switch_sets<T: Copy, const S: usize, const W: usize>(
        state: &mut [T],
        cur: &mut Cursor<'_, '_, T>,
        blk: usize,
        st: &mut [[__m512i; S]; W],
    ) {
        if cur.state_at() == blk && blk > 0 {
            // SAFETY: by the contract.
            unsafe { store_sets(state.as_mut_ptr().cast(), st) };
            cur.apply_states(blk, state);
            // SAFETY: by the contract.
            *st = unsafe { load_sets(state.as_ptr().cast()) };
        }
    }

    /// A switched call's end: `st` stored, then the switches after its last block.
    ///
    /// # Safety
    /// As [`enter_sets`].
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(crate) unsafe fn leave_sets<T: Copy, const S: usize, const W: usize>(
        state: &mut [T],
        cur: &mut Cursor<'_, '_, T>,
        nblocks: usize,
        st: &[[__m512i; S]; W],
    ) {
        // SAFETY: by the contract.
        unsafe { store_sets(state.as_mut_ptr().cast(), st) };
        if cur.state_at() == nblocks {
            cur.apply_states(nblocks, state);
        }
    }

    /// Load 16 lanes' 64-byte blocks (lane `l` at `p[l] + offset`) transposed: calls
    /// `out(w, v)` with `v` = word `w` of every lane.
    ///
    /// Loading 256-bit halves and merging two lanes per zmm with `vinserti64x4` does the
    /// first transpose stage in the loads: 64 shuffle uops per 16 lanes instead of
    /// [`transpose_u32`]'s 96 after full-width loads (SHA-1 at 16 KiB: 9.2 -> 11.1 GB/s).
    /// The sink lets each kernel put the words where its rounds read them (MD5 keeps them
    /// in memory); returning an array, or filling one in place, cost SHA-1 or MD5 a copy.
    /// SHA-256 keeps full loads and [`transpose_u32`]: its two-set kernel ran 4-6% slower
    /// with this (taking turns, 1 and 16 KiB), likely from register pressure.
    ///
    /// # Safety
    /// Each `p[l] + offset` must be readable for 64 bytes; the CPU must have AVX-512F.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(crate) unsafe fn load_transpose_u32(
        p: &[*const u8; 16],
        offset: usize,
        mut out: impl FnMut(usize, __m512i),
    ) {
        // Half h: words 8h..8h+8. Group g: lanes 8g..8g+8; vector r of the group holds
        // lane 8g + r in its low 256 bits and lane 8g + 4 + r in its high 256 bits.
        for h in 0..2 {
            let [lo, hi]: [[__m512i; 4]; 2] = core::array::from_fn(|g| {
                let v: [__m512i; 4] = core::array::from_fn(|r| {
                    // SAFETY: words 8h..8h+8 lie inside each lane's 64 readable bytes.
                    unsafe {
                        let lo = _mm256_loadu_si256(p[8 * g + r].add(offset + 32 * h).cast());
                        let hi = _mm256_loadu_si256(p[8 * g + 4 + r].add(offset + 32 * h).cast());
                        _mm512_inserti64x4::<1>(_mm512_castsi256_si512(lo), hi)
                    }
                });
                // 4x4 transpose inside every 128-bit chunk.
                let t0 = _mm512_unpacklo_epi32(v[0], v[1]);
                let t1 = _mm512_unpackhi_epi32(v[0], v[1]);
                let t2 = _mm512_unpacklo_epi32(v[2], v[3]);
                let t3 = _mm512_unpackhi_epi32(v[2], v[3]);
                // Chunks: word 8h+k and 8h+4+k of lanes 8g..8g+4, then of 8g+4..8g+8.
                [
                    _mm512_unpacklo_epi64(t0, t2),
                    _mm512_unpackhi_epi64(t0, t2),
                    _mm512_unpacklo_epi64(t1, t3),
                    _mm512_unpackhi_epi64(t1, t3),
                ]
            });
            for (k, (lo, hi)) in lo.into_iter().zip(hi).enumerate() {
                // Chunks [lo.0, lo.2, hi.0, hi.2] = word 8h+k of lanes 0..16,
                // [lo.1, lo.3, hi.1, hi.3] = word 8h+4+k.
                out(8 * h + k, _mm512_shuffle_i32x4::<0b10_00_10_00>(lo, hi));
                out(8 * h + 4 + k, _mm512_shuffle_i32x4::<0b11_01_11_01>(lo, hi));
            }
        }
    }

    /// Every set's current block as big-endian words, transposed: word `i` of set `s` goes
    /// to `out(s, i, v)`. Each lane prefetches `prefetch` bytes ahead, then moves on to
    /// its next block. The block loads of the 16-lane SHA-1 and SM3 kernels.
    ///
    /// # Safety
    /// Each `ptrs[s][l]` must be readable for 64 bytes; the CPU must have AVX-512F and BW.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(crate) unsafe fn next_blocks_be<const S: usize>(
        ptrs: &mut [[*const u8; 16]; S],
        prefetch: usize,
        mut out: impl FnMut(usize, usize, __m512i),
    ) {
        for (s, p) in ptrs.iter_mut().enumerate() {
            for q in p.iter() {
                // A hint only: prefetching past the end of a slice cannot fault.
                _mm_prefetch::<_MM_HINT_T0>(q.wrapping_add(prefetch).cast());
            }
            // SAFETY: every lane's block is readable (the caller's contract).
            unsafe { load_transpose_u32(p, 0, |i, v| out(s, i, bswap_u32(v))) };
            for q in p.iter_mut() {
                *q = q.wrapping_add(64);
            }
        }
    }

    /// 16x16 transpose of u32: `r[l]` holds lane l's 16 words; returns one vector per word.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(crate) fn transpose_u32(r: [__m512i; 16]) -> [__m512i; 16] {
        // Stage 1/2: within 128-bit chunks, gather word i of 4 consecutive lanes.
        let mut g = [[_mm512_setzero_si512(); 4]; 4];
        for q in 0..4 {
            let [a, b, c, d] = [r[4 * q], r[4 * q + 1], r[4 * q + 2], r[4 * q + 3]];
            let ab_lo = _mm512_unpacklo_epi32(a, b);
            let ab_hi = _mm512_unpackhi_epi32(a, b);
            let cd_lo = _mm512_unpacklo_epi32(c, d);
            let cd_hi = _mm512_unpackhi_epi32(c, d);
            g[q][0] = _mm512_unpacklo_epi64(ab_lo, cd_lo);
            g[q][1] = _mm512_unpackhi_epi64(ab_lo, cd_lo);
            g[q][2] = _mm512_unpacklo_epi64(ab_hi, cd_hi);
            g[q][3] = _mm512_unpackhi_epi64(ab_hi, cd_hi);
        }
        // g[q][i] chunk j = word 4j+i of lanes 4q..4q+4. Stage 3/4: gather chunks j.
        let mut out = [_mm512_setzero_si512(); 16];
        for i in 0..4 {
            let u01_lo = _mm512_shuffle_i32x4(g[0][i], g[1][i], 0b10_00_10_00);
            let u01_hi = _mm512_shuffle_i32x4(g[0][i], g[1][i], 0b11_01_11_01);
            let u23_lo = _mm512_shuffle_i32x4(g[2][i], g[3][i], 0b10_00_10_00);
            let u23_hi = _mm512_shuffle_i32x4(g[2][i], g[3][i], 0b11_01_11_01);
            out[i] = _mm512_shuffle_i32x4(u01_lo, u23_lo, 0b10_00_10_00);
            out[8 + i] = _mm512_shuffle_i32x4(u01_lo, u23_lo, 0b11_01_11_01);
            out[4 + i] = _mm512_shuffle_i32x4(u01_hi, u23_hi, 0b10_00_10_00);
            out[12 + i] = _mm512_shuffle_i32x4(u01_hi, u23_hi, 0b11_01_11_01);
        }
        out
    }
}

/// 256-bit: 8 lanes of u32 (4 of u64).
pub(crate) mod avx2 {
    use core::arch::x86_64::*;

    /// Word-major lane state (see `lanes`) as `W` words of `S` vectors: word `w` of
    /// vector set `s` is the 32 bytes at `p + (w * S + s) * 32`, for u32 and u64 words.
    ///
    /// # Safety
    /// `p` must be readable for `32 W S` bytes; the CPU must have AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(crate) unsafe fn load_sets<const S: usize, const W: usize>(
        p: *const u8,
    ) -> [[__m256i; S]; W] {
        let mut v = [[_mm256_setzero_si256(); S]; W];
        for (w, word) in v.iter_mut().enumerate() {
            for (s, x) in word.iter_mut().enumerate() {
                // SAFETY: (w * S + s) * 32 + 32 <= 32 W S, readable by the contract.
                *x = unsafe { _mm256_loadu_si256(p.add((w * S + s) * 32).cast()) };
            }
        }
        v
    }

    /// The store matching [`load_sets`].
    ///
    /// # Safety
    /// `p` must be writable for `32 W S` bytes; the CPU must have AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(crate) unsafe fn store_sets<const S: usize, const W: usize>(
        p: *mut u8,
        v: &[[__m256i; S]; W],
    ) {
        for (w, word) in v.iter().enumerate() {
            for (s, x) in word.iter().enumerate() {
                // SAFETY: as for `load_sets`, writable by the contract.
                unsafe { _mm256_storeu_si256(p.add((w * S + s) * 32).cast(), *x) };
            }
        }
    }

    /// The start of each of `8 S` lanes, set `s` lane `l` in `[s][l]`.
    pub(crate) fn lane_ptrs<const S: usize>(blocks: &[&[u8]]) -> [[*const u8; 8]; S] {
        core::array::from_fn(|s| core::array::from_fn(|l| blocks[8 * s + l].as_ptr()))
    }

    /// Block `blk` (64 bytes) of each of `8 S` big-endian lanes as its 16 u32 words, word
    /// `i` of set `s` in `[i][s]` (SHA-1 and SHA-256), prefetching `PREFETCH` bytes ahead
    /// in every lane.
    ///
    /// # Safety
    /// Every `ptrs[s][l]` must be readable for `(blk + 1) * 64` bytes; the CPU must have
    /// AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(crate) unsafe fn load_block_be<const S: usize, const PREFETCH: usize>(
        ptrs: &[[*const u8; 8]; S],
        blk: usize,
    ) -> [[__m256i; S]; 16] {
        let mut w = [[_mm256_setzero_si256(); S]; 16];
        for (s, p) in ptrs.iter().enumerate() {
            for half in 0..2 {
                let mut r = [_mm256_setzero_si256(); 8];
                let at = blk * 64 + half * 32;
                for (l, v) in r.iter_mut().enumerate() {
                    // SAFETY: at + 32 <= (blk + 1) * 64, readable by the contract.
                    *v = bswap_u32(unsafe { _mm256_loadu_si256(p[l].add(at).cast()) });
                    // A hint only: prefetching past the end of a slice cannot fault.
                    _mm_prefetch::<_MM_HINT_T0>(p[l].wrapping_add(at + PREFETCH).cast());
                }
                for (i, v) in transpose_u32(r).into_iter().enumerate() {
                    w[half * 8 + i][s] = v;
                }
            }
        }
        w
    }

    /// Byte-swap each u32 (vpshufb indices, repeated per 128-bit lane).
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(crate) fn bswap_u32(v: __m256i) -> __m256i {
        let idx = _mm256_set_epi32(
            0x0c0d_0e0f,
            0x0809_0a0b,
            0x0405_0607,
            0x0001_0203,
            0x0c0d_0e0f,
            0x0809_0a0b,
            0x0405_0607,
            0x0001_0203,
        );
        _mm256_shuffle_epi8(v, idx)
    }

    /// 8x8 transpose of u32: `r[l]` holds 8 words of lane l; returns one vector per word.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(crate) fn transpose_u32(r: [__m256i; 8]) -> [__m256i; 8] {
        // Within 128-bit halves: g[q][i] = word i (half 0) / i+4 (half 1) of lanes 4q..4q+4.
        let mut g = [[_mm256_setzero_si256(); 4]; 2];
        for q in 0..2 {
            let [a, b, c, d] = [r[4 * q], r[4 * q + 1], r[4 * q + 2], r[4 * q + 3]];
            let ab_lo = _mm256_unpacklo_epi32(a, b);
            let ab_hi = _mm256_unpackhi_epi32(a, b);
            let cd_lo = _mm256_unpacklo_epi32(c, d);
            let cd_hi = _mm256_unpackhi_epi32(c, d);
            g[q][0] = _mm256_unpacklo_epi64(ab_lo, cd_lo);
            g[q][1] = _mm256_unpackhi_epi64(ab_lo, cd_lo);
            g[q][2] = _mm256_unpacklo_epi64(ab_hi, cd_hi);
            g[q][3] = _mm256_unpackhi_epi64(ab_hi, cd_hi);
        }
        let mut out = [_mm256_setzero_si256(); 8];
        for i in 0..4 {
            out[i] = _mm256_permute2x128_si256(g[0][i], g[1][i], 0x20);
            out[4 + i] = _mm256_permute2x128_si256(g[0][i], g[1][i], 0x31);
        }
        out
    }
}
