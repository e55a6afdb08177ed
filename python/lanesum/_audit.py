"""What the Spark and Ray front ends share: the listing on the driver and the Arrow
batches the workers compute. Only the standard library and pyarrow (imported when a
batch is built), so that ``lanesum.spark`` and ``lanesum.ray`` stay thin wrappers and the
same code runs, and is tested, under both engines.

Work items: a tree is listed on the driver (as ``lanesum -r`` walks it: regular files
only, symlinks skipped unless followed, entries in name order) into items that the
workers hash with ``hash_files``:

* ``(FILE, path)``: one file, hashed as named;
* ``(TREE, path)``: a directory below the listing depth, walked by the worker;
* ``(ERROR, path, message)``: what the walk could not read (a directory without
  permission, a symlink loop), reported as a row in its place.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

FILE, TREE, ERROR = "file", "tree", "error"

#: Columns of an audit (manifest), digests between mtime and error.
PATH, SIZE, MTIME, ERROR_COL = "path", "size", "mtime", "error"
#: Field metadata key holding a digest column's algorithm name as given.
ALGORITHM_KEY = "lanesum.algorithm"


def algorithm_list(algorithms: str | Iterable[str]) -> list[str]:
    """One name or an iterable of names, checked against the library now (on the
    driver), so that a typo fails at once rather than in every task."""
    import lanesum

    algs = [algorithms] if isinstance(algorithms, str) else list(algorithms)
    if not algs:
        raise ValueError("at least one algorithm is needed")
    for a in algs:
        if not isinstance(a, str):
            raise TypeError(f"algorithm names must be str, not {type(a).__name__!r}")
        lanesum.digest_size(a)  # ValueError naming the known ones
    if len(set(map(column_suffix, algs))) != len(algs):
        raise ValueError(f"algorithms repeat: {algs}")
    return algs


def column_suffix(algorithm: str) -> str:
    """A column name for an algorithm: ``sha256``, ``sha512_256``, ``blake2b_256``."""
    return re.sub(r"[^0-9a-z]+", "_", algorithm.lower()).strip("_")


# -- the listing, on the driver ---------------------------------------------------------


def check_threads(threads: int | None) -> None:
    """``threads`` as ``hash_files`` takes it, checked on the driver (a bad value would
    fail every task, under a stack of the engine's)."""
    if threads is not None and (not isinstance(threads, int) or threads < 1):
        raise ValueError(f"threads must be None or at least 1, not {threads!r}")


def excludes(patterns: Sequence[str]) -> Any:
    """The walk's own matcher for ``exclude`` globs (``*`` stops at ``/``, ``**``,
    ``{a,b}``, ``\\`` escapes), compiled on the driver: a bad pattern is a ValueError
    now, and the listing skips exactly what a worker's walk of a deeper directory does."""
    from ._lanesum import _Excludes

    return _Excludes(list(patterns))


def _error_text(e: OSError) -> str:
    return f"[Errno {e.errno}] {e.strerror}" if e.errno else str(e)


def list_items(
    paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    recursive: bool = True,
    follow_symlinks: bool = False,
    exclude: Sequence[str] = (),
    list_depth: int | None = None,
) -> Iterator[tuple[str, ...]]:
    """Work items for ``paths`` in the order ``hash_files`` would report them.

    Directories are listed here down to ``list_depth`` levels (None: all the way); a
    directory deeper than that becomes one TREE item that a worker walks. Following
    symlinks, every level is listed here: a link below a handed-over directory could
    lead above it, a loop only the whole walk sees. Anything that is not a directory (or
    with ``recursive=False``, anything at all) is a FILE item, hashed as named: a
    missing file becomes an error row there, as for the command.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    skip = excludes(exclude)
    depth = None if follow_symlinks else list_depth
    for p in paths:
        p = os.fspath(p)
        if not isinstance(p, str):
            raise TypeError(f"paths must be str or os.PathLike[str], not {type(p).__name__!r}")
        if recursive and os.path.isdir(p):
            yield from _walk(p, follow_symlinks, skip, depth)
        else:
            yield (FILE, p)


def _walk(root: str, follow: bool, skip: Any, depth_left: int | None) -> Iterator[tuple[str, ...]]:
    """The items below the directory ``root``, depth first in name order. A stack of
    directories being listed rather than recursion: trees deeper than Python's
    recursion limit (1,000 levels) are walked too."""
    root_len = len(root)
    # Each frame: the entries of a directory left to visit, its (dev, ino) and path
    # mapped for the loop check of the directories below it, and its depth.
    stack: list[tuple[Iterator[os.DirEntry[str]], dict[tuple[int, int], str], int]] = []

    def enter(
        top: str, ancestors: dict[tuple[int, int], str], depth: int
    ) -> tuple[str, ...] | None:
        """List ``top`` onto the stack, or the item that stands for it instead."""
        try:
            st = os.stat(top)
            key = (st.st_dev, st.st_ino)
            if follow and key in ancestors:
                return (ERROR, top, f"File system loop detected: it leads back to {ancestors[key]}")
            if depth_left is not None and depth >= depth_left:
                return (TREE, top)
            with os.scandir(top) as it:
                entries = list(it)
        except OSError as e:
            return (ERROR, top, _error_text(e))
        # Whole-path byte order, as the command's walk sorts.
        entries.sort(key=lambda e: os.fsencode(e.name))
        stack.append((iter(entries), {**ancestors, key: top} if follow else ancestors, depth))
        return None

    first = enter(root, {}, 0)
    if first is not None:
        yield first
    while stack:
        entries, ancestors, depth = stack[-1]
        e = next(entries, None)
        if e is None:
            stack.pop()
            continue
        path = e.path
        if skip.matches(e.name, path[root_len:].lstrip("/")):
            continue
        try:
            if e.is_dir(follow_symlinks=follow):
                item = enter(path, ancestors, depth + 1)
                if item is not None:
                    yield item
            elif e.is_file(follow_symlinks=follow):
                yield (FILE, path)
            elif follow and e.is_symlink():
                os.stat(path)  # a dangling link: an error row, as the command's -L walk
            # Unfollowed symlinks, FIFOs, sockets and devices are skipped, as in a walk.
        except OSError as err:
            yield (ERROR, path, _error_text(err))


def shard(items: Sequence[Any], shards: int) -> list[list[Any]]:
    """``items`` cut into at most ``shards`` contiguous runs of nearly equal length
    (contiguous: neighbours in a directory stay together, and the order is kept)."""
    n = len(items)
    shards = max(1, min(shards, n))
    bounds = [n * i // shards for i in range(shards + 1)]
    return [list(items[a:b]) for a, b in zip(bounds, bounds[1:]) if b > a]


def plan(
    paths: Any,
    recursive: bool,
    follow_symlinks: bool,
    exclude: Sequence[str],
    list_depth: int | None,
    shards: int,
) -> list[list[tuple[str, ...]]]:
    """The listing of ``paths`` cut into at most ``shards`` runs of work items, each
    encoded as bytes (``encode_item``) for the trip to the workers."""
    items = list(list_items(paths, recursive, follow_symlinks, tuple(exclude), list_depth))
    return shard([encode_item(i) for i in items], shards)


def encode_item(item: Sequence[str]) -> list[bytes]:
    """A work item as the file system's bytes: a path that is not UTF-8 (held in a str
    with surrogate escapes) survives the trip through Spark's JVM, which turned each bad
    byte into U+FFFD, so that the worker opened another file or none."""
    return [os.fsencode(x) for x in item]


def decode_item(item: Sequence[bytes]) -> tuple[str, ...]:
    """``encode_item`` undone, on the worker."""
    return tuple(os.fsdecode(x) for x in item)


# -- the batches, on the workers --------------------------------------------------------


def digest_type(hex: bool) -> Any:
    import pyarrow as pa

    return pa.string() if hex else pa.binary()


def audit_schema(algorithms: Sequence[str], hex: bool) -> Any:
    """The Arrow schema of an audit: path, size, mtime, one digest column per
    algorithm (named by ``column_suffix``, the algorithm in the field's metadata), error."""
    import pyarrow as pa

    fields = [
        pa.field(PATH, pa.string()),
        pa.field(SIZE, pa.int64()),
        pa.field(MTIME, pa.timestamp("us", tz="UTC")),
    ]
    for a in algorithms:
        meta = {ALGORITHM_KEY: a}
        fields.append(pa.field(column_suffix(a), digest_type(hex), metadata=meta))
    fields.append(pa.field(ERROR_COL, pa.string()))
    return pa.schema(fields)


#: The error of a row whose path is not UTF-8 (Arrow text can't hold it).
NOT_UTF8 = "path is not valid UTF-8"


def _text_path(p: str | bytes) -> tuple[str, str | None]:
    """A path as Arrow text, and an error when it is not valid UTF-8 (the name is then
    written with backslash escapes, which no file system call can take back)."""
    if isinstance(p, bytes):
        p = os.fsdecode(p)
    try:
        p.encode("utf-8")
        return p, None
    except UnicodeEncodeError:
        raw = os.fsencode(p)
        return raw.decode("utf-8", "backslashreplace"), NOT_UTF8


class _Rows:
    """Columns of an audit, filled one file at a time."""

    def __init__(self, algorithms: Sequence[str], hex: bool) -> None:
        self.algorithms = list(algorithms)
        self.hex = hex
        self.path: list[str] = []
        self.size: list[int | None] = []
        self.mtime: list[int | None] = []
        self.digests: list[list[Any]] = [[] for _ in self.algorithms]
        self.error: list[str | None] = []

    def __len__(self) -> int:
        return len(self.path)

    def add(self, path: str, size: Any, mtime: Any, digests: Any, error: str | None) -> None:
        text, bad = _text_path(path)
        self.path.append(text)
        error = error or bad
        self.error.append(error)
        # An error row has no values, as the schema says: not even a non-UTF-8 path's,
        # whose row no later verify could find again.
        ok = error is None
        self.size.append(size if ok else None)
        self.mtime.append(mtime if ok else None)
        for col, a in zip(self.digests, self.algorithms):
            col.append(digests[a] if ok else None)

    def add_record(self, rec: Any) -> None:
        mtime = None
        if rec.error is None:
            try:
                # Followed, as hash_files followed it: a symlink named as an operand is
                # hashed through; a walk without following hashes no links at all.
                st = os.stat(rec.path)
                mtime = st.st_mtime_ns // 1000
            except OSError:
                pass  # gone since it was read: the digests still stand
        digests = rec.hexdigests if self.hex else rec.digests
        self.add(rec.path, rec.size, mtime, digests, rec.error)

    def batch(self) -> Any:
        import pyarrow as pa

        schema = audit_schema(self.algorithms, self.hex)
        cols = [self.path, self.size, self.mtime, *self.digests, self.error]
        arrays = [pa.array(c, type=f.type) for c, f in zip(cols, schema)]
        return pa.RecordBatch.from_arrays(arrays, schema=schema)


def audit_items(
    items: Iterable[Sequence[str]],
    algorithms: Sequence[str],
    hex: bool = True,
    follow_symlinks: bool = False,
    exclude: Sequence[str] = (),
    threads: int | None = None,
    batch_rows: int = 65536,
) -> Iterator[Any]:
    """Hash work items (see ``list_items``) with ``hash_files``; record batches of the
    audit schema. Every file is one row; one that cannot be read is a row with an error,
    never an exception (only bad arguments raise)."""
    import lanesum

    rows = _Rows(algorithms, hex)
    run: list[str] = []  # consecutive FILE items, hashed in one call

    def flush_files() -> None:
        if run:
            recs = lanesum.hash_files(
                run, algorithms, follow_symlinks=follow_symlinks, threads=threads
            )
            for rec in recs:
                rows.add_record(rec)
            run.clear()

    for item in items:
        kind, path = item[0], item[1]
        if kind == FILE:
            run.append(path)
            continue
        flush_files()
        if kind == ERROR:
            rows.add(path, None, None, {}, item[2])
        elif kind == TREE:
            recs = lanesum.hash_files(
                path,
                algorithms,
                recursive=True,
                follow_symlinks=follow_symlinks,
                threads=threads,
                exclude=list(exclude),
            )
            for rec in recs:
                rows.add_record(rec)
        else:
            raise ValueError(f"unknown work item {item!r}")
        if len(rows) >= batch_rows:
            yield rows.batch()
            rows = _Rows(algorithms, hex)
    flush_files()
    if len(rows):
        yield rows.batch()


#: The work-item table that is spread over the workers: one row per shard, its items
#: encoded (``encode_item``).
def items_schema() -> Any:
    import pyarrow as pa

    return pa.schema([pa.field("items", pa.list_(pa.list_(pa.binary())))])


def items_of_batch(batch: Any) -> Iterator[tuple[str, ...]]:
    """The work items held in a batch of ``items_schema`` rows, decoded."""
    for shard_items in batch.column("items").to_pylist():
        for item in shard_items or ():
            yield decode_item(item)


def hash_column_batch(
    batch: Any, column: str, algorithms: Sequence[str], names: Sequence[str], hex: bool
) -> Any:
    """``batch`` (an Arrow RecordBatch or Table) with one digest column per algorithm
    appended; nulls stay null."""
    import pyarrow as pa

    import lanesum

    values = batch.column(column)
    for a, name in zip(algorithms, names):
        out = lanesum.hash_array(values, a, hex=hex).cast(digest_type(hex))
        batch = batch.append_column(pa.field(name, out.type), out)
    return batch


def is_hex_type(t: Any) -> bool:
    """Whether a digest column's Arrow type holds hex text (else raw bytes)."""
    import pyarrow as pa

    return pa.types.is_string(t) or pa.types.is_large_string(t)


# -- verification, on the workers -------------------------------------------------------

#: Why a manifest row is reported by ``verify``.
CHANGED, MISSING, UNREADABLE = "changed", "missing", "unreadable"


def manifest_algorithms(
    fields: Iterable[tuple[str, dict[str, str]]], algorithms: Sequence[str] | None = None
) -> list[str]:
    """The algorithms of a manifest's digest columns, from its fields as (name,
    metadata) pairs: the algorithm named in a column's metadata, else the column's name.
    With ``algorithms``, only those (each must have its column)."""
    import lanesum

    def algorithm(name: str, meta: dict[str, str]) -> str | None:
        """A column's algorithm: its metadata's, else its name if that is one (other
        columns, carried beside the audit's, are no digests)."""
        if ALGORITHM_KEY in meta:
            return meta[ALGORITHM_KEY]
        try:
            lanesum.digest_size(name)
        except ValueError:
            return None
        return name

    skip = {PATH, SIZE, MTIME, ERROR_COL}
    found = {n: a for n, meta in fields if n not in skip and (a := algorithm(n, meta))}
    if algorithms is not None:
        wanted = {column_suffix(a): a for a in algorithms}
        missing = sorted(set(wanted) - set(found))
        if missing:
            raise ValueError(f"the manifest has no column for {missing}; it has {sorted(found)}")
        return [wanted[c] for c in found if c in wanted]
    if not found:
        raise ValueError("the manifest has no digest column")
    return list(found.values())


def verify_schema(algorithms: Sequence[str], hex: bool) -> Any:
    """What ``verify`` reports for each differing file: the manifest's values beside
    the current ones."""
    import pyarrow as pa

    fields = [
        pa.field(PATH, pa.string()),
        pa.field("status", pa.string()),
        pa.field("expected_size", pa.int64()),
        pa.field(SIZE, pa.int64()),
    ]
    for a in algorithms:
        c = column_suffix(a)
        fields.append(pa.field(f"expected_{c}", digest_type(hex)))
        fields.append(pa.field(c, digest_type(hex)))
    fields.append(pa.field(ERROR_COL, pa.string()))
    return pa.schema(fields)


class _Unhashable:
    """A record of a file that was not hashed, and why."""

    def __init__(self, error: str) -> None:
        self.error = error
        self.size = None


def verify_batch(
    batch: Any,
    algorithms: Sequence[str],
    hex: bool,
    follow_symlinks: bool = True,
    threads: int | None = None,
) -> Any:
    """The rows of a manifest batch whose file differs now: ``changed`` (size or a
    digest differs, or it was unreadable when audited), ``missing`` (no such path) or
    ``unreadable`` (there, but it cannot be read)."""
    import pyarrow as pa

    import lanesum

    paths = batch.column(PATH).to_pylist()
    sizes = batch.column(SIZE).to_pylist()
    errors = batch.column(ERROR_COL).to_pylist()
    cols = [column_suffix(a) for a in algorithms]
    expected = [batch.column(c).to_pylist() for c in cols]
    out: dict[str, list[Any]] = {f.name: [] for f in verify_schema(algorithms, hex)}
    # A path the audit could not hold as text names no file: it is reported, not looked
    # for (it would read as missing).
    lost = [e == NOT_UTF8 for e in errors]
    live = [p for p, gone in zip(paths, lost) if not gone]
    found = iter(
        lanesum.hash_files(live, algorithms, follow_symlinks=follow_symlinks, threads=threads)
    )
    for i in range(len(paths)):
        rec = _Unhashable(NOT_UTF8) if lost[i] else next(found)
        digests = (rec.hexdigests if hex else rec.digests) if rec.error is None else {}
        now = [digests.get(a) for a in algorithms]
        want = [e[i] for e in expected]
        if lost[i]:
            status = UNREADABLE
        elif rec.error is not None:
            status = UNREADABLE if os.path.lexists(paths[i]) else MISSING
        elif errors[i] is not None or sizes[i] != rec.size or now != want:
            status = CHANGED
        else:
            continue
        out[PATH].append(paths[i])
        out["status"].append(status)
        out["expected_size"].append(sizes[i])
        out[SIZE].append(rec.size)
        for c, w, n in zip(cols, want, now):
            out[f"expected_{c}"].append(w)
            out[c].append(n)
        out[ERROR_COL].append(rec.error)
    schema = verify_schema(algorithms, hex)
    arrays = [pa.array(out[f.name], type=f.type) for f in schema]
    return pa.RecordBatch.from_arrays(arrays, schema=schema)
