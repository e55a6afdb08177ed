//! `--help` and `--version` of the coreutils-style tools (our own wording, not coreutils').

use super::table::OptSpec;
use crate::personality::Personality;

/// The left column of an option's help line: `-a, --algorithm=ALGO`, `    --exclude=GLOB`.
fn left_column(o: &OptSpec) -> String {
    let short = match o.short {
        Some(c) => format!("-{}, ", c as char),
        None => "    ".to_string(),
    };
    let arg = match o.arg {
        Some(a) if o.optional => format!("[={a}]"),
        Some(a) => format!("={a}"),
        None => String::new(),
    };
    if !o.has_long {
        return format!("-{}", o.short.map_or('?', char::from));
    }
    format!("{short}--{}{arg}", o.long)
}

/// `--help` of personality `p`, run as `prog`, with options `specs`. Descriptions start
/// in one column, two spaces after the widest option (column 24 for the coreutils tools).
pub fn help_text(p: &Personality, prog: &str, specs: &[&OptSpec]) -> String {
    let mut s = format!("Usage: {prog} [OPTION]... [FILE]...\n");
    s.push_str(p.summary);
    s.push_str("\nWith no FILE, or when FILE is -, read standard input.\n\n");
    let lefts: Vec<String> = specs.iter().map(|o| left_column(o)).collect();
    let width = lefts.iter().map(String::len).max().unwrap_or(0) + 2;
    for (left, o) in lefts.iter().zip(specs) {
        s.push_str(&format!("  {left:<width$}{}\n", o.help));
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

#[cfg(test)]
mod tests {
    use super::super::table::specs;
    use super::*;
    use crate::personality::PERSONALITIES;

    /// Every option's argument is named, and every description starts in one column.
    #[test]
    fn arguments_named_and_columns_aligned() {
        for p in PERSONALITIES.iter().filter(|p| !p.groups.is_empty()) {
            let specs = specs(p);
            let text = help_text(p, p.name, &specs);
            assert!(!text.contains("=ARG"), "{text}");
            let starts: Vec<usize> = specs
                .iter()
                .map(|o| {
                    let line = text
                        .lines()
                        .find(|l| {
                            l.contains(&format!("--{} ", o.long))
                                || l.contains(&format!("--{}=", o.long))
                                || l.contains(&format!("--{}[=", o.long))
                                || l.contains(&format!("  {}  ", left_column(o)))
                        })
                        .expect("a line per option");
                    assert!(line.ends_with(o.help), "{line}");
                    line.len() - o.help.len()
                })
                .collect();
            assert!(
                starts.windows(2).all(|w| w[0] == w[1]),
                "{}: {starts:?}",
                p.name
            );
        }
        let lanesum = help_text(&PERSONALITIES[0], "lanesum", &specs(&PERSONALITIES[0]));
        for want in [
            "-a, --algorithm=ALGO ",
            "-l, --length=BITS ",
            "    --exclude=GLOB ",
            "    --etag=SIZE ",
            "    --blocks=SIZE ",
            "    --torrent-pieces=SIZE ",
            "    --files-from=FILE ",
        ] {
            assert!(lanesum.contains(want), "{want}");
        }
        // The coreutils tools' column is where it was.
        let md5sum = help_text(&PERSONALITIES[1], "md5sum", &specs(&PERSONALITIES[1]));
        assert!(md5sum.contains(&format!("\n  {:<22}read checksums", "-c, --check")));
    }
}
