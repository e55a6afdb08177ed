//! Handles: every object C holds lives in this table, and a handle is its slot plus a
//! generation. A freed handle's generation no longer matches, so use after free and
//! double free are reported (never touching freed memory, which tags in the objects
//! themselves would), and a slot's lock makes one handle safe to share between threads.

use std::sync::{Mutex, MutexGuard, OnceLock};

use lanesum::Engine;

use crate::status::{Error, LanesumStatus, Result};
use crate::stream::Stream;

/// The id of the process-wide engine's handle: no table slot has it (those have a
/// generation in the high half).
pub(crate) const GLOBAL_ENGINE: u64 = 1;

/// What a handle refers to.
pub(crate) enum Object {
    Stream(Box<Stream>),
    Engine(Engine),
}

impl Object {
    fn kind(&self) -> &'static str {
        match self {
            Object::Stream(_) => "a hasher",
            Object::Engine(_) => "an engine",
        }
    }
}

const CHUNK_BITS: usize = 10;
const CHUNK: usize = 1 << CHUNK_BITS;
/// Live handles at most: 4 Mi.
const CHUNKS: usize = 1 << 12;

struct Entry {
    generation: u32,
    object: Option<Object>,
}

/// Chunks of slots, made as needed and never freed, so a lookup needs no global lock.
static TABLE: [OnceLock<Box<[Mutex<Entry>]>>; CHUNKS] = [const { OnceLock::new() }; CHUNKS];

struct Slots {
    free: Vec<usize>,
    next: usize,
}

static SLOTS: Mutex<Slots> = Mutex::new(Slots {
    free: Vec::new(),
    next: 0,
});

fn chunk(i: usize) -> Option<&'static [Mutex<Entry>]> {
    TABLE.get(i >> CHUNK_BITS)?.get().map(|c| &**c)
}

fn lock(m: &Mutex<Entry>) -> MutexGuard<'_, Entry> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn bad(id: u64, why: &str) -> Error {
    Error::new(
        LanesumStatus::LANESUM_ERR_HANDLE,
        format!("handle {id:#x} {why}"),
    )
}

/// Store `object`; returns its handle (never 0).
pub(crate) fn insert(object: Object) -> Result<u64> {
    let index = {
        let mut s = SLOTS.lock().unwrap_or_else(|p| p.into_inner());
        match s.free.pop() {
            Some(i) => i,
            None => {
                let i = s.next;
                if i >= CHUNK * CHUNKS {
                    return Err(Error::argument("too many live handles"));
                }
                TABLE[i >> CHUNK_BITS].get_or_init(|| {
                    (0..CHUNK)
                        .map(|_| {
                            Mutex::new(Entry {
                                generation: 1,
                                object: None,
                            })
                        })
                        .collect()
                });
                s.next += 1;
                i
            }
        }
    };
    let slots = chunk(index).expect("chunk made before its index was handed out");
    let mut e = lock(&slots[index & (CHUNK - 1)]);
    e.object = Some(object);
    Ok((u64::from(e.generation) << 32) | (index as u64 + 1))
}

/// A handle's slot, generation and index; not yet checked against the slot.
fn slot(id: u64) -> Result<(&'static Mutex<Entry>, u32, usize)> {
    if id == 0 {
        return Err(Error::null("handle"));
    }
    let index = ((id & 0xffff_ffff) as usize)
        .checked_sub(1)
        .ok_or_else(|| bad(id, "is not a handle"))?;
    let slots = chunk(index).ok_or_else(|| bad(id, "is not a handle"))?;
    Ok((&slots[index & (CHUNK - 1)], (id >> 32) as u32, index))
}

fn check(id: u64, e: &Entry, generation: u32) -> Result<()> {
    if e.generation != generation || e.object.is_none() {
        return Err(bad(id, "was freed already or never allocated"));
    }
    Ok(())
}

/// The slot of a live handle, locked.
fn live(id: u64) -> Result<MutexGuard<'static, Entry>> {
    let (m, generation, _) = slot(id)?;
    let e = match m.lock() {
        Ok(e) => e,
        Err(p) => {
            let e = p.into_inner();
            check(id, &e, generation)?;
            return Err(Error::new(
                LanesumStatus::LANESUM_ERR_PANIC,
                format!("handle {id:#x} was left broken by an earlier panic; free it"),
            ));
        }
    };
    check(id, &e, generation)?;
    Ok(e)
}

/// Run `f` on the stream behind `id`, holding its slot's lock (other threads using the same
/// handle wait).
pub(crate) fn with_stream<R>(id: u64, f: impl FnOnce(&mut Stream) -> Result<R>) -> Result<R> {
    let mut e = live(id)?;
    match e.object.as_mut() {
        Some(Object::Stream(s)) => f(s),
        Some(o) => Err(bad(id, &format!("is {}, not a hasher", o.kind()))),
        None => unreachable!("live() checked"),
    }
}

/// Run `f` on the streams behind `ids` at once, holding each slot's lock. Slots are
/// locked in table order, so calls that share handles never wait on each other in a
/// cycle; a handle given twice is an error (its lock would be taken twice).
pub(crate) fn with_streams<R>(
    ids: &[u64],
    f: impl FnOnce(&mut [&mut Stream]) -> Result<R>,
) -> Result<R> {
    let mut order = Vec::with_capacity(ids.len());
    for (at, &id) in ids.iter().enumerate() {
        order.push((slot(id)?.2, at));
    }
    order.sort_unstable();
    if let Some(w) = order.windows(2).find(|w| w[0].0 == w[1].0) {
        let (a, b) = (ids[w[0].1], ids[w[1].1]);
        if a != b {
            // One slot under two generations: one handle is stale, which is the error
            // to report (its slot now holds another hasher).
            for id in [a, b] {
                drop(live(id)?);
            }
        }
        return Err(Error::argument(format!(
            "handles {a:#x} and {b:#x} are the same hasher: each may appear once"
        )));
    }
    let mut guards: Vec<Option<MutexGuard<'static, Entry>>> = ids.iter().map(|_| None).collect();
    for &(_, at) in &order {
        guards[at] = Some(live(ids[at])?);
    }
    let mut streams = Vec::with_capacity(ids.len());
    for (g, &id) in guards.iter_mut().zip(ids) {
        match g.as_mut().and_then(|e| e.object.as_mut()) {
            Some(Object::Stream(s)) => streams.push(&mut **s),
            Some(o) => return Err(bad(id, &format!("is {}, not a hasher", o.kind()))),
            None => unreachable!("live() checked"),
        }
    }
    f(&mut streams)
}

/// The engine behind `id` (a clone: engines are handles to shared lanes).
pub(crate) fn engine(id: u64) -> Result<Engine> {
    if id == GLOBAL_ENGINE {
        return Ok(Engine::global().clone());
    }
    let e = live(id)?;
    match e.object.as_ref() {
        Some(Object::Engine(engine)) => Ok(engine.clone()),
        Some(o) => Err(bad(id, &format!("is {}, not an engine", o.kind()))),
        None => unreachable!("live() checked"),
    }
}

/// Free `id`, which must be of the kind `is_kind` accepts (a handle an earlier panic
/// broke can still be freed).
pub(crate) fn remove(id: u64, kind: &str, is_kind: fn(&Object) -> bool) -> Result<()> {
    let (m, generation, index) = slot(id)?;
    let object = {
        let mut e = lock(m);
        check(id, &e, generation)?;
        if !e.object.as_ref().is_some_and(is_kind) {
            let o = e.object.as_ref().map_or("nothing", Object::kind);
            return Err(bad(id, &format!("is {o}, not {kind}")));
        }
        e.generation = e.generation.checked_add(1).unwrap_or(1);
        e.object.take()
    };
    m.clear_poison();
    // Dropped outside the slot's lock: an engine hasher's drop may touch its engine.
    drop(object);
    SLOTS
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .free
        .push(index);
    Ok(())
}
