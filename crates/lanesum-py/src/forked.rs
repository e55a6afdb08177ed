//! Rayon in a forked child. `os.fork()` (and so multiprocessing's "fork" start method,
//! Linux's default before Python 3.14) copies only the thread that forked: rayon's global
//! pool, if the parent had started it, has no threads in the child, and the child's first
//! parallel call (`hash_many` of a big batch, `hash_array`, a large BLAKE3 update, a
//! `MultiHasher`) waited for them forever. The module registers a hook with
//! `os.register_at_fork`; in a child the calls that can reach rayon then run in a pool
//! started there.
//!
//! One pool per depth of forks, each in a slot of its own and never locked: a process
//! at depth d only ever starts slot d, so a fork that catches another thread starting
//! one leaves the child nothing held (its own slot, d + 1, is untouched). A lock here
//! would cross the fork held by a thread the child doesn't have.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use pyo3::prelude::*;
use pyo3::types::PyDict;
use rayon::ThreadPool;

/// Forks between the process that imported the module and this one.
static DEPTH: AtomicUsize = AtomicUsize::new(0);

/// Depths with a pool of their own; deeper children run on the global pool, as before.
const DEPTHS: usize = 64;
static POOLS: [OnceLock<Option<ThreadPool>>; DEPTHS] = [const { OnceLock::new() }; DEPTHS];

#[pyfunction]
fn after_fork_in_child() {
    DEPTH.fetch_add(1, Ordering::SeqCst);
}

/// Register the hook (module initialisation).
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let kwargs = PyDict::new(py);
    kwargs.set_item("after_in_child", wrap_pyfunction!(after_fork_in_child, m)?)?;
    py.import("os")?
        .call_method("register_at_fork", (), Some(&kwargs))?;
    Ok(())
}

/// Run `f`, which may use rayon: on the global pool, or in a forked child on a pool of
/// the child's own. Only for calls that can reach rayon: in a child every call through
/// here crosses to a pool thread and back (20,000 eight-byte updates took 0.48 s, not
/// 0.02 s, when every update came through here).
pub fn parallel<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    parallel_if(true, f)
}

/// [`parallel`] where `may_spread` (the call can reach rayon), else `f` right here.
pub fn parallel_if<R: Send>(may_spread: bool, f: impl FnOnce() -> R + Send) -> R {
    let depth = DEPTH.load(Ordering::SeqCst);
    if depth == 0 || !may_spread {
        return f();
    }
    let pool = POOLS.get(depth).and_then(|slot| {
        slot.get_or_init(|| {
            rayon::ThreadPoolBuilder::new()
                .thread_name(|i| format!("lanesum-forked-{i}"))
                .build()
                .ok()
        })
        .as_ref()
    });
    match pool {
        Some(pool) => pool.install(f),
        // No thread could start: the global pool may still have its threads (it was
        // never started before the fork), else this waits as it did before.
        None => f(),
    }
}
