#!/usr/bin/env bash
# The Python package, from a fresh clone: a virtual environment (python/.venv), the
# extension's Rust lint (fmt, clippy; it is outside the workspace, see Cargo.toml), a
# `pip install ./python` exactly as users run it, ruff, then pytest: every algorithm
# against hashlib/blake3/zlib/crc32c/xxhash oracles, every buffer and Arrow type, files,
# threads, and the level-dependent tests again at each instruction-set level.
# From a clean checkout the release build of the library and the extension is most of
# the time: 5.7 minutes for this script plus 8.8 for a first `pip install ./python` on a
# 2-core machine shared with four other builds (load 10); about 1.5 minutes once built
# (pytest itself: 35-50 s, most of it the three other instruction-set levels).
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
VENV=python/.venv
if [ ! -x "$VENV/bin/python" ]; then
    echo "== venv $VENV"
    "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/pip" install -q --disable-pip-version-check -r python/requirements-test.txt

echo "== cargo fmt --check, clippy (crates/lanesum-py)"
(
    cd crates/lanesum-py
    cargo fmt -- --check
    cargo clippy --locked --release --all-targets -- -D warnings
)

echo "== pip install ./python"
"$VENV/bin/pip" install -q --disable-pip-version-check --force-reinstall --no-deps ./python

echo "== ruff"
"$VENV/bin/ruff" check python
"$VENV/bin/ruff" format --check python

echo "== pytest"
# From the tests' folder, so that `import lanesum` finds the installed package rather
# than the sources in python/lanesum (which lack the compiled extension).
cd python/tests
env -u LANESUM_ISA ../.venv/bin/pytest -q -p no:cacheprovider "$@"
