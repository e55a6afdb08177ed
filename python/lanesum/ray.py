"""lanesum inside Ray Data: digests of a column, and audits of file trees hashed by
Ray's workers, through ``Dataset.map_batches(..., batch_format="pyarrow")``.

* ``hash_column(ds, column, algorithms)``: one digest column per algorithm, with
  ``lanesum.hash_array`` (for instance over ``ray.data.read_binary_files``' ``bytes``);
* ``audit_files(paths, algorithms)``: a Dataset of (path, size, mtime, one digest column
  per algorithm, error), the tree listed here and its files hashed by the workers with
  ``lanesum.hash_files``, one shard of files per task;
* ``verify(manifest_ds)``: the files of a manifest that differ now;
* ``write_manifest`` / ``read_manifest``: manifests as Parquet.

The same columns and rules as ``lanesum.spark``. Workers need lanesum installed (or a
``runtime_env`` that installs it: see docs/scale-out.md) and the files at the same paths.
ray is imported only when these functions run.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from . import _audit

if TYPE_CHECKING:
    from ray.data import Dataset

__all__ = ["audit_files", "hash_column", "read_manifest", "verify", "write_manifest"]


def hash_column(
    ds: Dataset,
    column: str,
    algorithms: str | Iterable[str],
    hex: bool = True,
    **map_batches_args: Any,
) -> Dataset:
    """``ds`` with one digest column per algorithm, named ``<column>_<algorithm>``:
    lowercase hex strings, or with ``hex=False`` binary. ``column`` holds binary or
    string values; nulls stay null. Other keyword arguments go to ``map_batches``
    (``batch_size``, ``concurrency``, ...)."""
    algs = _audit.algorithm_list(algorithms)
    names = [f"{column}_{_audit.column_suffix(a)}" for a in algs]
    # Checked now where the schema is known without running anything (read_parquet,
    # from_arrow, ...); else in each task.
    schema = ds.schema(fetch_if_missing=False)
    if schema is not None:
        _check_column(getattr(schema, "base_schema", schema), column, names)

    def digests(batch: Any) -> Any:
        _check_column(batch.schema, column, names)
        return _audit.hash_column_batch(batch, column, algs, names, hex)

    map_batches_args.setdefault("batch_size", 65536)
    return ds.map_batches(digests, batch_format="pyarrow", **map_batches_args)


def _check_column(schema: Any, column: str, names: Sequence[str]) -> None:
    """``column`` is in ``schema`` and holds binary or string values; no digest column
    name is taken: ValueError or TypeError as Spark's ``hash_column`` raises."""
    import pyarrow as pa

    if column not in schema.names:
        raise ValueError(f"no column {column!r}; the dataset has {schema.names}")
    t = schema.field(column).type
    if not (
        pa.types.is_binary(t)
        or pa.types.is_large_binary(t)
        or pa.types.is_string(t)
        or pa.types.is_large_string(t)
        or getattr(pa.types, "is_binary_view", lambda _: False)(t)
        or getattr(pa.types, "is_string_view", lambda _: False)(t)
    ):
        raise TypeError(f"column {column!r} is {t}, not binary or string")
    clash = sorted(set(names) & set(schema.names))
    if clash:
        raise ValueError(f"the dataset already has columns {clash}")


def audit_files(
    paths: str | Iterable[str],
    algorithms: str | Iterable[str] = ("sha256",),
    recursive: bool = True,
    follow_symlinks: bool = False,
    exclude: Sequence[str] = (),
    hex: bool = True,
    list_depth: int | None = None,
    blocks: int | None = None,
    threads: int | None = None,
    **map_batches_args: Any,
) -> Dataset:
    """Hash files on Ray's workers: a Dataset with one row per file (path, size, mtime,
    one digest column per algorithm, error), as ``lanesum.spark.audit_files`` (same
    arguments and rules; a file that cannot be read is a row with ``error`` set).
    ``blocks`` (default: twice the cluster's CPUs) is how many tasks share the files.
    Rows come in walk order only with ``DataContext.execution_options.preserve_order``.
    """
    import ray
    import ray.data

    algs = _audit.algorithm_list(algorithms)
    _audit.check_threads(threads)
    if blocks is None:
        blocks = 2 * max(1, int(ray.cluster_resources().get("CPU", 1)))
    shards = _audit.plan(paths, recursive, follow_symlinks, exclude, list_depth, blocks)
    excl = tuple(exclude)

    def hash_shard(batch: Any) -> Any:
        import pyarrow as pa

        out = list(
            _audit.audit_items(
                _audit.items_of_batch(batch), algs, hex, follow_symlinks, excl, threads
            )
        )
        return pa.Table.from_batches(out, schema=_audit.audit_schema(algs, hex))

    rows = [{"items": s} for s in shards]
    ds = ray.data.from_items(rows, override_num_blocks=max(1, len(rows)))
    # batch_size=None: one call per shard, the whole shard handed to hash_files at once.
    map_batches_args.setdefault("batch_size", None)
    return ds.map_batches(hash_shard, batch_format="pyarrow", **map_batches_args)


def _schema(ds: Dataset) -> Any:
    """A Dataset's Arrow schema."""
    schema = ds.schema()
    return getattr(schema, "base_schema", schema)


def _fields(ds: Dataset) -> list[tuple[str, dict[str, str]]]:
    out = []
    for f in _schema(ds):
        meta = {k.decode(): v.decode() for k, v in (getattr(f, "metadata", None) or {}).items()}
        out.append((f.name, meta))
    return out


def verify(
    manifest_ds: Dataset,
    algorithms: Sequence[str] | None = None,
    follow_symlinks: bool = True,
    threads: int | None = None,
    **map_batches_args: Any,
) -> Dataset:
    """The files of a manifest Dataset that differ now: path, status (``changed``,
    ``missing`` or ``unreadable``), expected_size, size, ``expected_<alg>`` and
    ``<alg>`` per algorithm, error; as ``lanesum.spark.verify``."""
    import pyarrow as pa

    fields = _fields(manifest_ds)
    algs = _audit.manifest_algorithms(fields, algorithms)
    _audit.check_threads(threads)
    hex = _audit.is_hex_type(_schema(manifest_ds).field(_audit.column_suffix(algs[0])).type)

    def check(batch: Any) -> Any:
        out = _audit.verify_batch(batch, algs, hex, follow_symlinks, threads)
        return pa.Table.from_batches([out])

    return manifest_ds.map_batches(check, batch_format="pyarrow", **map_batches_args)


def write_manifest(ds: Dataset, path: str, **write_args: Any) -> None:
    """Write an audit as Parquet (``ds.write_parquet(path)``); the digest columns keep
    their algorithm names in the Arrow field metadata."""
    ds.write_parquet(path, **write_args)


def read_manifest(path: str, **read_args: Any) -> Dataset:
    """A manifest written by ``write_manifest`` (``ray.data.read_parquet(path)``)."""
    import ray.data

    return ray.data.read_parquet(path, **read_args)
