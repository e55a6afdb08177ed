//! Untrusted names: `Algorithm::from_str` (`-a`, the bindings), `Algorithm::from_tag`
//! (check lines), `isa::Features::parse` (`LANESUM_ISA`) and `Digest::from_hex` never
//! panic; every name read is valid and survives `Display`/`tag()` and back.
#![no_main]

use lanesum::{isa, Algorithm, Digest};
use libfuzzer_sys::fuzz_target;

fn round_trips(a: Algorithm, from: &str) {
    assert!(a.is_valid(), "{from:?} -> {a:?}");
    assert_eq!(
        a.to_string().parse::<Algorithm>(),
        Ok(a),
        "{from:?} -> {a:?} -> {a}"
    );
    assert_eq!(Algorithm::from_tag(&a.tag()), Some(a), "{from:?} -> {a:?}");
    assert_eq!(
        a.with_bits(a.digest_len() * 8),
        Some(a),
        "{from:?} -> {a:?}"
    );
    let fam = a.family_default();
    assert!(fam.is_valid());
    if a.digest_len() <= 1 << 16 {
        assert_eq!(lanesum::hash(a, b"abc").len(), a.digest_len());
    }
}

fuzz_target!(|bytes: &[u8]| {
    let s = String::from_utf8_lossy(bytes);
    if let Ok(a) = s.parse::<Algorithm>() {
        round_trips(a, &s);
    }
    if let Some(a) = Algorithm::from_tag(&s) {
        round_trips(a, &s);
    }
    let _ = isa::Features::parse(&s, isa::Features::detect());
    if let Some(d) = Digest::from_hex(&s) {
        assert_eq!(d.to_hex(), s.to_ascii_lowercase());
    }
    if bytes.len() >= 2 {
        let bits = u16::from_le_bytes([bytes[0], bytes[1]]) as usize;
        for a in Algorithm::ALL.iter().chain(Algorithm::MODES) {
            if let Some(b) = a.with_bits(bits) {
                assert!(b.is_valid(), "{a:?}.with_bits({bits}) = {b:?}");
                // SHA-3's lengths are four algorithms, not one family's.
                if !a.to_string().starts_with("sha3") {
                    assert_eq!(b.family_default(), a.family_default());
                }
            }
        }
    }
});
