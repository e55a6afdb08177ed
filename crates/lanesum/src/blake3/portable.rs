//! BLAKE3 lanes in portable code.

use super::lanes::{LaneState, LanesBody};
use super::{BLOCK_LEN, IV, MSG_PERMUTATION};
use crate::blake2::MIX;

/// Portable lanes: plain arrays of `N` words per state word, which LLVM vectorizes with
/// whatever the baseline target has (SSE2 on x86-64, NEON on aarch64).
pub(crate) struct Portable;

#[allow(unsafe_code)] // an `unsafe fn` of the trait; the body is safe code
impl<const N: usize> LanesBody<N> for Portable {
    type Token = ();

    unsafe fn compress(st: &mut LaneState<'_, N>, steps: usize, out: &mut [[u32; 16]; N]) {
        compress(st, steps, out)
    }
}

/// [`Portable`]'s code.
fn compress<const N: usize>(st: &mut LaneState<'_, N>, steps: usize, out: &mut [[u32; 16]; N]) {
    type Row<const N: usize> = [u32; N];
    #[inline(always)]
    fn g<const N: usize>(v: &mut [Row<N>; 16], [a, b, c, d]: [usize; 4], x: &Row<N>, y: &Row<N>) {
        for l in 0..N {
            v[a][l] = v[a][l].wrapping_add(v[b][l]).wrapping_add(x[l]);
            v[d][l] = (v[d][l] ^ v[a][l]).rotate_right(16);
            v[c][l] = v[c][l].wrapping_add(v[d][l]);
            v[b][l] = (v[b][l] ^ v[c][l]).rotate_right(12);
            v[a][l] = v[a][l].wrapping_add(v[b][l]).wrapping_add(y[l]);
            v[d][l] = (v[d][l] ^ v[a][l]).rotate_right(8);
            v[c][l] = v[c][l].wrapping_add(v[d][l]);
            v[b][l] = (v[b][l] ^ v[c][l]).rotate_right(7);
        }
    }
    let ends: [bool; N] = core::array::from_fn(|l| st.left[l] as usize == steps);
    for s in 0..steps {
        let last = s + 1 == steps;
        let mut m = [[0u32; N]; 16];
        for l in 0..N {
            let block: &[u8; BLOCK_LEN] = if last && ends[l] {
                st.last_block(l)
            } else {
                st.blocks[l][BLOCK_LEN * s..]
                    .first_chunk()
                    .expect("checked")
            };
            for (w, bytes) in block.chunks_exact(4).enumerate() {
                m[w][l] = u32::from_le_bytes(bytes.try_into().unwrap());
            }
        }
        let mut v = [[0u32; N]; 16];
        v[..8].copy_from_slice(&st.cv[..]);
        for w in 0..4 {
            v[8 + w] = [IV[w]; N];
        }
        v[12] = st.counter_lo;
        v[13] = st.counter_hi;
        for l in 0..N {
            let end = last && ends[l];
            v[14][l] = if end {
                st.last_len[l]
            } else {
                BLOCK_LEN as u32
            };
            v[15][l] = st.flags[l]
                | if s == 0 { st.start_flags[l] } else { 0 }
                | if end { st.end_flags[l] } else { 0 };
        }
        // Permute the message between rounds (as the spec does) so that every index is a
        // constant after unrolling the 8 G calls and LLVM keeps the rows in registers.
        for round in 0..7 {
            g(&mut v, MIX[0], &m[0], &m[1]);
            g(&mut v, MIX[1], &m[2], &m[3]);
            g(&mut v, MIX[2], &m[4], &m[5]);
            g(&mut v, MIX[3], &m[6], &m[7]);
            g(&mut v, MIX[4], &m[8], &m[9]);
            g(&mut v, MIX[5], &m[10], &m[11]);
            g(&mut v, MIX[6], &m[12], &m[13]);
            g(&mut v, MIX[7], &m[14], &m[15]);
            if round < 6 {
                m = MSG_PERMUTATION.map(|i| m[i]);
            }
        }
        for w in 0..8 {
            for l in 0..N {
                if last {
                    out[l][w + 8] = v[w + 8][l] ^ st.cv[w][l];
                }
                st.cv[w][l] = v[w][l] ^ v[w + 8][l];
            }
        }
    }
    for l in 0..N {
        for w in 0..8 {
            out[l][w] = st.cv[w][l];
            if ends[l] {
                st.cv[w][l] = IV[w];
            }
        }
    }
}
