"""hash_array over every Arrow binary and string type, nulls, slices, chunks."""

from __future__ import annotations

import hashlib
import random

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

import lanesum
from lanesum import _lanesum

BINARY_TYPES = [pa.binary(), pa.large_binary(), pa.binary_view()]
STRING_TYPES = [pa.string(), pa.large_string(), pa.string_view()]


def md5s(values):
    return [None if v is None else hashlib.md5(v).digest() for v in values]


def as_type(values, typ):
    if pa.types.is_string(typ) or pa.types.is_large_string(typ) or pa.types.is_string_view(typ):
        return pa.array([None if v is None else v.decode("latin-1") for v in values], typ), [
            None if v is None else v.decode("latin-1").encode() for v in values
        ]
    return pa.array(values, typ), values


@pytest.mark.parametrize("typ", BINARY_TYPES + STRING_TYPES, ids=str)
@given(
    values=st.lists(st.one_of(st.none(), st.binary(max_size=300)), max_size=60),
    start=st.integers(0, 60),
    length=st.integers(0, 60),
)
def test_every_type_nulls_and_slices(typ, values, start, length):
    arr, raw = as_type(values, typ)
    start = min(start, len(arr))
    sliced, want_raw = arr.slice(start, length), raw[start : start + length]
    got = lanesum.hash_array(sliced, "md5")
    assert got.type == pa.binary(16)
    assert got.to_pylist() == md5s(want_raw)
    hexed = lanesum.hash_array(sliced, "md5", hex=True)
    assert hexed.type == pa.string()
    assert hexed.to_pylist() == [None if d is None else d.hex() for d in md5s(want_raw)]


@pytest.mark.parametrize("typ", BINARY_TYPES, ids=str)
def test_chunked_arrays(typ):
    rng = random.Random(3)
    chunks = [
        [None if rng.random() < 0.1 else rng.randbytes(rng.randint(0, 100)) for _ in range(n)]
        for n in (0, 5, 100, 1)
    ]
    ca = pa.chunked_array([pa.array(c, typ) for c in chunks], typ)
    flat = [v for c in chunks for v in c]
    assert lanesum.hash_array(ca, "sha256").to_pylist() == [
        None if v is None else hashlib.sha256(v).digest() for v in flat
    ]
    sliced = ca.slice(3, 50)
    assert lanesum.hash_array(sliced, "md5").to_pylist() == md5s(flat[3:53])


def test_empty_and_all_null():
    assert lanesum.hash_array(pa.array([], pa.binary()), "sha1").to_pylist() == []
    got = lanesum.hash_array(pa.array([None, None], pa.binary()), "sha1")
    assert got.null_count == 2 and got.to_pylist() == [None, None]
    assert lanesum.hash_array(pa.array([b""], pa.binary()), "md5").to_pylist() == md5s([b""])


def test_large_views_and_long_values():
    vals = [bytes([i % 256]) * n for i, n in enumerate([0, 12, 13, 100, 5000, 70_000])]
    for typ in BINARY_TYPES:
        assert lanesum.hash_array(pa.array(vals, typ), "md5").to_pylist() == md5s(vals)


@pytest.mark.parametrize("name", ["md5", "sha256", "sha512", "blake2s"])
def test_big_batches_in_groups(name):
    # Over 16,384 rows goes to the grouped path (each group hashed, and hexed, on its own
    # thread), with groups also cut by bytes: ragged lengths, nulls and a slice.
    rng = random.Random(11)
    vals = [
        None if rng.random() < 0.05 else rng.randbytes(rng.choice([0, 1, 63, 64, 65, 700, 3000]))
        for _ in range(40_000)
    ]
    want = [None if v is None else hashlib.new(name, v).digest() for v in vals]
    arr = pa.array(vals, pa.large_binary())
    assert lanesum.hash_array(arr, name).to_pylist() == want
    assert lanesum.hash_array(arr, name, hex=True).to_pylist() == [
        None if d is None else d.hex() for d in want
    ]
    dense = [v for v in vals if v is not None]
    hexed = lanesum.hash_array(pa.array(dense, pa.binary()).slice(7), name, hex=True)
    assert hexed.null_count == 0
    assert hexed.to_pylist() == [hashlib.new(name, v).hexdigest() for v in dense[7:]]


def test_digest_array_without_pyarrow_wrapper():
    raw = _lanesum.hash_array(pa.array([b"a", None]), "sha1", False)
    assert isinstance(raw, lanesum.DigestArray)
    assert len(raw) == 2 and raw.null_count == 1
    imported = pa.array(raw)  # through __arrow_c_array__
    assert imported.to_pylist() == [hashlib.sha1(b"a").digest(), None]
    # Exported twice: each export owns its references to the shared buffers.
    again = pa.array(raw)
    del raw
    assert again.equals(imported)


def test_bad_arrow_input():
    with pytest.raises(TypeError, match="binary"):
        lanesum.hash_array(pa.array([1, 2, 3]), "md5")
    with pytest.raises(TypeError, match="Arrow"):
        lanesum.hash_array([b"a", b"b"], "md5")
    with pytest.raises(TypeError, match="dictionary|binary"):
        lanesum.hash_array(pa.array(["a", "b", "a"]).dictionary_encode(), "md5")


def test_polars_series():
    pl = pytest.importorskip("polars")
    s = pl.Series("x", ["a", None, "ccc" * 10])
    got = lanesum.hash_array(s, "sha256", hex=True).to_pylist()
    assert got == [hashlib.sha256(b"a").hexdigest(), None, hashlib.sha256(b"ccc" * 10).hexdigest()]
    b = pl.Series("b", [b"\x00\x01", None])
    assert lanesum.hash_array(b, "md5").to_pylist() == md5s([b"\x00\x01", None])
