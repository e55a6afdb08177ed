"""Independent implementations to check lanesum against, by lanesum algorithm name.

Each algorithm the library lists gets the oracle that exists for it in Python (hashlib,
the blake3 and xxhash packages, zlib, crc32c), or None: then the tests that need an
oracle skip it, and the cross-checks between lanesum's own entry points still run.
"""

from __future__ import annotations

import hashlib
import zlib
from typing import Callable

import lanesum

Oracle = Callable[[bytes], bytes]


def _hashlib(name: str, **kw) -> Oracle | None:
    if name not in hashlib.algorithms_available:
        return None
    try:
        hashlib.new(name, b"", **kw)
    except (ValueError, TypeError):
        return None
    return lambda data: hashlib.new(name, data, **kw).digest()


def _blake3(n: int) -> Oracle | None:
    try:
        import blake3
    except ImportError:
        return None
    return lambda data: blake3.blake3(data).digest(length=n)


def _xxhash(fn: str) -> Oracle | None:
    try:
        import xxhash
    except ImportError:
        return None
    f = getattr(xxhash, fn + "_digest", None)
    return f


def _crc32c() -> Oracle | None:
    try:
        import crc32c
    except ImportError:
        return None
    return lambda data: crc32c.crc32c(data).to_bytes(4, "big")


def _btv2(data: bytes) -> bytes:
    """BEP 52 pieces root: a SHA-256 Merkle tree over 16 KiB blocks, padded with zero
    leaves to a power of two; an empty input gives 32 zero bytes (lanesum's choice)."""
    if not data:
        return bytes(32)
    block = 16 << 10
    leaves = [hashlib.sha256(data[i : i + block]).digest() for i in range(0, len(data), block)]
    n = 1
    while n < len(leaves):
        n *= 2
    leaves += [bytes(32)] * (n - len(leaves))
    while len(leaves) > 1:
        leaves = [
            hashlib.sha256(leaves[i] + leaves[i + 1]).digest() for i in range(0, len(leaves), 2)
        ]
    return leaves[0]


def oracle(name: str) -> Oracle | None:
    """The oracle for a lanesum algorithm name at its default length, or None."""
    n = name.replace("_", "-").lower()
    size = lanesum.digest_size(n)
    if n.startswith("blake3"):
        return _blake3(size)
    if n.startswith("blake2b") and not n.startswith("blake2bp"):
        return _hashlib("blake2b", digest_size=size)
    if n.startswith("blake2s") and not n.startswith("blake2sp"):
        return _hashlib("blake2s", digest_size=size)
    if n == "btv2":
        return _btv2
    if n in ("crc32", "crc-32", "crc32-iso-hdlc"):
        return lambda data: zlib.crc32(data).to_bytes(4, "big")
    if n in ("crc32c", "crc-32c", "crc32-iscsi"):
        return _crc32c()
    if n.startswith("xxh") or n.startswith("xxhash"):
        fn = {
            "xxh32": "xxh32",
            "xxh64": "xxh64",
            "xxh3": "xxh3_64",
            "xxh3-64": "xxh3_64",
            "xxh3-128": "xxh3_128",
            "xxh128": "xxh128",
        }.get(n)
        return _xxhash(fn) if fn else None
    # sha3-256 -> sha3_256, sha512-256 -> sha512_256, sm3, md5, sha1, ...
    o = _hashlib(n.replace("-", "_"))
    if o is not None and len(o(b"")) == size:
        return o
    return None


#: Every algorithm the library has at its default length (its own list).
ALGORITHMS = sorted(set(lanesum._lanesum.algorithm_names()))
WITH_ORACLE = [a for a in ALGORITHMS if oracle(a) is not None]
WITHOUT_ORACLE = [a for a in ALGORITHMS if oracle(a) is None]
