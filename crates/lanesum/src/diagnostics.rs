//! What this CPU offers and what lanesum chose, for benchmarks, tests and bug reports:
//! the kernels of each algorithm, hashing forced onto one of them, the instruction-set
//! levels a test matrix runs, and the core design speed estimates follow.
//!
//! Nothing here is needed to hash correctly or fast; [`hash_many`](crate::hash_many) and
//! the others choose by themselves.
//!
//! ```
//! use lanesum::{diagnostics, hash_many, isa, Algorithm};
//! let msgs = vec![b"abc".to_vec(); 40];
//! let want = hash_many(Algorithm::Md5, &msgs);
//! // Every kernel of every level this CPU has gives the same digests.
//! for level in diagnostics::levels() {
//!     isa::with_level(level, || {
//!         for k in diagnostics::kernels(Algorithm::Md5) {
//!             assert_eq!(diagnostics::hash_many_with(Algorithm::Md5, k.name, &msgs).unwrap(), want);
//!         }
//!     });
//! }
//! ```

use crate::batch;
use crate::isa::{self, Features};
use crate::{Algorithm, Digest};

pub use crate::batch::KernelInfo;
pub use crate::uarch::{uarch, Uarch};

/// The kernels `alg` has at the active level ([`isa::active`]), the single-stream one
/// first.
pub fn kernels(alg: Algorithm) -> Vec<KernelInfo> {
    batch::kernel_infos(alg, isa::active())
}

/// [`hash_many`](crate::hash_many) forced onto one kernel (by [`KernelInfo::name`]) for
/// every message, in submission order; `None` if `alg` has no such kernel at the active
/// level.
pub fn hash_many_with<M: AsRef<[u8]>>(
    alg: Algorithm,
    kernel: &str,
    msgs: &[M],
) -> Option<Vec<Digest>> {
    batch::run(alg, msgs, isa::active(), Some(kernel))
}

/// Every level this CPU can be forced to (portable, each extension alone, all of them),
/// for [`isa::with_level`]: a test that runs its body at each covers every kernel path.
pub fn levels() -> Vec<Features> {
    Features::detect().levels()
}
