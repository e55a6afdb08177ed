"""The issue's "done when" ratios, from one run of one process.

    python/.venv/bin/python python/bench.py [--scale 0.1] [--files-dir DIR]

Each comparison alternates baseline and lanesum (best of --repeat runs each), so load
from other processes hits both alike; ratios are baseline time / lanesum time (> 1:
lanesum is faster). lanesum uses every core rayon sees; RAYON_NUM_THREADS=1 measures one.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import hashlib
import os
import random
import sys
import tempfile
import time
from pathlib import Path

# Run as a script, this file's folder (python/, which holds the package's sources
# without the compiled extension) would shadow the installed package.
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).parent.resolve()]

import numpy as np  # noqa: E402
import pyarrow as pa  # noqa: E402

import lanesum  # noqa: E402


def best_pair(baseline, candidate, repeat):
    """Best-of-`repeat` times of two callables, run alternately."""
    tb = tc = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        baseline()
        tb = min(tb, time.perf_counter() - t)
        t = time.perf_counter()
        candidate()
        tc = min(tc, time.perf_counter() - t)
    return tb, tc


def report(what, tb, tc, need=None):
    ratio = tb / tc
    verdict = "" if need is None else ("  ok" if ratio >= need else f"  BELOW {need}x")
    print(f"{what:<58} {tb * 1e3:10.1f} ms {tc * 1e3:10.1f} ms {ratio:8.2f}x{verdict}")


def column(n, size, seed):
    blob = np.random.default_rng(seed).bytes(n * size)
    values = [blob[i * size : (i + 1) * size] for i in range(n)]
    return values, pa.array(values, pa.binary())


def bench_arrays(n, repeat):
    try:
        import polars as pl
        import polars_hash as plh
    except ImportError:
        pl = plh = None
    for size, need in [(64, 20), (1024, 10)]:
        values, arr = column(n, size, size)
        for name in ["md5", "sha256"]:
            ctor = getattr(hashlib, name)
            tb, tc = best_pair(
                lambda ctor=ctor, values=values: [ctor(v).digest() for v in values],
                lambda name=name, arr=arr: lanesum.hash_array(arr, name),
                repeat,
            )
            report(f"hash_array {n:,} x {size} B {name} vs hashlib loop", tb, tc, need)
        if pl is not None:
            s = pl.Series("x", arr)
            df = pl.DataFrame({"x": s})
            tb, tc = best_pair(
                lambda df=df: df.select(plh.col("x").chash.sha2_256()),
                lambda s=s: lanesum.hash_array(s, "sha256", hex=True),
                repeat,
            )
            report(f"hash_array {n:,} x {size} B sha256 hex vs polars-hash", tb, tc, 5)
        del values, arr


def bench_one_message(repeat):
    for size, need in [(64, 1 / 1.25), (1 << 20, 1.0)]:
        data = random.Random(size).randbytes(size)
        loops = max(1, (64 << 20) // size) if size > 4096 else 200_000
        h, ls = hashlib.sha256, lanesum.sha256

        def base(h=h, data=data, loops=loops):
            for _ in range(loops):
                h(data).digest()

        def cand(ls=ls, data=data, loops=loops):
            for _ in range(loops):
                ls(data).digest()

        tb, tc = best_pair(base, cand, repeat)
        per = 1e9 / loops
        print(f"  sha256({size} B).digest(): hashlib {tb * per:.0f} ns, lanesum {tc * per:.0f} ns")
        report(f"sha256 one message {size} B vs hashlib", tb, tc, need)


def make_files(root: Path, count, seed=11):
    rng = random.Random(seed)
    paths = []
    for i in range(count):
        d = root / f"d{i // 500:02}"
        d.mkdir(exist_ok=True)
        p = d / f"f{i:05}"
        p.write_bytes(rng.randbytes(rng.randint(1, 128 << 10)))
        paths.append(str(p))
    return paths


def bench_files(count, repeat, where):
    with tempfile.TemporaryDirectory(dir=where) as tmp:
        paths = make_files(Path(tmp), count)
        total = sum(os.path.getsize(p) for p in paths)

        def one(p):
            with open(p, "rb") as f:
                return hashlib.file_digest(f, "sha256").digest()

        def loop():
            return [one(p) for p in paths]

        def pool():
            with concurrent.futures.ThreadPoolExecutor() as ex:
                return list(ex.map(one, paths))

        def ours():
            return [r.digests["sha256"] for r in lanesum.hash_files(paths)]

        assert ours() == loop()  # the page cache is warm from here on
        print(f"  {count:,} files, {total / 2**20:.0f} MiB, warm page cache")
        tb, tc = best_pair(loop, ours, repeat)
        report(f"hash_files {count:,} files sha256 vs file_digest loop", tb, tc, 5)
        tb, tc = best_pair(pool, ours, repeat)
        report(f"hash_files {count:,} files sha256 vs ThreadPoolExecutor", tb, tc, 2)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=float, default=1.0, help="fraction of the issue's sizes")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--files-dir", default=None, help="where to write the test files")
    args = ap.parse_args()
    print(
        f"lanesum {lanesum.isa_active()}, {os.cpu_count()} CPUs, "
        f"RAYON_NUM_THREADS={os.environ.get('RAYON_NUM_THREADS', '(all)')}"
    )
    print(f"{'':<58} {'baseline':>13} {'lanesum':>13} {'ratio':>9}")
    bench_arrays(int(1_000_000 * args.scale), args.repeat)
    bench_one_message(args.repeat)
    bench_files(int(5_000 * args.scale), args.repeat, args.files_dir)


if __name__ == "__main__":
    main()
