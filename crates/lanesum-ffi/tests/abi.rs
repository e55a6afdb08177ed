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
