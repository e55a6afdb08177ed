//! `lanesum -a crc32c,crc64nvme FILE` against crc-fast's own rate on the same bytes, in
//! one process, alternating: the read path must not cap a CRC.
//!
//! ```sh
//! cargo build --release -p lanesum-cli
//! cargo run --release -p lanesum --example crc_rate -- target/release/lanesum FILE
//! ```
//!
//! crc-fast's rate is both CRCs of the file's bytes already in memory, one after the
//! other on one core (what the crate does for a caller holding the data); lanesum's is
//! the whole command (open, read from the page cache, both CRCs, print), wall time.

use std::process::Command;
use std::time::Instant;

use crc_fast::CrcAlgorithm;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, bin, file] = &args[..] else {
        eprintln!("usage: crc_rate LANESUM_BINARY FILE");
        std::process::exit(2);
    };
    let data = std::fs::read(file).expect("read the file");
    let gb = data.len() as f64 / 1e9;
    let (mut best_crate, mut best_cmd) = (f64::MAX, f64::MAX);
    for round in 0..5 {
        let t = Instant::now();
        let a = crc_fast::checksum(CrcAlgorithm::Crc32Iscsi, &data);
        let b = crc_fast::checksum(CrcAlgorithm::Crc64Nvme, &data);
        let crate_s = t.elapsed().as_secs_f64();
        std::hint::black_box((a, b));
        let t = Instant::now();
        let out = Command::new(bin)
            .args(["-a", "crc32c,crc64nvme", file])
            .output()
            .expect("run lanesum");
        let cmd_s = t.elapsed().as_secs_f64();
        assert!(out.status.success());
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains(&format!("{:08x}", a)),
            "crc32c differs: {text}"
        );
        assert!(
            text.contains(&format!("{:016x}", b)),
            "crc64nvme differs: {text}"
        );
        println!(
            "round {round}: crc-fast {:.2} GB/s, lanesum {:.2} GB/s",
            gb / crate_s,
            gb / cmd_s
        );
        best_crate = best_crate.min(crate_s);
        best_cmd = best_cmd.min(cmd_s);
    }
    println!(
        "best: crc-fast {:.2} GB/s, lanesum {:.2} GB/s, ratio {:.2}",
        gb / best_crate,
        gb / best_cmd,
        best_crate / best_cmd
    );
}
