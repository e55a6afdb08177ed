//! The progress bar: files and bytes done, rate, ETA, on stderr only.
//!
//! Shown when stderr is a terminal and the run has lasted over a second (`--progress`
//! shows it from the start and wherever stderr goes, `--no-progress` never). The total
//! number of files is known only once the walk has finished; until then the bar counts
//! up. Diagnostics and terminal output go through [`suspend`] so they never mix with it.

use std::io::IsTerminal;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use indicatif::{HumanBytes, ProgressBar, ProgressDrawTarget, ProgressStyle};

use lanesum_files::Found;

/// The bar on screen, if any: [`suspend`] needs it from anywhere.
static BAR: Mutex<Option<ProgressBar>> = Mutex::new(None);

/// Runs without a bar for this long: short runs print nothing extra.
const DELAY: Duration = Duration::from_secs(1);

pub struct Progress {
    enabled: bool,
    forced: bool,
    start: Instant,
    found: Arc<Found>,
    files: u64,
    bytes: u64,
    bar: Option<ProgressBar>,
    length_known: bool,
}

impl Progress {
    /// `force`: `--progress` (Some(true)) or `--no-progress` (Some(false)).
    pub fn new(force: Option<bool>, found: Arc<Found>) -> Progress {
        Progress {
            enabled: force.unwrap_or_else(|| std::io::stderr().is_terminal()),
            forced: force == Some(true),
            start: Instant::now(),
            found,
            files: 0,
            bytes: 0,
            bar: None,
            length_known: false,
        }
    }

    /// One more input done (hashed or failed), of `bytes` bytes.
    pub fn step(&mut self, bytes: u64) {
        self.files += 1;
        self.bytes += bytes;
        if !self.enabled {
            return;
        }
        if self.bar.is_none() {
            if !self.forced && self.start.elapsed() < DELAY {
                return;
            }
            self.show();
        }
        let Some(bar) = &self.bar else { return };
        if !self.length_known && self.found.complete() {
            self.length_known = true;
            bar.set_length(self.found.jobs());
            bar.set_style(style(
                "{pos}/{len} files, {msg}, ETA {eta} [{wide_bar}] {percent}%",
            ));
        }
        let secs = self.start.elapsed().as_secs_f64().max(1e-3);
        bar.set_message(format!(
            "{} ({}/s)",
            HumanBytes(self.bytes),
            HumanBytes((self.bytes as f64 / secs) as u64)
        ));
        bar.set_position(self.files);
    }

    fn show(&mut self) {
        // A terminal gets indicatif's own handling; a forced bar elsewhere is still drawn.
        let target = if std::io::stderr().is_terminal() {
            ProgressDrawTarget::stderr_with_hz(10)
        } else {
            ProgressDrawTarget::term_like_with_hz(Box::new(console::Term::stderr()), 10)
        };
        let bar = ProgressBar::with_draw_target(None, target);
        bar.set_style(style("{pos} files, {msg}, still finding files {spinner}"));
        bar.set_message(format!("{}", HumanBytes(self.bytes)));
        *BAR.lock().unwrap_or_else(|e| e.into_inner()) = Some(bar.clone());
        self.bar = Some(bar);
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
            *BAR.lock().unwrap_or_else(|e| e.into_inner()) = None;
        }
    }
}

fn style(template: &str) -> ProgressStyle {
    ProgressStyle::with_template(template)
        .expect("valid template")
        .progress_chars("=> ")
}

/// Run `f` (which writes to the terminal) with the bar taken off the screen.
pub fn suspend<R>(f: impl FnOnce() -> R) -> R {
    let bar = BAR.lock().unwrap_or_else(|e| e.into_inner()).clone();
    match bar {
        Some(b) => b.suspend(f),
        None => f(),
    }
}
