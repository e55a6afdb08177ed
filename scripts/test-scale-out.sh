#!/usr/bin/env bash
# lanesum inside Spark and Ray (python/lanesum/spark.py, ray.py): run right after
# scripts/test-python.sh, whose python/.venv already holds the installed package. Adds
# the pinned pyspark and ray (python/requirements-scale-out.txt) to that environment,
# then runs only the tests that start a local Spark (local[2], on the machine's Java 17)
# and a local Ray (2 CPUs): digests row for row against Spark's md5/sha1/sha2/crc32 and
# hashlib, audits against binaryFile and the command's walk, bad files, manifests.
# Time added on the 2-core machine shared with other builds (load 6-8), from a venv
# as test-python.sh leaves it and nothing in pip's cache: 4 min 41 s end to end, of
# which the downloads and install about 2.3 minutes (pyspark is a 456 MB source
# archive) and the tests 2.3 minutes (JVM, Python workers and Ray start-up included).
# With pip's cache warm the install takes seconds.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=python/.venv
if ! (cd python/tests && "../.venv/bin/python" -c "import lanesum._lanesum") 2>/dev/null; then
    echo "== lanesum is not installed in $VENV: running scripts/test-python.sh's install first"
    # Its install step, without its own tests: the venv, the test requirements, the package.
    PYTHON=${PYTHON:-python3}
    [ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
    "$VENV/bin/pip" install -q --disable-pip-version-check -r python/requirements-test.txt
    "$VENV/bin/pip" install -q --disable-pip-version-check --no-deps ./python
fi
if ! command -v java >/dev/null; then
    echo "scripts/test-scale-out.sh: Spark needs Java (17 or later) on PATH" >&2
    exit 1
fi

echo "== pip install -r python/requirements-scale-out.txt (pyspark, ray)"
"$VENV/bin/pip" install -q --disable-pip-version-check -r python/requirements-scale-out.txt

echo "== pytest test_spark.py test_ray.py"
cd python/tests
# The executors' and Ray workers' Python is the venv's; no telemetry, no auth files.
export PYSPARK_PYTHON="$PWD/../.venv/bin/python"
export RAY_USAGE_STATS_ENABLED=0
env -u LANESUM_ISA ../.venv/bin/pytest -q -p no:cacheprovider test_spark.py test_ray.py "$@"
