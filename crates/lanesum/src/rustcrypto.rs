//! The RustCrypto `digest` traits (feature `digest`) for the fixed-length algorithms, so
//! lanesum drops into code written against `sha2`, `sha1` or `md-5`: where that code says
//! `use sha2::{Digest, Sha256};`, it says `use lanesum::rustcrypto::{Digest, Sha256};`.
//! (The types are also at the crate root, `lanesum::Sha256`; there `lanesum::Digest` is
//! lanesum's own digest value, not this trait.)
//!
//! ```
//! use lanesum::rustcrypto::{Digest, Sha256};
//! let mut h = Sha256::new();
//! h.update(b"ab");
//! h.update(b"c");
//! assert_eq!(
//!     h.finalize()[..],
//!     lanesum::hash(lanesum::Algorithm::Sha256, b"abc").as_bytes()[..]
//! );
//! assert_eq!(lanesum::rustcrypto::Md5::digest(b"").len(), 16);
//! ```
//!
//! Each type is a [`Hasher`] of its algorithm: the same single-stream kernels (SHA-NI,
//! BMI2 rounds) as [`hash`](crate::hash).

use digest::consts::{U16, U20, U28, U32, U48, U64};
use digest::{FixedOutput, FixedOutputReset, HashMarker, Output, OutputSizeUser, Reset, Update};

/// The `digest` crate these types implement (0.11, as `sha2` 0.11 and `md-5` 0.11).
pub use digest;
/// The trait code written against RustCrypto hashers calls.
pub use digest::Digest;

use crate::{Algorithm, Hasher};

macro_rules! rustcrypto {
    ($($name:ident: $alg:ident, $size:ty, $what:literal;)*) => {$(
        #[doc = concat!($what, " as a RustCrypto [`digest::Digest`] (feature `digest`).")]
        #[derive(Clone, Debug)]
        pub struct $name(Hasher);

        impl Default for $name {
            fn default() -> Self {
                $name(Hasher::new(Algorithm::$alg))
            }
        }

        impl HashMarker for $name {}

        impl OutputSizeUser for $name {
            type OutputSize = $size;
        }

        impl Update for $name {
            fn update(&mut self, data: &[u8]) {
                self.0.update(data);
            }
        }

        impl FixedOutput for $name {
            fn finalize_into(self, out: &mut Output<Self>) {
                out.copy_from_slice(self.0.finalize().as_bytes());
            }
        }

        impl Reset for $name {
            fn reset(&mut self) {
                self.0.reset();
            }
        }

        impl FixedOutputReset for $name {
            fn finalize_into_reset(&mut self, out: &mut Output<Self>) {
                out.copy_from_slice(self.0.clone().finalize().as_bytes());
                self.0.reset();
            }
        }

        impl std::io::Write for $name {
            fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                self.0.update(buf);
                Ok(buf.len())
            }

            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
    )*};
}

rustcrypto! {
    Md5: Md5, U16, "MD5 (RFC 1321)";
    Sha1: Sha1, U20, "SHA-1 (FIPS 180-4)";
    Sha224: Sha224, U28, "SHA-224 (FIPS 180-4)";
    Sha256: Sha256, U32, "SHA-256 (FIPS 180-4)";
    Sha384: Sha384, U48, "SHA-384 (FIPS 180-4)";
    Sha512: Sha512, U64, "SHA-512 (FIPS 180-4)";
    Sha512_224: Sha512_224, U28, "SHA-512/224 (FIPS 180-4)";
    Sha512_256: Sha512_256, U32, "SHA-512/256 (FIPS 180-4)";
}
