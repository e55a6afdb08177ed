//! Digest values and their text forms.

use std::fmt;

const INLINE: usize = 64;

/// A finished digest. Up to 64 bytes live inline (no allocation per message in batch
/// hashing); longer BLAKE3 outputs go to the heap.
///
/// ```
/// let d = lanesum::hash(lanesum::Algorithm::Md5, b"abc");
/// assert_eq!(d.to_hex(), "900150983cd24fb0d6963f7d28e17f72");
/// assert_eq!(d.to_base64(), "kAFQmDzST7DWlj99KOF/cg==");
/// assert_eq!(d.len(), 16);
/// ```
#[derive(Clone)]
pub struct Digest(Repr);

#[derive(Clone)]
enum Repr {
    Inline { len: u8, bytes: [u8; INLINE] },
    Heap(Box<[u8]>),
}

impl Digest {
    /// A digest holding `bytes`.
    pub fn from_bytes(bytes: &[u8]) -> Digest {
        if bytes.len() <= INLINE {
            let mut b = [0u8; INLINE];
            b[..bytes.len()].copy_from_slice(bytes);
            Digest(Repr::Inline {
                len: bytes.len() as u8,
                bytes: b,
            })
        } else {
            Digest(Repr::Heap(bytes.into()))
        }
    }

    /// The first `len` bytes of a full inline buffer. Taking the whole array (rather than a
    /// slice of it) keeps hot paths free of variable-length copies, whose byte-wise stores
    /// stall the next full-width load of the digest.
    #[inline]
    pub(crate) fn from_array(bytes: [u8; INLINE], len: usize) -> Digest {
        assert!(len <= INLINE);
        Digest(Repr::Inline {
            len: len as u8,
            bytes,
        })
    }

    /// Become the first `len` (at most 64) bytes of `words` in little-endian order, written
    /// in place: a finished digest built on the stack and then moved here was read back
    /// before its narrow stores had landed (a store-forwarding stall that cost BLAKE3's
    /// 64-byte messages ~10%).
    pub(crate) fn set_le_words(&mut self, words: &[u32; 16], len: usize) {
        assert!(len <= INLINE);
        if !matches!(self.0, Repr::Inline { .. }) {
            self.0 = Repr::Inline {
                len: 0,
                bytes: [0; INLINE],
            };
        }
        if let Repr::Inline { len: l, bytes } = &mut self.0 {
            for (b, w) in bytes.chunks_exact_mut(4).zip(words) {
                b.copy_from_slice(&w.to_le_bytes());
            }
            *l = len as u8;
        }
    }

    /// Build a digest of `len` bytes by letting `fill` write them.
    pub(crate) fn with_len(len: usize, fill: impl FnOnce(&mut [u8])) -> Digest {
        if len <= INLINE {
            let mut b = [0u8; INLINE];
            fill(&mut b[..len]);
            Digest(Repr::Inline {
                len: len as u8,
                bytes: b,
            })
        } else {
            let mut v = vec![0u8; len].into_boxed_slice();
            fill(&mut v);
            Digest(Repr::Heap(v))
        }
    }

    /// The digest's bytes.
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        match &self.0 {
            Repr::Inline { len, bytes } => &bytes[..*len as usize],
            Repr::Heap(b) => b,
        }
    }

    /// Its length in bytes.
    pub fn len(&self) -> usize {
        self.as_bytes().len()
    }

    /// Whether it has no bytes (`b3sum -l 0`).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Lowercase hexadecimal, as the *sum tools print it.
    pub fn to_hex(&self) -> String {
        hex_lower(self.as_bytes())
    }

    /// Standard base64 with padding (the form S3 and HTTP `Content-MD5` use).
    pub fn to_base64(&self) -> String {
        use base64::Engine as _;
        base64::engine::general_purpose::STANDARD.encode(self.as_bytes())
    }

    /// Parse hexadecimal in either case; `None` unless every character is a hex digit and
    /// the length is even.
    pub fn from_hex(hex: &str) -> Option<Digest> {
        let h = hex.as_bytes();
        if !h.len().is_multiple_of(2) {
            return None;
        }
        let nib = |c: u8| match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            b'A'..=b'F' => Some(c - b'A' + 10),
            _ => None,
        };
        let mut out = Vec::with_capacity(h.len() / 2);
        for pair in h.chunks_exact(2) {
            out.push(nib(pair[0])? << 4 | nib(pair[1])?);
        }
        Some(Digest::from_bytes(&out))
    }
}

/// Lowercase hex of any bytes.
pub fn hex_lower(bytes: &[u8]) -> String {
    let mut out = vec![0; 2 * bytes.len()];
    hex_lower_into(bytes, &mut out);
    String::from_utf8(out).expect("hex digits are ASCII")
}

/// Each byte's two lowercase hex digits: one lookup a byte.
const HEX_PAIRS: [[u8; 2]; 256] = {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut t = [[0u8; 2]; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = [DIGITS[i >> 4], DIGITS[i & 15]];
        i += 1;
    }
    t
};

/// Lowercase hex of `bytes` into the first `2 * bytes.len()` bytes of `out`, for callers
/// that write many digests into one buffer (an Arrow column of a million).
pub fn hex_lower_into(bytes: &[u8], out: &mut [u8]) {
    for (b, o) in bytes.iter().zip(out.chunks_exact_mut(2)) {
        o.copy_from_slice(&HEX_PAIRS[usize::from(*b)]);
    }
}

// Equality and hashing look only at the digest's bytes: an inline buffer may hold more
// (a truncated SHA-224 state, for one) past `len`.
impl PartialEq for Digest {
    fn eq(&self, other: &Digest) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for Digest {}

impl std::hash::Hash for Digest {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_bytes().hash(state)
    }
}

impl AsRef<[u8]> for Digest {
    fn as_ref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl fmt::Debug for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Digest({})", self.to_hex())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trip_inline_and_heap() {
        for len in [0usize, 1, 16, 64, 65, 200] {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 37) as u8).collect();
            let d = Digest::from_bytes(&bytes);
            assert_eq!(d.as_bytes(), &bytes[..]);
            assert_eq!(Digest::from_hex(&d.to_hex()).unwrap(), d);
            assert_eq!(Digest::from_hex(&d.to_hex().to_uppercase()).unwrap(), d);
        }
        assert!(Digest::from_hex("abc").is_none());
        assert!(Digest::from_hex("zz").is_none());
    }
}
