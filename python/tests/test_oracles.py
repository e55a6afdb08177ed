"""Every algorithm, through every entry point, against an independent oracle.

These are the tests whose paths depend on the instruction-set level: test_isa.py runs
this file again under each level the CPU has (LANESUM_ISA).
"""

from __future__ import annotations

import random
import threading

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st
from oracles import ALGORITHMS, WITH_ORACLE, WITHOUT_ORACLE, oracle

import lanesum

# Lengths around every block and lane boundary that matters (64- and 128-byte blocks,
# padding that spills into a second block, 16 KiB BitTorrent blocks, BLAKE3 chunks,
# the 2 KiB GIL threshold).
EDGE_LENGTHS = sorted(
    {0, 1, 3, 55, 56, 63, 64, 65, 111, 112, 119, 120, 127, 128, 129, 1023, 1024, 1025}
    | {2047, 2048, 2049, 4096, 16383, 16384, 16385, 65537, 300_000}
)


def rand_bytes(rng: random.Random, n: int) -> bytes:
    return rng.randbytes(n)


@pytest.mark.parametrize("name", WITH_ORACLE)
def test_edge_lengths_against_oracle(name):
    o = oracle(name)
    rng = random.Random(name)
    for n in EDGE_LENGTHS:
        data = rand_bytes(rng, n)
        want = o(data)
        assert lanesum.new(name, data).digest() == want, (name, n)
        h = lanesum.new(name)
        cut = rng.randint(0, n)
        h.update(data[:cut])
        h.update(memoryview(data)[cut:])
        assert h.digest() == want, (name, n, cut)
        assert h.hexdigest() == want.hex()


@pytest.mark.parametrize("name", WITH_ORACLE)
@given(data=st.binary(max_size=5000), cuts=st.lists(st.integers(0, 5000), max_size=4))
def test_random_against_oracle(name, data, cuts):
    want = oracle(name)(data)
    h = lanesum.new(name)
    last = 0
    for c in sorted(min(c, len(data)) for c in cuts):
        h.update(data[last:c])
        last = c
    h.update(data[last:])
    assert h.digest() == want


@pytest.mark.parametrize("name", ALGORITHMS)
def test_entry_points_agree(name):
    """The one-shot, streaming, batch, Arrow and engine paths give one answer (the check
    for algorithms without a Python oracle; the library tests those against theirs)."""
    rng = random.Random(name)
    msgs = [rand_bytes(rng, n) for n in [0, 1, 64, 100, 1000, 5000, 70_000]]
    msgs += [rand_bytes(rng, rng.randint(0, 300)) for _ in range(50)]
    want = [lanesum.new(name, m).digest() for m in msgs]
    assert lanesum.hash_many(name, msgs) == want
    assert lanesum.hash_array(pa.array(msgs, pa.binary()), name).to_pylist() == want
    streams = [lanesum.LaneHasher(name) for _ in msgs]
    for s, m in zip(streams, msgs):
        s.update(m[: len(m) // 2])
    for s, m in zip(streams, msgs):
        s.update(m[len(m) // 2 :])
    assert [s.digest() for s in streams] == want
    o = oracle(name)
    if o is not None:
        assert want == [o(m) for m in msgs]


@pytest.mark.skipif(not WITHOUT_ORACLE, reason="every algorithm has an oracle")
def test_algorithms_without_oracle_are_listed():
    # Documented rather than silent: these are checked by test_entry_points_agree only.
    assert set(WITHOUT_ORACLE) <= set(ALGORITHMS)


@pytest.mark.parametrize("name", WITH_ORACLE)
def test_hash_many_random_lengths(name):
    o = oracle(name)
    rng = random.Random(1 + len(name))
    msgs = [
        rand_bytes(rng, rng.choice([rng.randint(0, 200), rng.randint(0, 20_000)]))
        for _ in range(300)
    ]
    assert lanesum.hash_many(name, msgs) == [o(m) for m in msgs]


@pytest.mark.parametrize("name", WITH_ORACLE)
def test_lane_hashers_on_threads(name):
    o = oracle(name)
    errors = []

    def worker(seed):
        rng = random.Random(seed)
        for _ in range(5):
            data = rand_bytes(rng, rng.randint(0, 200_000))
            h = lanesum.LaneHasher(name)
            i = 0
            while i < len(data):
                step = rng.randint(1, 40_000)
                h.update(data[i : i + step])
                i += step
            if h.digest() != o(data):
                errors.append((seed, len(data)))

    threads = [threading.Thread(target=worker, args=(s,)) for s in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_multi_hasher_against_oracles():
    names = WITH_ORACLE
    rng = random.Random(7)
    data = rand_bytes(rng, 1 << 20)
    m = lanesum.MultiHasher(names)
    for i in range(0, len(data), 70_001):
        m.update(data[i : i + 70_001])
    got = m.digest()
    assert list(got) == names
    for n in names:
        assert got[n] == oracle(n)(data), n


@pytest.mark.parametrize("name", [a for a in ("md5", "sha256", "blake3") if a in WITH_ORACLE])
def test_big_batches_in_groups(name):
    """Batches big enough to be cut into groups (by count, and early by bytes where
    megabyte values sit among small ones), with nulls, against the oracle."""
    o = oracle(name)
    rng = random.Random(11)
    msgs = [
        rand_bytes(rng, (1 << 20) + rng.randint(0, 99) if i % 9000 == 4 else rng.randint(0, 300))
        for i in range(40_000)
    ]
    want = [o(m) for m in msgs]
    assert lanesum.hash_many(name, msgs) == want
    with_nulls = [None if i % 7 == 3 else m for i, m in enumerate(msgs)]
    got = lanesum.hash_array(pa.array(with_nulls, pa.large_binary()), name)
    assert got.to_pylist() == [None if i % 7 == 3 else w for i, w in enumerate(want)]
    hexed = lanesum.hash_array(pa.array(msgs[:20_000], pa.binary()), name, hex=True)
    assert hexed.to_pylist() == [w.hex() for w in want[:20_000]]
