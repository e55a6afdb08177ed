//! `--json`: one JSON object per input, for scripts.
//!
//! `{"path": "a.txt", "size": 6, "md5": "…", "sha256": "…"}` — keys in this order, one
//! key per algorithm under its canonical name (`lanesum -a` spelling, e.g. `blake2b-256`).
//! JSON strings must be Unicode, so a path that is not valid UTF-8 is given lossily in
//! `path` (U+FFFD for bad bytes) and exactly, as lowercase hex of its bytes, in an extra
//! `path_bytes` key that appears only then. Records end with LF (NUL with `-z`). Errors
//! go to stderr as in the text modes and produce no record.

use lanesum::Algorithm;
use lanesum_files::Hashed;
use serde_json::{Map, Value};

/// The record for one successfully hashed input, whose digests are under `algs`.
pub fn record(algs: &[Algorithm], name: &[u8], h: &Hashed) -> Value {
    let mut m = Map::new();
    m.insert(
        "path".into(),
        Value::String(String::from_utf8_lossy(name).into_owned()),
    );
    if std::str::from_utf8(name).is_err() {
        m.insert("path_bytes".into(), Value::String(lanesum::hex_lower(name)));
    }
    m.insert("size".into(), Value::from(h.size));
    for (alg, d) in algs.iter().zip(&h.digests) {
        m.insert(alg.to_string(), Value::String(d.to_hex()));
    }
    Value::Object(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_utf8_paths_keep_their_bytes() {
        let algs = [Algorithm::Md5, Algorithm::Blake2b(32)];
        let h = Hashed {
            size: 3,
            digests: vec![
                lanesum::hash(Algorithm::Md5, b"abc"),
                lanesum::hash(Algorithm::Blake2b(32), b"abc"),
            ],
        };
        let v = record(&algs, b"x\xffy", &h);
        assert_eq!(
            v.to_string(),
            format!(
                "{{\"path\":\"x\u{fffd}y\",\"path_bytes\":\"78ff79\",\"size\":3,\"md5\":\"{}\",\"blake2b-256\":\"{}\"}}",
                h.digests[0].to_hex(),
                h.digests[1].to_hex()
            )
        );
        assert!(record(&algs, b"ok", &h).get("path_bytes").is_none());
    }
}
