#!/usr/bin/env bash
# Whole trees: `lanesum -r` against md5sum, `find | xargs md5sum`, hashdeep, openssl and
# b3sum where installed, on four generated sets:
#   small: 5,000 files of 1 B - 128 KiB        big:  64 files of 16 MiB
#   one:   a single 1 GiB file (blake3)        tiny: 100,000 files of 0 - 64 B in 100 dirs
# Everything is in the page cache; each command's best wall time of RUNS runs is shown with
# its ratio to lanesum's time on the same set and its peak memory (max RSS, from
# /usr/bin/time where installed).
# Usage: scripts/bench-tree.sh [RUNS]     (BENCH_DIR=dir keeps the generated files)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
dir=${BENCH_DIR:-$(mktemp -d)}
cores=$(nproc)

cargo build --release -q -p lanesum-cli
lanesum=$PWD/target/release/lanesum

gen() { # gen DIR COUNT MIN MAX SEED [SUBDIRS]
    local d=$1
    [ -f "$d/.done" ] && return
    mkdir -p "$d"
    python3 - "$@" <<'PY'
import os, random, sys
d, count, lo, hi, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
subdirs = int(sys.argv[6]) if len(sys.argv) > 6 else 0
rng = random.Random(seed)
blob = os.urandom(hi + 4096)
for i in range(count):
    n = rng.randint(lo, hi)
    off = rng.randint(0, 4096)
    sub = os.path.join(d, f"d{i % subdirs:03d}") if subdirs else d
    os.makedirs(sub, exist_ok=True)
    with open(os.path.join(sub, f"f{i:06d}"), "wb") as f:
        f.write(blob[off:off + n])
PY
    touch "$d/.done"
}
gen "$dir/small" 5000 1 $((128 << 10)) 2
gen "$dir/big" 64 $((16 << 20)) $((16 << 20)) 1
gen "$dir/tiny" 100000 0 64 3 100
if [ ! -f "$dir/one/.done" ]; then
    mkdir -p "$dir/one"
    head -c $((1 << 30)) /dev/urandom >"$dir/one/f"
    touch "$dir/one/.done"
fi

have() { command -v "$1" >/dev/null 2>&1; }
timer=()
[ -x /usr/bin/time ] && timer=(/usr/bin/time -f '%e %M' -o "$dir/.time")

measure() { # prints "SECONDS MAXRSS_KB" (best time, largest RSS) of RUNS runs
    local best="" rss=0 s e t m
    for _ in $(seq "$runs"); do
        if [ ${#timer[@]} -gt 0 ]; then
            "${timer[@]}" bash -c '"$@"' _ "$@" >/dev/null 2>&1 || { echo fail; return; }
            read -r t m <"$dir/.time"
        else
            s=$(date +%s.%N)
            "$@" >/dev/null 2>&1 || { echo fail; return; }
            e=$(date +%s.%N)
            t=$(echo "$e - $s" | bc -l) m=0
        fi
        if [ -z "$best" ] || (($(echo "$t < $best" | bc -l))); then best=$t; fi
        ((m > rss)) && rss=$m
    done
    echo "$best $rss"
}

printf '%-6s %-8s %-44s %8s %9s %10s\n' set alg command seconds "lanesum x" "max RSS"
row() { # row SET ALG LABEL CMD...
    local set=$1 alg=$2 label=$3 t m
    shift 3
    read -r t m <<<"$(measure "$@")"
    if [ "$t" = fail ]; then
        printf '%-6s %-8s %-44s %8s\n' "$set" "$alg" "$label" failed
        return
    fi
    [[ $label == lanesum* ]] && base=$t
    printf '%-6s %-8s %-44s %8.2f %8.1fx %7d MiB\n' "$set" "$alg" "$label" "$t" \
        "$(echo "$t / ($base + 0.005)" | bc -l)" $((m / 1024))
}
fx() { find "$1" -type f ! -name .done -print0 | xargs -0 "${@:2}"; }
par4() { for a in md5 sha1 sha256 sha512; do fx "$1" openssl dgst "-$a" >/dev/null & done; wait; }
export -f fx par4 # run through bash -c under /usr/bin/time

for set in small big tiny; do
    d=$dir/$set
    row "$set" md5 "lanesum -r -a md5" "$lanesum" -r -a md5 --exclude .done "$d"
    row "$set" md5 "md5sum (files as arguments)" fx "$d" md5sum
    # Every core gets files: at most 1,000 per md5sum, fewer where the set is small.
    count=$(find "$d" -type f ! -name .done | wc -l)
    per=$(( (count + cores - 1) / cores ))
    ((per > 1000)) && per=1000
    row "$set" md5 "find | xargs -P$cores md5sum" fx "$d" -P"$cores" -n "$per" md5sum
    have hashdeep && row "$set" md5 "hashdeep -r -c md5" hashdeep -r -c md5 "$d"
    if [ "$set" != tiny ]; then
        row "$set" md5+3 "lanesum -r -a md5,sha1,sha256,sha512" \
            "$lanesum" -r -a md5,sha1,sha256,sha512 --exclude .done "$d"
        have openssl && row "$set" md5+3 "openssl dgst x4 algorithms in parallel" par4 "$d"
        row "$set" blake3 "lanesum -r -a blake3" "$lanesum" -r -a blake3 --exclude .done "$d"
        have b3sum && row "$set" blake3 "b3sum" fx "$d" b3sum
    fi
done
row one blake3 "lanesum -a blake3" "$lanesum" -a blake3 "$dir/one/f"
have b3sum && row one blake3 "b3sum" b3sum "$dir/one/f"
have b3sum && row one blake3 "b3sum --no-mmap" b3sum --no-mmap "$dir/one/f"
row one md5 "lanesum -a md5" "$lanesum" -a md5 "$dir/one/f"
row one md5 "md5sum" md5sum "$dir/one/f"
[ -n "${BENCH_DIR:-}" ] || rm -rf "$dir"
