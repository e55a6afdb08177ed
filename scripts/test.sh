#!/usr/bin/env bash
# Runs every test, once. The library's level-dependent tests (kernels, hash_many, the
# engine, StreamBatch, the modes, the known answers and the differential tests) each run
# at every instruction-set level this CPU has, in one process (lanesum::isa::with_level),
# so one pass covers every kernel path; the command's end-to-end tests run at the
# detected level. About 8 minutes on a 2-core machine from a clean checkout (the
# build takes most of it), a minute and a half once built.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== cargo test --workspace --all-targets --all-features"
env -u LANESUM_ISA cargo test --workspace --all-targets --all-features
echo "== cargo test --workspace --doc --all-features"
env -u LANESUM_ISA cargo test --workspace --doc --all-features

# The library's unit tests again with the heap moved: glibc then maps every allocation
# over 4 KiB page-aligned, so messages share an L1 set class and the scheduler staggers
# lanes (a test once counted on where the allocator put them, and failed only on CI's
# machine).
echo "== cargo test -p lanesum --lib, page-aligned allocations"
env -u LANESUM_ISA GLIBC_TUNABLES=glibc.malloc.mmap_threshold=4096 \
    cargo test -p lanesum --lib --all-features

# The bindings: the C ABI (C tests plain and under ASan/UBSan) and the Go module.
echo "== scripts/test-ffi.sh"
./scripts/test-ffi.sh

# The Python package: a venv, `pip install ./python`, ruff, pytest against hashlib & co.
echo "== scripts/test-python.sh"
./scripts/test-python.sh

# lanesum inside a local Spark (local[2]) and Ray (2 CPUs), in the same environment.
echo "== scripts/test-scale-out.sh"
./scripts/test-scale-out.sh
