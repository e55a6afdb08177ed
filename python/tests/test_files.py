"""hash_files and check: the library's file pipeline from Python."""

from __future__ import annotations

import hashlib
import os
import pathlib
import random

import pytest

import lanesum


@pytest.fixture
def tree(tmp_path):
    rng = random.Random(5)
    files = {}
    for rel in ["b", "a", "sub/c.bin", "sub/deep/d", "big"]:
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        n = 3 << 20 if rel == "big" else rng.randint(0, 200_000)
        data = rng.randbytes(n)
        p.write_bytes(data)
        files[rel] = data
    return tmp_path, files


def test_records_in_order_with_errors(tree):
    root, files = tree
    paths = [str(root / "b"), str(root / "missing"), str(root / "sub"), str(root / "a")]
    recs = list(lanesum.hash_files(paths, ["sha256", "MD5", "blake3"]))
    assert [r.path for r in recs] == paths
    assert recs[1].error.startswith("[Errno 2]") and not recs[1].ok
    assert recs[1].size is None and recs[1].digests == {}
    assert "directory" in recs[2].error
    for r, key in [(recs[0], "b"), (recs[3], "a")]:
        data = files[key]
        assert r.ok and r.error is None and r.size == len(data)
        assert r.digests == {
            "sha256": hashlib.sha256(data).digest(),
            "MD5": hashlib.md5(data).digest(),
            "blake3": lanesum.blake3(data).digest(),
        }
        assert r.hexdigests["sha256"] == hashlib.sha256(data).hexdigest()


def test_recursive_walk_sorted(tree):
    root, files = tree
    recs = list(lanesum.hash_files([root], recursive=True))
    rel = [os.path.relpath(r.path, root) for r in recs]
    assert rel == ["a", "b", "big", "sub/c.bin", "sub/deep/d"]
    for r, k in zip(recs, rel):
        assert r.digests["sha256"] == hashlib.sha256(files[k]).digest()
    excluded = list(lanesum.hash_files([root], recursive=True, exclude=["deep", "b*"]))
    assert [os.path.relpath(r.path, root) for r in excluded] == ["a", "sub/c.bin"]
    with pytest.raises(ValueError, match="exclude"):
        lanesum.hash_files([root], recursive=True, exclude=["["])


def test_many_small_files_threads_and_progress(tmp_path):
    rng = random.Random(9)
    paths, want = [], []
    for i in range(500):
        data = rng.randbytes(rng.randint(0, 5000))
        p = tmp_path / f"f{i:04}"
        p.write_bytes(data)
        paths.append(p)
        want.append(hashlib.sha1(data).digest())
    for threads in (None, 1, 2):
        seen = []
        recs = lanesum.hash_files(
            paths, "sha1", threads=threads, progress=lambda n, b, seen=seen: seen.append((n, b))
        )
        assert [r.digests["sha1"] for r in recs] == want
        assert seen[-1][0] == 500 and len(seen) == 500
        assert seen[-1][1] == sum(p.stat().st_size for p in paths)


def test_bytes_and_pathlike_paths(tree):
    root, files = tree
    recs = list(lanesum.hash_files([os.fsencode(root / "a")]))
    assert recs[0].path == os.fsencode(root / "a")
    recs = list(lanesum.hash_files(root / "a"))
    assert recs[0].path == str(root / "a")


def test_bad_arguments(tree):
    root, _ = tree
    with pytest.raises(TypeError):
        lanesum.hash_files([1])
    with pytest.raises(TypeError):
        lanesum.hash_files([root], [1])
    with pytest.raises(ValueError):
        lanesum.hash_files([root], threads=0)
    with pytest.raises(TypeError):
        lanesum.hash_files([root], progress=3)
    # More threads than any machine uses are capped, not started (30,000 took minutes).
    records = list(lanesum.hash_files([root / "a"], threads=100_000))
    assert records[0].error is None


def test_dash_is_a_file(tmp_path, monkeypatch):
    """Paths are paths: "-" is the file of that name, never standard input."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "-").write_bytes(b"dash file")
    for p in ("-", b"-", pathlib.Path("-")):
        (rec,) = lanesum.hash_files([p])
        assert rec.size == 9
        assert rec.hexdigests["sha256"] == hashlib.sha256(b"dash file").hexdigest()


def test_symlinks(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "x").write_bytes(b"x")
    (tmp_path / "d" / "link").symlink_to(tmp_path / "d" / "x")
    names = lambda **kw: [  # noqa: E731
        os.path.basename(r.path) for r in lanesum.hash_files([tmp_path / "d"], recursive=True, **kw)
    ]
    assert names() == ["x"]
    assert names(follow_symlinks=True) == ["link", "x"]


def write_manifest(path, lines):
    path.write_bytes(b"".join(line + b"\n" for line in lines))


def test_check_formats(tree, monkeypatch):
    root, files = tree
    monkeypatch.chdir(root)
    h = {k: hashlib.sha256(v).hexdigest().encode() for k, v in files.items()}
    m5 = hashlib.md5(files["b"]).hexdigest().encode()
    b2 = hashlib.blake2b(files["a"], digest_size=32).hexdigest().encode()
    manifest = root / "SUMS"
    write_manifest(
        manifest,
        [
            b"# a comment",
            h["a"] + b"  a",
            h["big"] + b" *big",
            b"MD5 (b) = " + m5,
            b"BLAKE2b-256 (a) = " + b2.upper(),
            b"",
            h["sub/c.bin"] + b"  sub/c.bin",
        ],
    )
    r = lanesum.check(manifest)
    assert r and r.passed and (r.ok, r.failed, r.unreadable, r.misformatted) == (5, 0, 0, 0)
    assert [n for n, _ in r.results] == ["a", "big", "b", "a", "sub/c.bin"]
    # A mismatch, a missing file and a bad line.
    write_manifest(
        manifest,
        [h["a"] + b"  b", h["a"] + b"  nothere", b"garbage line", h["a"] + b"  a"],
    )
    r = lanesum.check(manifest)
    assert not r
    assert r.results[0] == ("b", "FAILED") and r.results[2] == ("a", "OK")
    assert r.results[1][0] == "nothere" and "No such file" in r.results[1][1]
    assert (r.ok, r.failed, r.unreadable, r.misformatted) == (1, 1, 1, 1)
    # ignore_missing and strict.
    write_manifest(manifest, [h["a"] + b"  a", h["a"] + b"  nothere", b"junk"])
    assert lanesum.check(manifest, ignore_missing=True)
    assert not lanesum.check(manifest, ignore_missing=True, strict=True)
    write_manifest(manifest, [b"junk"])
    assert not lanesum.check(manifest)
    with pytest.raises(OSError):
        lanesum.check(root / "no-such-manifest")


def test_check_escaped_and_reversed(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "new\nline").write_bytes(b"1")
    (tmp_path / "plain").write_bytes(b"2")
    s1 = hashlib.sha1(b"1").hexdigest().encode()
    s2 = hashlib.sha1(b"2").hexdigest().encode()
    write_manifest(tmp_path / "S", [b"\\" + s1 + b"  new\\nline", b"SHA1 (plain) = " + s2])
    r = lanesum.check(tmp_path / "S")
    assert r.ok == 2 and r.results[0][0] == "new\nline"
    write_manifest(tmp_path / "R", [s1.upper() + b" new\\nline", s2 + b" plain"])
    r = lanesum.check(tmp_path / "R")
    # BSD-reversed, unescaped: the first line names 'new\\nline' literally, missing.
    assert (r.ok, r.unreadable) == (1, 1)


def test_check_base64_tagged_lines(tmp_path, monkeypatch):
    # As `lanesum -c` reads `lanesum --base64` output: tagged lines with padded base64.
    import base64

    monkeypatch.chdir(tmp_path)
    (tmp_path / "f").write_bytes(b"data")
    d = base64.b64encode(hashlib.sha256(b"data").digest())
    write_manifest(tmp_path / "S", [b"SHA256 (f) = " + d, b"SHA256 (f) = " + d.lower()])
    r = lanesum.check(tmp_path / "S")
    assert (r.ok, r.failed, r.misformatted) == (1, 1, 0)
