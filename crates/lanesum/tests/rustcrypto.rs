//! lanesum's RustCrypto types (feature `digest`) used exactly as code written for `sha2`,
//! `sha1` and `md-5` uses theirs: generic code over `sha2::Digest` gets the same bytes
//! from both, and so do the trait's other entry points.

mod levels;

use sha2::digest::DynDigest;
use sha2::Digest;

/// Written against the `Digest` trait, as a library generic over hashers is.
fn digest_of<D: Digest>(parts: &[&[u8]]) -> Vec<u8> {
    let mut h = D::new();
    for p in parts {
        h.update(p);
    }
    h.finalize().to_vec()
}

/// Every entry point of `Digest` on `L` (lanesum) and `R` (RustCrypto), on inputs around
/// the block boundaries, in one piece and in three.
fn same<L, R: Digest>(name: &str)
where
    L: Digest + Clone + sha2::digest::FixedOutputReset,
{
    let data: Vec<u8> = (0..1000u32).map(|i| (i * 31 + i / 7) as u8).collect();
    assert_eq!(
        <L as Digest>::output_size(),
        <R as Digest>::output_size(),
        "{name}"
    );
    for len in [0, 1, 55, 56, 63, 64, 65, 111, 112, 127, 128, 129, 1000] {
        let m = &data[..len];
        let (a, b) = m.split_at(len / 3);
        let want = R::digest(m).to_vec();
        assert_eq!(L::digest(m).to_vec(), want, "{name} digest, len {len}");
        assert_eq!(digest_of::<L>(&[a, b]), want, "{name} update, len {len}");
        assert_eq!(
            L::new_with_prefix(a).chain_update(b).finalize().to_vec(),
            want,
            "{name} chain, len {len}"
        );
        let mut h = L::new();
        Digest::update(&mut h, b"junk");
        Digest::reset(&mut h);
        Digest::update(&mut h, m);
        let copy = h.clone();
        assert_eq!(h.finalize_reset().to_vec(), want, "{name} reset, len {len}");
        assert_eq!(copy.finalize().to_vec(), want, "{name} clone, len {len}");
        Digest::update(&mut h, m);
        assert_eq!(h.finalize().to_vec(), want, "{name} after reset, len {len}");
    }
}

#[test]
fn drop_in_for_rustcrypto() {
    levels::each_level(|| {
        same::<lanesum::Md5, md5::Md5>("md5");
        same::<lanesum::Sha1, sha1::Sha1>("sha1");
        same::<lanesum::Sha224, sha2::Sha224>("sha224");
        same::<lanesum::rustcrypto::Sha256, sha2::Sha256>("sha256");
        same::<lanesum::Sha384, sha2::Sha384>("sha384");
        same::<lanesum::Sha512, sha2::Sha512>("sha512");
        same::<lanesum::Sha512_224, sha2::Sha512_224>("sha512/224");
        same::<lanesum::Sha512_256, sha2::Sha512_256>("sha512/256");
    });
}

/// As a trait object (`DynDigest`), and as an `io::Write` sink.
#[test]
fn dyn_digest_and_io_write() {
    let data = vec![0x5au8; 100_000];
    let mut hashers: Vec<Box<dyn DynDigest>> = vec![
        Box::new(lanesum::Sha256::default()),
        Box::new(sha2::Sha256::default()),
    ];
    for h in &mut hashers {
        h.update(&data);
    }
    let out: Vec<Box<[u8]>> = hashers.into_iter().map(|h| h.finalize()).collect();
    assert_eq!(out[0], out[1]);
    let mut w = lanesum::Sha256::new();
    std::io::copy(&mut &data[..], &mut w).unwrap();
    assert_eq!(w.finalize()[..], out[1][..]);
}
