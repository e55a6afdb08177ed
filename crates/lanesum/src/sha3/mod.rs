//! SHA-3 and SHAKE (FIPS 202). One stream goes through the `sha3` and `shake` crates;
//! many messages (`hash_many`) and many streams (`StreamBatch`) share SIMD lanes: the
//! sponges are ours (`many`), the Keccak-f[1600] kernels one file per instruction set
//! (`portable`, `x86_avx2`, `x86_avx512`) behind the contract in `lanes`.

pub(crate) mod family;
mod lanes;
mod many;
mod portable;
#[cfg(target_arch = "x86_64")]
mod x86_avx2;
#[cfg(target_arch = "x86_64")]
mod x86_avx512;

use sha3::digest::{Digest as _, ExtendableOutput, Update};

use crate::isa::Features;
use crate::{Algorithm, Digest};
use lanes::KeccakLanes;
pub(crate) use many::Params;

/// A lanes path: its name, as `lanesum speed` lists it, and its kernel.
#[derive(Clone, Copy)]
enum Lanes {
    X4(&'static str, KeccakLanes<4>),
    /// Only AVX-512 has eight lanes.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    X8(&'static str, KeccakLanes<8>),
}

impl Lanes {
    /// The SIMD lanes paths `level` has, fastest first: AVX-512's eight lanes (on Zen 5
    /// 3.2x AVX2's four per core, SHA3-256 at 16 KiB, and faster with 2 to 4 messages
    /// too), AVX2's four.
    ///
    /// An iterator, not a list: `hash_many` and `Sponges::new` take the first on every
    /// call, and should not allocate for it.
    fn simd(level: Features) -> impl Iterator<Item = Lanes> {
        #[cfg(target_arch = "x86_64")]
        let v = [
            level
                .avx512()
                .map(|t| Lanes::X8("avx512x8", x86_avx512::kernel(t))),
            level
                .avx2()
                .map(|t| Lanes::X4("avx2x4", x86_avx2::kernel(t))),
        ];
        #[cfg(not(target_arch = "x86_64"))]
        let v: [Option<Lanes>; 0] = {
            let _ = level;
            []
        };
        v.into_iter().flatten()
    }

    /// Every lanes path that can be forced at `level`: the SIMD ones, or where there is
    /// none the portable reference in four lanes (slower than the crates; for tests).
    fn paths(level: Features) -> Vec<Lanes> {
        let v: Vec<Lanes> = Lanes::simd(level).collect();
        if v.is_empty() {
            vec![Lanes::X4("portable-x4", portable::kernel::<4>())]
        } else {
            v
        }
    }

    fn name(self) -> &'static str {
        match self {
            Lanes::X4(name, _) | Lanes::X8(name, _) => name,
        }
    }

    fn lanes(self) -> usize {
        match self {
            Lanes::X4(..) => 4,
            Lanes::X8(..) => 8,
        }
    }

    fn hash_many<M: AsRef<[u8]>>(self, p: Params, msgs: &[M]) -> Vec<Digest> {
        match self {
            Lanes::X4(_, k) => many::hash_many(k, p, msgs),
            Lanes::X8(_, k) => many::hash_many(k, p, msgs),
        }
    }

    fn absorb(self, rate: usize, sponges: &mut [many::Sponge], chunks: &[&[u8]]) {
        match self {
            Lanes::X4(_, k) => many::absorb(k, rate, sponges, chunks),
            Lanes::X8(_, k) => many::absorb(k, rate, sponges, chunks),
        }
    }

    fn finalize(self, p: Params, sponges: &mut [many::Sponge]) -> Vec<Digest> {
        match self {
            Lanes::X4(_, k) => many::finalize(k, p, sponges),
            Lanes::X8(_, k) => many::finalize(k, p, sponges),
        }
    }
}

/// The lanes paths [`hash_many`] can be forced to at `level`: each one's name, and how
/// many messages it hashes at once.
pub(crate) fn lanes_paths(level: Features) -> Vec<(&'static str, usize)> {
    Lanes::paths(level)
        .into_iter()
        .map(|l| (l.name(), l.lanes()))
        .collect()
}

/// The digests of `msgs` under SHA-3 or SHAKE `p`, on the path named `forced` (`x1`: the
/// crates one message at a time; a lanes path), or the best one: the fastest lanes
/// wherever there is a kernel faster than the crates (AVX-512, AVX2) and two messages
/// or more to fill them. `None` for an unknown path.
pub(crate) fn hash_many<M: AsRef<[u8]>>(
    alg: Algorithm,
    p: Params,
    msgs: &[M],
    level: Features,
    forced: Option<&str>,
) -> Option<Vec<Digest>> {
    // The crates one message at a time (what `Hasher` runs for SHA-3).
    let one_by_one = || {
        msgs.iter()
            .map(|m| {
                let mut s = Sha3State::new(alg).expect("a SHA-3 or SHAKE algorithm");
                s.update(m.as_ref());
                s.finalize()
            })
            .collect()
    };
    match forced {
        Some("x1") => Some(one_by_one()),
        Some(name) => Lanes::paths(level)
            .into_iter()
            .find(|l| l.name() == name)
            .map(|l| l.hash_many(p, msgs)),
        None => Some(match Lanes::simd(level).next() {
            Some(l) if msgs.len() >= 2 => l.hash_many(p, msgs),
            _ => one_by_one(),
        }),
    }
}

/// `n` SHA-3 or SHAKE streams side by side in lanes (a `StreamBatch`), where `level` has
/// a lanes kernel; `None` elsewhere (one hasher per stream is faster there).
pub(crate) struct Sponges {
    p: Params,
    k: Lanes,
    sponges: Vec<many::Sponge>,
}

impl Sponges {
    pub(crate) fn new(p: Params, n: usize, level: Features) -> Option<Sponges> {
        Some(Sponges {
            p,
            k: Lanes::simd(level).next()?,
            sponges: vec![Default::default(); n],
        })
    }

    pub(crate) fn len(&self) -> usize {
        self.sponges.len()
    }

    pub(crate) fn update(&mut self, chunks: &[&[u8]]) {
        assert_eq!(chunks.len(), self.sponges.len(), "one chunk per stream");
        self.k.absorb(self.p.rate, &mut self.sponges, chunks);
    }

    /// Stream `i`'s digest; it starts again, empty.
    pub(crate) fn restart(&mut self, i: usize) -> Digest {
        let d = self.k.finalize(self.p, &mut self.sponges[i..i + 1]);
        self.sponges[i] = Default::default();
        d.into_iter().next().expect("one digest")
    }

    pub(crate) fn finalize(mut self) -> Vec<Digest> {
        self.k.finalize(self.p, &mut self.sponges)
    }
}

/// One SHA-3 or SHAKE stream.
#[derive(Clone)]
pub(crate) enum Sha3State {
    S224(sha3::Sha3_224),
    S256(sha3::Sha3_256),
    S384(sha3::Sha3_384),
    S512(sha3::Sha3_512),
    Shake128(shake::Shake128, usize),
    Shake256(shake::Shake256, usize),
}

impl Sha3State {
    /// The state of `alg`, or `None` if `alg` is not SHA-3 or SHAKE.
    pub(crate) fn new(alg: Algorithm) -> Option<Sha3State> {
        Some(match alg {
            Algorithm::Sha3_224 => Sha3State::S224(Default::default()),
            Algorithm::Sha3_256 => Sha3State::S256(Default::default()),
            Algorithm::Sha3_384 => Sha3State::S384(Default::default()),
            Algorithm::Sha3_512 => Sha3State::S512(Default::default()),
            Algorithm::Shake128(n) => Sha3State::Shake128(Default::default(), n),
            Algorithm::Shake256(n) => Sha3State::Shake256(Default::default(), n),
            _ => return None,
        })
    }

    pub(crate) fn update(&mut self, data: &[u8]) {
        match self {
            Sha3State::S224(h) => sha3::Digest::update(h, data),
            Sha3State::S256(h) => sha3::Digest::update(h, data),
            Sha3State::S384(h) => sha3::Digest::update(h, data),
            Sha3State::S512(h) => sha3::Digest::update(h, data),
            Sha3State::Shake128(h, _) => h.update(data),
            Sha3State::Shake256(h, _) => h.update(data),
        }
    }

    pub(crate) fn finalize(self) -> Digest {
        match self {
            Sha3State::S224(h) => Digest::from_bytes(&h.finalize()),
            Sha3State::S256(h) => Digest::from_bytes(&h.finalize()),
            Sha3State::S384(h) => Digest::from_bytes(&h.finalize()),
            Sha3State::S512(h) => Digest::from_bytes(&h.finalize()),
            Sha3State::Shake128(h, n) => Digest::with_len(n, |out| h.finalize_xof_into(out)),
            Sha3State::Shake256(h, n) => Digest::with_len(n, |out| h.finalize_xof_into(out)),
        }
    }
}

/// Every SHA-3 and SHAKE function, SHAKE also with outputs of one byte and of more than
/// a rate (squeezed with extra permutations): what tests of SHA-3 paths run.
#[cfg(test)]
pub(crate) fn algorithms() -> Vec<Algorithm> {
    vec![
        Algorithm::Sha3_224,
        Algorithm::Sha3_256,
        Algorithm::Sha3_384,
        Algorithm::Sha3_512,
        Algorithm::Shake128(16),
        Algorithm::Shake128(1),
        Algorithm::Shake128(400),
        Algorithm::Shake256(32),
        Algorithm::Shake256(137),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// The `sha3` and `shake` crates' digest.
    fn reference(alg: Algorithm, msg: &[u8]) -> Digest {
        let mut s = Sha3State::new(alg).unwrap();
        s.update(msg);
        s.finalize()
    }

    /// Lengths around the first three multiples of the rate, and some random ones.
    fn ragged(rate: usize, rng: &mut impl Rng, count: usize) -> Vec<Vec<u8>> {
        let edges: Vec<usize> = (0..=3)
            .flat_map(|k| [k * rate, k * rate + 1, (k * rate).saturating_sub(1)])
            .chain([rate - 8, rate + 8, 7, 1000])
            .collect();
        (0..count)
            .map(|i| {
                let len = if i % 3 == 2 {
                    rng.random_range(0..5 * rate)
                } else {
                    edges[(i * 7 + count) % edges.len()]
                };
                let mut m = vec![0u8; len];
                rng.fill_bytes(&mut m);
                m
            })
            .collect()
    }

    fn check<const N: usize>(k: KeccakLanes<N>, what: &str) {
        let mut rng = rand::rngs::StdRng::seed_from_u64(N as u64);
        for alg in algorithms() {
            let p = Params::of(alg).unwrap();
            for count in (0..=2 * N + 1).chain([33]) {
                let msgs = ragged(p.rate, &mut rng, count);
                let got = many::hash_many(k, p, &msgs);
                for (m, d) in msgs.iter().zip(&got) {
                    assert_eq!(
                        *d,
                        reference(alg, m),
                        "{what} {alg}: {count} msgs, len {}",
                        m.len()
                    );
                }
            }
        }
    }

    /// The portable reference permutation at every lane count, against the crates.
    #[test]
    fn portable_lanes_match_the_crates() {
        check(portable::kernel::<1>(), "portable x1");
        check(portable::kernel::<2>(), "portable x2");
        check(portable::kernel::<3>(), "portable x3");
        check(portable::kernel::<4>(), "portable x4");
        check(portable::kernel::<5>(), "portable x5");
        check(portable::kernel::<8>(), "portable x8");
    }

    /// Equal and nearly equal messages, more than the lanes: the wrap-around plan, where
    /// messages move between lanes.
    #[test]
    fn wrap_around_plans() {
        for alg in [Algorithm::Sha3_256, Algorithm::Shake128(200)] {
            let p = Params::of(alg).unwrap();
            for count in 5..=19 {
                for extra in [0usize, 1, 3] {
                    let msgs: Vec<Vec<u8>> = (0..count)
                        .map(|i| vec![i as u8; p.rate * (7 + (i * extra) % 4) + i % 2])
                        .collect();
                    let want: Vec<Digest> = msgs.iter().map(|m| reference(alg, m)).collect();
                    assert_eq!(many::hash_many(portable::kernel::<4>(), p, &msgs), want);
                    assert_eq!(many::hash_many(portable::kernel::<3>(), p, &msgs), want);
                    for l in Lanes::simd(Features::detect()) {
                        let got = l.hash_many(p, &msgs);
                        assert_eq!(got, want, "{} {alg} x{count}", l.name());
                    }
                }
            }
        }
    }

    /// The SIMD kernels this CPU has (AVX2, AVX-512), against the crates.
    #[test]
    fn simd_lanes_match_the_crates() {
        for l in Lanes::simd(Features::detect()) {
            match l {
                Lanes::X4(name, k) => check(k, name),
                Lanes::X8(name, k) => check(k, name),
            }
        }
    }

    /// A single permutation of random states: each SIMD kernel against the portable
    /// one, lane by lane.
    #[test]
    fn simd_permutations_match_portable() {
        fn one<const N: usize>(k: KeccakLanes<N>, name: &str) {
            let mut rng = rand::rngs::StdRng::seed_from_u64(5);
            let mut st = [[0u64; N]; 25];
            st.iter_mut().flatten().for_each(|w| *w = rng.random());
            // SHAKE128's rate, the widest: other rates than FIPS 202's go to the
            // portable code in every kernel.
            let block = [0u8; 168];
            let mut want = st;
            portable::kernel::<N>().absorb(&mut want, &[&block[..]; N], 1, 168);
            k.absorb(&mut st, &[&block[..]; N], 1, 168);
            assert_eq!(st, want, "{name}");
        }
        for l in Lanes::simd(Features::detect()) {
            match l {
                Lanes::X4(name, k) => one(k, name),
                Lanes::X8(name, k) => one(k, name),
            }
        }
    }

    /// Streams fed in random chunks (some empty, some inside a block, some across many)
    /// end where one-shot hashing does, and a restarted stream starts empty.
    #[test]
    fn sponges_in_chunks() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(9);
        let runs = Lanes::simd(Features::detect()).flat_map(|k| [(k, 7), (k, 11)]);
        for ((k, n), alg) in runs.flat_map(|r| algorithms().into_iter().map(move |a| (r, a))) {
            let p = Params::of(alg).unwrap();
            let msgs = ragged(p.rate, &mut rng, n);
            let mut s = Sponges {
                p,
                k,
                sponges: vec![Default::default(); n],
            };
            let mut at = vec![0usize; n];
            while at.iter().zip(&msgs).any(|(a, m)| *a < m.len()) {
                let chunks: Vec<&[u8]> = (0..n)
                    .map(|i| {
                        let take = rng.random_range(0..=2 * p.rate).min(msgs[i].len() - at[i]);
                        let c = &msgs[i][at[i]..at[i] + take];
                        at[i] += take;
                        c
                    })
                    .collect();
                s.update(&chunks);
            }
            let restarted = s.restart(3);
            assert_eq!(
                restarted,
                reference(alg, &msgs[3]),
                "{} {alg} restart",
                k.name()
            );
            let got = s.finalize();
            for (i, (m, d)) in msgs.iter().zip(&got).enumerate() {
                let want = if i == 3 {
                    reference(alg, b"")
                } else {
                    reference(alg, m)
                };
                assert_eq!(*d, want, "{} {alg} stream {i}", k.name());
            }
        }
    }
}
