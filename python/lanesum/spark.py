"""lanesum inside Spark: digests of a column, and audits of file trees hashed on the
executors.

* ``hash_column(df, column, algorithms)``: one digest column per algorithm, computed
  through ``DataFrame.mapInArrow`` (Spark 3.4 and later) with ``lanesum.hash_array``;
* ``audit_files(spark, paths, algorithms)``: a DataFrame of (path, size, mtime, one digest
  column per algorithm, error), the files hashed by the executors with
  ``lanesum.hash_files``: the tree is listed on the driver and its files cut into
  shards, one per task;
* ``verify(manifest_df)``: the files of a manifest (an earlier audit) that differ now;
* ``write_manifest`` / ``read_manifest``: manifests as Parquet.

The executors need lanesum installed (or shipped: see docs/scale-out.md) and the files
at the same paths as the driver sees them (local in ``local[N]``, a shared or mounted
file system on a cluster). pyspark is imported only when these functions run.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from . import _audit

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["audit_files", "hash_column", "read_manifest", "verify", "write_manifest"]


def _digest_type(hex: bool) -> Any:
    from pyspark.sql.types import BinaryType, StringType

    return StringType() if hex else BinaryType()


def hash_column(
    df: DataFrame,
    column: str,
    algorithms: str | Iterable[str],
    hex: bool = True,
    keep: Iterable[str] | None = None,
) -> DataFrame:
    """``df`` with one digest column per algorithm, named ``<column>_<algorithm>``
    (``content_sha256``, ``content_blake2b_256``): lowercase hex strings, or with
    ``hex=False`` binary. ``column`` is a binary or string column; nulls stay null.

    ``keep``: the columns of ``df`` to carry through beside the digests (default: all).
    Every kept column travels to the Python workers and back through Arrow; leaving
    the hashed values out (``keep=["id"]``) halves what moves for wide values.

    The digests equal Spark's ``md5``/``sha1``/``sha2``/``crc32`` (as hex; a CRC-32 is
    big-endian bytes where Spark's ``crc32`` gives a number).
    """
    from pyspark.sql.types import BinaryType, StringType, StructField, StructType

    algs = _audit.algorithm_list(algorithms)
    if column not in df.columns:
        raise ValueError(f"no column {column!r}; the frame has {df.columns}")
    if not isinstance(df.schema[column].dataType, (BinaryType, StringType)):
        raise TypeError(f"column {column!r} is {df.schema[column].dataType}, not binary or string")
    kept = list(df.columns) if keep is None else list(keep)
    unknown = sorted(set(kept) - set(df.columns))
    if unknown:
        raise ValueError(f"no columns {unknown} to keep; the frame has {df.columns}")
    names = [f"{column}_{_audit.column_suffix(a)}" for a in algs]
    clash = sorted(set(names) & set(kept))
    if clash:
        raise ValueError(f"the frame already has columns {clash}")
    fields = [
        StructField(n, _digest_type(hex), True, {_audit.ALGORITHM_KEY: a})
        for n, a in zip(names, algs)
    ]
    schema = StructType([df.schema[c] for c in kept] + fields)
    # Through the workers under plain names: Spark reads "my.tag" as field tag of a
    # struct my, in a select and inside mapInArrow itself. The schema has the real ones.
    cols = list(dict.fromkeys([*kept, column]))
    alias = {c: f"_c{i}" for i, c in enumerate(cols)}
    source = df.select(*(_quoted(c).alias(alias[c]) for c in cols))
    digest_aliases = [f"_d{i}" for i in range(len(names))]
    out_aliases = [alias[c] for c in kept] + digest_aliases
    out_names = kept + names

    def digests(batches: Iterable[Any]) -> Iterable[Any]:
        for batch in batches:
            out = _audit.hash_column_batch(batch, alias[column], algs, digest_aliases, hex)
            yield out.select(out_aliases).rename_columns(out_names)

    return source.mapInArrow(digests, schema)


def _quoted(name: str) -> Any:
    """The column called ``name``, whatever its characters (dots, backticks)."""
    from pyspark.sql import functions as F

    return F.col("`" + name.replace("`", "``") + "`")


def _spark_schema(schema: Any) -> Any:
    """The Spark schema of one of ``_audit``'s Arrow schemas (string, binary, int64 and
    timestamp fields), field metadata kept."""
    import pyarrow as pa
    from pyspark.sql.types import (
        BinaryType,
        LongType,
        StringType,
        StructField,
        StructType,
        TimestampType,
    )

    def spark_type(t: Any) -> Any:
        if pa.types.is_string(t):
            return StringType()
        if pa.types.is_binary(t):
            return BinaryType()
        if pa.types.is_int64(t):
            return LongType()
        if pa.types.is_timestamp(t):
            return TimestampType()
        raise TypeError(f"no Spark type for {t}")

    fields = []
    for f in schema:
        meta = {k.decode(): v.decode() for k, v in (f.metadata or {}).items()}
        fields.append(StructField(f.name, spark_type(f.type), True, meta))
    return StructType(fields)


def audit_schema(algorithms: Sequence[str], hex: bool = True) -> Any:
    """The Spark schema of an audit: path, size, mtime, one digest column per algorithm
    (``sha256``, ``blake2b_256``; the algorithm's name in the column's metadata), error."""
    return _spark_schema(_audit.audit_schema(list(algorithms), hex))


def _distribute(spark: SparkSession, shards: list[list[Any]]) -> DataFrame:
    """A DataFrame of one row per shard, one partition per shard, in order."""
    schema = "items array<array<binary>>"
    rows = [(s,) for s in shards]
    try:
        sc = spark.sparkContext
    except Exception:  # Spark Connect has no SparkContext: order is then not kept
        return spark.createDataFrame(rows, schema).repartition(max(1, len(rows)))
    return spark.createDataFrame(sc.parallelize(rows, max(1, len(rows))), schema)


def audit_files(
    spark: SparkSession,
    paths: str | Iterable[str],
    algorithms: str | Iterable[str] = ("sha256",),
    recursive: bool = True,
    follow_symlinks: bool = False,
    exclude: Sequence[str] = (),
    hex: bool = True,
    list_depth: int | None = None,
    partitions: int | None = None,
    threads: int | None = None,
) -> DataFrame:
    """Hash files on the executors: a DataFrame with one row per file, as
    ``audit_schema`` describes. A file that cannot be read (missing, no permission, a
    directory named without ``recursive``) is a row with ``error`` set and null size,
    mtime and digests: it never fails a task.

    ``paths``: files and directories (walked when ``recursive``, as ``lanesum -r`` walks:
    regular files in name order, symlinks skipped unless ``follow_symlinks``,
    ``exclude`` glob patterns matched against names and paths below each directory).
    The driver lists directories down to ``list_depth`` levels (None: all) and hands
    deeper ones whole to an executor, for trees too large to list in one process
    (an ``exclude`` pattern with a ``/`` then matches paths below each such directory;
    following symlinks, it lists every level: a loop can lead above a directory).
    ``partitions`` (default: twice ``spark.sparkContext.defaultParallelism``) is how many
    tasks share the files, in contiguous runs; ``threads`` caps each task's hashing
    threads (default: all the cores the executor has).
    The DataFrame is lazy: the hashing runs when an action (``write``, ``count``,
    ``collect``) does; the listing runs now.
    """
    algs = _audit.algorithm_list(algorithms)
    _audit.check_threads(threads)
    if partitions is None:
        try:
            partitions = 2 * spark.sparkContext.defaultParallelism
        except Exception:
            partitions = 8
    shards = _audit.plan(paths, recursive, follow_symlinks, exclude, list_depth, partitions)
    excl = tuple(exclude)

    def hash_shards(batches: Iterable[Any]) -> Iterable[Any]:
        for batch in batches:
            yield from _audit.audit_items(
                _audit.items_of_batch(batch), algs, hex, follow_symlinks, excl, threads
            )

    return _distribute(spark, shards).mapInArrow(hash_shards, audit_schema(algs, hex))


def _fields(df: DataFrame) -> list[tuple[str, dict[str, str]]]:
    return [(f.name, dict(f.metadata or {})) for f in df.schema.fields]


def verify(
    manifest_df: DataFrame,
    algorithms: Sequence[str] | None = None,
    follow_symlinks: bool = True,
    threads: int | None = None,
) -> DataFrame:
    """The files of a manifest (an ``audit_files`` result, or one read back with
    ``read_manifest``) that differ now, hashed again where the manifest's partitions
    are: path, status (``changed``, ``missing`` or ``unreadable``), expected_size, size,
    ``expected_<alg>`` and ``<alg>`` for each algorithm, error. An empty DataFrame
    means every file is as recorded. ``algorithms``: a subset of the manifest's
    digest columns to check (default: all of them).
    """
    from pyspark.sql.types import StringType

    algs = _audit.manifest_algorithms(_fields(manifest_df), algorithms)
    _audit.check_threads(threads)
    hex = isinstance(manifest_df.schema[_audit.column_suffix(algs[0])].dataType, StringType)
    schema = _spark_schema(_audit.verify_schema(algs, hex))
    cols = [_audit.PATH, _audit.SIZE, _audit.ERROR_COL] + [_audit.column_suffix(a) for a in algs]

    def check(batches: Iterable[Any]) -> Iterable[Any]:
        for batch in batches:
            yield _audit.verify_batch(batch, algs, hex, follow_symlinks, threads)

    return manifest_df.select(*map(_quoted, cols)).mapInArrow(check, schema)


def write_manifest(df: DataFrame, path: str, mode: str = "errorifexists") -> None:
    """Write an audit as Parquet (``df.write.mode(mode).parquet(path)``); the digest
    columns keep their algorithm names in Spark's schema metadata."""
    df.write.mode(mode).parquet(path)


def read_manifest(spark: SparkSession, path: str) -> DataFrame:
    """A manifest written by ``write_manifest`` (``spark.read.parquet(path)``)."""
    return spark.read.parquet(path)
