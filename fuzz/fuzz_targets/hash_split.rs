//! One message, every algorithm: `Hasher` fed in fuzz-chosen pieces (with a clone, a
//! saved and resumed state and a reset along the way), the one-shot `hash`, `hash_many`
//! of one message and the modes' own functions, all against a reference crate.
#![no_main]

use std::io::Write as _;

use lanesum::{hash, hash_many, modes, Algorithm, Digest, Hasher};
use lanesum_fuzz::{announce_level, check, generate, pick_algorithm, reference, Reader};
use libfuzzer_sys::fuzz_target;

/// Generated inputs stay under 512 KiB (BLAKE3 hands updates of 256 KiB to rayon).
const MAX_GENERATED: u32 = 1 << 19;

fuzz_target!(|bytes: &[u8]| {
    announce_level();
    let mut r = Reader::new(bytes);
    let alg = pick_algorithm(r.u8(), r.u8());
    let flags = r.u8();
    let generated = flags & 1 != 0;
    let gen_len = r.u24() % MAX_GENERATED;
    let seed = r.u8();
    let pieces: Vec<usize> = (0..r.u8() % 16)
        .map(|_| {
            let v = r.u16();
            if v & 0x8000 != 0 {
                (v & 0x7fff) as usize * 8
            } else {
                (v % 300) as usize
            }
        })
        .collect();
    let data_owned;
    let data: &[u8] = if generated {
        data_owned = generate(seed as u64, gen_len as usize);
        &data_owned
    } else {
        r.rest()
    };
    let len = data.len();
    let want = reference(alg, data);
    assert_eq!(want.len(), alg.digest_len());

    check("hash", alg, len, hash(alg, data).as_bytes(), &want);

    // Streaming, in pieces; clone, save/resume and reset at the first piece boundary.
    let mut h = Hasher::new(alg);
    if flags & 8 != 0 {
        h.update(&data[..len.min(100)]);
        h.reset();
    }
    let mut fork: Option<Hasher> = None;
    let mut resumed: Option<Hasher> = None;
    let mut done = 0;
    for (i, &p) in pieces.iter().enumerate() {
        let end = (done + p).min(len);
        let piece = &data[done..end];
        for other in [&mut fork, &mut resumed].into_iter().flatten() {
            other.update(piece);
        }
        if flags & 16 != 0 {
            h.write_all(piece).unwrap();
        } else {
            h.update(piece);
        }
        done = end;
        if i == 0 {
            if flags & 2 != 0 {
                fork = Some(h.clone());
            }
            if flags & 4 != 0 {
                if let Some(state) = h.md_state() {
                    let back =
                        Hasher::from_md_state(alg, &state).expect("a hasher's own state resumes");
                    assert_eq!(back.md_state(), Some(state));
                    resumed = Some(back);
                }
            }
        }
    }
    let tail = &data[done..];
    h.update(tail);
    check("Hasher pieces", alg, len, h.finalize().as_bytes(), &want);
    if let Some(mut f) = fork {
        f.update(tail);
        check("Hasher clone", alg, len, f.finalize().as_bytes(), &want);
    }
    if let Some(mut f) = resumed {
        f.update(tail);
        check(
            "Hasher from_md_state",
            alg,
            len,
            f.finalize().as_bytes(),
            &want,
        );
    }

    if flags & 32 != 0 {
        let many = hash_many(alg, &[data]);
        check("hash_many of one", alg, len, many[0].as_bytes(), &want);
    }
    let mode = match alg {
        Algorithm::Md5p8 => Some(modes::md5p8(data)),
        Algorithm::Blake2bp(n) => Some(modes::blake2bp(data, n as usize)),
        Algorithm::Blake2sp(n) => Some(modes::blake2sp(data, n as usize)),
        Algorithm::Btv2 => Some(
            modes::torrent_v2_pieces_root(data).unwrap_or_else(|| Digest::from_bytes(&[0; 32])),
        ),
        _ => None,
    };
    if let Some(m) = mode {
        check("modes", alg, len, m.as_bytes(), &want);
    }

    // The digest's text forms.
    let d = Digest::from_bytes(&want);
    assert_eq!(Digest::from_hex(&d.to_hex()), Some(d.clone()));
    assert_eq!(
        Digest::from_hex(&d.to_hex().to_uppercase()).map(|x| x.to_hex()),
        Some(d.to_hex())
    );
});
