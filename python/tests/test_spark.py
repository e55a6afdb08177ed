"""lanesum.spark on a real local Spark (local[2]): digests row for row against Spark's
own md5/sha1/sha2/crc32 and hashlib, audits against binaryFile and the command's walk,
bad files as error rows, manifests through Parquet and verify."""

from __future__ import annotations

import os
import sys

import pytest

pyspark = pytest.importorskip("pyspark")
pa = pytest.importorskip("pyarrow")

from scale_out import (  # noqa: E402
    ORACLES,
    bad_paths,
    binary_values,
    check_bad_rows,
    check_verify,
    column_suffix,
    hexdigests,
    make_tree,
    manifest_changes,
)

import lanesum  # noqa: E402
import lanesum.spark as ls  # noqa: E402

ALGS = ["md5", "sha1", "sha256", "sha512", "crc32", "blake2b-256"]


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession

    # The executors' Python is this one (it has lanesum); lean settings: two cores, no UI.
    os.environ["PYSPARK_PYTHON"] = sys.executable
    session = (
        SparkSession.builder.master("local[2]")
        .appName("lanesum-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.sql.execution.arrow.maxRecordsPerBatch", "1000")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def test_hash_column_equals_spark_and_hashlib(spark):
    from pyspark.sql import functions as F

    values = binary_values()
    texts = [None if v is None else v.hex()[: len(v) % 200] + "é€" for v in values]
    # Two partitions of several Arrow batches each (maxRecordsPerBatch=1000).
    df = spark.createDataFrame(
        list(zip(range(len(values)), values, texts)), "id long, v binary, t string"
    )
    out = ls.hash_column(df, "v", ALGS)
    builtins = {
        "md5": F.md5("v"),
        "sha1": F.sha1("v"),
        "sha256": F.sha2("v", 256),
        "sha512": F.sha2("v", 512),
        "crc32": F.lpad(F.lower(F.hex(F.crc32("v"))), 8, "0"),
    }
    cols = [F.col(f"v_{column_suffix(a)}") for a in ALGS]
    rows = out.select("id", "v", *cols, *[c.alias(f"spark_{a}") for a, c in builtins.items()])
    rows = rows.collect()
    assert sorted(r["id"] for r in rows) == list(range(len(values)))
    for r in rows:
        v = values[r["id"]]
        assert r["v"] == v
        for a in ALGS:
            got = r[f"v_{column_suffix(a)}"]
            assert got == (None if v is None else ORACLES[a](v)), (r["id"], a)
            if a in builtins:
                assert got == r[f"spark_{a}"], (r["id"], a)

    # Strings are hashed as their UTF-8 bytes, as Spark's sha2 does; raw bytes with hex=False.
    t = ls.hash_column(df, "t", ["sha256"], hex=False).select("t", "t_sha256", F.sha2("t", 256))
    for text, raw, spark_hex in t.collect():
        assert (raw is None) == (text is None)
        if text is not None:
            assert raw.hex() == spark_hex == ORACLES["sha256"](text.encode())


def test_hash_column_bad_arguments(spark):
    df = spark.createDataFrame([(1, b"x")], "n int, v binary")
    with pytest.raises(ValueError, match="sha256"):
        ls.hash_column(df, "v", ["nosuch"])
    with pytest.raises(ValueError, match="no column"):
        ls.hash_column(df, "w", "md5")
    with pytest.raises(TypeError, match="not binary or string"):
        ls.hash_column(df, "n", "md5")
    with pytest.raises(ValueError, match="already has"):
        ls.hash_column(ls.hash_column(df, "v", "md5"), "v", "md5")
    with pytest.raises(ValueError, match="to keep"):
        ls.hash_column(df, "v", "md5", keep=["zz"])
    # Names with a dot (a struct field's path to Spark, unquoted) are columns like any
    # other. (A backtick in a name fails in Spark's own mapInArrow.)
    odd = spark.createDataFrame([(b"x", "t")], "`v.1` binary, `my.tag` string")
    (row,) = ls.hash_column(odd, "v.1", "md5").collect()
    assert (row["my.tag"], row["v.1_md5"]) == ("t", ORACLES["md5"](b"x"))
    # Bad arguments of the audits fail on the driver, not in every task.
    with pytest.raises(ValueError, match="threads"):
        ls.audit_files(spark, ".", threads=0)
    with pytest.raises(ValueError, match="exclude"):
        ls.audit_files(spark, ".", exclude=["["])
    # Only the kept columns come back beside the digests.
    only = ls.hash_column(df, "v", ["md5", "sha1"], keep=["n"])
    assert only.columns == ["n", "v_md5", "v_sha1"]
    assert [tuple(r) for r in only.collect()] == [(1, ORACLES["md5"](b"x"), ORACLES["sha1"](b"x"))]


def test_audit_of_names_that_are_not_utf8(spark, tmp_path):
    """Such a name crossed Spark's JVM as U+FFFD: a file beside it so named was hashed
    in its place (two rows of one digest). Each now has its own row."""
    raw = os.fsencode(tmp_path) + b"/x\xff"
    with open(raw, "wb") as f:
        f.write(b"latin-1 named")
    (tmp_path / "x\ufffd").write_bytes(b"utf-8 named")
    for depth in (None, 0):
        rows = ls.audit_files(spark, str(tmp_path), "sha256", list_depth=depth).collect()
        assert [(r.sha256, r.error) for r in rows] == [
            (ORACLES["sha256"](b"utf-8 named"), None),
            (None, "path is not valid UTF-8"),
        ], depth


def test_audit_equals_binaryfile_walk_and_hashlib(spark, tmp_path):
    from pyspark.sql import functions as F

    files = make_tree(tmp_path / "tree")
    root = str(tmp_path / "tree")
    audit = ls.audit_files(spark, root, ALGS, partitions=5)
    rows = audit.collect()
    # The command's walk: the same files in the same order (contiguous shards keep it).
    walk = list(lanesum.hash_files(root, ALGS, recursive=True))
    assert [r["path"] for r in rows] == [w.path for w in walk] == sorted(files)
    for r, w in zip(rows, walk):
        data = files[r["path"]]
        assert r["error"] is None and r["size"] == len(data) == w.size
        assert r["mtime"].timestamp() == pytest.approx(os.stat(r["path"]).st_mtime, abs=1e-5)
        want = hexdigests(data, ALGS)
        assert {a: r[column_suffix(a)] for a in ALGS} == want == w.hexdigests

    # Spark's own way: binaryFile and its built-ins, row for row.
    spark_rows = (
        spark.read.format("binaryFile")
        .option("recursiveFileLookup", "true")
        .load(root)
        .select(
            "path",
            "length",
            F.md5("content").alias("md5"),
            F.sha2("content", 256).alias("sha256"),
            F.sha1("content").alias("sha1"),
            F.crc32("content").alias("crc32"),
        )
        .collect()
    )
    by_path = {r["path"]: r for r in rows}
    # binaryFile leaves empty files out; the audit has them.
    assert len(spark_rows) == sum(len(d) > 0 for d in files.values())
    for s in spark_rows:
        r = by_path[s["path"].removeprefix("file:")]
        assert (r["size"], r["md5"], r["sha256"], r["sha1"]) == tuple(s)[1:5]
        assert int(r["crc32"], 16) == s["crc32"]


def test_bad_files_are_rows_never_failed_tasks(spark, tmp_path):
    files = make_tree(tmp_path / "tree", files=12)
    bad = bad_paths(tmp_path / "bad")
    good = sorted(files)[0]
    # Named explicitly, without recursion: each path is one row.
    rows = ls.audit_files(spark, [good, *bad], ["sha256"], recursive=False).collect()
    assert [r["path"] for r in rows] == [good, *bad]
    assert rows[0]["sha256"] == ORACLES["sha256"](files[good])
    check_bad_rows(rows[1:], bad)

    # Vanished: listed on the driver, gone when the executors come to it.
    audit = ls.audit_files(spark, str(tmp_path / "tree"), ["md5"])
    vanished = sorted(files)[5]
    os.remove(vanished)
    rows = {r["path"]: r for r in audit.collect()}
    assert len(rows) == len(files)
    assert rows[vanished]["error"].startswith("[Errno 2]")
    assert sum(r["error"] is None for r in rows.values()) == len(files) - 1


def test_listing_depth_and_partitions_change_nothing(spark, tmp_path):
    files = make_tree(tmp_path / "tree", files=40)
    root = str(tmp_path / "tree")
    full = ls.audit_files(spark, root, ["sha256"]).collect()
    for depth, parts in [(0, 1), (2, 64)]:
        got = ls.audit_files(spark, root, ["sha256"], list_depth=depth, partitions=parts)
        assert sorted(got.collect()) == sorted(full)
    assert len(full) == len(files)


def test_manifest_roundtrip_and_verify(spark, tmp_path):
    files = make_tree(tmp_path / "tree", files=30)
    algs = ["sha256", "blake2b-256"]
    manifest = str(tmp_path / "manifest.parquet")
    ls.write_manifest(ls.audit_files(spark, str(tmp_path / "tree"), algs), manifest)
    back = ls.read_manifest(spark, manifest)
    assert back.schema["blake2b_256"].metadata == {"lanesum.algorithm": "blake2b-256"}
    assert back.count() == len(files)
    assert ls.verify(back).count() == 0

    expected = manifest_changes(files)
    check_verify(ls.verify(back).collect(), files, expected)
    # One algorithm of the manifest's two; binary digests (hex=False) compare as bytes.
    assert ls.verify(back, algorithms=["sha256"]).count() == len(expected)
    with pytest.raises(ValueError, match="no column"):
        ls.verify(back, algorithms=["md5"])
    raw = str(tmp_path / "raw.parquet")
    ls.write_manifest(ls.audit_files(spark, str(tmp_path / "tree"), "md5", hex=False), raw)
    assert ls.verify(ls.read_manifest(spark, raw)).count() == 0
