"""lanesum inside Spark (local[2]) and Ray (2 CPUs) against the engines' own ways.

1. An audit of a tree of 20,000 files (1 B to 128 KiB): ``lanesum.spark.audit_files``
   against ``binaryFile`` + ``md5(content)`` / ``sha2(content, 256)``, and against a
   hashlib loop over the same shards of paths on the same executors.
2. A column of 10,000,000 x 64 B and of 1,000,000 x 1 KiB binary values: Spark's ``md5``,
   ``sha2(.., 256)``, ``sha1`` and ``crc32`` against ``lanesum.spark.hash_column``, a
   ``mapInArrow`` hashing with hashlib, and the transfer alone (a ``mapInArrow`` that
   returns its input's lengths; and one that returns 32 constant hex characters).
3. A Ray audit of the same tree against a hashlib ``map_batches`` over
   ``read_binary_files``.

Every job ends in a ``noop`` write (Spark) or ``materialize`` (Ray), so that every
column is computed. Baselines and candidates alternate in each round; the table gives
each one's best time of ``--rounds``. ``--scale 0.1`` shrinks every size tenfold.
Digests are checked to be equal before anything is timed.

    python/.venv/bin/python python/bench_spark.py [--scale S] [--rounds N] [--only tree,column,ray]
"""

from __future__ import annotations

import argparse
import hashlib
import logging
import os
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

# The installed package (with its extension), not the sources beside this script.
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).parent.resolve()]

import lanesum  # noqa: E402
import lanesum.spark as ls  # noqa: E402


def make_tree(root: str, files: int, seed: int = 20) -> int:
    """``files`` files of 1 B to 128 KiB in 100 folders; returns the bytes written."""
    rng = random.Random(seed)
    block = os.urandom(1 << 20)
    total = 0
    for i in range(files):
        d = os.path.join(root, f"d{i % 100:02d}")
        os.makedirs(d, exist_ok=True)
        n = rng.randint(1, 128 << 10)
        off = rng.randrange(0, len(block) - n)
        with open(os.path.join(d, f"f{i:06d}.bin"), "wb") as f:
            f.write(block[off : off + n])
        total += n
    return total


def best(times: list[float]) -> float:
    return min(times)


class Timer:
    """Runs named jobs in rounds (all jobs once per round, in order), keeps each one's
    times, and prints a table."""

    def __init__(self, rounds: int) -> None:
        self.rounds = rounds
        self.times: dict[str, list[float]] = {}

    def run(self, jobs: list[tuple[str, Callable[[], object]]]) -> None:
        for r in range(self.rounds):
            for name, job in jobs:
                t = time.perf_counter()
                job()
                self.times.setdefault(name, []).append(time.perf_counter() - t)
            print(f"  round {r + 1}/{self.rounds} done", file=sys.stderr)

    def t(self, name: str) -> float:
        return best(self.times[name])

    def ratios(self, pairs: list[tuple[str, str]]) -> None:
        """How many times faster each candidate is than its baseline (best times)."""
        print()
        for base, cand in pairs:
            print(f"- {cand} vs {base}: {self.t(base) / self.t(cand):.2f}x")

    def table(self, title: str, base: str, rows: float | None = None) -> None:
        print(f"\n### {title}\n")
        head = "| job | best s | all s | vs " + base + " |"
        if rows:
            head += " rows/s |"
        print(head)
        print("|" + "---|" * (head.count("|") - 1))
        for name, ts in self.times.items():
            line = f"| {name} | {best(ts):.2f} | {' '.join(f'{x:.2f}' for x in ts)} |"
            line += f" {self.t(base) / best(ts):.2f}x |"
            if rows:
                line += f" {rows / best(ts) / 1e6:.2f} M |"
            print(line)
        sys.stdout.flush()


def start_spark():
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = (
        SparkSession.builder.master("local[2]")
        .appName("lanesum-bench")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.driver.memory", "6g")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.host", "127.0.0.1")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def noop(df) -> None:
    df.write.format("noop").mode("overwrite").save()


# -- 1. the tree --------------------------------------------------------------------------


def hashlib_audit(spark, root: str, alg: str):
    """The baseline of the issue: the same shards of paths on the same executors, each
    file read and hashed with hashlib (``file_digest``), as a DataFrame."""
    from lanesum import _audit

    shards = _audit.plan(root, True, False, (), None, 2 * spark.sparkContext.defaultParallelism)

    def hash_paths(batches):
        import pyarrow as pa

        for batch in batches:
            paths, sizes, digests = [], [], []
            for item in _audit.items_of_batch(batch):
                with open(item[1], "rb") as f:
                    digests.append(hashlib.file_digest(f, alg).hexdigest())
                    sizes.append(f.tell())
                paths.append(item[1])
            yield pa.RecordBatch.from_pydict({"path": paths, "size": sizes, alg: digests})

    schema = f"path string, size long, {alg} string"
    return ls._distribute(spark, shards).mapInArrow(hash_paths, schema)


def bench_tree(spark, root: str, files: int, rounds: int) -> None:
    from pyspark.sql import functions as F

    def binary_file(fn, name):
        df = spark.read.format("binaryFile").option("recursiveFileLookup", "true").load(root)
        return df.select("path", "length", fn(F.col("content")).alias(name))

    spark_md5 = binary_file(F.md5, "md5")
    spark_sha256 = binary_file(lambda c: F.sha2(c, 256), "sha256")

    # Digests equal, every file, before timing (this also warms the page cache).
    audit = {r["path"]: r for r in ls.audit_files(spark, root, ["md5", "sha256"]).collect()}
    assert len(audit) == files and all(r["error"] is None for r in audit.values())
    for df, alg in [(spark_md5, "md5"), (spark_sha256, "sha256")]:
        for r in df.collect():
            a = audit[r["path"].removeprefix("file:")]
            assert (a["size"], a[alg]) == (r["length"], r[alg]), r["path"]
    for alg in ["md5", "sha256"]:
        for r in hashlib_audit(spark, root, alg).collect():
            assert audit[r["path"]][alg] == r[alg]
    print(f"  tree: {files} files, digests equal (audit, binaryFile, hashlib)", file=sys.stderr)

    t = Timer(rounds)
    t.run(
        [
            ("binaryFile + md5(content)", lambda: noop(spark_md5)),
            ("audit_files md5", lambda: noop(ls.audit_files(spark, root, "md5"))),
            ("hashlib loop md5 (executors)", lambda: noop(hashlib_audit(spark, root, "md5"))),
            ("binaryFile + sha2(content, 256)", lambda: noop(spark_sha256)),
            ("audit_files sha256", lambda: noop(ls.audit_files(spark, root, "sha256"))),
            ("hashlib loop sha256 (executors)", lambda: noop(hashlib_audit(spark, root, "sha256"))),
            (
                "audit_files md5+sha256 (one read)",
                lambda: noop(ls.audit_files(spark, root, ["md5", "sha256"])),
            ),
        ]
    )
    t.table(f"Spark local[2]: audit of {files:,} files (1 B-128 KiB)", "binaryFile + md5(content)")
    t.ratios(
        [
            ("binaryFile + md5(content)", "audit_files md5"),
            ("binaryFile + sha2(content, 256)", "audit_files sha256"),
            ("hashlib loop md5 (executors)", "audit_files md5"),
            ("hashlib loop sha256 (executors)", "audit_files sha256"),
        ]
    )


# -- 2. columns ---------------------------------------------------------------------------


def transfer_lengths(df, column: str):
    """The transfer alone: the column to the Python workers, its lengths back."""

    def lengths(batches):
        import pyarrow as pa
        import pyarrow.compute as pc

        for b in batches:
            yield pa.RecordBatch.from_arrays([pc.binary_length(b.column(column))], ["n"])

    return df.select(column).mapInArrow(lengths, "n int")


def transfer_hex_back(df, column: str):
    """The transfer with a digest's worth coming back: 32 constant hex characters a row."""

    def constant(batches):
        import pyarrow as pa

        for b in batches:
            out = pa.array(["0" * 32] * b.num_rows, pa.string())
            yield pa.RecordBatch.from_arrays([out], ["h"])

    return df.select(column).mapInArrow(constant, "h string")


def hashlib_column(df, column: str, alg: str):
    """The Python way today: a mapInArrow that hashes each value with hashlib."""

    def digests(batches):
        import pyarrow as pa

        for b in batches:
            out = [
                None if v is None else hashlib.new(alg, v).hexdigest()
                for v in b.column(column).to_pylist()
            ]
            yield pa.RecordBatch.from_arrays([pa.array(out, pa.string())], [alg])

    return df.select(column).mapInArrow(digests, f"{alg} string")


def bench_column(spark, rows: int, size: int, rounds: int) -> None:
    from pyspark.sql import functions as F

    # Distinct values, made by Spark itself and cached: sha2 of the row number as hex,
    # repeated to `size` bytes.
    reps = size // 32
    df = (
        spark.range(rows, numPartitions=4)
        .select(F.unhex(F.repeat(F.sha2(F.col("id").cast("string"), 256), reps)).alias("v"))
        .cache()
    )
    assert df.count() == rows

    # Digests equal to Spark's own, every row of the first 20,000.
    sample = df.limit(20_000)
    check = ls.hash_column(sample, "v", ["md5", "sha1", "sha256", "crc32"], keep=["v"])
    for r in check.select(
        "*",
        F.md5("v").alias("m"),
        F.sha1("v").alias("s1"),
        F.sha2("v", 256).alias("s2"),
        F.crc32("v").alias("c"),
    ).collect():
        assert (r["v_md5"], r["v_sha1"], r["v_sha256"]) == (r["m"], r["s1"], r["s2"])
        assert int(r["v_crc32"], 16) == r["c"]
        assert r["v_sha256"] == hashlib.sha256(r["v"]).hexdigest()
    print(f"  column {rows:,} x {size} B: digests equal", file=sys.stderr)

    def lanesum_col(alg):
        return lambda: noop(ls.hash_column(df, "v", alg, keep=[]))

    t = Timer(rounds)
    t.run(
        [
            ("Spark md5(v)", lambda: noop(df.select(F.md5("v")))),
            ("hash_column md5", lanesum_col("md5")),
            ("Spark sha2(v, 256)", lambda: noop(df.select(F.sha2("v", 256)))),
            ("hash_column sha256", lanesum_col("sha256")),
            ("Spark sha1(v)", lambda: noop(df.select(F.sha1("v")))),
            ("hash_column sha1", lanesum_col("sha1")),
            ("Spark crc32(v)", lambda: noop(df.select(F.crc32("v")))),
            ("hash_column crc32", lanesum_col("crc32")),
            ("mapInArrow hashlib md5", lambda: noop(hashlib_column(df, "v", "md5"))),
            ("mapInArrow hashlib sha256", lambda: noop(hashlib_column(df, "v", "sha256"))),
            ("transfer: in, lengths back", lambda: noop(transfer_lengths(df, "v"))),
            ("transfer: in, 32 hex back", lambda: noop(transfer_hex_back(df, "v"))),
        ]
    )
    t.table(f"Spark local[2]: a column of {rows:,} x {size} B", "Spark md5(v)", rows)
    t.ratios(
        [
            ("mapInArrow hashlib md5", "hash_column md5"),
            ("mapInArrow hashlib sha256", "hash_column sha256"),
            ("Spark md5(v)", "hash_column md5"),
            ("Spark sha2(v, 256)", "hash_column sha256"),
            ("Spark sha1(v)", "hash_column sha1"),
            ("Spark crc32(v)", "hash_column crc32"),
        ]
    )
    for alg in ["md5", "sha256"]:
        share = t.t("transfer: in, 32 hex back") / t.t(f"hash_column {alg}")
        print(f"- the transfer (in, 32 hex back) is {share:.0%} of hash_column {alg}'s time")
    df.unpersist()


# -- 3. Ray ---------------------------------------------------------------------------------


def bench_ray(root: str, files: int, rounds: int) -> None:
    import ray
    import ray.data

    import lanesum.ray as lr

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    ray.data.DataContext.get_current().enable_progress_bars = False
    logging.getLogger("ray.data").setLevel(logging.WARNING)

    def hashlib_batches(alg):
        def digests(batch):
            import pyarrow as pa

            out = [hashlib.new(alg, v).hexdigest() for v in batch.column("bytes").to_pylist()]
            return pa.table({"path": batch.column("path"), alg: pa.array(out, pa.string())})

        ds = ray.data.read_binary_files(root, include_paths=True)
        return ds.map_batches(digests, batch_format="pyarrow")

    # The audit equals the command's walk (`lanesum -r`'s pipeline) and hashlib.
    walk = {r.path: r.hexdigests["md5"] for r in lanesum.hash_files(root, "md5", recursive=True)}
    audit = {r["path"]: r["md5"] for r in lr.audit_files(root, "md5").take_all()}
    assert audit == walk and len(audit) == files
    base = {r["path"]: r["md5"] for r in hashlib_batches("md5").take_all()}
    assert base == audit
    print(f"  ray: {files} files, audit == walk == hashlib", file=sys.stderr)

    t = Timer(rounds)
    t.run(
        [
            ("read_binary_files + hashlib md5", lambda: hashlib_batches("md5").materialize()),
            ("lanesum.ray.audit_files md5", lambda: lr.audit_files(root, "md5").materialize()),
            (
                "read_binary_files + hash_column md5",
                lambda: (
                    lr.hash_column(
                        ray.data.read_binary_files(root, include_paths=True), "bytes", "md5"
                    )
                    .drop_columns(["bytes"])
                    .materialize()
                ),
            ),
            (
                "read_binary_files + hashlib sha256",
                lambda: hashlib_batches("sha256").materialize(),
            ),
            (
                "lanesum.ray.audit_files sha256",
                lambda: lr.audit_files(root, "sha256").materialize(),
            ),
        ]
    )
    t.table(f"Ray (2 CPUs): audit of {files:,} files", "read_binary_files + hashlib md5")
    t.ratios(
        [
            ("read_binary_files + hashlib md5", "lanesum.ray.audit_files md5"),
            ("read_binary_files + hashlib md5", "read_binary_files + hash_column md5"),
            ("read_binary_files + hashlib sha256", "lanesum.ray.audit_files sha256"),
        ]
    )
    ray.shutdown()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every size (0.1: tenth)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", default="tree,column,ray", help="sections: tree,column,ray")
    ap.add_argument("--tree", help="use (or make and keep) the tree in this folder")
    args = ap.parse_args()
    only = set(args.only.split(","))
    files = max(100, int(20_000 * args.scale))

    tmp = None
    root = args.tree
    if root is None:
        tmp = tempfile.mkdtemp(prefix="lanesum-bench-")
        root = os.path.join(tmp, "tree")
    if {"tree", "ray"} & only and not os.path.isdir(root):
        t = time.perf_counter()
        total = make_tree(root, files)
        print(f"  made {files} files, {total / 1e9:.2f} GB in {time.perf_counter() - t:.1f} s")
    load = os.getloadavg()
    print(f"lanesum {lanesum.isa_active()}, {os.cpu_count()} CPUs, load {load[0]:.1f} at start")
    try:
        if {"tree", "column"} & only:
            spark = start_spark()
            import pyspark

            print(f"pyspark {pyspark.__version__}, local[2]")
            if "tree" in only:
                bench_tree(spark, root, files, args.rounds)
            if "column" in only:
                bench_column(spark, max(1000, int(10_000_000 * args.scale)), 64, args.rounds)
                bench_column(spark, max(1000, int(1_000_000 * args.scale)), 1024, args.rounds)
            spark.stop()
        if "ray" in only:
            import ray

            print(f"\nray {ray.__version__}")
            bench_ray(root, files, args.rounds)
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
        load = os.getloadavg()
        print(f"\nload {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} at the end")


if __name__ == "__main__":
    main()
