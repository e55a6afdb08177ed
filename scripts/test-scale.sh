#!/usr/bin/env bash
# The file pipeline's tests (lanesum-files: ordering on pools of many sizes, buffers that
# grow with the work, refused allocations) and the command's `-j` and `ulimit -v` tests.
# From a fresh clone: builds what it needs; only the Rust toolchain (and bash) needed.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test -q -p lanesum-files
cargo test -q -p lanesum-cli --test scale
bash -n scripts/bench-scale.sh
