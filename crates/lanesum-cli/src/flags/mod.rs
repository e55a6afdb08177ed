//! Command-line parsing: arguments in, validated plain data ([`crate::options`]) out.
//!
//! The coreutils-style tools (and lanesum) parse like getopt: a first pass over the
//! arguments (`getopt::scan`) reports errors with glibc's exact wording, left to right,
//! and acts on `--help`/`--version` where getopt would; clap then extracts the values
//! (`coreutils`), whose combinations are checked in coreutils' order. Their options are
//! defined once, in `table`, in groups that each personality has or lacks. b3sum
//! (`b3sum`) and `lanesum speed` (`speed`) are clap commands of their own.
//!
//! Nothing outside this module sees the parser: `main` asks for the options of the
//! personality it found and dispatches on them.

mod b3sum;
mod cksum;
mod coreutils;
mod env;
mod getopt;
mod given;
mod help;
mod speed;
mod table;
mod values;

pub use b3sum::parse as parse_b3sum;
pub use coreutils::parse as parse_coreutils;
pub use speed::parse as parse_speed;
