#!/usr/bin/env bash
# Many files: lanesum against md5sum/sha256sum (alone and through `xargs -P` on all cores),
# openssl, rhash and b3sum where installed, on two generated sets:
#   big:   64 files of 16 MiB
#   small: 5,000 files of 1 B - 128 KiB
# Everything is in the page cache; each command's best wall time of RUNS runs is shown with
# its ratio to lanesum's time for the same algorithm, all in one run of this script.
# Usage: scripts/bench-many.sh [RUNS]     (BENCH_DIR=dir keeps the generated files)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
dir=${BENCH_DIR:-$(mktemp -d)}
cores=$(nproc)

cargo build --release -q -p lanesum-cli
lanesum=$PWD/target/release/lanesum

gen() { # gen DIR COUNT MIN MAX SEED
    local d=$1
    [ -f "$d/.done" ] && return
    mkdir -p "$d"
    python3 - "$@" <<'PY'
import os, random, sys
d, count, lo, hi, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
rng = random.Random(seed)
blob = os.urandom(hi + 4096)
for i in range(count):
    n = rng.randint(lo, hi)
    off = rng.randint(0, 4096)
    with open(os.path.join(d, f"f{i:05d}"), "wb") as f:
        f.write(blob[off:off + n])
PY
    touch "$d/.done"
}
gen "$dir/big" 64 $((16 << 20)) $((16 << 20)) 1
gen "$dir/small" 5000 1 $((128 << 10)) 2

best_of() { # prints the best wall time in seconds
    local best="" s e t
    for _ in $(seq "$runs"); do
        s=$(date +%s.%N)
        "$@" >/dev/null 2>&1 || { echo fail; return; }
        e=$(date +%s.%N)
        t=$(echo "$e - $s" | bc -l)
        if [ -z "$best" ] || (($(echo "$t < $best" | bc -l))); then best=$t; fi
    done
    echo "$best"
}
have() { command -v "$1" >/dev/null 2>&1; }

printf '%-6s %-8s %-46s %8s %8s %9s\n' set alg command seconds "GB/s" "lanesum x"
for set in big small; do
    files=("$dir/$set"/f*)
    bytes=$(cat "${files[@]}" | wc -c)
    run() { # run ALG LABEL CMD...
        local alg=$1 label=$2
        shift 2
        local t
        t=$(best_of "$@")
        if [ "$t" = fail ]; then
            printf '%-6s %-8s %-46s %8s\n' "$set" "$alg" "$label" failed
            return
        fi
        [[ $label == lanesum* ]] && base=$t
        printf '%-6s %-8s %-46s %8.3f %8.2f %8.1fx\n' "$set" "$alg" "$label" "$t" \
            "$(echo "$bytes / $t / 1000000000" | bc -l)" "$(echo "$t / $base" | bc -l)"
    }
    xp() { printf '%s\0' "${files[@]}" | xargs -0 -P"$cores" -n $(( (${#files[@]} + cores - 1) / cores )) "$@"; }
    for alg in md5 sha1 sha256 sha512 blake3; do
        run "$alg" "lanesum -a $alg" "$lanesum" -a "$alg" "${files[@]}"
        case $alg in
            md5 | sha1 | sha256 | sha512)
                have "${alg}sum" && run "$alg" "${alg}sum" "${alg}sum" "${files[@]}"
                have "${alg}sum" && run "$alg" "xargs -P$cores ${alg}sum" xp "${alg}sum"
                have openssl && run "$alg" "openssl dgst -$alg" openssl dgst "-$alg" "${files[@]}"
                have openssl && run "$alg" "xargs -P$cores openssl dgst -$alg" xp openssl dgst "-$alg"
                have rhash && run "$alg" "rhash --$alg" rhash "--$alg" "${files[@]}"
                ;;
            blake3)
                have b3sum && run "$alg" "b3sum" b3sum "${files[@]}"
                ;;
        esac
    done
    run md5+4 "lanesum -a md5,sha1,sha256,sha512" "$lanesum" -a md5,sha1,sha256,sha512 "${files[@]}"
    if have openssl; then
        par4() { for a in md5 sha1 sha256 sha512; do openssl dgst "-$a" "${files[@]}" & done; wait; }
        run md5+4 "openssl dgst x4 algorithms in parallel" par4
    fi
done
[ -n "${BENCH_DIR:-}" ] || rm -rf "$dir"
