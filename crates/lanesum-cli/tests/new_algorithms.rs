//! End-to-end tests of the checksums, SHA-3, SHAKE and SM3 in the command: `-a` names,
//! `-l`, tagged and untagged lines, `--check`, `--json`, and trees (small files in lanes,
//! big ones side by side).

mod common;

use std::fs;

use common::{ok, pattern, run};
use lanesum::{hash, Algorithm};

const ALL_NEW: &str = "crc32,crc32c,crc64nvme,crc,bsd,sysv,xxh64,xxh3,xxh128,\
                       sha3-224,sha3-256,sha3-384,sha3-512,shake128,shake256,sm3";

#[test]
fn names_tags_check_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(d.join("check"), b"123456789").unwrap();
    fs::write(d.join("p"), pattern(100_000)).unwrap();
    fs::write(d.join("empty"), b"").unwrap();
    // The CRC catalogue's check values; POSIX cksum, `sum -r` and `sum -s` of the same.
    for (alg, want) in [
        ("crc32", "cbf43926"),
        ("crc32b", "cbf43926"),
        ("crc32c", "e3069283"),
        ("crc64nvme", "ae8b14860a799888"),
        ("crc", "377a6011"),
        ("bsd", "d16f"),
        ("sysv", "01dd"),
    ] {
        assert_eq!(
            ok(d, &["-a", alg, "check"]),
            format!("{want}  check\n"),
            "{alg}"
        );
    }
    let tagged = ok(d, &["-a", ALL_NEW, "check", "p", "empty"]);
    for (line, tag) in tagged.lines().zip([
        "CRC32B (check) = cbf43926",
        "CRC32C (check) = e3069283",
        "CRC64NVME (check) = ae8b14860a799888",
        "CRC (check) = 377a6011",
        "BSD (check) = d16f",
        "SYSV (check) = 01dd",
        "XXH64 (check) = ",
        "XXH3 (check) = ",
        "XXH128 (check) = ",
        "SHA3-224 (check) = ",
        "SHA3-256 (check) = ",
        "SHA3-384 (check) = ",
        "SHA3-512 (check) = ",
        "SHAKE128 (check) = ",
        "SHAKE256 (check) = ",
        "SM3 (check) = ",
    ]) {
        assert!(line.starts_with(tag), "{line} vs {tag}");
    }
    assert_eq!(tagged.lines().count(), 16 * 3);
    fs::write(d.join("SUMS"), &tagged).unwrap();
    let checked = ok(d, &["-c", "SUMS"]);
    assert_eq!(checked.lines().filter(|l| l.ends_with(": OK")).count(), 48);
    // A corrupted line fails.
    let bad = tagged.replacen("= cbf43926", "= cbf43927", 1);
    fs::write(d.join("BAD"), bad).unwrap();
    assert!(!run(d, &["-c", "BAD"]).status.success());
    // Lengths: SHA-3 by -l, SHAKE any whole byte count; tags say the length.
    assert_eq!(
        ok(d, &["-a", "sha3", "-l", "384", "p"]),
        format!(
            "{}  p\n",
            hash(Algorithm::Sha3_384, &pattern(100_000)).to_hex()
        )
    );
    let shake = ok(d, &["-a", "shake256", "-l", "1024", "--tag", "p"]);
    assert_eq!(
        shake,
        format!(
            "SHAKE256-1024 (p) = {}\n",
            hash(Algorithm::Shake256(128), &pattern(100_000)).to_hex()
        )
    );
    fs::write(d.join("SHAKE"), &shake).unwrap();
    assert_eq!(ok(d, &["-c", "SHAKE"]), "p: OK\n");
    let untagged = ok(d, &["-a", "shake128", "-l", "200", "p"]);
    fs::write(d.join("UNTAGGED"), &untagged).unwrap();
    assert_eq!(ok(d, &["-a", "shake128", "-c", "UNTAGGED"]), "p: OK\n");
    assert!(!run(d, &["-a", "sha3", "-l", "160", "p"]).status.success());
    // JSON: one key per algorithm, by its name.
    let json = ok(d, &["--json", "-a", "crc64nvme,sha3-256,xxh128", "check"]);
    let v: serde_json::Value = serde_json::from_str(json.trim()).unwrap();
    assert_eq!(v["crc64nvme"], "ae8b14860a799888");
    assert_eq!(
        v["sha3-256"],
        hash(Algorithm::Sha3_256, b"123456789").to_hex()
    );
    assert_eq!(v["xxh128"], hash(Algorithm::Xxh128, b"123456789").to_hex());
}

/// A tree of small files (hashed in lanes, many at once) and big ones (side by side in a
/// `StreamBatch`): every digest as the library's one-message `hash`.
#[test]
fn trees_match_one_message_hashes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::create_dir(d.join("t")).unwrap();
    let mut files = Vec::new();
    for i in 0..40usize {
        let len = match i % 4 {
            0 => i * 37,
            1 => 135 + i,
            2 => 4096 * i,
            _ => (1 << 20) + 1000 * i,
        };
        let name = format!("f{i:02}");
        fs::write(d.join("t").join(&name), pattern(len)).unwrap();
        files.push((name, len));
    }
    for alg in ["sha3-256", "shake128", "sha3-512", "crc32c", "xxh3", "sm3"] {
        let a: Algorithm = alg.parse().unwrap();
        let out = ok(d, &["-r", "-a", alg, "t"]);
        let want: String = files
            .iter()
            .map(|(name, len)| format!("{}  t/{name}\n", hash(a, &pattern(*len)).to_hex()))
            .collect();
        assert_eq!(out, want, "{alg}");
    }
}
