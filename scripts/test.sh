#!/usr/bin/env bash
# Runs every test: the whole workspace at the detected instruction-set level, then the
# library and CLI suites again with each level this CPU has forced through LANESUM_ISA,
# so every kernel path is checked against the scalar reference.
set -euo pipefail
cd "$(dirname "$0")/.."

flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || true)
has() { for f in "$@"; do [[ " $flags " == *" $f "* ]] || return 1; done; }

levels=(portable)
has sha_ni sse4_1 ssse3 && levels+=(shani)
has avx2 && levels+=(avx2)
has avx512f avx512bw avx512vl && levels+=(avx512)

echo "== cargo test --workspace (auto: all of ${levels[*]})"
cargo test --workspace --all-targets
cargo test --workspace --doc

for level in "${levels[@]}"; do
    echo "== LANESUM_ISA=$level"
    LANESUM_ISA=$level cargo test --workspace --all-targets
done
