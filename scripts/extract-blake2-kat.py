#!/usr/bin/env python3
"""Writes the subset of the BLAKE2 reference KAT that lanesum's tests read.

Usage: scripts/extract-blake2-kat.py UPSTREAM/blake2-kat.json > crates/lanesum/tests/vectors/blake2/blake2-kat.json

UPSTREAM/blake2-kat.json is `testvectors/blake2-kat.json` of the BLAKE2 reference
repository (CC0). Kept: every BLAKE2b, BLAKE2s, BLAKE2bp and BLAKE2sp entry, keyed and
unkeyed, in upstream order, with the same four fields (hash, in, key, out), one entry per
line. Dropped: BLAKE2Xb and BLAKE2Xs, which lanesum does not implement.
"""
import json
import sys

KEPT = ("blake2b", "blake2s", "blake2bp", "blake2sp")

with open(sys.argv[1], encoding="ascii") as f:
    cases = json.load(f)
kept = [c for c in cases if c["hash"] in KEPT]
for name in KEPT:
    n = sum(c["hash"] == name for c in kept)
    assert n == 512, f"{name}: {n} entries, expected 256 unkeyed + 256 keyed"
out = sys.stdout
out.write("[\n")
for i, c in enumerate(kept):
    entry = {k: c[k] for k in ("hash", "in", "key", "out")}
    out.write(json.dumps(entry, separators=(",", ":")))
    out.write(",\n" if i + 1 < len(kept) else "\n")
out.write("]\n")
