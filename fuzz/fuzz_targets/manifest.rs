//! Check files (`lanesum -c`, `md5sum -c`, `b2sum -c`, `cksum -c`): arbitrary bytes
//! through the line parser of every dialect, line by line as the command reads them.
//! Never a panic; every entry is well formed (a valid algorithm, a digest of its length,
//! a name without NUL, hashing it works); an entry written back as the command writes
//! lines (tagged, untagged text and binary) parses to the same entry.
#![no_main]

use lanesum::{hash, Algorithm, Digest};
use lanesum_files::manifest::syntax::is_base64_of;
use lanesum_files::manifest::{line_body, parse_line, Dialect, Entry, MAX_XOF_BYTES};
use lanesum_fuzz::{pick_algorithm, Reader};
use libfuzzer_sys::fuzz_target;

// cksum's dialect lives in the command (a binary crate): its two modules, as they are.
#[allow(dead_code)]
#[path = "../../crates/lanesum-cli/src/check/cksum.rs"]
mod cksum;
#[allow(dead_code)]
#[path = "../../crates/lanesum-cli/src/cksum_names.rs"]
mod cksum_names;

use cksum_names::CkAlg;

/// `\`, LF and CR escaped, as the command writes names (output.rs `push_escaped`).
fn push_name(out: &mut Vec<u8>, name: &[u8], escape: bool) {
    for &b in name {
        match b {
            b'\\' if escape => out.extend_from_slice(b"\\\\"),
            b'\n' if escape => out.extend_from_slice(b"\\n"),
            b'\r' if escape => out.extend_from_slice(b"\\r"),
            _ => out.push(b),
        }
    }
}

/// The line the command writes for `e` (output.rs `push_line`), without its LF.
fn format(e: &Entry, tagged: bool, binary: bool) -> Vec<u8> {
    let escape = e.name.iter().any(|&b| matches!(b, b'\\' | b'\n' | b'\r'));
    let mut out = Vec::new();
    if escape {
        out.push(b'\\');
    }
    if tagged {
        out.extend_from_slice(e.alg.tag().as_bytes());
        out.extend_from_slice(b" (");
        push_name(&mut out, &e.name, escape);
        out.extend_from_slice(b") = ");
        out.extend_from_slice(&e.hex);
    } else {
        out.extend_from_slice(&e.hex);
        out.extend_from_slice(if binary { b" *" } else { b"  " });
        push_name(&mut out, &e.name, escape);
    }
    out
}

/// What every parsed entry must be, whatever the dialect.
fn well_formed(e: &Entry, line: &[u8]) {
    let ctx = || format!("line {:?} -> {e:?}", String::from_utf8_lossy(line));
    assert!(e.alg.is_valid(), "invalid algorithm: {}", ctx());
    let n = e.alg.digest_len();
    if e.base64 {
        assert!(is_base64_of(&e.hex, n), "bad base64 digest: {}", ctx());
    } else {
        assert_eq!(e.hex.len(), n * 2, "digest length: {}", ctx());
        let d = Digest::from_hex(std::str::from_utf8(&e.hex).unwrap())
            .unwrap_or_else(|| panic!("not hex: {}", ctx()));
        assert!(
            e.matches(&d),
            "entry does not match its own digest: {}",
            ctx()
        );
    }
    assert!(!e.name.contains(&0), "NUL in name: {}", ctx());
    if n <= MAX_XOF_BYTES {
        let d = hash(e.alg, b"");
        assert_eq!(d.len(), n);
        let _ = e.matches(&d);
    }
}

/// The fixed-length algorithms an untagged line of the `lanesum` dialect (no `-a`)
/// gets from its length alone.
fn by_length(a: Algorithm) -> bool {
    matches!(
        a,
        Algorithm::Md5
            | Algorithm::Sha1
            | Algorithm::Sha224
            | Algorithm::Sha256
            | Algorithm::Sha384
            | Algorithm::Sha512
    )
}

fn round_trip(e: &Entry, d: &Dialect, line: &[u8]) {
    let ctx = |f: &[u8]| {
        format!(
            "{d:?}: line {:?} -> {e:?}, written back as {:?}",
            String::from_utf8_lossy(line),
            String::from_utf8_lossy(f)
        )
    };
    let tagged = format(e, true, false);
    let back = parse_line(&tagged, d, &mut None);
    assert_eq!(back.as_ref(), Some(e), "tagged: {}", ctx(&tagged));
    // Untagged lines carry hex only; an empty name reads as the "BSD reversed" form.
    if e.base64 || e.name.is_empty() {
        return;
    }
    for binary in [false, true] {
        let untagged = format(e, false, binary);
        let back = parse_line(&untagged, d, &mut None);
        let must = match d {
            Dialect::Fixed(_) | Dialect::Blake2b => true,
            Dialect::Multi(None) => by_length(e.alg),
            Dialect::Multi(Some(list)) => list.first() == Some(&e.alg),
        };
        match back {
            Some(b) => {
                assert_eq!(
                    (&b.hex, &b.name, b.base64),
                    (&e.hex, &e.name, false),
                    "untagged: {}",
                    ctx(&untagged)
                );
                if must {
                    assert_eq!(b.alg, e.alg, "untagged: {}", ctx(&untagged));
                }
            }
            None => assert!(!must, "untagged refused: {}", ctx(&untagged)),
        }
    }
}

enum Any {
    Lines(Dialect),
    Cksum(cksum::State),
}

fuzz_target!(|bytes: &[u8]| {
    let mut r = Reader::new(bytes);
    let (k, a, b) = (r.u8(), r.u8(), r.u8());
    let dialect = match k % 5 {
        0 => Any::Lines(Dialect::Fixed(pick_algorithm(a, b))),
        1 => Any::Lines(Dialect::Blake2b),
        2 => Any::Lines(Dialect::Multi(None)),
        3 => {
            let list = (0..1 + b % 3)
                .map(|i| pick_algorithm(a.wrapping_add(i * 11), b.wrapping_mul(i + 1)))
                .collect();
            Any::Lines(Dialect::Multi(Some(list)))
        }
        _ => {
            let names: Vec<&str> = CkAlg::gnu_names().collect();
            let alg = if (a as usize) < names.len() {
                CkAlg::from_arg(names[a as usize])
            } else {
                CkAlg::from_arg(&pick_algorithm(a, b).to_string())
            };
            let Some(alg) = alg else { return };
            Any::Cksum(cksum::State::new(alg, k & 0x80 != 0))
        }
    };
    let file = r.rest();
    let mut bsd_reversed = None;
    for raw in file.split_inclusive(|&c| c == b'\n') {
        let Some(line) = line_body(raw) else { continue };
        match &dialect {
            Any::Lines(d) => {
                if let Some(e) = parse_line(line, d, &mut bsd_reversed) {
                    well_formed(&e, line);
                    round_trip(&e, d, line);
                }
            }
            Any::Cksum(st) => {
                if let Some(e) = cksum::parse_line(line, st, &mut bsd_reversed) {
                    well_formed(&e, line);
                }
            }
        }
    }
});
