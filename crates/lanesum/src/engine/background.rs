//! A lone `MultiHasher`'s batches, hashed on rayon's threads while the caller gathers more.
//!
//! Each algorithm takes the batches in order at its own pace: one rayon task per algorithm
//! drains that algorithm's queue, so a slow algorithm never holds the others at a barrier
//! at the end of every batch, and a thread preempted by the reader (or by anything else
//! on the machine) delays only its own algorithm. The caller blocks only when every
//! algorithm would have more than [`IN_FLIGHT`] batches queued, and when it takes the
//! streams back.

use std::any::Any;
use std::collections::VecDeque;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::Arc;

use parking_lot::{Condvar, Mutex};

use super::half::SharedHalf;
use super::lane_hasher::LaneHasher;

/// Batches an algorithm may have queued or in progress: one being hashed, one waiting,
/// so a core that finishes early finds the next batch ready.
pub(crate) const IN_FLIGHT: usize = 2;

/// The streams of a `MultiHasher`, out on rayon's threads.
pub(crate) struct Background {
    shared: Arc<Shared>,
}

struct Shared {
    /// One per algorithm, in the `MultiHasher`'s order (costliest first: queued first).
    queues: Vec<Mutex<Queue>>,
    /// (algorithm, batch) pairs not hashed yet.
    pending: Mutex<usize>,
    /// Signalled whenever `pending` falls.
    hashed: Condvar,
}

struct Queue {
    /// The algorithm's stream; `None` while a task hashes with it (or after it panicked).
    hasher: Option<LaneHasher>,
    batches: VecDeque<SharedHalf>,
    /// A task is draining `batches`.
    draining: bool,
    /// What stopped the stream, handed to the caller when it takes the streams back.
    panic: Option<Box<dyn Any + Send>>,
}

impl Background {
    pub(crate) fn new(hashers: Vec<LaneHasher>) -> Background {
        let queues = hashers
            .into_iter()
            .map(|h| {
                Mutex::new(Queue {
                    hasher: Some(h),
                    batches: VecDeque::new(),
                    draining: false,
                    panic: None,
                })
            })
            .collect();
        Background {
            shared: Arc::new(Shared {
                queues,
                pending: Mutex::new(0),
                hashed: Condvar::new(),
            }),
        }
    }

    /// Queue `batch` for every algorithm, once at most `IN_FLIGHT - 1` batches per
    /// algorithm are left (back-pressure: memory stays at a few batches).
    pub(crate) fn push(&self, batch: &SharedHalf) {
        let s = &self.shared;
        let n = s.queues.len();
        let mut pending = s.pending.lock();
        while *pending > (IN_FLIGHT - 1) * n {
            s.hashed.wait(&mut pending);
        }
        *pending += n;
        drop(pending);
        for (i, q) in s.queues.iter().enumerate() {
            let mut q = q.lock();
            q.batches.push_back(Arc::clone(batch));
            if !q.draining {
                q.draining = true;
                let shared = Arc::clone(s);
                rayon::spawn(move || drain(&shared, i));
            }
        }
    }

    /// Wait until every batch is hashed and take the streams back (in order); a panic in
    /// one of them is resumed here.
    pub(crate) fn finish(self) -> Vec<LaneHasher> {
        let s = &self.shared;
        let mut pending = s.pending.lock();
        while *pending > 0 {
            s.hashed.wait(&mut pending);
        }
        drop(pending);
        let mut streams = Vec::with_capacity(s.queues.len());
        for q in &s.queues {
            let mut q = q.lock();
            if let Some(panic) = q.panic.take() {
                resume_unwind(panic);
            }
            streams.push(q.hasher.take().expect("no batch is in progress"));
        }
        streams
    }
}

/// Hash algorithm `i`'s queued batches in order until none is left.
fn drain(s: &Shared, i: usize) {
    loop {
        let (mut hasher, batch) = {
            let mut q = s.queues[i].lock();
            let Some(batch) = q.batches.pop_front() else {
                q.draining = false;
                return;
            };
            (q.hasher.take(), batch)
        };
        // After a panic the stream is gone: its remaining batches are only counted off.
        let mut panic = None;
        if let Some(h) = hasher.as_mut() {
            if let Err(p) = catch_unwind(AssertUnwindSafe(|| {
                h.update(&batch);
            })) {
                panic = Some(p);
            }
        }
        drop(batch);
        {
            let mut q = s.queues[i].lock();
            match panic {
                Some(p) => {
                    q.panic.get_or_insert(p);
                    drop(hasher);
                }
                None => q.hasher = hasher,
            }
        }
        *s.pending.lock() -= 1;
        s.hashed.notify_all();
    }
}
