//! Spreading a batch of messages over every core.

use crate::Digest;

/// The least batch (bytes in all) that `spread` hands to the thread pool.
pub(crate) const SPREAD_MIN: usize = 1 << 20;

/// `hash` of `msgs`, in order, with the messages spread over all rayon threads (with the
/// `rayon` feature; without it, all on this thread).
///
/// Longest first, dealt round-robin: each thread's group gets a similar byte count and a
/// similar spread of lengths, so each fills its lanes alike. Small batches never touch the
/// thread pool (its first use starts its threads).
pub(crate) fn spread(msgs: &[&[u8]], hash: impl Fn(&[&[u8]]) -> Vec<Digest> + Sync) -> Vec<Digest> {
    #[cfg(feature = "rayon")]
    {
        use rayon::prelude::*;
        let total: usize = msgs.iter().map(|m| m.len()).sum();
        let threads = rayon::current_num_threads();
        if msgs.len() < 2 || total < SPREAD_MIN || threads <= 1 {
            return hash(msgs);
        }
        let mut order: Vec<usize> = (0..msgs.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(msgs[i].len()));
        let groups: Vec<Vec<usize>> = (0..threads)
            .map(|g| order.iter().skip(g).step_by(threads).copied().collect())
            .collect();
        let results: Vec<Vec<Digest>> = groups
            .par_iter()
            .map(|g| {
                let sub: Vec<&[u8]> = g.iter().map(|&i| msgs[i]).collect();
                hash(&sub)
            })
            .collect();
        let mut out: Vec<Option<Digest>> = vec![None; msgs.len()];
        for (g, ds) in groups.iter().zip(results) {
            for (&i, d) in g.iter().zip(ds) {
                out[i] = Some(d);
            }
        }
        out.into_iter()
            .map(|d| d.expect("every message hashed"))
            .collect()
    }
    #[cfg(not(feature = "rayon"))]
    {
        hash(msgs)
    }
}
