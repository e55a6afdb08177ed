#!/usr/bin/env python3
"""An independent oracle for `lanesum --s3`: what S3 reports for a file uploaded in
parts of a given size, computed straight from the definitions with Python's zlib
(CRC32), hashlib (MD5, SHA-1, SHA-256) and table-driven CRC32C and CRC64NVME written
here from the CRC catalogue's parameters. Full-object CRCs are computed over the whole
file in one pass (no combining), composite values from the parts' checksums.

Usage: s3_oracle.py PART_SIZE ALGO[,ALGO...] FILE...
Prints the lines `lanesum --s3=PART_SIZE -a ALGOS FILE...` prints.
"""

import base64
import hashlib
import sys
import zlib


def _table(poly):
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ poly if c & 1 else c >> 1
        table.append(c)
    return table


_CRC32C = _table(0x82F63B78)
_CRC64NVME = _table(0x9A6C9329AC4BC9B5)


def _reflected(table, mask, data):
    crc = mask
    for b in data:
        crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ mask


def checksum(alg, data):
    """The checksum's big-endian bytes."""
    if alg == "CRC32":
        return zlib.crc32(data).to_bytes(4, "big")
    if alg == "CRC32C":
        return _reflected(_CRC32C, 0xFFFFFFFF, data).to_bytes(4, "big")
    if alg == "CRC64NVME":
        return _reflected(_CRC64NVME, (1 << 64) - 1, data).to_bytes(8, "big")
    if alg == "SHA1":
        return hashlib.sha1(data).digest()
    if alg == "SHA256":
        return hashlib.sha256(data).digest()
    raise ValueError(alg)


TYPES = {
    "CRC32": ["FULL_OBJECT", "COMPOSITE"],
    "CRC32C": ["FULL_OBJECT", "COMPOSITE"],
    "CRC64NVME": ["FULL_OBJECT"],
    "SHA1": ["COMPOSITE"],
    "SHA256": ["COMPOSITE"],
}


def b64(b):
    return base64.b64encode(b).decode()


def lines(path, part_size, algs):
    with open(path, "rb") as f:
        data = f.read()
    parts = [data[i : i + part_size] for i in range(0, len(data), part_size)]
    out = []
    if len(parts) <= 1:
        out.append(f"ETAG ({path}) = {hashlib.md5(data).hexdigest()}")
        for alg in algs:
            out.append(f"{alg} FULL_OBJECT ({path}) = {b64(checksum(alg, data))}")
        return out
    md5s = b"".join(hashlib.md5(p).digest() for p in parts)
    out.append(f"ETAG ({path}) = {hashlib.md5(md5s).hexdigest()}-{len(parts)}")
    for alg in algs:
        for ty in TYPES[alg]:
            if ty == "FULL_OBJECT":
                value = b64(checksum(alg, data))
            else:
                cat = b"".join(checksum(alg, p) for p in parts)
                value = f"{b64(checksum(alg, cat))}-{len(parts)}"
            out.append(f"{alg} {ty} ({path}) = {value}")
    return out


def main():
    part_size = int(sys.argv[1])
    algs = [a.upper() for a in sys.argv[2].split(",")]
    for path in sys.argv[3:]:
        print("\n".join(lines(path, part_size, algs)))


if __name__ == "__main__":
    main()
