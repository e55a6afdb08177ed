#!/usr/bin/env bash
# Runs every test: the whole workspace at the detected instruction-set level, then again
# with each level this CPU has forced through LANESUM_ISA, so every kernel path is
# checked against the scalar reference.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== cargo test --workspace (auto)"
env -u LANESUM_ISA cargo test --workspace --all-targets
env -u LANESUM_ISA cargo test --workspace --doc

# The levels as the library detects them (the tests above built the command), so a
# level is never forced on a CPU or OS that lacks it, whatever /proc/cpuinfo says.
bin="${CARGO_TARGET_DIR:-target}/debug/lanesum"
header=$(env -u LANESUM_ISA "$bin" speed -a md5 --sizes 64 --time 0.001)
found=$(sed -n '1s/^lanesum speed: instruction sets \([a-z0-9,]*\);.*/\1/p' <<<"$header")
if [[ -z "$found" ]]; then
    echo "could not read the instruction sets from: ${header%%$'\n'*}" >&2
    exit 1
fi
levels=(portable)
[[ "$found" != portable ]] && IFS=, read -ra more <<<"$found" && levels+=("${more[@]}")

# These passes also move the heap: glibc maps every allocation over 4 KiB page-aligned,
# so messages share an L1 set class and the scheduler staggers lanes (a test once counted
# on where the allocator put them, and failed only on CI's machine).
for level in "${levels[@]}"; do
    echo "== LANESUM_ISA=$level (of ${levels[*]}), page-aligned allocations"
    GLIBC_TUNABLES=glibc.malloc.mmap_threshold=4096 LANESUM_ISA=$level \
        cargo test --workspace --all-targets
done
