//! A streaming hasher's state behind a handle: plain (`Hasher`), engine-backed
//! (`LaneHasher`, whose blocks share SIMD lanes with the other streams of its engine) or
//! multi-algorithm (`MultiHasher`).

use lanesum::{Algorithm, Digest, Engine, Hasher, LaneHasher, MultiHasher};

use crate::status::{Error, LanesumStatus, Result};

/// A hasher's state; `None` once finalized.
pub(crate) enum Stream {
    Plain(Algorithm, Option<Hasher>),
    Lane(Engine, Algorithm, Option<LaneHasher>),
    Multi(Engine, Vec<Algorithm>, Option<MultiHasher>),
}

impl Stream {
    pub fn digest_len(&self) -> usize {
        match self {
            Stream::Plain(a, _) | Stream::Lane(_, a, _) => a.digest_len(),
            Stream::Multi(_, algs, _) => algs.iter().map(|a| a.digest_len()).sum(),
        }
    }

    pub(crate) fn finalized() -> Error {
        Error::new(
            LanesumStatus::LANESUM_ERR_STATE,
            "hasher was finalized; reset it before using it again",
        )
    }

    pub fn update(&mut self, data: &[u8]) -> Result<()> {
        match self {
            Stream::Plain(_, Some(h)) => {
                h.update(data);
            }
            Stream::Lane(_, _, Some(h)) => {
                h.update(data);
            }
            Stream::Multi(_, _, Some(h)) => {
                h.update(data);
            }
            _ => return Err(Self::finalized()),
        }
        Ok(())
    }

    /// `data[i]` into `streams[i]` for every `i`: plain hashers side by side in lanes
    /// (`Hasher::update_many`), engine and multi hashers one after another. Nothing is
    /// absorbed when any of them was finalized.
    pub fn update_many(streams: &mut [&mut Stream], data: &[&[u8]]) -> Result<()> {
        if streams.iter().any(|s| {
            matches!(
                s,
                Stream::Plain(_, None) | Stream::Lane(_, _, None) | Stream::Multi(_, _, None)
            )
        }) {
            return Err(Self::finalized());
        }
        let mut plain = Vec::with_capacity(streams.len());
        let mut chunks = Vec::with_capacity(streams.len());
        for (s, &d) in streams.iter_mut().zip(data) {
            match s {
                Stream::Plain(_, Some(h)) => {
                    plain.push(h);
                    chunks.push(d);
                }
                other => other.update(d)?,
            }
        }
        Hasher::update_many(&mut plain, &chunks);
        Ok(())
    }

    /// The digests (one after the other for a multi-algorithm hasher); finalizes.
    pub fn finalize(&mut self) -> Result<Vec<Digest>> {
        Ok(match self {
            Stream::Plain(_, h) => vec![h.take().ok_or_else(Self::finalized)?.finalize()],
            Stream::Lane(_, _, h) => vec![h.take().ok_or_else(Self::finalized)?.finalize()],
            Stream::Multi(_, _, h) => h.take().ok_or_else(Self::finalized)?.finalize(),
        })
    }

    pub fn reset(&mut self) {
        match self {
            Stream::Plain(a, h) => *h = Some(Hasher::new(*a)),
            Stream::Lane(e, a, h) => *h = Some(e.hasher(*a)),
            Stream::Multi(e, algs, h) => *h = Some(MultiHasher::with_engine(e, algs)),
        }
    }
}

/// Copy digests one after the other into `buf` (checked large enough); returns the length.
pub(crate) fn write_digests(digests: &[Digest], buf: &mut [u8]) -> usize {
    let mut at = 0;
    for d in digests {
        buf[at..at + d.len()].copy_from_slice(d.as_bytes());
        at += d.len();
    }
    at
}
