//! What the pools of one engine share: the count of its writers, and each other, as places
//! where a writer whose own half is in a round can hash waiting halves instead of sleeping.
//!
//! Every round is run by a writer, and each stream it claims belongs to another writer,
//! which blocks once it has filled its next half too. Before writers helped, a round of
//! `L` streams could hold `L - 1` writers asleep while one core hashed, so with `T`
//! writer threads as few as `T / L` cores were busy: 32 noisy-neighbour `MultiHasher`s
//! in 8-stream rounds kept about 60% of 16 cores busy (CPU time against wall time), and
//! 4 of them on 2 cores the same, 53-79%. Rounds small enough to keep every core busy
//! that way (`L = T / cores`, 2 streams there) leave most of each kernel's lanes empty.
//! A blocked writer now runs a round of other streams' waiting halves, of its own family
//! or any other (its own half is in a round of one family; the halves of the others
//! that it handed over earlier still wait), and sleeps only when too few wait to fill a
//! round: a smaller one would spend more CPU on empty lanes than the idle core gives.
//!
//! Four noisy-neighbour threads on 2 cores (Zen 5, 64 MiB each, `engine_ratios`, old and
//! new in turns, 5 rounds twice): 1.33-1.35x RustCrypto's four one after another before,
//! 1.88-1.92x helping, on about 2.1x less CPU time either way; 32 threads 4.53-4.82x
//! before, 5.01-5.08x helping. Helping with half, or all but one, of a round's halves
//! waiting took 4-20% more CPU (4 and 8 threads) and was no faster.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{OnceLock, Weak};

use crate::sys::current_cpu;

/// A family's pool, as a writer that has nothing of its own to hash sees it.
pub(crate) trait Help: Send + Sync {
    /// Hash a round of the halves waiting here, if enough wait to fill a round's lanes;
    /// whether it did.
    fn help(&self) -> bool;
}

/// The pools of one engine, and its writers over all of them.
#[derive(Default)]
pub(crate) struct Crew {
    /// Streams that have handed blocks to a pool (or were counted early by a
    /// `MultiHasher`) and not finished, over every family.
    writers: AtomicUsize,
    /// Every pool, set once when the engine is made. Weak: the pools hold the crew.
    pools: OnceLock<Vec<Weak<dyn Help>>>,
    /// Rounds run by writers helping.
    #[cfg(test)]
    pub(crate) helped: AtomicUsize,
}

impl Crew {
    pub(crate) fn writers(&self) -> usize {
        self.writers.load(Ordering::Relaxed)
    }

    pub(crate) fn join(&self) {
        self.writers.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn leave(&self) {
        self.writers.fetch_sub(1, Ordering::Relaxed);
    }

    /// Sets the engine's pools; only the first call counts.
    pub(crate) fn set_pools(&self, pools: Vec<Weak<dyn Help>>) {
        let _ = self.pools.set(pools);
    }

    /// Hash a round of waiting halves of `first`'s family, or else of the first other
    /// family that has enough; whether any was hashed. The others are tried from a place
    /// that depends on the CPU, so that helpers on different cores do not all queue for
    /// the first family's list.
    pub(crate) fn help(&self, first: &dyn Help) -> bool {
        let helped = first.help()
            || self.pools.get().is_some_and(|pools| {
                let from = current_cpu() % pools.len().max(1);
                let (before, after) = pools.split_at(from);
                after
                    .iter()
                    .chain(before)
                    .filter(|p| !std::ptr::addr_eq(p.as_ptr(), first))
                    .filter_map(Weak::upgrade)
                    .any(|p| p.help())
            });
        #[cfg(test)]
        if helped {
            self.helped.fetch_add(1, Ordering::Relaxed);
        }
        helped
    }
}
