"""The hashlib-compatible surface: constructors, attributes, buffer types, bad input."""

from __future__ import annotations

import array
import hashlib
import io
import mmap
import os
import pickle
import signal
import threading
import warnings

import numpy as np
import pytest
from oracles import ALGORITHMS, oracle

import lanesum

DATA = bytes(range(256)) * 40  # 10 KiB: above the GIL threshold


def test_readme_one_liner():
    want = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    assert lanesum.sha256(b"abc").hexdigest() == want


def test_constructors_cover_every_algorithm():
    for name in ALGORITHMS:
        attr = name.replace("-", "_")
        assert attr in lanesum.algorithms_available
        ctor = getattr(lanesum, attr)
        assert ctor(b"abc").digest() == lanesum.new(name, b"abc").digest()
        assert attr in lanesum.__all__
    # As hashlib's: guaranteed names are constructors too; every one is available.
    assert lanesum.algorithms_guaranteed <= lanesum.algorithms_available
    for name in lanesum.algorithms_guaranteed:
        assert callable(getattr(lanesum, name)), name


@pytest.mark.parametrize("name", ["md5", "sha1", "sha224", "sha256", "sha384", "sha512"])
def test_attributes_match_hashlib(name):
    ours, theirs = lanesum.new(name), hashlib.new(name)
    assert (ours.name, ours.digest_size, ours.block_size) == (
        theirs.name,
        theirs.digest_size,
        theirs.block_size,
    )
    assert getattr(lanesum, name)(usedforsecurity=False).digest() == theirs.digest()


def test_aliases_and_lengths():
    assert lanesum.new("SHA-256", b"x").digest() == hashlib.sha256(b"x").digest()
    assert lanesum.new("sha512_256").name == "sha512_256"
    h = lanesum.new("blake2b-256", b"x")
    assert h.digest() == hashlib.blake2b(b"x", digest_size=32).digest()
    assert (h.name, h.digest_size) == ("blake2b", 32)
    assert lanesum.digest_size("blake3-512") == 64


def test_copy_and_digest_then_update():
    h = lanesum.sha256(b"a")
    c = h.copy()
    assert h.digest() == hashlib.sha256(b"a").digest()
    h.update(b"b")  # hashlib allows updates after digest()
    c.update(b"c")
    assert h.digest() == hashlib.sha256(b"ab").digest()
    assert c.digest() == hashlib.sha256(b"ac").digest()


def buffers(data: bytes):
    yield "bytes", data
    yield "bytearray", bytearray(data)
    yield "memoryview", memoryview(data)
    yield "memoryview slice", memoryview(b"xx" + data + b"yy")[2:-2]
    yield "numpy uint8", np.frombuffer(data, dtype=np.uint8).copy()
    if len(data) % 4 == 0:
        yield "numpy int32", np.frombuffer(data, dtype=np.int32).copy()
        yield "array('I')", array.array("I", data)
    yield (
        "numpy 2-d",
        np.frombuffer(data, dtype=np.uint8).reshape(-1, 2 if len(data) % 2 == 0 else 1),
    )


@pytest.mark.parametrize("n", [0, 64, 1000, len(DATA)])
def test_every_buffer_type(n):
    data = DATA[:n]
    want = hashlib.sha256(data).digest()
    for kind, buf in buffers(data):
        assert lanesum.sha256(buf).digest() == want, kind
        assert lanesum.hash_many("sha256", [buf]) == [want], kind
        lh = lanesum.LaneHasher("sha256")
        lh.update(buf)
        assert lh.digest() == want, kind


def test_mmap(tmp_path):
    p = tmp_path / "f"
    p.write_bytes(DATA)
    with open(p, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        assert lanesum.md5(m).digest() == hashlib.md5(DATA).digest()
        assert lanesum.hash_many("md5", [m, m]) == [hashlib.md5(DATA).digest()] * 2


def test_non_contiguous_rejected_clearly():
    a = np.arange(100, dtype=np.uint8)[::2]
    with pytest.raises(BufferError, match="C-contiguous"):
        lanesum.sha256(a)
    with pytest.raises(BufferError, match="C-contiguous"):
        lanesum.hash_many("sha256", [b"ok", memoryview(b"abcdef")[::2]])
    with pytest.raises(BufferError, match="C-contiguous"):
        lanesum.sha256().update(np.zeros((4, 4), dtype=np.uint8).T)


@pytest.mark.parametrize("bad", ["text", 12, 1.5, object(), [1, 2]])
def test_wrong_types_are_type_errors(bad):
    with pytest.raises(TypeError):
        lanesum.sha256(bad)
    with pytest.raises(TypeError):
        lanesum.sha256().update(bad)
    with pytest.raises(TypeError, match="item 1"):
        lanesum.hash_many("sha256", [b"x", bad])


def test_unreadable_buffers_raise_as_hashlib(tmp_path):
    """A released memoryview and a closed mmap are ValueErrors, as hashlib raises."""
    view = memoryview(b"abc")
    view.release()
    p = tmp_path / "f"
    p.write_bytes(DATA)
    with open(p, "rb") as f:
        m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    m.close()
    for gone in (view, m):
        with pytest.raises(ValueError):
            hashlib.sha256(gone)
        with pytest.raises(ValueError):
            lanesum.sha256(gone)
        with pytest.raises(ValueError):
            lanesum.hash_many("sha256", [b"x", gone])


def test_hashlib_keywords_and_pickling():
    """hashlib's older `string=` keyword, ValueError for a negative digest_size, and
    constructors pickled by reference (as multiprocessing passes them)."""
    want = hashlib.sha256(b"abc").digest()
    assert lanesum.sha256(string=b"abc").digest() == want
    assert lanesum.new("sha256", string=b"abc").digest() == want
    with pytest.raises(TypeError):
        lanesum.sha256(b"abc", string=b"abc")
    for size in (-1, 0, 65):
        with pytest.raises(ValueError):
            lanesum.blake2b(digest_size=size)
    with pytest.raises(ValueError):
        lanesum.blake2s(digest_size=-1)
    with pytest.raises(ValueError):
        lanesum.blake3(digest_size=-1)
    for name in ("sha256", "md5", "shake_128", "sha512_256"):
        ctor = getattr(lanesum, name)
        assert pickle.loads(pickle.dumps(ctor)) is ctor


def test_str_message_as_hashlib():
    with pytest.raises(TypeError, match="encoded"):
        lanesum.md5("abc")


def test_unknown_algorithm_names_the_known():
    with pytest.raises(ValueError, match="sha256") as e:
        lanesum.new("md4")
    assert "md4" in str(e.value)
    for call in (
        lambda: lanesum.hash_many("nope", []),
        lambda: lanesum.hash_array(__import__("pyarrow").array([b""]), "nope"),
        lambda: lanesum.LaneHasher("nope"),
        lambda: lanesum.MultiHasher(["md5", "nope"]),
        lambda: list(lanesum.hash_files([], ["nope"])),
    ):
        with pytest.raises(ValueError, match="known"):
            call()
    with pytest.raises(TypeError):
        lanesum.new(b"sha256")
    with pytest.raises(TypeError):
        lanesum.new("sha256", b"", digest_size=3)


def test_blake2_parameters_match_hashlib():
    for ctor, ref, big in [
        (lanesum.blake2b, hashlib.blake2b, 64),
        (lanesum.blake2s, hashlib.blake2s, 32),
    ]:
        salt_max = 16 if big == 64 else 8
        for kw in [
            {},
            {"digest_size": 20},
            {"key": b"k" * big},
            {"key": b"key", "salt": b"s" * salt_max, "person": b"p", "digest_size": 7},
        ]:
            assert ctor(DATA, **kw).digest() == ref(DATA, **kw).digest(), kw
            assert lanesum.new(ref().name, DATA, **kw).digest() == ref(DATA, **kw).digest()
        h = ctor(key=b"k")
        h.update(DATA[:100])
        c = h.copy()
        h.update(DATA[100:])
        assert h.digest() == ref(DATA, key=b"k").digest()
        assert c.digest() == ref(DATA[:100], key=b"k").digest()
        with pytest.raises(ValueError):
            ctor(digest_size=big + 1)
        with pytest.raises(ValueError):
            ctor(key=b"k" * (big + 1))
        with pytest.raises(ValueError):
            ctor(salt=b"s" * (salt_max + 1))


def test_blake3_modes_match_blake3_py():
    blake3 = pytest.importorskip("blake3")
    key = bytes(range(32))
    big = DATA * 100  # 1 MiB: the multithreaded path
    for data in (b"", DATA, big):
        assert lanesum.blake3(data).digest() == blake3.blake3(data).digest()
        assert lanesum.blake3(data, key=key).digest() == blake3.blake3(data, key=key).digest()
        ctx = "lanesum 2026 test context"
        assert (
            lanesum.blake3(data, derive_key_context=ctx).digest()
            == blake3.blake3(data, derive_key_context=ctx).digest()
        )
        assert lanesum.blake3(data).digest(100) == blake3.blake3(data).digest(length=100)
        assert lanesum.blake3(data, max_threads=1).digest() == blake3.blake3(data).digest()
    assert lanesum.new("blake3", b"x", key=key).digest() == blake3.blake3(b"x", key=key).digest()
    assert lanesum.blake3(digest_size=64).digest_size == 64
    assert lanesum.new("blake3", b"x", digest_size=64).digest() == blake3.blake3(b"x").digest(64)
    with pytest.raises(ValueError):
        lanesum.blake3(key=b"short")
    # An empty key is a mistake, not the unkeyed hash (as blake3-py says).
    with pytest.raises(ValueError, match="32 bytes"):
        lanesum.blake3(b"msg", key=b"")
    with pytest.raises(ValueError, match="32 bytes"):
        lanesum.new("blake3", b"msg", key=b"")
    with pytest.raises(ValueError):
        lanesum.blake3(key=key, derive_key_context="x")
    with pytest.raises(TypeError):
        lanesum.sha256().digest(10)


def test_every_hashlib_guaranteed_name():
    """Code written for hashlib runs unchanged: every name hashlib guarantees, through
    new() and its constructor, with hashlib's attributes and digests."""
    for name in sorted(hashlib.algorithms_guaranteed):
        assert name in lanesum.algorithms_guaranteed, name
        for ours in (lanesum.new(name, DATA), getattr(lanesum, name)(DATA)):
            theirs = hashlib.new(name, DATA)
            assert (ours.name, ours.digest_size, ours.block_size) == (
                theirs.name,
                theirs.digest_size,
                theirs.block_size,
            )
            if name.startswith("shake"):
                assert ours.digest(40) == theirs.digest(40)
                assert ours.hexdigest(7) == theirs.hexdigest(7)
            else:
                assert ours.digest() == theirs.digest()


@pytest.mark.parametrize("bits", [128, 256])
def test_shake_of_any_length_matches_hashlib(bits):
    ref = getattr(hashlib, f"shake_{bits}")
    h = getattr(lanesum, f"shake_{bits}")()
    h.update(DATA[:300])
    c = h.copy()
    h.update(DATA[300:])
    rate = 168 if bits == 128 else 136
    for n in (0, 1, 31, rate, rate + 1, 3 * rate + 5, 5000):
        assert h.digest(n) == ref(DATA).digest(n), n
        assert h.hexdigest(length=n) == ref(DATA).hexdigest(n), n
    assert c.digest(50) == ref(DATA[:300]).digest(50)
    with pytest.raises(TypeError, match="length"):
        h.digest()
    with pytest.raises(TypeError, match="length"):
        h.hexdigest()
    # The library's SHAKE names have a length of their own, and take any other too.
    own = lanesum.new(f"shake{bits}", DATA)
    assert own.digest() == ref(DATA).digest(own.digest_size)
    assert own.digest(99) == ref(DATA).digest(99)
    assert lanesum.new(f"shake{bits}-512").digest() == ref().digest(64)
    # Batches need a length: the hashlib name says which to name.
    with pytest.raises(ValueError, match=f"shake{bits}-256"):
        lanesum.hash_many(f"shake_{bits}", [b"x"])


def test_outputs_no_machine_has_are_memory_errors():
    """An extendable output too long to allocate is a MemoryError, as in hashlib and
    blake3-py, never an abort of the interpreter."""
    for h in (
        lanesum.blake3(b"x"),
        lanesum.shake_128(b"x"),
        lanesum.new("shake256", b"x"),
    ):
        for call in (h.digest, h.hexdigest):
            with pytest.raises((MemoryError, OverflowError)):
                call(1 << 62)
    with pytest.raises((MemoryError, OverflowError)):
        lanesum.blake3(digest_size=1 << 62).digest()
    with pytest.raises(OverflowError):
        lanesum.blake3().digest(-1)
    # Past Python's signed sizes: an OverflowError, as hashlib's, not a SystemError.
    for call in (
        lambda: lanesum.shake_128().digest(1 << 63),
        lambda: lanesum.shake_256().hexdigest(1 << 63),
        lambda: lanesum.blake3(b"x").digest(2**64 - 1),
        lambda: lanesum.blake3(digest_size=1 << 63).digest(),
    ):
        with pytest.raises(OverflowError):
            call()
    assert len(lanesum.blake3(b"x").hexdigest(100_000)) == 200_000


@pytest.mark.skipif(not hasattr(hashlib, "file_digest"), reason="hashlib.file_digest: 3.11+")
def test_file_digest_matches_hashlib(tmp_path):
    p = tmp_path / "f"
    p.write_bytes(DATA * 50)
    with open(p, "rb") as f:
        got = lanesum.file_digest(f, "sha256").hexdigest()
    with open(p, "rb") as f:
        assert got == hashlib.file_digest(f, "sha256").hexdigest()
    with open(p, "rb") as f:
        assert lanesum.file_digest(f, lanesum.md5).digest() == hashlib.md5(DATA * 50).digest()
    assert lanesum.file_digest(io.BytesIO(b"abc"), "sha1").digest() == hashlib.sha1(b"abc").digest()
    with open(p) as f, pytest.raises(ValueError):
        lanesum.file_digest(f, "sha256")


def _forked(child) -> int:
    """Exit code of child() run in a forked process (0 for True), killed after 60 s."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # fork() with threads about
        pid = os.fork()
    if pid == 0:
        signal.alarm(60)
        try:
            os._exit(0 if child() else 1)
        finally:
            os._exit(2)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork()")
def test_parallel_calls_in_forked_children():
    """After the parent used rayon's pool, a forked child (and its own child) still hashes
    big batches, large BLAKE3 updates and MultiHasher streams: they waited forever for
    the pool's threads, which a fork does not copy."""
    msgs = [bytes([i % 251]) * (i % 100) for i in range(20_000)]
    want = [hashlib.md5(m).digest() for m in msgs]
    big = DATA * 100
    b3 = lanesum.blake3(big, max_threads=1).digest()
    assert lanesum.hash_many("md5", msgs) == want  # starts the pool in the parent
    assert lanesum.blake3(big).digest() == b3
    # The CRCs and BitTorrent v2 spread one large input over the cores too.
    huge = DATA * 600  # 6 MiB
    spread = {a: lanesum.new(a, huge).digest() for a in ("crc32c", "btv2")}

    def work():
        m = lanesum.MultiHasher(["md5", "sha256"])
        m.update(big)
        lane = lanesum.LaneHasher("crc32c")
        lane.update(huge)
        # Small writes too: BitTorrent v2 hashes its leaves a 4 MiB batch at a time.
        btv2 = lanesum.new("btv2")
        for i in range(0, len(huge), 64 << 10):
            btv2.update(huge[i : i + (64 << 10)])
        return (
            lanesum.hash_many("md5", msgs) == want
            and lanesum.blake3(big).digest() == b3
            and m.hexdigest()["sha256"] == hashlib.sha256(big).hexdigest()
            and all(lanesum.new(a, huge).digest() == d for a, d in spread.items())
            and lane.digest() == spread["crc32c"]
            and btv2.digest() == spread["btv2"]
        )

    def child():
        # A thread of the child starts its pool while the child forks again: the
        # grandchild must not inherit anything held.
        t = threading.Thread(target=lambda: lanesum.hash_many("md5", msgs))
        t.start()
        grandchild = _forked(work)
        t.join()
        return grandchild == 0 and work()

    assert _forked(child) == 0
    # Small calls in a child stay on the calling thread (no pool hop) and are right.
    assert (
        _forked(lambda: lanesum.sha256(b"abc").hexdigest() == hashlib.sha256(b"abc").hexdigest())
        == 0
    )


def test_shared_hash_object_from_threads():
    """One object updated from many threads at once: every update lands whole."""
    h = lanesum.sha256()
    chunk = DATA  # identical chunks: the order between threads does not matter
    n_threads, per_thread = 8, 40

    def work():
        for _ in range(per_thread):
            h.update(chunk)

    ts = [threading.Thread(target=work) for _ in range(n_threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert h.digest() == hashlib.sha256(chunk * (n_threads * per_thread)).digest()


def test_streams_end_at_digest():
    lh = lanesum.LaneHasher("md5", b"abc")
    d = lh.digest()
    assert d == hashlib.md5(b"abc").digest() == lh.digest()
    assert lh.hexdigest() == d.hex()
    with pytest.raises(ValueError, match="finished"):
        lh.update(b"more")
    m = lanesum.MultiHasher(["sha1", "SHA-256"], b"abc")
    assert m.hexdigest() == {
        "sha1": hashlib.sha1(b"abc").hexdigest(),
        "SHA-256": hashlib.sha256(b"abc").hexdigest(),
    }
    with pytest.raises(ValueError):
        m.update(b"x")
    with pytest.raises(ValueError):
        lanesum.MultiHasher([])


def test_oracle_table_is_consistent():
    assert oracle("sha256")(b"abc") == hashlib.sha256(b"abc").digest()
