"""lanesum.ray on a real local Ray (2 CPUs): digests of a column and of
read_binary_files' bytes against hashlib, audits against the command's walk, bad files
as error rows, manifests through Parquet and verify."""

from __future__ import annotations

import os

import pytest

ray = pytest.importorskip("ray")
pa = pytest.importorskip("pyarrow")
pytest.importorskip("ray.data")

from scale_out import (  # noqa: E402
    ORACLES,
    bad_paths,
    binary_values,
    check_bad_rows,
    check_verify,
    column_suffix,
    hexdigests,
    make_tree,
    manifest_changes,
)

import lanesum  # noqa: E402
import lanesum.ray as lr  # noqa: E402

# Ray's own DataContext copies warn of its deprecated settings; not ours to fix.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

ALGS = ["md5", "sha1", "sha256", "sha512", "crc32", "blake2b-256"]


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    # Lean: two CPUs, no dashboard, a small object store, no progress bars.
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        object_store_memory=128 << 20,
        configure_logging=False,
    )
    ctx = ray.data.DataContext.get_current()
    ctx.enable_progress_bars = False
    ctx.execution_options.preserve_order = True
    yield
    ray.shutdown()


def test_hash_column_equals_hashlib():
    values = binary_values()
    table = pa.table({"id": list(range(len(values))), "v": pa.array(values, pa.binary())})
    ds = ray.data.from_arrow([table.slice(0, 1000), table.slice(1000)])  # two blocks
    rows = lr.hash_column(ds, "v", ALGS, batch_size=500).take_all()
    assert [r["id"] for r in rows] == list(range(len(values)))
    for r in rows:
        v = values[r["id"]]
        for a in ALGS:
            assert r[f"v_{column_suffix(a)}"] == (None if v is None else ORACLES[a](v)), r["id"]
    raw = lr.hash_column(ds, "v", "sha256", hex=False).take_all()
    assert [r["v_sha256"] for r in raw] == [
        None if v is None else bytes.fromhex(ORACLES["sha256"](v)) for v in values
    ]
    with pytest.raises(ValueError, match="sha256"):
        lr.hash_column(ds, "v", "nosuch")
    # Where the schema is known, a bad column fails at once, not in a task.
    with pytest.raises(TypeError, match="not binary or string"):
        lr.hash_column(ds, "id", "md5")
    with pytest.raises(ValueError, match="no column"):
        lr.hash_column(ds, "zz", "md5")
    with pytest.raises(ValueError, match="threads"):
        lr.audit_files(".", threads=-2)


def test_hash_column_of_read_binary_files(tmp_path):
    files = make_tree(tmp_path / "tree", files=30)
    ds = ray.data.read_binary_files(str(tmp_path / "tree"), include_paths=True)
    rows = lr.hash_column(ds, "bytes", ["md5", "sha256"]).drop_columns(["bytes"]).take_all()
    assert sorted(r["path"] for r in rows) == sorted(files)
    for r in rows:
        want = hexdigests(files[r["path"]], ["md5", "sha256"])
        assert (r["bytes_md5"], r["bytes_sha256"]) == (want["md5"], want["sha256"])


def test_audit_equals_walk_and_hashlib(tmp_path):
    files = make_tree(tmp_path / "tree")
    root = str(tmp_path / "tree")
    rows = lr.audit_files(root, ALGS, blocks=5).take_all()
    walk = list(lanesum.hash_files(root, ALGS, recursive=True))
    assert [r["path"] for r in rows] == [w.path for w in walk] == sorted(files)
    for r, w in zip(rows, walk):
        data = files[r["path"]]
        assert r["error"] is None and r["size"] == len(data) == w.size
        assert r["mtime"].timestamp() == pytest.approx(os.stat(r["path"]).st_mtime, abs=1e-5)
        assert {a: r[column_suffix(a)] for a in ALGS} == hexdigests(data, ALGS) == w.hexdigests


def test_bad_files_are_rows(tmp_path):
    files = make_tree(tmp_path / "tree", files=12)
    bad = bad_paths(tmp_path / "bad")
    good = sorted(files)[0]
    rows = lr.audit_files([good, *bad], "sha256", recursive=False).take_all()
    assert [r["path"] for r in rows] == [good, *bad]
    check_bad_rows(rows[1:], bad)

    ds = lr.audit_files(str(tmp_path / "tree"), "md5")
    vanished = sorted(files)[5]
    os.remove(vanished)
    rows = {r["path"]: r for r in ds.take_all()}
    assert len(rows) == len(files) and rows[vanished]["error"].startswith("[Errno 2]")


def test_manifest_roundtrip_and_verify(tmp_path):
    files = make_tree(tmp_path / "tree", files=30)
    algs = ["sha256", "blake2b-256"]
    manifest = str(tmp_path / "manifest")
    lr.write_manifest(lr.audit_files(str(tmp_path / "tree"), algs), manifest)
    back = lr.read_manifest(manifest)
    assert back.count() == len(files)
    assert lr.verify(back).count() == 0

    expected = manifest_changes(files)
    check_verify(lr.verify(back).take_all(), files, expected)
