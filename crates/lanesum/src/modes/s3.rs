//! The Amazon S3 multipart-upload ETag.

use crate::batch::hash_many_cores;
use crate::{hash, Algorithm, Digest};

/// The S3 ETag of `data` uploaded in parts of `part_size` bytes (the last part shorter).
///
/// Definition: with `N` parts, the ETag is the lowercase hex of
/// `MD5(MD5(part 1) || ... || MD5(part N))` over the parts' raw 16-byte digests in part
/// order, followed by `-N`. When the input fits in one part (`N <= 1`) the result is the
/// plain MD5 hex of the data with no suffix, which is what S3 reports for an object
/// uploaded in a single PUT (as `aws s3 cp` does below its multipart threshold). An
/// empty input is likewise a single-PUT object: the MD5 of nothing,
/// `d41d8cd98f00b204e9800998ecf8427e`.
///
/// Byte compatibility rests on hashing raw digests (not hex), in order, and on using the
/// same part size as the uploader (for example `aws s3 cp`'s default 8 MiB).
/// The parts are hashed through the SIMD lanes on all rayon threads.
///
/// # Panics
/// If `part_size` is 0.
///
/// ```
/// assert_eq!(lanesum::modes::s3_etag(b"", 8 << 20), "d41d8cd98f00b204e9800998ecf8427e");
/// assert_eq!(
///     lanesum::modes::s3_etag(b"test1test2", 5),
///     "4b28e9aa66476ee94ee809b975bd8816-2"
/// );
/// ```
pub fn s3_etag(data: &[u8], part_size: usize) -> String {
    assert!(part_size > 0, "part size must be at least 1 byte");
    let parts: Vec<&[u8]> = data.chunks(part_size).collect();
    s3_etag_of_parts(&parts)
}

/// The S3 ETag of an object uploaded as the given parts, which may differ in size (as
/// a multipart upload allows). Zero or one part gives the plain MD5 hex of their bytes,
/// as [`s3_etag`] does.
///
/// ```
/// assert_eq!(
///     lanesum::modes::s3_etag_of_parts(&[b"test1", b"test2"]),
///     "4b28e9aa66476ee94ee809b975bd8816-2"
/// );
/// ```
pub fn s3_etag_of_parts<P: AsRef<[u8]>>(parts: &[P]) -> String {
    let parts: Vec<&[u8]> = parts.iter().map(AsRef::as_ref).collect();
    match &parts[..] {
        [] => hash(Algorithm::Md5, b"").to_hex(),
        _ => s3_etag_of_part_md5s(&hash_many_cores(Algorithm::Md5, &parts)),
    }
}

/// The S3 ETag from the MD5 digests of the parts, in order: for inputs streamed a part at
/// a time. No parts is an empty object (its plain MD5); one part gives its MD5 as is.
pub fn s3_etag_of_part_md5s(digests: &[Digest]) -> String {
    match digests {
        [] => hash(Algorithm::Md5, b"").to_hex(),
        [one] => one.to_hex(),
        _ => {
            let mut cat = Vec::with_capacity(16 * digests.len());
            for d in digests {
                cat.extend_from_slice(d.as_bytes());
            }
            format!("{}-{}", hash(Algorithm::Md5, &cat).to_hex(), digests.len())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::modes::test_util::{pattern, random, random_len, vectors};
    use ::md5 as md5_ref;
    use md5_ref::Digest as _;

    /// The definition with the md-5 crate, part by part.
    fn reference(data: &[u8], part: usize) -> String {
        let n = data.len().div_ceil(part);
        if n <= 1 {
            return hex::encode(md5_ref::Md5::digest(data));
        }
        let mut outer = md5_ref::Md5::new();
        for i in 0..n {
            let p = &data[i * part..((i + 1) * part).min(data.len())];
            outer.update(md5_ref::Md5::digest(p));
        }
        format!("{}-{n}", hex::encode(outer.finalize()))
    }

    #[test]
    fn vector_file() {
        crate::testing::each_level(|| {
            let dir = vectors();
            let text = std::fs::read_to_string(dir.join("s3-etag.txt")).unwrap();
            let mut n = 0;
            for line in text
                .lines()
                .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            {
                let f: Vec<&str> = line.split_whitespace().collect();
                let (desc, part, want) = (f[0], f[1], f[2]);
                let got = if let Some(list) = desc.strip_prefix("parts(") {
                    let parts: Vec<Vec<u8>> = list
                        .trim_end_matches(')')
                        .split(',')
                        .map(|p| p.trim_matches('"').as_bytes().to_vec())
                        .collect();
                    let refs: Vec<&[u8]> = parts.iter().map(|p| &p[..]).collect();
                    s3_etag_of_parts(&refs)
                } else if let Some(len) = desc.strip_prefix("pattern(") {
                    let data = pattern(len.trim_end_matches(')').parse().unwrap());
                    let part: usize = part.parse().unwrap();
                    assert_eq!(reference(&data, part), want, "reference");
                    s3_etag(&data, part)
                } else {
                    panic!("unknown input {desc}");
                };
                assert_eq!(got, want, "{desc}");
                n += 1;
            }
            assert!(n >= 2);
        });
    }

    #[test]
    fn every_length_small_parts() {
        crate::testing::each_level(|| {
            let data = random(5 * 64, 9);
            for part in [1, 2, 7, 16, 64] {
                for len in 0..=(5 * part) {
                    assert_eq!(s3_etag(&data[..len], part), reference(&data[..len], part));
                }
            }
        });
    }

    #[test]
    fn random_large() {
        crate::testing::each_level(|| {
            for seed in 0..3 {
                let data = random(random_len(1 << 20, 12 << 20, seed), seed + 50);
                for part in [64 << 10, 1 << 20, 5 << 20, 8 << 20] {
                    assert_eq!(s3_etag(&data, part), reference(&data, part), "part {part}");
                }
            }
        });
    }
}
