"""Data and oracles shared by the Spark and Ray tests: a tree of files of random sizes,
the bad cases an audit must turn into error rows, and hashlib's view of every file."""

from __future__ import annotations

import hashlib
import os
import random
import zlib
from pathlib import Path

#: Algorithms the audits compute, each with its independent oracle.
ORACLES = {
    "md5": lambda d: hashlib.md5(d).hexdigest(),
    "sha1": lambda d: hashlib.sha1(d).hexdigest(),
    "sha256": lambda d: hashlib.sha256(d).hexdigest(),
    "sha512": lambda d: hashlib.sha512(d).hexdigest(),
    "crc32": lambda d: f"{zlib.crc32(d):08x}",
    "blake2b-256": lambda d: hashlib.blake2b(d, digest_size=32).hexdigest(),
}


def make_tree(root: Path, files: int = 60, seed: int = 30) -> dict[str, bytes]:
    """Files of 0 B to 200 KiB (a few empty, one of 3 MiB) in nested folders; names
    never start with "_" or "." (Spark's and Ray's file readers skip those). Returns
    {absolute path: content}."""
    rng = random.Random(seed)
    out = {}
    for i in range(files):
        sub = ["", "a", "a/b", "c", "c/d/e"][i % 5]
        d = root / sub
        d.mkdir(parents=True, exist_ok=True)
        n = 0 if i % 17 == 0 else rng.choice([rng.randint(1, 300), rng.randint(1, 200_000)])
        if i == 7:
            n = 3 << 20
        data = rng.randbytes(n)
        p = d / f"f{i:03d}.bin"
        p.write_bytes(data)
        out[str(p)] = data
    return out


def hexdigests(data: bytes, algorithms: list[str]) -> dict[str, str]:
    return {a: ORACLES[a](data) for a in algorithms}


def column_suffix(alg: str) -> str:
    return alg.replace("-", "_")


def bad_paths(root: Path) -> dict[str, str | None]:
    """Paths that cannot be hashed, each named explicitly (not found by a walk), with
    the start of the error expected for it (None: root reads a chmod 000 file)."""
    root.mkdir(parents=True, exist_ok=True)
    gone = root / "gone.bin"
    dangling = root / "dangling"
    os.symlink(root / "nowhere", dangling)
    folder = root / "folder"
    folder.mkdir()
    locked = root / "locked.bin"
    locked.write_bytes(b"secret")
    os.chmod(locked, 0)
    denied = None if os.geteuid() == 0 else "[Errno 13]"
    return {
        str(gone): "[Errno 2]",
        str(dangling): "[Errno 2]",
        str(folder): "[Errno 21]",
        str(locked): denied,
    }


def manifest_changes(files: dict[str, bytes]) -> dict[str, str]:
    """Change a tree after its audit: {path: the status verify must give it}."""
    paths = sorted(files)
    changed, truncated, removed, dir_now = paths[1], paths[2], paths[3], paths[4]
    data = bytearray(files[changed] or b"x")
    data[0] ^= 1
    Path(changed).write_bytes(bytes(data))  # same size, one bit differs
    Path(truncated).write_bytes(files[truncated][:-1] if files[truncated] else b"new")
    os.remove(removed)
    os.remove(dir_now)
    os.mkdir(dir_now)  # there, but a directory: unreadable as a file
    return {changed: "changed", truncated: "changed", removed: "missing", dir_now: "unreadable"}


def binary_values(rows: int = 3000, seed: int = 29) -> list[bytes | None]:
    """Column values: nulls, empty values, and random lengths up to 3 KiB."""
    rng = random.Random(seed)
    out: list[bytes | None] = []
    for i in range(rows):
        if i % 11 == 0:
            out.append(None)
        elif i % 13 == 0:
            out.append(b"")
        else:
            out.append(rng.randbytes(rng.choice([rng.randint(1, 64), rng.randint(1, 3072)])))
    return out


def check_bad_rows(rows: list, bad: dict[str, str | None]) -> None:
    """Audit rows (mappings) of the paths ``bad_paths`` made: each one row, with the
    error it must have and no digests (or, where root read it, the right digest)."""
    assert [r["path"] for r in rows] == list(bad)
    for r in rows:
        expected = bad[r["path"]]
        if expected is None:  # root reads a chmod 000 file
            assert r["error"] is None and r["sha256"] == ORACLES["sha256"](b"secret")
        else:
            assert r["error"].startswith(expected), r
            assert r["size"] is r["sha256"] is r["mtime"] is None


def check_verify(diff_rows: list, files: dict[str, bytes], expected: dict[str, str]) -> None:
    """``verify``'s rows (mappings, digests sha256 and blake2b-256 as hex) after
    ``manifest_changes``: exactly the changed files, with what was and what is."""
    diff = {r["path"]: r for r in diff_rows}
    assert {p: r["status"] for p, r in diff.items()} == expected
    for p, r in diff.items():
        assert r["expected_sha256"] == ORACLES["sha256"](files[p])
        assert r["expected_blake2b_256"] == ORACLES["blake2b-256"](files[p])
        assert r["expected_size"] == len(files[p])
        if expected[p] == "changed":
            now = Path(p).read_bytes()
            assert r["sha256"] == ORACLES["sha256"](now) and r["size"] == len(now)
            assert r["blake2b_256"] == ORACLES["blake2b-256"](now) and r["error"] is None
        else:
            assert r["error"] and r["sha256"] is None and r["size"] is None
