#!/usr/bin/env bash
# Scaling over cores: lanesum against `xargs -P$(nproc)` md5sum/sha256sum/openssl and b3sum
# (where installed) on every core, the floors the kernels set for the big files on 1, 2,
# 4, ... cores, then lanesum alone on that many cores (taskset), with the data in RAM
# (/dev/shm or another tmpfs), so the figures are hashing and the read path, not the disk.
# Every figure is the best wall time of RUNS runs, all in this one run of the script, with
# that run's user and system CPU time (for lanesum, the system part is mostly the page
# tables of mapped files); with BASELINE (another lanesum binary, e.g. one built at commit
# 326e39a) each lanesum line is measured for both binaries, alternating, with new/base.
#
# Usage: scripts/bench-scale.sh [--lanesum BIN] [--runs N] [--quick] [BASELINE]
#   --lanesum BIN  the binary measured (default: build target/release/lanesum)
#   --quick        8 x 64 MiB and 2,000 small files instead of 64 x 64 MiB and 20,000
#   SCALE_DIR=dir  where the data goes (default /dev/shm/lanesum-scale; kept for reruns)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=3 bin="" base="" quick=0
while (($#)); do
    case $1 in
        --lanesum) bin=$2; shift 2 ;;
        --runs) runs=$2; shift 2 ;;
        --quick) quick=1; shift ;;
        -h | --help) sed -n '2,13p' "$0"; exit 0 ;;
        *) base=$(readlink -f "$1"); shift ;;
    esac
done
if [[ -z $bin ]]; then
    cargo build --release -q -p lanesum-cli
    bin=target/release/lanesum
fi
L=$(readlink -f "$bin")
N=$(nproc)
if ((quick)); then nbig=8 nsmall=2000; else nbig=64 nsmall=20000; fi
D=${SCALE_DIR:-/dev/shm/lanesum-scale}/b$nbig-s$nsmall
have() { command -v "$1" >/dev/null 2>&1; }
mkdir -p "$D"
fs=$(stat -f -c %T "$D" 2>/dev/null || echo '?')
[[ $fs == tmpfs || $fs == ramfs ]] || echo "warning: $D is on $fs, not in RAM"

echo "== $N cores:$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2); lanesum $L"
{ "$L" speed -a md5 --sizes 64 --time 0.001 2>&1 || true; } | head -1
[[ -f $D/.done ]] || python3 - "$D" "$nbig" "$nsmall" <<'PY'
# NBIG x 64 MiB files; NSMALL files of 1 B .. 128 KiB in directories of 200.
import os, random, sys
from concurrent.futures import ThreadPoolExecutor
d, nbig, nsmall = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
os.makedirs(f"{d}/big", exist_ok=True)
blk = os.urandom(64 << 20)
def big(i):
    with open(f"{d}/big/b{i:02}", "wb") as f:
        f.write(blk[i:] + blk[:i])
with ThreadPoolExecutor(8) as ex:
    list(ex.map(big, range(nbig)))
random.seed(7)
src = os.urandom(128 << 10)
for j in range(nsmall):
    sub = f"{d}/small/d{j // 200:03}"
    os.makedirs(sub, exist_ok=True)
    n = random.randint(1, 128 << 10)
    with open(f"{sub}/f{j % 200:03}", "wb") as f:
        f.write(os.urandom(16) + src[:n])
open(f"{d}/.done", "w").close()
PY
cd "$D"

run1() { # CMD: "WALL USER SYS" of one run in ms (bash's `time`, children included), or "fail"
    local TIMEFORMAT='%3R %3U %3S' out
    out=$({ time bash -c "$1" >/dev/null 2>&1; } 2>&1) || { echo fail; return; }
    awk '{ printf "%d %d %d\n", $1 * 1000, $2 * 1000, $3 * 1000 }' <<<"$out"
}
best() { # CMD: the run of least wall time of $runs runs, "WALL USER SYS" in ms, or "fail"
    local b="" r
    for _ in $(seq "$runs"); do
        r=$(run1 "$1")
        [[ $r == fail ]] && { echo fail; return; }
        if [[ -z $b ]] || ((${r%% *} < ${b%% *})); then b=$r; fi
    done
    echo "$b"
}
cpu() { # "WALL USER SYS": the CPU part, as printed after the wall time
    local w u s
    read -r w u s <<<"$1"
    [[ -n $s ]] && printf '  user %6s sys %5s ms' "$u" "$s"
}
row() { # LABEL CMD: one line: best wall time, and that run's CPU time
    local r
    r=$(best "$2")
    printf '%-52s %8s ms%s\n' "$1" "${r%% *}" "$(cpu "$r")"
}
lrow() { # LABEL ARGS: lanesum ARGS, and the baseline alternated with it when given
    if [[ -z $base ]]; then
        row "lanesum $1" "$pre$L $2"
        return
    fi
    local bn="" bb="" i t
    for i in $(seq "$runs"); do
        t=$(runs=1 best "$pre$base $2")
        if [[ $t != fail ]] && { [[ -z $bb ]] || ((${t%% *} < ${bb%% *})); }; then bb=$t; fi
        t=$(runs=1 best "$pre$L $2")
        if [[ $t != fail ]] && { [[ -z $bn ]] || ((${t%% *} < ${bn%% *})); }; then bn=$t; fi
    done
    printf '%-52s %8s ms  base %8s ms  new/base %s%s\n' "lanesum $1" "${bn%% *}" "${bb%% *}" \
        "$(python3 -c "print(f'{${bn%% *} / ${bb%% *}:.2f}')" 2>/dev/null || echo '?')" "$(cpu "$bn")"
}

pre=""
big=$(ls big/* | tr '\n' ' ')
echo "== $nbig x 64 MiB, all $N cores (best of $runs)"
lrow "-a md5" "-a md5 $big"
have md5sum && row "xargs -P$N md5sum" "ls big/* | xargs -P$N -n1 md5sum"
lrow "-a sha256" "-a sha256 $big"
have sha256sum && row "xargs -P$N sha256sum" "ls big/* | xargs -P$N -n1 sha256sum"
have openssl && row "xargs -P$N openssl dgst -sha256" "ls big/* | xargs -P$N -n1 openssl dgst -sha256"
lrow "-a sha1" "-a sha1 $big"
lrow "-a sha512" "-a sha512 $big"
lrow "-a blake3" "-a blake3 $big"
have b3sum && row "b3sum" "b3sum $big"
lrow "-a md5,sha1,sha256,sha512 (one pass)" "-a md5,sha1,sha256,sha512 $big"
row "cat (read only, one thread)" "cat $big > /dev/null"

echo "== $nsmall files of 1 B .. 128 KiB, all $N cores (best of $runs)"
for a in md5 sha256 blake3; do
    lrow "-r -a $a" "-r -a $a small"
    case $a in
        blake3) have b3sum && row "find | xargs -P$N b3sum" "find small -type f -print0 | xargs -0 -P$N -n64 b3sum" ;;
        *) have "${a}sum" && row "find | xargs -P$N ${a}sum" "find small -type f -print0 | xargs -0 -P$N -n64 ${a}sum" ;;
    esac
done

# What no scheduler can beat: MD5 and SHA-256 are serial inside a file, so on C cores the
# big files are S = ceil(files / C) streams per core, and a core's rate with S streams
# (`speed --counts`, this machine, one core) bounds the batch at S x 64 MiB / rate(S).
echo "== floors for $nbig x 64 MiB: one core's rate with S streams (S = files / cores)"
"$L" speed --counts -a md5,sha256 --sizes 1M --time 0.02 --json 2>/dev/null |
    python3 -c '
import json, math, sys
nbig, ncores = int(sys.argv[1]), int(sys.argv[2])
rate = {}
for line in sys.stdin:
    r = json.loads(line)
    rate[r["algorithm"], r["messages"]] = r["gbps"]
c = 1
while True:
    s = math.ceil(nbig / c)
    row = []
    for a in ("md5", "sha256"):
        g = rate.get((a, min(s, 64)))
        if g:
            row.append(f"{a} {s * 64 * 2**20 / g / 1e6:5.0f} ms ({s} streams, {g:.2f} GB/s)")
    print(f"on {c:2} cores: " + ", ".join(row))
    if c >= ncores:
        break
    c = min(2 * c, ncores)
' "$nbig" "$N" || echo "(no floors: lanesum speed or python3 failed)"

if have taskset; then
    echo "== lanesum on 1, 2, 4, ... cores ($nbig x 64 MiB; then the small files)"
    c=1
    while :; do
        pre="taskset -c 0-$((c - 1)) "
        for a in md5 sha256; do
            lrow "on $c cores: -a $a" "-a $a $big"
        done
        lrow "on $c cores: -r -a md5 small" "-r -a md5 small"
        ((c >= N)) && break
        c=$((c * 2 > N ? N : c * 2))
    done
else
    echo "== (no taskset: the per-core table is skipped)"
fi
