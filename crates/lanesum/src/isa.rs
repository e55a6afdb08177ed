//! Instruction-set levels: detected once per process, overridable with `LANESUM_ISA`.
//!
//! A fast kernel may only run on a CPU that has its instructions. Each extension lanesum's
//! kernels use has a token type ([`ShaNi`], [`Avx2`], [`Avx512`]) whose only constructor is
//! its `detect`, which asks the CPU; a kernel is built from its token, so safe code holding
//! a kernel holds the proof that it may run it. [`Features`] is a set of those tokens: a
//! level, which can only ever be a subset of what the CPU has.
//!
//! Every fast path asks [`active`] which level to use, once, when it builds its kernels;
//! nothing else reads CPUID. `LANESUM_ISA` takes a comma-separated list of `portable`,
//! `shani`, `avx2`, `avx512` (or `auto`) so tests and benchmarks can force each path. Asking
//! for a feature the CPU lacks is an error ([`IsaError`], from [`try_active`]), never an
//! illegal instruction; [`active`] reports such an error once and carries on at the level
//! the CPU allows.

use std::cell::Cell;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

/// Defines a token type: a zero-sized proof that the CPU has some instructions.
macro_rules! token {
    ($(#[$doc:meta])* $name:ident, $($feature:tt),+) => {
        $(#[$doc])*
        ///
        /// Only [`detect`](Self::detect) makes one, after asking the CPU, so code holding a
        /// value may run those instructions.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub struct $name(());

        impl $name {
            /// The token, if this CPU (and OS) supports the instructions; `None` elsewhere.
            pub fn detect() -> Option<$name> {
                #[cfg(all(target_arch = "x86_64", not(miri)))]
                if $(std::arch::is_x86_feature_detected!($feature))&&+ {
                    return Some($name(()));
                }
                None
            }
        }
    };
}

token!(
    /// SHA-NI with SSSE3 and SSE4.1: SHA-1 and SHA-256 single and multi-stream kernels.
    ShaNi, "sha", "sse2", "ssse3", "sse4.1"
);
token!(
    /// AVX2: 8-lane 32-bit and 4-lane 64-bit kernels.
    Avx2, "avx2"
);
token!(
    /// AVX-512 F, BW and VL (which imply AVX2): 16-lane 32-bit and 8-lane 64-bit kernels, and
    /// their 256-bit AVX-512VL builds.
    Avx512, "avx2", "avx512f", "avx512bw", "avx512vl"
);
token!(
    /// BMI2 (`rorx`) with AVX2: the single-stream SHA-512 rounds. Not a level of its own:
    /// used where the [`Avx2`] level is.
    Bmi2, "bmi2", "avx2"
);

/// A level: the instruction-set extensions lanesum's kernels may use, each present only
/// as the token that proves the CPU has it.
///
/// ```
/// use lanesum::isa::Features;
/// let cpu = Features::detect();
/// let forced = Features::parse("portable", cpu).unwrap();
/// assert_eq!(forced, Features::PORTABLE);
/// assert!(forced.avx2().is_none());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Features {
    shani: Option<ShaNi>,
    avx2: Option<Avx2>,
    avx512: Option<Avx512>,
}

impl Features {
    /// Scalar code only.
    pub const PORTABLE: Features = Features {
        shani: None,
        avx2: None,
        avx512: None,
    };

    /// What this CPU supports.
    pub fn detect() -> Features {
        Features {
            shani: ShaNi::detect(),
            avx2: Avx2::detect(),
            avx512: Avx512::detect(),
        }
    }

    /// SHA-NI, if this level has it.
    pub fn shani(self) -> Option<ShaNi> {
        self.shani
    }

    /// AVX2, if this level has it.
    pub fn avx2(self) -> Option<Avx2> {
        self.avx2
    }

    /// AVX-512, if this level has it.
    pub fn avx512(self) -> Option<Avx512> {
        self.avx512
    }

    /// Parse a `LANESUM_ISA` value and check it against `cpu`: the level it names, which
    /// must be a subset of `cpu`.
    pub fn parse(spec: &str, cpu: Features) -> Result<Features, IsaError> {
        let spec = spec.trim();
        if spec.is_empty() || spec.eq_ignore_ascii_case("auto") {
            return Ok(cpu);
        }
        let (mut shani, mut avx2, mut avx512) = (false, false, false);
        for word in spec.split(',').map(str::trim) {
            match word.to_ascii_lowercase().as_str() {
                "portable" | "scalar" => {}
                "shani" | "sha-ni" | "sha" => shani = true,
                "avx2" => avx2 = true,
                "avx512" | "avx-512" => avx512 = true,
                _ => return Err(IsaError::Unknown(word.to_string())),
            }
        }
        let f = Features {
            shani: cpu.shani.filter(|_| shani),
            avx2: cpu.avx2.filter(|_| avx2),
            avx512: cpu.avx512.filter(|_| avx512),
        };
        let missing: Vec<&str> = [
            (shani && f.shani.is_none(), "shani"),
            (avx2 && f.avx2.is_none(), "avx2"),
            (avx512 && f.avx512.is_none(), "avx512"),
        ]
        .iter()
        .filter(|(m, _)| *m)
        .map(|(_, n)| *n)
        .collect();
        if missing.is_empty() {
            Ok(f)
        } else {
            Err(IsaError::Unsupported {
                missing: missing.join(","),
                usable: f,
            })
        }
    }

    /// The levels a test matrix runs: portable, each extension alone, and all of them
    /// (those this level has, without repeats).
    pub fn levels(self) -> Vec<Features> {
        let alone = [
            Features {
                shani: self.shani,
                ..Features::PORTABLE
            },
            Features {
                avx2: self.avx2,
                ..Features::PORTABLE
            },
            Features {
                avx512: self.avx512,
                ..Features::PORTABLE
            },
        ];
        let mut v = vec![Features::PORTABLE];
        for f in alone.into_iter().chain([self]) {
            if !v.contains(&f) {
                v.push(f);
            }
        }
        v
    }

    /// The names of the enabled features, `portable` if none.
    pub fn names(self) -> String {
        let v: Vec<&str> = [
            (self.shani.is_some(), "shani"),
            (self.avx2.is_some(), "avx2"),
            (self.avx512.is_some(), "avx512"),
        ]
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, n)| *n)
        .collect();
        if v.is_empty() {
            "portable".into()
        } else {
            v.join(",")
        }
    }
}

impl fmt::Display for Features {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.names())
    }
}

/// A `LANESUM_ISA` value that cannot be honoured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IsaError {
    /// A word that names no level.
    Unknown(String),
    /// Extensions this CPU lacks (comma-separated names), and the part of the request
    /// it has.
    Unsupported {
        /// The names of the missing extensions.
        missing: String,
        /// What was asked for, less what is missing.
        usable: Features,
    },
}

impl IsaError {
    /// The level to carry on at: what was asked for and exists, or else the CPU's.
    fn fallback(&self, cpu: Features) -> Features {
        match self {
            IsaError::Unknown(_) => cpu,
            IsaError::Unsupported { usable, .. } => *usable,
        }
    }
}

impl fmt::Display for IsaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IsaError::Unknown(w) => write!(
                f,
                "LANESUM_ISA: unknown level '{w}' (use portable, shani, avx2, avx512 or auto)"
            ),
            IsaError::Unsupported { missing, .. } => {
                write!(f, "LANESUM_ISA: this CPU does not support {missing}")
            }
        }
    }
}

impl std::error::Error for IsaError {}

/// The process's level: detected, or as `LANESUM_ISA` says (or failed to say).
static ACTIVE: OnceLock<(Features, Option<IsaError>)> = OnceLock::new();

thread_local! {
    /// A level forced on this thread by [`with_level`].
    static FORCED: Cell<Option<Features>> = const { Cell::new(None) };
}

/// A bad `LANESUM_ISA` was reported: on standard error by [`active`], or to a program
/// through [`try_active`] (which words it its own way: the command exits 2 after one
/// message, not two).
static REPORTED: AtomicBool = AtomicBool::new(false);

fn process_level() -> &'static (Features, Option<IsaError>) {
    ACTIVE.get_or_init(|| resolve(std::env::var("LANESUM_ISA").ok(), Features::detect()))
}

/// The level a `LANESUM_ISA` value gives on `cpu`, and the error to report if it can't be
/// honoured (then the part of it `cpu` has, or `cpu` itself for an unknown word).
fn resolve(spec: Option<String>, cpu: Features) -> (Features, Option<IsaError>) {
    match spec.map(|s| Features::parse(&s, cpu)) {
        None => (cpu, None),
        Some(Ok(f)) => (f, None),
        Some(Err(e)) => (e.fallback(cpu), Some(e)),
    }
}

/// The level in force for this process: detected, or as `LANESUM_ISA` says; the error
/// if `LANESUM_ISA` names an unknown level or one this CPU lacks.
///
/// Programs call this once at start-up to refuse a bad override cleanly.
pub fn try_active() -> Result<Features, IsaError> {
    match process_level() {
        (_, Some(e)) => {
            REPORTED.store(true, Ordering::Relaxed);
            Err(e.clone())
        }
        (f, None) => Ok(*f),
    }
}

/// The level new kernels are built for on this thread: a level forced by
/// [`with_level`], else the process's ([`try_active`]). A bad `LANESUM_ISA` is reported
/// once on standard error and the part of it this CPU supports is used (the CPU's own
/// level for an unknown word): never a panic.
pub fn active() -> Features {
    FORCED.get().unwrap_or_else(|| {
        let (level, error) = process_level();
        if let Some(e) = error {
            // Read first: the swap, a write, would bounce the line between every core's
            // hashers for as long as the bad value stands.
            if !REPORTED.load(Ordering::Relaxed) && !REPORTED.swap(true, Ordering::Relaxed) {
                eprintln!("lanesum: {e}; using {level}");
            }
        }
        *level
    })
}

/// Runs `f` with `level` as [`active`] on this thread: every hasher, batch and engine it
/// makes (and everything they hash, on any thread) uses that level's kernels. How tests
/// run every kernel path in one process:
///
/// ```
/// use lanesum::{hash, isa, Algorithm};
/// let want = hash(Algorithm::Sha256, b"abc");
/// for level in isa::Features::detect().levels() {
///     assert_eq!(isa::with_level(level, || hash(Algorithm::Sha256, b"abc")), want);
/// }
/// ```
pub fn with_level<R>(level: Features, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Features>);
    impl Drop for Restore {
        fn drop(&mut self) {
            FORCED.set(self.0);
        }
    }
    let _restore = Restore(FORCED.replace(Some(level)));
    f()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_levels() {
        let cpu = Features::detect();
        assert_eq!(Features::parse("portable", cpu), Ok(Features::PORTABLE));
        assert_eq!(Features::parse("auto", cpu), Ok(cpu));
        assert_eq!(Features::parse("", cpu), Ok(cpu));
        match Features::parse("avx2,shani", cpu) {
            Ok(f) => {
                assert_eq!((f.avx2, f.shani, f.avx512), (cpu.avx2, cpu.shani, None));
            }
            Err(IsaError::Unsupported { usable, .. }) => {
                assert!(cpu.avx2.is_none() || cpu.shani.is_none());
                assert_eq!(usable.avx512, None);
            }
            Err(e) => panic!("{e}"),
        }
        assert!(matches!(
            Features::parse("avx512", Features::PORTABLE),
            Err(IsaError::Unsupported { usable, .. }) if usable == Features::PORTABLE
        ));
        assert!(matches!(
            Features::parse("sse9", cpu),
            Err(IsaError::Unknown(_))
        ));
    }

    /// A bad `LANESUM_ISA` is an error to report and a level to go on with, never a panic.
    #[test]
    fn bad_overrides_fall_back() {
        let cpu = Features::detect();
        assert_eq!(resolve(None, cpu), (cpu, None));
        let (f, e) = resolve(Some("sse9".into()), cpu);
        assert_eq!(f, cpu);
        assert!(matches!(e, Some(IsaError::Unknown(w)) if w == "sse9"));
        // Asking for every level: what this CPU has of it, and an error only if it lacks one.
        let (f, e) = resolve(Some("portable,shani,avx2,avx512".into()), cpu);
        assert_eq!(f, cpu);
        assert_eq!(
            e.is_none(),
            cpu.shani.is_some() && cpu.avx2.is_some() && cpu.avx512.is_some()
        );
        let none = resolve(Some("avx512".into()), Features::PORTABLE);
        assert_eq!(none.0, Features::PORTABLE);
        assert!(matches!(none.1, Some(IsaError::Unsupported { .. })));
    }

    #[test]
    fn levels_are_subsets_without_repeats() {
        let cpu = Features::detect();
        let levels = cpu.levels();
        assert_eq!(levels[0], Features::PORTABLE);
        assert_eq!(*levels.last().unwrap(), cpu);
        for (i, l) in levels.iter().enumerate() {
            assert!(!levels[..i].contains(l));
            assert!(l.shani.is_none() || cpu.shani.is_some());
            assert!(l.avx2.is_none() || cpu.avx2.is_some());
            assert!(l.avx512.is_none() || cpu.avx512.is_some());
            assert_eq!(Features::parse(&l.names(), cpu), Ok(*l));
        }
        assert_eq!(Features::PORTABLE.levels(), [Features::PORTABLE]);
    }

    #[test]
    fn with_level_is_scoped_to_this_thread() {
        let before = active();
        let got = with_level(Features::PORTABLE, || {
            let other = std::thread::spawn(active).join().unwrap();
            (active(), other)
        });
        assert_eq!(got, (Features::PORTABLE, process_level().0));
        assert_eq!(active(), before);
    }
}
