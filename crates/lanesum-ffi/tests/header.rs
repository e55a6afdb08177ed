//! include/lanesum.h is generated from this crate by cbindgen and committed; this test
//! regenerates it and fails if the committed file differs, so the header never drifts
//! from the ABI. `LANESUM_BLESS=1` writes the new header instead.

use std::path::Path;

#[test]
fn header_is_current() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).unwrap();
    let bindings = cbindgen::Builder::new()
        .with_crate(crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen failed");
    let mut generated = Vec::new();
    bindings.write(&mut generated);
    let path = crate_dir.join("../../include/lanesum.h");
    if std::env::var_os("LANESUM_BLESS").is_some() {
        std::fs::write(&path, &generated).unwrap();
        return;
    }
    let committed = std::fs::read(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "include/lanesum.h is out of date: run \
         `LANESUM_BLESS=1 cargo test -p lanesum-ffi --test header` and commit it"
    );
}
