//! The line grammar of every dialect: tags, untagged lines, escapes, garbage.

use super::*;

const H: &str = "b1946ac92492d2347c6235b4d2611184";

fn p(line: &str, d: &Dialect) -> Option<Entry> {
    parse_line(line.as_bytes(), d, &mut None)
}

#[test]
fn md5sum_lines() {
    let d = Dialect::Fixed(Algorithm::Md5);
    for ok in [
        format!("{H}  a"),
        format!("  \t{H} *a"),
        format!("MD5 (a) = {H}"),
        format!("MD5(a)= {H}"),
        format!("MD5 (a)  = \t{H}"),
        format!("{}  a", H.to_uppercase()),
        format!("{H}\t a"),
    ] {
        let e = p(&ok, &d).unwrap_or_else(|| panic!("{ok}"));
        assert_eq!(e.name, b"a", "{ok}");
    }
    for bad in [
        format!("SHA1 (a) = {H}"),
        format!("MD5  (a) = {H}"),
        format!("MD5 (a) = {H} "),
        format!("{H}x  a"),
        format!("{}  a", &H[1..]),
        H.to_string(),
        format!("\\{H}  b\\qc"),
        " # comment".to_string(),
        "   ".to_string(),
    ] {
        assert_eq!(p(&bad, &d), None, "{bad}");
    }
    let e = p(&format!("\\{H}  n\\nx\\\\y\\rz"), &d).unwrap();
    assert_eq!(e.name, b"n\nx\\y\rz");
    let e = p(&format!("\\MD5 (b\\\\c) = {H}"), &d).unwrap();
    assert_eq!(e.name, b"b\\c");
}

#[test]
fn bsd_reversed_cannot_mix() {
    let d = Dialect::Fixed(Algorithm::Md5);
    let mut st = None;
    assert!(parse_line(format!("{H} a").as_bytes(), &d, &mut st).is_some());
    assert_eq!(st, Some(true));
    let e = parse_line(format!("{H}  a").as_bytes(), &d, &mut st).unwrap();
    assert_eq!(e.name, b" a");
    let mut st = None;
    assert!(parse_line(format!("{H}  a").as_bytes(), &d, &mut st).is_some());
    assert!(parse_line(format!("{H} a").as_bytes(), &d, &mut st).is_none());
}

#[test]
fn b2sum_tags_follow_9_1() {
    let d = Dialect::Blake2b;
    let e = p("BLAKE2b-0x8 (a) = 27", &d).unwrap();
    assert_eq!(e.alg, Algorithm::Blake2b(1));
    assert!(p("BLAKE2b- 8 (a) = 27", &d).is_some());
    assert!(p("BLAKE2b-+8 (a) = 27", &d).is_some());
    assert!(p("BLAKE2b-8(a) = 27", &d).is_some());
    assert!(p("BLAKE2b-08 (a) = 27", &d).is_none());
    assert!(p("BLAKE2b-010 (a) = 27", &d).is_some());
    assert!(p("BLAKE2b-8  (a) = 27", &d).is_none());
    assert!(p("BLAKE2b-257 (a) = 27", &d).is_none());
    assert!(p("27  a", &d).is_some());
    assert!(p("2  a", &d).is_none());
    let h = "0".repeat(128);
    assert!(p(&format!("BLAKE2bX(a) = {h}"), &d).is_some());
    assert!(p(&format!("BLAKE2b  (a) = {h}"), &d).is_some());
    assert!(p("BLAKE2b", &d).is_none());
}

#[test]
fn lanesum_lines() {
    let d = Dialect::Multi(None);
    assert_eq!(p(&format!("{H}  a"), &d).unwrap().alg, Algorithm::Md5);
    let e = p(&format!("SHA512/256 (x) = {}", "a".repeat(64)), &d).unwrap();
    assert_eq!(e.alg, Algorithm::Sha512_256);
    let e = p(&format!("BLAKE2b-256 (x) = {}", "a".repeat(64)), &d).unwrap();
    assert_eq!(e.alg, Algorithm::Blake2b(32));
    assert!(p(&format!("{}  a", "a".repeat(62)), &d).is_none());
    assert!(p(&format!("MD4 (a) = {H}"), &d).is_none());
    let d = Dialect::Multi(Some(vec![Algorithm::Blake3(32)]));
    assert_eq!(
        p(&format!("{H}  a"), &d).unwrap().alg,
        Algorithm::Blake3(16)
    );
    assert!(p(&format!("MD5 (a) = {H}"), &d).is_none());
    // An exact length wins over a family that could be cut to it, in any order.
    let d = Dialect::Multi(Some(vec![Algorithm::Blake3(32), Algorithm::Md5]));
    assert_eq!(p(&format!("{H}  a"), &d).unwrap().alg, Algorithm::Md5);
    let d = Dialect::Multi(Some(vec![Algorithm::Blake3(16), Algorithm::Md5]));
    assert_eq!(
        p(&format!("{H}  a"), &d).unwrap().alg,
        Algorithm::Blake3(16)
    );
}

#[test]
fn garbage_never_panics() {
    let mut st = None;
    let mut x: u32 = 12345;
    for _ in 0..2000 {
        let len = (x % 50) as usize;
        let mut v = Vec::with_capacity(len);
        for _ in 0..len {
            x = x.wrapping_mul(1103515245).wrapping_add(12345);
            let alphabet = b"\\()= *-MDSHA5BLAKE2b0123456789abcdef\0\r\t\xff";
            v.push(alphabet[(x >> 16) as usize % alphabet.len()]);
        }
        for d in [
            Dialect::Fixed(Algorithm::Md5),
            Dialect::Blake2b,
            Dialect::Multi(None),
        ] {
            let _ = parse_line(&v, &d, &mut st);
        }
    }
}

#[test]
fn comments_and_empty_lines_are_skipped() {
    assert_eq!(line_body(b"# x\n"), None);
    assert_eq!(line_body(b"\n"), None);
    assert_eq!(line_body(b"\r\n"), None);
    assert_eq!(line_body(b""), None);
    assert_eq!(
        line_body(b" # not a comment\r\n"),
        Some(&b" # not a comment"[..])
    );
    // One LF, then one CR: a second CR stays.
    assert_eq!(line_body(b"x\r\r\n"), Some(&b"x\r"[..]));
    assert_eq!(line_body(b"x"), Some(&b"x"[..]));
}

#[test]
fn entries_match_hex_in_either_case_and_base64_exactly() {
    let d = lanesum::hash(Algorithm::Md5, b"hello\n");
    assert_eq!(d.to_hex(), H);
    let hex = p(&format!("{}  a", H.to_uppercase()), &Dialect::Multi(None)).unwrap();
    assert!(hex.matches(&d));
    assert!(!hex.matches(&lanesum::hash(Algorithm::Md5, b"other")));
    let b64 = d.to_base64();
    let line = format!("MD5 (a) = {b64}");
    let e = p(&line, &Dialect::Multi(None)).unwrap();
    assert!(e.base64 && e.matches(&d));
    let e = p(
        &line.to_lowercase().replace("md5", "MD5"),
        &Dialect::Multi(None),
    )
    .unwrap();
    assert!(e.base64 && !e.matches(&d));
}

#[test]
fn names_unescape_three_escapes_only() {
    use syntax::unescape_name;
    assert_eq!(unescape_name(b"a\\\\b\\nc\\rd").unwrap(), b"a\\b\nc\rd");
    assert_eq!(unescape_name(b"a\\tb"), None);
    assert_eq!(unescape_name(b"trailing\\"), None);
}
