#!/usr/bin/env python3
"""Two lanesum binaries, side by side, in one run: did a change make any path slower?

    scripts/compare-binaries.py OLD NEW [--rounds N] [--speed-time S] [--skip-files]

Runs, alternating the two binaries (old, new, then new, old, ...) so that the machine's
slow spells fall on both:
  * `lanesum speed --json` (every algorithm, path and size it measures);
  * the lanesum commands of scripts/bench-many.sh on its two file sets (64 x 16 MiB, and
    5,000 files of 1 B - 128 KiB, in the page cache): md5, sha1, sha256, sha512, blake3,
    and md5,sha1,sha256,sha512 in one pass.
Prints, per measurement, the median of each binary and NEW/OLD (throughput: above 1 is
faster; wall time: below 1 is faster), and the worst of each kind.
"""

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time


def speed(binary, seconds):
    out = subprocess.run(
        [binary, "speed", "--json", "--time", str(seconds)],
        check=True, capture_output=True, text=True,
    ).stdout
    rows = {}
    for line in out.splitlines():
        r = json.loads(line)
        rows[(r["algorithm"], r["path"], r["size"])] = r["gbps"]
    return rows


def gen(d, count, lo, hi, seed):
    if os.path.exists(os.path.join(d, ".done")):
        return
    os.makedirs(d, exist_ok=True)
    rng = random.Random(seed)
    blob = os.urandom(hi + 4096)
    for i in range(count):
        n = rng.randint(lo, hi)
        off = rng.randint(0, 4096)
        with open(os.path.join(d, f"f{i:05d}"), "wb") as f:
            f.write(blob[off:off + n])
    open(os.path.join(d, ".done"), "w").close()


def wall(cmd):
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t


def report(title, results, higher_is_better):
    print(f"\n{title}")
    worst = None
    for key in sorted(results):
        old, new = results[key]
        if not old or not new:
            continue
        mo, mn = statistics.median(old), statistics.median(new)
        ratio = mn / mo if mo else float("nan")
        slower = (1 / ratio) if higher_is_better else ratio
        if worst is None or slower > worst[0]:
            worst = (slower, key)
        name = " ".join(str(k) for k in key)
        print(f"  {name:<40} old {mo:9.3f}  new {mn:9.3f}  new/old {ratio:6.3f}")
    if worst:
        print(f"  worst: {' '.join(str(k) for k in worst[1])}, new takes {worst[0]:.3f}x the old time")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--speed-time", type=float, default=0.2)
    ap.add_argument("--skip-files", action="store_true")
    ap.add_argument("--skip-speed", action="store_true")
    ap.add_argument("--dir", help="keep the generated files here")
    a = ap.parse_args()
    bins = {"old": a.old, "new": a.new}
    order = [("old", "new"), ("new", "old")]

    if not a.skip_speed:
        res = {}
        for r in range(a.rounds):
            for which in order[r % 2]:
                for key, g in speed(bins[which], a.speed_time).items():
                    res.setdefault(key, ([], []))[which == "new"].append(g)
            print(f"speed round {r + 1} of {a.rounds} done", file=sys.stderr)
        report("lanesum speed, GB/s per core (median of rounds)", res, True)

    if not a.skip_files:
        d = a.dir or tempfile.mkdtemp()
        gen(os.path.join(d, "big"), 64, 16 << 20, 16 << 20, 1)
        gen(os.path.join(d, "small"), 5000, 1, 128 << 10, 2)
        res = {}
        for s in ["big", "small"]:
            files = sorted(os.path.join(d, s, f) for f in os.listdir(os.path.join(d, s)) if f.startswith("f"))
            for alg in ["md5", "sha1", "sha256", "sha512", "blake3", "md5,sha1,sha256,sha512"]:
                for b in bins.values():  # warm the page cache and the binaries
                    wall([b, "-a", alg] + files)
                for r in range(a.rounds * 2):
                    for which in order[r % 2]:
                        t = wall([bins[which], "-a", alg] + files)
                        res.setdefault((s, alg), ([], []))[which == "new"].append(t)
            print(f"files: {s} done", file=sys.stderr)
        report("bench-many's lanesum commands, wall seconds (median)", res, False)


if __name__ == "__main__":
    main()
