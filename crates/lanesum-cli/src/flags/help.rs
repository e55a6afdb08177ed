//! `--help` and `--version` of the coreutils-style tools (our own wording, not coreutils').

use super::table::OptSpec;
use crate::personality::Personality;

/// The left column of an option's help line.
fn left_column(o: &OptSpec) -> String {
    match (o.short, o.takes_arg()) {
        (Some(c), true) => format!("-{}, --{}=ARG", c as char, o.long),
        (Some(c), false) => format!("-{}, --{}", c as char, o.long),
        (None, _) => format!("    --{}", o.long),
    }
}

/// `--help` of personality `p`, run as `prog`, with options `specs`.
pub fn help_text(p: &Personality, prog: &str, specs: &[&OptSpec]) -> String {
    let mut s = format!("Usage: {prog} [OPTION]... [FILE]...\n");
    s.push_str(p.summary);
    s.push_str("\nWith no FILE, or when FILE is -, read standard input.\n\n");
    for o in specs {
        s.push_str(&format!("  {:<22}{}\n", left_column(o), o.help));
    }
    s.push_str(p.epilogue);
    s
}

/// `--version` of personality `p`.
pub fn version_text(p: &Personality) -> String {
    format!(
        "{} (lanesum) {}\nA drop-in replacement for the coreutils checksum tools.\n",
        p.name,
        env!("CARGO_PKG_VERSION")
    )
}
