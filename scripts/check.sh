#!/usr/bin/env bash
# The static checks CI runs before the tests: formatting, clippy (every target and feature
# set that matters), the documentation, and no import cycles between modules.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy"
cargo clippy --workspace --all-targets --all-features -- -D warnings
# The library without its optional parts (rayon, bytes) must stand on its own.
cargo clippy -p lanesum --no-default-features -- -D warnings
echo "== cargo doc"
RUSTDOCFLAGS=-Dwarnings cargo doc --workspace --no-deps --all-features
echo "== module cycles"
# A kernel family's folder may share helpers both ways inside it; nothing else may.
python3 scripts/module-cycles.py crates/lanesum/src \
    --collapse md5 --collapse sha1 --collapse sha256 --collapse sha512 --collapse sm3
python3 scripts/module-cycles.py crates/lanesum-files/src
python3 scripts/module-cycles.py crates/lanesum-cli/src
python3 scripts/module-cycles.py crates/lanesum-ffi/src
echo "== shell scripts parse"
for s in scripts/*.sh; do bash -n "$s"; done
