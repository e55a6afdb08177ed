//! The ABI from Rust: handles made and freed on many threads at once stay distinct and
//! stale ones are rejected; digests match the library's.

use lanesum_ffi::*;
use LanesumStatus::*;

fn alg(name: &std::ffi::CStr) -> LanesumAlgorithm {
    let mut a = LanesumAlgorithm { id: 0 };
    // SAFETY: a C string and a writable out-pointer.
    assert_eq!(
        unsafe { lanesum_algorithm(name.as_ptr(), &mut a) },
        LANESUM_OK
    );
    a
}

#[test]
fn handles_from_many_threads() {
    let md5 = alg(c"md5");
    let threads: Vec<_> = (0..8)
        .map(|t| {
            std::thread::spawn(move || {
                let mut stale = Vec::new();
                for i in 0..2000u32 {
                    let mut h = LanesumHasher { id: 0 };
                    // SAFETY: a writable out-pointer.
                    assert_eq!(unsafe { lanesum_hasher_new(md5, &mut h) }, LANESUM_OK);
                    let msg = [t as u8, i as u8];
                    // SAFETY: `msg` is readable for its length.
                    let st = unsafe { lanesum_hasher_update(h, msg.as_ptr(), msg.len()) };
                    assert_eq!(st, LANESUM_OK);
                    let mut d = [0u8; 16];
                    // SAFETY: `d` is writable for its length; out_len may be null.
                    let st = unsafe {
                        lanesum_hasher_finalize(h, d.as_mut_ptr(), d.len(), std::ptr::null_mut())
                    };
                    assert_eq!(st, LANESUM_OK);
                    assert_eq!(d, lanesum::hash(lanesum::Algorithm::Md5, &msg).as_bytes());
                    assert_eq!(lanesum_hasher_free(h), LANESUM_OK);
                    stale.push(h);
                }
                for h in stale {
                    assert_eq!(lanesum_hasher_free(h), LANESUM_ERR_HANDLE);
                    assert_eq!(lanesum_hasher_reset(h), LANESUM_ERR_HANDLE);
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

#[test]
fn every_listed_name_is_an_algorithm() {
    for i in 0..lanesum_algorithm_names_count() {
        let p = lanesum_algorithm_names_get(i);
        // SAFETY: a static C string from the library.
        let name = unsafe { std::ffi::CStr::from_ptr(p) }.to_str().unwrap();
        let bare = name.split('[').next().unwrap();
        let c = std::ffi::CString::new(bare).unwrap();
        let a = alg(&c);
        let mut n = 0;
        // SAFETY: a writable out-pointer.
        assert_eq!(
            unsafe { lanesum_algorithm_digest_len(a, &mut n) },
            LANESUM_OK
        );
        assert_eq!(n, bare.parse::<lanesum::Algorithm>().unwrap().digest_len());
    }
}

/// `lanesum_hasher_update_many`: plain MD5 and SHA-256 hashers and an engine hasher in
/// one call, over several calls of ragged buffers, give the library's digests; a handle
/// given twice or freed, or a finalized hasher, is an error that absorbs nothing.
#[test]
fn update_many_matches_the_library() {
    let (md5, sha256) = (alg(c"md5"), alg(c"sha256"));
    let new = |a: LanesumAlgorithm| {
        let mut h = LanesumHasher { id: 0 };
        // SAFETY: a writable out-pointer.
        assert_eq!(unsafe { lanesum_hasher_new(a, &mut h) }, LANESUM_OK);
        h
    };
    let mut hs: Vec<LanesumHasher> = (0..21)
        .map(|i| new(if i % 4 == 3 { sha256 } else { md5 }))
        .collect();
    let mut lane = LanesumHasher { id: 0 };
    // SAFETY: the global engine's handle and a writable out-pointer.
    let st = unsafe { lanesum_lane_hasher_new(LanesumEngine { id: 1 }, md5, &mut lane) };
    assert_eq!(st, LANESUM_OK);
    hs.push(lane);
    let msgs: Vec<Vec<u8>> = (0..hs.len())
        .map(|i| {
            (0..(i * 7919) % 70_000)
                .map(|j| (j * 31 + i) as u8)
                .collect()
        })
        .collect();
    let update = |hs: &[LanesumHasher], parts: &[&[u8]]| {
        let descs: Vec<LanesumSlice> = parts
            .iter()
            .map(|p| LanesumSlice {
                ptr: p.as_ptr(),
                len: p.len(),
            })
            .collect();
        // SAFETY: one readable descriptor per handle.
        unsafe { lanesum_hasher_update_many(hs.as_ptr(), descs.as_ptr(), hs.len()) }
    };
    let mut at = vec![0usize; hs.len()];
    for round in 0..9 {
        let parts: Vec<&[u8]> = msgs
            .iter()
            .zip(&mut at)
            .enumerate()
            .map(|(i, (m, at))| {
                let n = ((i + 3) * (round + 1) * 997 % 20_000).min(m.len() - *at);
                *at += n;
                &m[*at - n..*at]
            })
            .collect();
        assert_eq!(update(&hs, &parts), LANESUM_OK);
    }
    let rest: Vec<&[u8]> = msgs.iter().zip(&at).map(|(m, &at)| &m[at..]).collect();
    assert_eq!(update(&hs, &rest), LANESUM_OK);
    // Errors, each absorbing nothing: a repeated handle, a freed one.
    assert_eq!(update(&[hs[0], hs[0]], &[b"x", b"y"]), LANESUM_ERR_ARGUMENT);
    let gone = new(md5);
    assert_eq!(lanesum_hasher_free(gone), LANESUM_OK);
    assert_eq!(update(&[hs[1], gone], &[b"x", b"y"]), LANESUM_ERR_HANDLE);
    // A freed handle beside the hasher that took its slot (a handle's low 32 bits) is
    // stale, not a repeat. Other tests make handles at once, so take slots until it comes.
    let mut taken = Vec::new();
    let successor = loop {
        let h = new(md5);
        if h.id as u32 == gone.id as u32 {
            break h;
        }
        taken.push(h);
    };
    for h in taken {
        assert_eq!(lanesum_hasher_free(h), LANESUM_OK);
    }
    assert_eq!(
        update(&[gone, successor], &[b"x", b"y"]),
        LANESUM_ERR_HANDLE
    );
    assert_eq!(
        update(&[successor, gone], &[b"x", b"y"]),
        LANESUM_ERR_HANDLE
    );
    assert_eq!(lanesum_hasher_free(successor), LANESUM_OK);
    // SAFETY: no descriptors with count 0.
    let st = unsafe { lanesum_hasher_update_many(std::ptr::null(), std::ptr::null(), 0) };
    assert_eq!(st, LANESUM_OK);
    for (i, (h, m)) in hs.iter().zip(&msgs).enumerate() {
        let want = lanesum::hash(
            if i % 4 == 3 && i != hs.len() - 1 {
                lanesum::Algorithm::Sha256
            } else {
                lanesum::Algorithm::Md5
            },
            m,
        );
        let mut d = [0u8; 32];
        let mut n = 0;
        // SAFETY: `d` is writable for its length, `n` too.
        let st = unsafe { lanesum_hasher_finalize(*h, d.as_mut_ptr(), d.len(), &mut n) };
        assert_eq!(st, LANESUM_OK);
        assert_eq!(&d[..n], want.as_bytes(), "hasher {i}");
    }
    // Finalized: an error, and the other hasher absorbs nothing either.
    let fresh = new(md5);
    assert_eq!(update(&[fresh, hs[2]], &[b"x", b"y"]), LANESUM_ERR_STATE);
    let mut d = [0u8; 16];
    // SAFETY: `d` is writable for its length.
    let st =
        unsafe { lanesum_hasher_finalize(fresh, d.as_mut_ptr(), d.len(), std::ptr::null_mut()) };
    assert_eq!(st, LANESUM_OK);
    assert_eq!(d, lanesum::hash(lanesum::Algorithm::Md5, b"").as_bytes());
    for h in hs.into_iter().chain([fresh]) {
        assert_eq!(lanesum_hasher_free(h), LANESUM_OK);
    }
}

/// A plain hasher's saved state resumes in a new hasher to the library's digest; other
/// algorithms, engine hashers, finalized hashers and malformed states are refused.
#[test]
fn md_states_save_and_resume() {
    let new = |a: LanesumAlgorithm| {
        let mut h = LanesumHasher { id: 0 };
        // SAFETY: a writable out-pointer.
        assert_eq!(unsafe { lanesum_hasher_new(a, &mut h) }, LANESUM_OK);
        h
    };
    let update = |h: LanesumHasher, data: &[u8]| {
        // SAFETY: `data` is readable for its length.
        assert_eq!(
            unsafe { lanesum_hasher_update(h, data.as_ptr(), data.len()) },
            LANESUM_OK
        );
    };
    let save = |h: LanesumHasher| {
        let mut s = std::mem::MaybeUninit::<LanesumMdState>::uninit();
        // SAFETY: a writable out-pointer.
        let st = unsafe { lanesum_hasher_md_state(h, s.as_mut_ptr()) };
        // SAFETY: written when the call succeeded.
        (st, (st == LANESUM_OK).then(|| unsafe { s.assume_init() }))
    };
    let resume = |a: LanesumAlgorithm, s: &LanesumMdState| {
        let mut h = LanesumHasher { id: 0 };
        // SAFETY: a readable state and a writable out-pointer.
        let st = unsafe { lanesum_hasher_from_md_state(a, s, &mut h) };
        (st, h)
    };
    let data: Vec<u8> = (0..1000u32).map(|i| (i * 7) as u8).collect();
    for (name, alg_) in [
        (c"md5", lanesum::Algorithm::Md5),
        (c"sha1", lanesum::Algorithm::Sha1),
        (c"sha224", lanesum::Algorithm::Sha224),
        (c"sha512-256", lanesum::Algorithm::Sha512_256),
        (c"sm3", lanesum::Algorithm::Sm3),
    ] {
        let a = alg(name);
        for cut in [0, 1, 63, 64, 129, 1000] {
            let h = new(a);
            update(h, &data[..cut]);
            let (st, s) = save(h);
            assert_eq!(st, LANESUM_OK);
            let s = s.unwrap();
            assert_eq!((s.total, s.npending), (cut as u64, cut % alg_.block_len()));
            let (st, r) = resume(a, &s);
            assert_eq!(st, LANESUM_OK);
            update(r, &data[cut..]);
            let mut d = [0u8; 64];
            let mut n = 0;
            // SAFETY: `d` and `n` are writable.
            let st = unsafe { lanesum_hasher_finalize(r, d.as_mut_ptr(), d.len(), &mut n) };
            assert_eq!(st, LANESUM_OK);
            assert_eq!(
                &d[..n],
                lanesum::hash(alg_, &data).as_bytes(),
                "{name:?} at {cut}"
            );
            // A state that is not one: the wrong word count, pending bytes off the length.
            for bad in [
                LanesumMdState {
                    nwords: s.nwords - 1,
                    ..s
                },
                LanesumMdState {
                    total: s.total + 1,
                    ..s
                },
                LanesumMdState { nwords: 9, ..s },
            ] {
                assert_eq!(resume(a, &bad).0, LANESUM_ERR_ARGUMENT);
            }
            for x in [h, r] {
                assert_eq!(lanesum_hasher_free(x), LANESUM_OK);
            }
        }
    }
    // No saved state for BLAKE3, engine hashers or a finalized hasher; null pointers.
    let b3 = new(alg(c"blake3"));
    assert_eq!(save(b3).0, LANESUM_ERR_UNSUPPORTED);
    let (_, md5_state) = save(new(alg(c"md5")));
    assert_eq!(
        resume(alg(c"blake3"), &md5_state.unwrap()).0,
        LANESUM_ERR_UNSUPPORTED
    );
    let mut lane = LanesumHasher { id: 0 };
    // SAFETY: the global engine's handle and a writable out-pointer.
    let st = unsafe { lanesum_lane_hasher_new(LanesumEngine { id: 1 }, alg(c"md5"), &mut lane) };
    assert_eq!(st, LANESUM_OK);
    assert_eq!(save(lane).0, LANESUM_ERR_UNSUPPORTED);
    let done = new(alg(c"sha256"));
    let mut d = [0u8; 32];
    // SAFETY: `d` is writable for its length.
    let st = unsafe { lanesum_hasher_finalize(done, d.as_mut_ptr(), 32, std::ptr::null_mut()) };
    assert_eq!(st, LANESUM_OK);
    assert_eq!(save(done).0, LANESUM_ERR_STATE);
    // SAFETY: null out-pointers are reported.
    assert_eq!(
        unsafe { lanesum_hasher_md_state(b3, std::ptr::null_mut()) },
        LANESUM_ERR_NULL
    );
    let mut h = LanesumHasher { id: 0 };
    // SAFETY: a null state is reported.
    let st = unsafe { lanesum_hasher_from_md_state(alg(c"md5"), std::ptr::null(), &mut h) };
    assert_eq!(st, LANESUM_ERR_NULL);
    for x in [b3, lane, done] {
        assert_eq!(lanesum_hasher_free(x), LANESUM_OK);
    }
}
