"""lanesum: fast, correct checksums for one message or millions.

hashlib-compatible hash objects for every algorithm the lanesum library has (``new``,
``md5()``, ``sha256()``, ``blake2b()``, ``blake3()``, ...), batches hashed together in
SIMD lanes (``hash_many``, and ``hash_array`` over Arrow columns without a copy), files
hashed in parallel (``hash_files``, ``check``) and streams that share lanes across
threads (``LaneHasher``, ``MultiHasher``). Large inputs are hashed with the GIL released.
"""

from __future__ import annotations

import io
from typing import Any, Callable

from . import _lanesum
from ._lanesum import (
    CheckResult,
    Constructor,
    DigestArray,
    FileHashes,
    FileRecord,
    Hash,
    LaneHasher,
    MultiHasher,
    blake2b,
    blake2s,
    blake3,
    check,
    hash_files,
    hash_many,
    new,
)

# One constructor per algorithm the library has (md5, sha1, sha224, sha256, sha384,
# sha512, sha512_224, sha512_256, md5p8, btv2, and whatever it gains), named as hashlib
# names them: made from the library's own list, never written out here. Also hashlib's
# shake_128 and shake_256, whose digests name their length.
_CONSTRUCTORS: dict[str, Constructor] = _lanesum.constructors()
globals().update(_CONSTRUCTORS)


def _names() -> frozenset[str]:
    names = set(_lanesum.algorithm_names())
    names |= {n.replace("-", "_") for n in names}
    return frozenset(names | set(_CONSTRUCTORS))


#: Every name ``new`` accepts at its default length (the library's names and hashlib's
#: spellings of them, hashlib's ``shake_128`` and ``shake_256`` among them); ``new`` also
#: takes lengths (``blake2b-256``) and aliases (``SHA-256``).
algorithms_available: frozenset[str] = _names()
#: Every algorithm is built in, on every platform; as hashlib's, these are the names that
#: are also constructors of the module (``getattr(lanesum, name)``).
algorithms_guaranteed: frozenset[str] = frozenset(_CONSTRUCTORS) | {"blake2b", "blake2s", "blake3"}


def hash_array(array: Any, name: str, hex: bool = False) -> Any:
    """The digest of every value of an Arrow binary or string array.

    ``array`` is any object exporting the Arrow PyCapsule interface
    (``__arrow_c_array__`` or ``__arrow_c_stream__``): a pyarrow Array or ChunkedArray,
    a polars Series, an arro3 or nanoarrow array, of binary, large binary, binary view,
    string, large string or string view type. Values are read in place, nulls stay null,
    slices are honoured. Returns a fixed-size-binary array (or, with ``hex=True``, a
    string array of lowercase hex): a ``pyarrow.Array`` when pyarrow is installed, else a
    ``DigestArray`` that any Arrow library can import.
    """
    out = _lanesum.hash_array(array, name, hex)
    try:
        import pyarrow
    except ImportError:
        return out
    return pyarrow.array(out)


def file_digest(fileobj: Any, digest: str | Callable[[], Any], /, *, _bufsize: int = 2**18) -> Any:
    """Hash a binary file object, as ``hashlib.file_digest``.

    ``digest`` is an algorithm name or a callable returning a hash object (``lanesum.sha256``).
    Reads use ``readinto`` into one reused buffer; updates of 2 KiB and more release the GIL.
    """
    digestobj = new(digest) if isinstance(digest, str) else digest()
    if isinstance(fileobj, io.BytesIO):
        digestobj.update(fileobj.getbuffer())
        return digestobj
    if not (hasattr(fileobj, "readinto") and hasattr(fileobj, "readable") and fileobj.readable()):
        raise ValueError(f"'{fileobj!r}' is not a file-like object in binary reading mode.")
    buf = bytearray(_bufsize)
    view = memoryview(buf)
    while True:
        size = fileobj.readinto(buf)
        if size is None:
            raise BlockingIOError("I/O operation would block.")
        if size == 0:
            break
        digestobj.update(view[:size])
    return digestobj


def digest_size(name: str) -> int:
    """Digest length in bytes of an algorithm name (``digest_size("blake2b-256") == 32``)."""
    return _lanesum.digest_size(name)


def isa_levels() -> list[str]:
    """The instruction-set levels this CPU has, as ``LANESUM_ISA`` values."""
    return _lanesum.isa_levels()


def isa_active() -> str:
    """The level in force: ``LANESUM_ISA`` (read once, at first use) or the detected one."""
    return _lanesum.isa_active()


__all__ = [
    "CheckResult",
    "DigestArray",
    "FileHashes",
    "FileRecord",
    "Hash",
    "LaneHasher",
    "MultiHasher",
    "algorithms_available",
    "algorithms_guaranteed",
    "blake2b",
    "blake2s",
    "blake3",
    "check",
    "digest_size",
    "file_digest",
    "hash_array",
    "hash_files",
    "hash_many",
    "isa_active",
    "isa_levels",
    "new",
    *sorted(_CONSTRUCTORS),
]
