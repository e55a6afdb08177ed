//! MD5P8: rsync's parallel whole-file MD5.

use std::sync::OnceLock;

use crate::family::{Family, Kernels};
use crate::isa::{self, Avx512, Features};
use crate::lanes::LaneKernel;
use crate::md5::{self, Md5};
use crate::merkle_damgard::MdHasher;
use crate::{Algorithm, Digest};

/// Streams of MD5P8.
const STREAMS: usize = 8;
/// Bytes of one round over all streams (one 64-byte block each).
const ROUND: usize = STREAMS * 64;
/// Rounds de-interleaved per kernel call: 16 KiB per stream, 128 KiB in all (stays in L2;
/// measured best of 16..4096 rounds on AVX-512).
const CHUNK_ROUNDS: usize = 256;
/// Bytes between the streams' de-interleaved buffers: one cache line more than they
/// hold, so the eight streams' current blocks do not all fall in one L1 set (and stores
/// 4 KiB apart do not alias the loads).
const LANE_BUF: usize = CHUNK_ROUNDS * 64 + 64;

/// rsync's MD5P8 checksum of `data` (the `md5p8` whole-file checksum of rsync's
/// parallel-MD5 patch).
///
/// Definition: eight MD5 chaining states start at the standard MD5 IV. The input is
/// zero-padded up to a multiple of 512 bytes (an empty input gets no padding) and cut into
/// 64-byte blocks; block `k` is compressed into state `k mod 8`, with no per-stream MD5
/// padding. The digest is plain MD5 of the eight states' A, B, C, D words as 32-bit
/// little-endian (state 0 first, 128 bytes) followed by the *unpadded* input length in
/// bits as a 64-bit little-endian integer (8 bytes).
///
/// Byte compatibility rests on three rules kept exactly: the zero padding to a whole
/// 512-byte round (never MD5's own `0x80` padding inside the streams), the state order
/// and word endianness of the 128-byte summary, and the bit length of the original input.
///
/// The eight streams always have equal length, so they run side by side with carried
/// state on one core: with AVX-512 in a dedicated 8-lane 256-bit path that transposes each
/// 512-byte round in registers straight from the input (no copy); otherwise in the
/// multi-lane MD5 kernel best for 8 busy lanes, fed 16 KiB per stream de-interleaved.
/// Eight serial MD5 chains are all the parallelism the definition has, so extra cores
/// do not help one input.
///
/// ```
/// assert_eq!(
///     lanesum::modes::md5p8(b"abc").to_hex(),
///     "bf282d6afc7daacf5b7fdd55202e0ca0"
/// );
/// assert_eq!(
///     lanesum::modes::md5p8(b"").to_hex(),
///     "9912387c72711229dba3cadff3ea28df"
/// );
/// ```
pub fn md5p8(data: &[u8]) -> Digest {
    let mut st = State::at(isa::active());
    st.update(data);
    st.finalize()
}

/// The token for the dedicated AVX-512VL path, if `level` has it.
fn direct(level: Features) -> Option<Avx512> {
    level.avx512().filter(|_| cfg!(target_arch = "x86_64"))
}

/// The kernel MD5P8 runs on at `level`: chosen once for the first level asked (the
/// process's, but for tests forcing others).
fn kernel(level: Features) -> LaneKernel<u32> {
    static KERNEL: OnceLock<(Features, LaneKernel<u32>)> = OnceLock::new();
    let choose = || pick(&Kernels::<Md5>::new(level).lanes);
    match KERNEL.get_or_init(|| (level, choose())) {
        (at, k) if *at == level => *k,
        _ => choose(),
    }
}

/// The kernel with the best throughput for 8 busy lanes.
fn pick(kernels: &[LaneKernel<u32>]) -> LaneKernel<u32> {
    *kernels
        .iter()
        .max_by(|a, b| {
            a.rate_with(STREAMS)
                .partial_cmp(&b.rate_with(STREAMS))
                .unwrap()
                .then(b.lanes.cmp(&a.lanes))
        })
        .expect("the single-stream kernel is always there")
}

/// MD5P8 on one given kernel (any lane count: narrower kernels run the streams in groups);
/// the tests use it to cover every kernel.
#[cfg(test)]
pub(crate) fn md5p8_with(kernel: &LaneKernel<u32>, data: &[u8]) -> Digest {
    let mut st = State::with_kernel(*kernel);
    st.update(data);
    st.finalize()
}

/// Streaming MD5P8 (behind [`Hasher`](crate::Hasher) for [`Algorithm::Md5p8`]).
#[derive(Clone)]
pub(crate) struct State {
    kernel: LaneKernel<u32>,
    /// Use the dedicated AVX-512VL path (`md5p8_avx512`) rather than `kernel`.
    direct: Option<Avx512>,
    states: [[u32; 4]; STREAMS],
    /// A partial round (< 512 bytes).
    pending: Vec<u8>,
    total: u64,
    /// De-interleaving buffer, allocated on first use.
    buf: Vec<u8>,
}

impl State {
    /// At `level`: the dedicated path where it has AVX-512, else its best kernel.
    pub(crate) fn at(level: Features) -> State {
        let mut s = State::with_kernel(kernel(level));
        s.direct = direct(level);
        s
    }

    /// Back to the empty input, on the same path.
    pub(crate) fn reset(&mut self) {
        self.states = [md5::IV; STREAMS];
        self.pending.clear();
        self.total = 0;
    }

    fn with_kernel(kernel: LaneKernel<u32>) -> State {
        State {
            kernel,
            direct: None,
            states: [md5::IV; STREAMS],
            pending: Vec::with_capacity(ROUND),
            total: 0,
            buf: Vec::new(),
        }
    }

    pub(crate) fn update(&mut self, mut data: &[u8]) {
        self.total = self.total.wrapping_add(data.len() as u64);
        if !self.pending.is_empty() {
            let take = (ROUND - self.pending.len()).min(data.len());
            self.pending.extend_from_slice(&data[..take]);
            data = &data[take..];
            if self.pending.len() < ROUND {
                return;
            }
            let round = std::mem::take(&mut self.pending);
            self.rounds(&round);
            self.pending = round;
            self.pending.clear();
        }
        let whole = data.len() - data.len() % ROUND;
        self.rounds(&data[..whole]);
        self.pending.extend_from_slice(&data[whole..]);
    }

    /// Absorb whole 512-byte rounds.
    fn rounds(&mut self, data: &[u8]) {
        let whole = data.len() / ROUND;
        if whole == 0 {
            return;
        }
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = self.direct {
            super::md5p8_avx512::rounds(t, &mut self.states, &data[..whole * ROUND]);
            return;
        }
        if self.buf.is_empty() {
            self.buf = vec![0u8; STREAMS * LANE_BUF];
        }
        let mut r = 0;
        while r < whole {
            let n = (whole - r).min(CHUNK_ROUNDS);
            // De-interleave: stream l's blocks of these rounds become contiguous.
            let rounds = &data[r * ROUND..(r + n) * ROUND];
            for (j, round) in rounds.chunks_exact(ROUND).enumerate() {
                for (l, block) in round.chunks_exact(64).enumerate() {
                    let at = l * LANE_BUF + j * 64;
                    self.buf[at..at + 64].copy_from_slice(block);
                }
            }
            run(&self.kernel, &mut self.states, &self.buf, LANE_BUF, n);
            r += n;
        }
    }

    pub(crate) fn finalize(mut self) -> Digest {
        if !self.pending.is_empty() {
            let mut last = [0u8; ROUND];
            last[..self.pending.len()].copy_from_slice(&self.pending);
            self.rounds(&last);
        }
        let mut summary = [0u8; STREAMS * 16 + 8];
        for (s, out) in self.states.iter().zip(summary.chunks_exact_mut(16)) {
            for (w, o) in s.iter().zip(out.chunks_exact_mut(4)) {
                o.copy_from_slice(&w.to_le_bytes());
            }
        }
        let bits = self.total.wrapping_mul(8);
        summary[STREAMS * 16..].copy_from_slice(&bits.to_le_bytes());
        // The summary is short, and MD5's single stream is portable code at every level.
        let mut h = MdHasher::<Md5>::new(&md5::IV, Md5::single(Features::PORTABLE).compress);
        h.update(&summary);
        h.finalize(Algorithm::Md5.digest_len())
    }
}

/// Compress `n` blocks into each stream; `buf` holds stream `l`'s blocks at `l * stride`.
fn run(
    kernel: &LaneKernel<u32>,
    states: &mut [[u32; 4]; STREAMS],
    buf: &[u8],
    stride: usize,
    n: usize,
) {
    let lanes = kernel.lanes;
    let mut soa = [0u32; 4 * 128];
    let mut ptrs: [&[u8]; 128] = [&[]; 128];
    assert!(lanes <= 128);
    // Streams g, g+lanes, ... in groups of `lanes`; idle lanes repeat the group's first.
    for g in (0..STREAMS).step_by(lanes) {
        let group = (STREAMS - g).min(lanes);
        for l in 0..lanes {
            let s = g + if l < group { l } else { 0 };
            ptrs[l] = &buf[s * stride..s * stride + n * 64];
            for w in 0..4 {
                soa[w * lanes + l] = states[s][w];
            }
        }
        kernel.compress(
            &mut soa[..4 * lanes],
            Md5::WORDS,
            Md5::BLOCK,
            &ptrs[..lanes],
            n,
        );
        for l in 0..group {
            for w in 0..4 {
                states[g + l][w] = soa[w * lanes + l];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::modes::test_util::{pattern, random, vectors};
    use ::md5 as md5_ref;

    /// The definition, written plainly with the md-5 crate's compression function.
    fn reference(data: &[u8]) -> String {
        use md5_ref::Digest as _;
        let mut padded = data.to_vec();
        padded.resize(data.len().div_ceil(512) * 512, 0);
        let mut states = [[0x6745_2301u32, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476]; 8];
        for (k, block) in padded.chunks_exact(64).enumerate() {
            let b: [u8; 64] = block.try_into().unwrap();
            md5_ref::block_api::compress(&mut states[k % 8], &[b]);
        }
        let mut h = md5_ref::Md5::new();
        for s in &states {
            for w in s {
                h.update(w.to_le_bytes());
            }
        }
        h.update((data.len() as u64 * 8).to_le_bytes());
        hex::encode(h.finalize())
    }

    #[test]
    fn hand_vectors() {
        assert_eq!(md5p8(b"").to_hex(), "9912387c72711229dba3cadff3ea28df");
        assert_eq!(md5p8(b"abc").to_hex(), "bf282d6afc7daacf5b7fdd55202e0ca0");
        assert_eq!(reference(b"abc"), "bf282d6afc7daacf5b7fdd55202e0ca0");
    }

    #[test]
    fn vector_file() {
        let dir = vectors();
        let text = std::fs::read_to_string(dir.join("md5p8.txt")).unwrap();
        let mut n = 0;
        for line in text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        {
            let (desc, want) = line.trim().rsplit_once(char::is_whitespace).unwrap();
            let desc = desc.trim();
            let input: Vec<u8> = if desc == "empty" {
                Vec::new()
            } else if desc == "\"abc\"" {
                b"abc".to_vec()
            } else if desc == "\"a\"*64" {
                vec![b'a'; 64]
            } else if let Some(n) = desc.strip_prefix("zeros(") {
                vec![0; n.trim_end_matches(')').parse().unwrap()]
            } else if let Some(n) = desc.strip_prefix("pattern(") {
                pattern(n.trim_end_matches(')').parse().unwrap())
            } else {
                panic!("unknown input description {desc}");
            };
            assert_eq!(md5p8(&input).to_hex(), want, "{desc}");
            assert_eq!(reference(&input), want, "reference, {desc}");
            n += 1;
        }
        assert!(n >= 8, "only {n} vectors read");
    }

    /// Every kernel of this CPU (and portable 4- and 16-lane ones) against the reference,
    /// every length up to 5 rounds and across the chunk boundary.
    #[test]
    fn every_kernel_every_length() {
        use crate::testing::portable_lanes;
        // Every kernel of this CPU, whatever the active level.
        let mut ks = Kernels::<Md5>::new(isa::Features::detect()).lanes;
        ks.push(portable_lanes::<Md5>("p4", 4, 1.0));
        ks.push(portable_lanes::<Md5>("p16", 16, 1.0));
        let data = random(ROUND * (CHUNK_ROUNDS + 3), 1);
        let lens: Vec<usize> = (0..=5 * ROUND)
            .chain((CHUNK_ROUNDS - 1) * ROUND..data.len())
            .step_by(1)
            .collect();
        if let Some(t) = isa::Avx512::detect() {
            for &len in &lens {
                let mut st = State::with_kernel(ks[0]);
                st.direct = Some(t);
                st.update(&data[..len]);
                assert_eq!(
                    st.finalize().to_hex(),
                    reference(&data[..len]),
                    "direct len {len}"
                );
            }
        }
        for k in &ks {
            // Every length for the chosen kernel; every 7th for the others.
            let step = if k.name == pick(&ks[..ks.len() - 2]).name {
                1
            } else {
                7
            };
            for &len in lens.iter().step_by(step) {
                assert_eq!(
                    md5p8_with(k, &data[..len]).to_hex(),
                    reference(&data[..len]),
                    "kernel {} len {len}",
                    k.name
                );
            }
        }
    }

    /// Streaming in uneven pieces equals one shot.
    #[test]
    fn streaming_pieces() {
        crate::testing::each_level(|| {
            let data = random(3 * ROUND * CHUNK_ROUNDS + 77, 5);
            for piece in [1usize, 63, 511, 512, 513, 4096, 100_000] {
                let mut st = State::at(isa::active());
                for p in data.chunks(piece) {
                    st.update(p);
                }
                assert_eq!(st.finalize().to_hex(), reference(&data), "piece {piece}");
            }
        });
    }

    #[test]
    fn random_large() {
        crate::testing::each_level(|| {
            for seed in 0..3 {
                let len = crate::modes::test_util::random_len(1 << 20, 6 << 20, seed);
                let data = random(len, seed + 100);
                assert_eq!(md5p8(&data).to_hex(), reference(&data), "len {len}");
            }
        });
    }
}
