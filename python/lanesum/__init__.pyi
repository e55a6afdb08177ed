"""Type stubs for lanesum."""

import os
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol

from typing_extensions import Buffer

_Path = str | bytes | os.PathLike[str] | os.PathLike[bytes]

class _ArrowArrayExportable(Protocol):
    def __arrow_c_array__(self, requested_schema: object = ...) -> tuple[object, object]: ...

class _ArrowStreamExportable(Protocol):
    def __arrow_c_stream__(self, requested_schema: object = ...) -> object: ...

class Hash:
    """A hash object, as hashlib's; safe to share between threads."""

    @property
    def name(self) -> str: ...
    @property
    def digest_size(self) -> int: ...
    @property
    def block_size(self) -> int: ...
    def update(self, data: Buffer, /) -> None: ...
    def digest(self, length: int | None = None) -> bytes:
        """The digest so far; `length` for BLAKE3 and SHAKE (extendable output), which
        hashlib's `shake_128` and `shake_256` need."""
    def hexdigest(self, length: int | None = None) -> str: ...
    def copy(self) -> Hash: ...

class Constructor:
    """hashlib-style constructor of one algorithm (lanesum.sha256, lanesum.md5, ...)."""

    __name__: str
    def __call__(
        self,
        data: Buffer | None = None,
        *,
        usedforsecurity: bool = True,
        string: Buffer | None = None,
    ) -> Hash: ...

# One Constructor per algorithm the library has (hashlib spelling); the list grows with
# the library, see algorithms_available.
md5: Constructor
sha1: Constructor
sha224: Constructor
sha256: Constructor
sha384: Constructor
sha512: Constructor
sha512_224: Constructor
sha512_256: Constructor
md5p8: Constructor
blake2bp: Constructor
blake2sp: Constructor
btv2: Constructor
shake_128: Constructor
shake_256: Constructor

def __getattr__(name: str) -> Constructor: ...

algorithms_available: frozenset[str]
algorithms_guaranteed: frozenset[str]

def new(name: str, data: Buffer | None = None, **kwargs: Any) -> Hash: ...
def blake2b(
    data: Buffer | None = None,
    *,
    digest_size: int = 64,
    key: Buffer | None = None,
    salt: Buffer | None = None,
    person: Buffer | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...
def blake2s(
    data: Buffer | None = None,
    *,
    digest_size: int = 32,
    key: Buffer | None = None,
    salt: Buffer | None = None,
    person: Buffer | None = None,
    usedforsecurity: bool = True,
) -> Hash: ...
def blake3(
    data: Buffer | None = None,
    *,
    key: Buffer | None = None,
    derive_key_context: str | None = None,
    max_threads: int = -1,
    digest_size: int = 32,
    usedforsecurity: bool = True,
) -> Hash: ...
def file_digest(
    fileobj: Any, digest: str | Callable[[], Hash], /, *, _bufsize: int = ...
) -> Hash: ...
def digest_size(name: str) -> int: ...
def hash_many(name: str, buffers: Iterable[Buffer]) -> list[bytes]: ...

class DigestArray:
    """Digests as an Arrow array (fixed-size binary, or string with hex=True)."""

    @property
    def null_count(self) -> int: ...
    def __len__(self) -> int: ...
    def __arrow_c_array__(self, requested_schema: object = None) -> tuple[object, object]: ...

def hash_array(
    array: _ArrowArrayExportable | _ArrowStreamExportable, name: str, hex: bool = False
) -> Any:
    """A pyarrow.Array when pyarrow is installed, else a DigestArray."""

class FileRecord:
    @property
    def path(self) -> str | bytes: ...
    @property
    def size(self) -> int | None: ...
    @property
    def digests(self) -> dict[str, bytes]: ...
    @property
    def hexdigests(self) -> dict[str, str]: ...
    @property
    def error(self) -> str | None: ...
    @property
    def ok(self) -> bool: ...

class FileHashes(Iterator[FileRecord]):
    def __iter__(self) -> FileHashes: ...
    def __next__(self) -> FileRecord: ...

def hash_files(
    paths: _Path | Iterable[_Path],
    algorithms: str | Iterable[str] = ("sha256",),
    recursive: bool = False,
    follow_symlinks: bool = False,
    threads: int | None = None,
    progress: Callable[[int, int], object] | None = None,
    exclude: Iterable[str] | None = None,
) -> FileHashes: ...

class CheckResult:
    @property
    def results(self) -> list[tuple[str, str]]: ...
    @property
    def ok(self) -> int: ...
    @property
    def failed(self) -> int: ...
    @property
    def unreadable(self) -> int: ...
    @property
    def misformatted(self) -> int: ...
    @property
    def passed(self) -> bool: ...
    def __bool__(self) -> bool: ...

def check(
    manifest_path: _Path, *, ignore_missing: bool = False, strict: bool = False
) -> CheckResult: ...

class LaneHasher:
    def __init__(self, name: str, data: Buffer | None = None) -> None: ...
    @property
    def name(self) -> str: ...
    @property
    def digest_size(self) -> int: ...
    @property
    def block_size(self) -> int: ...
    def update(self, data: Buffer, /) -> None: ...
    def digest(self) -> bytes: ...
    def hexdigest(self) -> str: ...

class MultiHasher:
    def __init__(self, algorithms: str | Iterable[str], data: Buffer | None = None) -> None: ...
    @property
    def algorithms(self) -> list[str]: ...
    def update(self, data: Buffer, /) -> None: ...
    def digest(self) -> dict[str, bytes]: ...
    def hexdigest(self) -> dict[str, str]: ...

def isa_levels() -> list[str]: ...
def isa_active() -> str: ...
