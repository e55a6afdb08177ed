mod speed;

fn main() {
    let mut args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    if args.first().is_some_and(|a| a == "speed") {
        args.remove(0);
        std::process::exit(speed::run(args));
    }
    eprintln!("lanesum: not yet implemented");
    std::process::exit(1);
}
