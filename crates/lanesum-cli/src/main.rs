//! `lanesum`: a drop-in md5sum/sha*sum/b2sum/b3sum. See `cli` for personalities and
//! the modules it dispatches to for the formats.

mod b3sum;
mod check;
mod cli;
mod hashing;
mod json;
mod output;
mod quote;
mod report;
mod speed;

use std::ffi::OsString;

use cli::Personality;

fn main() {
    let mut args = std::env::args_os();
    let arg0 = args.next().unwrap_or_else(|| OsString::from("lanesum"));
    let rest: Vec<OsString> = args.collect();
    let personality = Personality::from_argv0(&arg0);
    if let Err(e) = lanesum::isa::try_active() {
        eprintln!("lanesum: {e}");
        std::process::exit(2);
    }
    if personality == Personality::Lanesum && rest.first().is_some_and(|a| a == "speed") {
        std::process::exit(speed::run(rest[1..].to_vec()));
    }
    let prog = cli::program_name(personality, &arg0);
    std::process::exit(cli::run(personality, &prog, rest));
}
