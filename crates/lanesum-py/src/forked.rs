//! Rayon in a forked child. `os.fork()` (and so multiprocessing's "fork" start method,
//! Linux's default before Python 3.14) copies only the thread that forked: rayon's global
//! pool, if the parent had started it, has no threads in the child, and the child's first
//! parallel call (`hash_many` of a big batch, `hash_array`, a large BLAKE3 update, a
//! `MultiHasher`) waited for them forever. The module registers a hook with
//! `os.register_at_fork`; in a child every parallel call then runs in a pool started
//! there, one per generation of forks.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use pyo3::prelude::*;
use pyo3::types::PyDict;
use rayon::ThreadPool;

/// Forks this process descends from since the module was imported (counted in each
/// child, so a grandchild's count differs from its parent's).
static FORKS: AtomicU64 = AtomicU64::new(0);

#[pyfunction]
fn after_fork_in_child() {
    FORKS.fetch_add(1, Ordering::SeqCst);
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
/// the child's own.
pub fn parallel<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    let forks = FORKS.load(Ordering::SeqCst);
    if forks == 0 {
        return f();
    }
    match child_pool(forks) {
        Some(pool) => pool.install(f),
        // No thread could start: the global pool may still have its threads (it was
        // never started before the fork), else this waits as it did before.
        None => f(),
    }
}

/// The pool of this generation of forks, started on first use. A pool started in an
/// ancestor is left alone (leaked): its threads are not in this process to stop.
fn child_pool(forks: u64) -> Option<&'static ThreadPool> {
    static POOL: Mutex<Option<(u64, &'static ThreadPool)>> = Mutex::new(None);
    let mut held = POOL.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((generation, pool)) = *held {
        if generation == forks {
            return Some(pool);
        }
    }
    let pool: &'static ThreadPool = Box::leak(Box::new(
        rayon::ThreadPoolBuilder::new()
            .thread_name(|i| format!("lanesum-forked-{i}"))
            .build()
            .ok()?,
    ));
    *held = Some((forks, pool));
    Some(pool)
}
