#!/usr/bin/env bash
# Single-stream speed: one large file (default 1 GiB, in page cache) hashed by lanesum and by
# the best other tools on this machine, side by side in one run. Best of N runs each.
# Usage: scripts/bench-single.sh [SIZE_MIB] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
size_mib=${1:-1024}
runs=${2:-3}
dir=${BENCH_DIR:-$(mktemp -d)}
file=$dir/single-${size_mib}MiB.bin

cargo build --release -q -p lanesum-cli
lanesum=$PWD/target/release/lanesum

if [ ! -s "$file" ]; then
    head -c $((size_mib * 1024 * 1024)) /dev/urandom >"$file"
fi
cat "$file" >/dev/null # into the page cache

# best_of CMD...: prints the best wall time in seconds of $runs runs.
best_of() {
    local best=""
    for _ in $(seq "$runs"); do
        local s e t
        s=$(date +%s.%N)
        "$@" >/dev/null 2>&1 || { echo "fail"; return; }
        e=$(date +%s.%N)
        t=$(echo "$e - $s" | bc -l)
        if [ -z "$best" ] || (($(echo "$t < $best" | bc -l))); then best=$t; fi
    done
    echo "$best"
}

have() { command -v "$1" >/dev/null 2>&1; }

printf '%-9s %-28s %8s %9s %9s\n' algorithm tool seconds "GB/s" "vs best"
for alg in md5 sha1 sha256 sha512 blake2b blake3; do
    declare -a names=() times=()
    add() { names+=("$1"); times+=("$(best_of "${@:2}")"); }
    add "lanesum -a $alg" "$lanesum" -a "$alg" "$file"
    case $alg in
        md5 | sha1 | sha256 | sha512)
            have openssl && add "openssl dgst -$alg" openssl dgst "-$alg" "$file"
            have "${alg}sum" && add "${alg}sum" "${alg}sum" "$file"
            ;;
        blake2b)
            have b2sum && add "b2sum" b2sum "$file"
            have openssl && add "openssl dgst -blake2b512" openssl dgst -blake2b512 "$file"
            ;;
        blake3)
            have b3sum && add "b3sum" b3sum "$file"
            have b3sum && add "b3sum --num-threads 1" b3sum --num-threads 1 "$file"
            ;;
    esac
    # The best peer (every tool but lanesum itself) is the baseline.
    best=""
    for i in "${!names[@]}"; do
        [ "$i" = 0 ] && continue
        t=${times[$i]}
        [ "$t" = fail ] && continue
        if [ -z "$best" ] || (($(echo "$t < $best" | bc -l))); then best=$t; fi
    done
    for i in "${!names[@]}"; do
        t=${times[$i]}
        if [ "$t" = fail ]; then
            printf '%-9s %-28s %8s\n' "$alg" "${names[$i]}" failed
            continue
        fi
        gbps=$(echo "$size_mib * 1048576 / $t / 1000000000" | bc -l)
        ratio=$([ -n "$best" ] && echo "$best / $t" | bc -l || echo 1)
        printf '%-9s %-28s %8.3f %9.2f %8.2fx\n' "$alg" "${names[$i]}" "$t" "$gbps" "$ratio"
    done
    unset names times
done
[ -n "${BENCH_DIR:-}" ] || rm -rf "$dir"
