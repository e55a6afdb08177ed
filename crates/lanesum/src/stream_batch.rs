//! Many streams on one thread, each fed a chunk at a time, hashed side by side in lanes.
//!
//! For a caller that holds many inputs but not whole (files read a window at a time, an
//! event loop's uploads): each [`StreamBatch::update`] hashes one chunk of every stream in
//! one lane pass, read in place, as `hash_many` would hash whole messages. Unlike the
//! [`Engine`](crate::Engine), nothing is copied and no thread waits: the caller already
//! has every stream's next bytes at hand.

use std::fmt;

use crate::families::{self, each, map, Each, OneOf};
use crate::family::{Family, Kernels, MAX_BLOCK};
use crate::isa::{self, Features};
use crate::merkle_damgard::{digest_of, split_chunk};
use crate::schedule::{self, Job};
use crate::{Algorithm, Digest, Hasher};

/// `n` streams of one algorithm, updated together and finished together.
///
/// ```
/// use lanesum::{hash, Algorithm, StreamBatch};
/// let mut b = StreamBatch::new(Algorithm::Sha256, 2);
/// b.update(&[b"ab", b"x"]);
/// b.update(&[b"c", b""]);
/// let d = b.finalize();
/// assert_eq!(d, [hash(Algorithm::Sha256, b"abc"), hash(Algorithm::Sha256, b"x")]);
/// ```
pub struct StreamBatch {
    alg: Algorithm,
    inner: Inner,
}

enum Inner {
    /// MD5, SHA-1, the SHA-2 family and SM3: in lanes.
    Lanes(OneOf<Lanes>),
    /// SHA-3 and SHAKE where there is a lanes kernel: one sponge each.
    Sha3(crate::sha3::Sponges),
    /// Algorithms without lane kernels of ours: one hasher each, updated together through
    /// [`Hasher::update_many`] (BLAKE2 side by side).
    Plain(Vec<Hasher>),
}

/// The streams of each family.
struct Lanes;

impl Each for Lanes {
    type Of<F: Family> = Streams<F>;
}

impl StreamBatch {
    /// `n` empty streams of `alg`.
    ///
    /// # Panics
    /// As [`Hasher::new`], for a hand-built algorithm with an impossible length.
    pub fn new(alg: Algorithm, n: usize) -> StreamBatch {
        assert!(alg.is_valid(), "invalid output length for {alg:?}");
        let level = isa::active();
        let inner = match families::lookup(alg) {
            Some(iv) => Inner::Lanes(map!(iv, |_F, iv| Streams::new(*iv, n, level))),
            None => match crate::sha3::Params::of(alg)
                .and_then(|p| crate::sha3::Sponges::new(p, n, level))
            {
                Some(s) => Inner::Sha3(s),
                None => Inner::Plain((0..n).map(|_| Hasher::at(alg, level)).collect()),
            },
        };
        StreamBatch { alg, inner }
    }

    /// The algorithm of every stream.
    pub fn algorithm(&self) -> Algorithm {
        self.alg
    }

    /// The number of streams.
    pub fn len(&self) -> usize {
        match &self.inner {
            Inner::Lanes(s) => each!(s, |_F, s| s.states.len()),
            Inner::Sha3(s) => s.len(),
            Inner::Plain(hs) => hs.len(),
        }
    }

    /// Whether there are no streams at all.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Append `chunks[i]` to stream `i` (any lengths, empty included).
    ///
    /// # Panics
    /// If `chunks` does not have one entry per stream.
    pub fn update(&mut self, chunks: &[&[u8]]) -> &mut Self {
        match &mut self.inner {
            Inner::Lanes(s) => each!(s, |_F, s| s.update(chunks)),
            Inner::Sha3(s) => s.update(chunks),
            // BLAKE2 side by side (the crates' many-state code), the others one by one.
            Inner::Plain(hs) => {
                let mut each: Vec<&mut Hasher> = hs.iter_mut().collect();
                Hasher::update_many(&mut each, chunks);
            }
        }
        self
    }

    /// Finish stream `i` and start it again, empty: its digest. The other streams go on,
    /// so a caller with more inputs than streams keeps them all busy (a file that ends
    /// gives its stream to the next).
    ///
    /// # Panics
    /// If there is no stream `i`.
    pub fn restart(&mut self, i: usize) -> Digest {
        let len = self.alg.digest_len();
        match &mut self.inner {
            Inner::Lanes(s) => each!(s, |_F, s| s.restart(i, len)),
            Inner::Sha3(s) => s.restart(i),
            // Not a Merkle-Damgård family: no level to keep.
            Inner::Plain(hs) => std::mem::replace(&mut hs[i], Hasher::new(self.alg)).finalize(),
        }
    }

    /// Every stream's digest, in stream order.
    pub fn finalize(self) -> Vec<Digest> {
        let len = self.alg.digest_len();
        match self.inner {
            Inner::Lanes(s) => each!(s, |_F, s| s.finalize(len)),
            Inner::Sha3(s) => s.finalize(),
            Inner::Plain(hs) => hs.into_iter().map(Hasher::finalize).collect(),
        }
    }
}

impl fmt::Debug for StreamBatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StreamBatch")
            .field("algorithm", &self.alg)
            .field("streams", &self.len())
            .finish_non_exhaustive()
    }
}

struct Streams<F: Family> {
    kernels: Kernels<F>,
    iv: F::State,
    states: Vec<F::State>,
    /// Each stream's bytes short of a whole block.
    carry: Vec<[u8; MAX_BLOCK]>,
    carry_len: Vec<usize>,
    total: Vec<u64>,
}

impl<F: Family> Streams<F> {
    fn new(iv: F::State, n: usize, level: Features) -> Self {
        Streams {
            kernels: Kernels::new(level),
            iv,
            states: vec![iv; n],
            carry: vec![[0; MAX_BLOCK]; n],
            carry_len: vec![0; n],
            total: vec![0; n],
        }
    }

    fn update(&mut self, chunks: &[&[u8]]) {
        assert_eq!(chunks.len(), self.states.len(), "one chunk per stream");
        let mut work = Vec::with_capacity(chunks.len());
        for (i, &c) in chunks.iter().enumerate() {
            self.total[i] = self.total[i].wrapping_add(c.len() as u64);
            if let Some(split) = split_chunk::<F>(&mut self.carry[i], &mut self.carry_len[i], c) {
                work.push((i, self.states[i], split));
            }
        }
        let states = &mut self.states;
        schedule::run_chunks(&self.kernels, work, |i, s| states[i] = *s);
    }

    /// Stream `i`'s last job: its carried bytes, padded. (`carry` is `self.carry`, or
    /// what was taken out of it.)
    fn last_job<'c>(&self, carry: &'c [[u8; MAX_BLOCK]], i: usize) -> Job<'c, F> {
        Job {
            state: self.states[i],
            segs: [&[]; schedule::SEGS],
            fin: Some((&carry[i][..self.carry_len[i]], self.total[i])),
        }
    }

    fn restart(&mut self, i: usize, len: usize) -> Digest {
        let state = self
            .last_job(&self.carry, i)
            .run_single(self.kernels.single);
        (self.states[i], self.carry_len[i], self.total[i]) = (self.iv, 0, 0);
        digest_of::<F>(&state, len)
    }

    fn finalize(mut self, len: usize) -> Vec<Digest> {
        let carry = std::mem::take(&mut self.carry);
        let jobs: Vec<(usize, Job<F>)> = (0..self.states.len())
            .map(|i| (i, self.last_job(&carry, i)))
            .collect();
        self.run(jobs);
        self.states.iter().map(|s| digest_of::<F>(s, len)).collect()
    }

    /// Hash `jobs` in lanes (or on the single-stream path when too few), into `states`.
    fn run(&mut self, jobs: Vec<(usize, Job<F>)>) {
        let states = &mut self.states;
        schedule::run_best(&self.kernels, jobs, |i, s| states[i] = *s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash;
    use rand::{Rng, SeedableRng};

    /// `n` random messages of up to `max` bytes.
    fn random_msgs(rng: &mut impl Rng, n: usize, max: usize) -> Vec<Vec<u8>> {
        (0..n)
            .map(|_| {
                let len = rng.random_range(0..max);
                (0..len).map(|_| rng.random()).collect()
            })
            .collect()
    }

    /// The next chunk of each message (empty, sub-block or many blocks, at random), from
    /// `pos`, which moves past it.
    fn next_chunks<'m>(
        rng: &mut impl Rng,
        msgs: &'m [Vec<u8>],
        pos: &mut [usize],
    ) -> Vec<&'m [u8]> {
        let cap = [1usize, 70, 300, 5000][rng.random_range(0..4)];
        msgs.iter()
            .zip(pos)
            .map(|(m, p)| {
                let k = rng.random_range(0..=cap).min(m.len() - *p);
                *p += k;
                &m[*p - k..*p]
            })
            .collect()
    }

    /// `Hasher::update_many` (which shares this module's lane pass): hashers of every
    /// laned algorithm and two others, mixed in one call, fed random chunks (empty,
    /// sub-block, many blocks) over several calls, match `hash`, at every level.
    #[test]
    fn hasher_update_many_matches_one_shot_hash() {
        crate::testing::each_level(|| {
            let mut rng = rand::rngs::StdRng::seed_from_u64(12);
            let algs: Vec<Algorithm> = Algorithm::LANED
                .iter()
                .copied()
                .chain([Algorithm::Blake3(32), Algorithm::Crc32c])
                .chain([Algorithm::Blake2b(64), Algorithm::Blake2s(32)])
                .collect();
            for n in [0usize, 1, 3, 9, 33] {
                let pick: Vec<Algorithm> = (0..n)
                    .map(|i| {
                        // Every third hasher of one algorithm, so families meet in lanes.
                        if i % 3 == 0 {
                            Algorithm::Md5
                        } else {
                            algs[rng.random_range(0..algs.len())]
                        }
                    })
                    .collect();
                let msgs = random_msgs(&mut rng, n, 20_000);
                let mut pos = vec![0usize; n];
                let mut hs: Vec<Hasher> = pick.iter().map(|&a| Hasher::new(a)).collect();
                loop {
                    let chunks = next_chunks(&mut rng, &msgs, &mut pos);
                    let mut refs: Vec<&mut Hasher> = hs.iter_mut().collect();
                    Hasher::update_many(&mut refs, &chunks);
                    if pos.iter().zip(&msgs).all(|(p, m)| *p == m.len()) {
                        break;
                    }
                }
                for ((h, m), a) in hs.into_iter().zip(&msgs).zip(&pick) {
                    assert_eq!(h.finalize(), hash(*a, m), "{a} n {n} len {}", m.len());
                }
            }
        });
    }

    /// `Hasher::update_many` of BLAKE2b and BLAKE2s hashers only (the crates' side-by-side
    /// code: BLAKE2b 4, 2 or 1 at once under AVX2, BLAKE2s 8, 4 or 1), of two output
    /// lengths each, in batches around those widths, fed random chunks, match this
    /// crate's RFC reference (not the crates' one-stream code).
    #[test]
    fn hasher_update_many_blake2_side_by_side() {
        use crate::blake2::{Blake2bRef, Blake2sRef};
        let mut rng = rand::rngs::StdRng::seed_from_u64(13);
        let reference = |a: Algorithm, m: &[u8]| match a {
            Algorithm::Blake2b(_) => Blake2bRef::digest(a.digest_len(), b"", m),
            Algorithm::Blake2s(_) => Blake2sRef::digest(a.digest_len(), b"", m),
            _ => unreachable!("BLAKE2 only"),
        };
        let lens = [
            Algorithm::Blake2b(64),
            Algorithm::Blake2b(20),
            Algorithm::Blake2s(32),
            Algorithm::Blake2s(16),
        ];
        for n in [1usize, 2, 3, 4, 5, 8, 9, 17] {
            for family in [&lens[..2], &lens[2..]] {
                let pick: Vec<Algorithm> = (0..n).map(|i| family[i % 2]).collect();
                let msgs = random_msgs(&mut rng, n, 9_000);
                let mut pos = vec![0usize; n];
                let mut hs: Vec<Hasher> = pick.iter().map(|&a| Hasher::new(a)).collect();
                while pos.iter().zip(&msgs).any(|(p, m)| *p < m.len()) {
                    let chunks = next_chunks(&mut rng, &msgs, &mut pos);
                    let mut refs: Vec<&mut Hasher> = hs.iter_mut().collect();
                    Hasher::update_many(&mut refs, &chunks);
                }
                for ((h, m), a) in hs.into_iter().zip(&msgs).zip(&pick) {
                    let want = reference(*a, m);
                    assert_eq!(
                        h.finalize().as_bytes(),
                        &want[..],
                        "{a} n {n} len {}",
                        m.len()
                    );
                }
            }
        }
    }

    /// Random streams fed random chunks (empty, sub-block, many blocks) match `hash`.
    #[test]
    fn matches_one_shot_hash() {
        crate::testing::each_level(|| {
            let mut rng = rand::rngs::StdRng::seed_from_u64(9);
            let algs = Algorithm::LANED
                .iter()
                .copied()
                .chain([Algorithm::Blake2b(64), Algorithm::Blake2s(32)])
                .chain([Algorithm::Blake3(32)]);
            for alg in algs {
                for n in [0usize, 1, 2, 5, 17, 40] {
                    let msgs = random_msgs(&mut rng, n, 20_000);
                    let mut pos = vec![0usize; n];
                    let mut b = StreamBatch::new(alg, n);
                    while pos.iter().zip(&msgs).any(|(p, m)| *p < m.len()) {
                        b.update(&next_chunks(&mut rng, &msgs, &mut pos));
                    }
                    let got = b.finalize();
                    for (m, d) in msgs.iter().zip(&got) {
                        assert_eq!(*d, hash(alg, m), "{alg} n {n} len {}", m.len());
                    }
                }
            }
        });
    }

    /// Streams restarted as their messages end (each taking the next message, mid-block
    /// or not) give each message's digest, and leave nothing behind for the next.
    #[test]
    fn restarted_streams_take_the_next_message() {
        crate::testing::each_level(|| {
            let mut rng = rand::rngs::StdRng::seed_from_u64(11);
            let algs = Algorithm::LANED
                .iter()
                .copied()
                .chain([Algorithm::Blake3(32)]);
            for alg in algs {
                let msgs = random_msgs(&mut rng, 60, 9_000);
                let n = 7;
                let mut b = StreamBatch::new(alg, n);
                // Each stream's (message, position), taken in turn from `next`.
                let mut next = 0;
                let mut at: Vec<Option<(usize, usize)>> = vec![None; n];
                let mut got = vec![None; msgs.len()];
                loop {
                    for a in at.iter_mut().filter(|a| a.is_none()) {
                        if next < msgs.len() {
                            *a = Some((next, 0));
                            next += 1;
                        }
                    }
                    if at.iter().all(Option::is_none) {
                        break;
                    }
                    let cap = [1usize, 64, 300, 4000][rng.random_range(0..4)];
                    let chunks: Vec<&[u8]> = at
                        .iter_mut()
                        .map(|a| match a {
                            Some((m, p)) => {
                                let k = rng.random_range(0..=cap).min(msgs[*m].len() - *p);
                                *p += k;
                                &msgs[*m][*p - k..*p]
                            }
                            None => &[][..],
                        })
                        .collect();
                    b.update(&chunks);
                    for (i, a) in at.iter_mut().enumerate() {
                        if let Some((m, p)) = *a {
                            if p == msgs[m].len() {
                                got[m] = Some(b.restart(i));
                                *a = None;
                            }
                        }
                    }
                }
                for (m, d) in msgs.iter().zip(&got) {
                    assert_eq!(d.as_ref(), Some(&hash(alg, m)), "{alg} len {}", m.len());
                }
                // Restarted streams that took nothing are empty messages.
                assert!(b.finalize().iter().all(|d| *d == hash(alg, b"")));
            }
        });
    }
}
