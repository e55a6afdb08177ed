"""The level-dependent tests (test_oracles.py) again under every instruction-set level
this CPU has: LANESUM_ISA is read once per process, so each level is a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import lanesum

HERE = Path(__file__).parent
LEVELS = lanesum.isa_levels()


def test_levels_listed():
    assert LEVELS[0] == "portable"
    assert lanesum.isa_active() in LEVELS or os.environ.get("LANESUM_ISA")


@pytest.mark.parametrize("level", LEVELS[:-1] or ["portable"])
def test_oracles_at_level(level, tmp_path):
    env = dict(os.environ, LANESUM_ISA=level, LANESUM_HYPOTHESIS_EXAMPLES="10")
    probe = subprocess.run(
        [sys.executable, "-c", "import lanesum; print(lanesum.isa_active())"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert probe.stdout.strip() == level
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-x",
            "-p",
            "no:cacheprovider",
            str(HERE / "test_oracles.py"),
        ],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
