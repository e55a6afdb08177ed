//! Transposes shared by the x86 multi-lane kernels: each lane's block arrives as rows
//! (one vector per lane) and the rounds want columns (one vector per message word).

/// 512-bit: 16 lanes of u32.
pub(crate) mod avx512 {
    use core::arch::x86_64::*;

    /// Byte-swap each u32 (vpshufb indices, repeated per 128-bit lane).
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(crate) fn bswap_u32(v: __m512i) -> __m512i {
        let idx = _mm512_set4_epi32(0x0c0d_0e0f, 0x0809_0a0b, 0x0405_0607, 0x0001_0203);
        _mm512_shuffle_epi8(v, idx)
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

/// 256-bit: 8 lanes of u32.
pub(crate) mod avx2 {
    use core::arch::x86_64::*;

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
