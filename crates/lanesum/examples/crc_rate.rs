//! `lanesum -a crc32c,crc64nvme FILE` against crc-fast's own rate on the same bytes, in
//! one process, alternating: the read path must not cap a CRC.
//!
//! ```sh
//! cargo build --release -p lanesum-cli
//! cargo run --release -p lanesum --example crc_rate -- target/release/lanesum FILE
//! ```
//!
//! crc-fast's rates: both CRCs of the file's bytes already in memory, one after the
//! other on one core (no I/O at all), and its own `checksum_file` of each (reading the
//! file twice); lanesum's is the whole command (start, open, read or map from the page
//! cache, both CRCs, print), wall time.

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
    let (mut best_crate, mut best_file, mut best_cmd) = (f64::MAX, f64::MAX, f64::MAX);
    for round in 0..5 {
        let t = Instant::now();
        let a = crc_fast::checksum(CrcAlgorithm::Crc32Iscsi, &data);
        let b = crc_fast::checksum(CrcAlgorithm::Crc64Nvme, &data);
        let crate_s = t.elapsed().as_secs_f64();
        std::hint::black_box((a, b));
        let t = Instant::now();
        let fa = crc_fast::checksum_file(CrcAlgorithm::Crc32Iscsi, file, None).unwrap();
        let fb = crc_fast::checksum_file(CrcAlgorithm::Crc64Nvme, file, None).unwrap();
        let file_s = t.elapsed().as_secs_f64();
        assert_eq!((fa, fb), (a, b));
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
            "round {round}: crc-fast in memory {:.2} GB/s, crc-fast checksum_file {:.2} GB/s, \
             lanesum {:.2} GB/s",
            gb / crate_s,
            gb / file_s,
            gb / cmd_s
        );
        best_crate = best_crate.min(crate_s);
        best_file = best_file.min(file_s);
        best_cmd = best_cmd.min(cmd_s);
    }
    println!(
        "best: crc-fast in memory {:.2} GB/s, checksum_file {:.2} GB/s, lanesum {:.2} GB/s; \
         lanesum / in memory {:.2}, lanesum / checksum_file {:.2}",
        gb / best_crate,
        gb / best_file,
        gb / best_cmd,
        best_crate / best_cmd,
        best_file / best_cmd
    );
}
