"""`prescient demo` as a newcomer runs it: the real executable, its progress, its closing message."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

PROGRAM = Path(sys.executable).parent / "prescient"


def demo(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    if not PROGRAM.exists():
        pytest.skip(f"the console script {PROGRAM} is not installed (pip install -e .)")
    return subprocess.run([str(PROGRAM), "demo", *args], cwd=cwd, capture_output=True, text=True, timeout=600)


def test_a_short_demo_counts_its_nights_builds_the_site_as_its_own_step_and_says_what_next(tmp_path: Path):
    result = demo(tmp_path, "--until", "2026-01-12")
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    steps = [line for line in result.stderr.splitlines() if "Simulating" in line or "Building the site" in line]
    assert steps[-2:] == ["Simulating a season of nightly runs: 9/9 (night 2026-01-12)", "Building the site (mkdocs build --strict) ..."], (
        "the site build is a step of its own"
    )
    out = result.stdout.splitlines()
    assert out[0].startswith("Demo hub written to demo in ") and "9 nightly runs" in out[0], "count and summary agree"
    commands = [line.split()[:2] for line in out if line.startswith("  ")]
    program = "prescient" if shutil.which("prescient") == str(PROGRAM) else str(PROGRAM)
    assert commands[0] == [program, "serve"], "preview first"
    assert "stopped at its last night, 2026-01-12T00:00:00Z" in result.stdout
    assert "nightly --hub demo --as-of 2026-01-13T00:00:00Z" in result.stdout
    assert (tmp_path / "demo/site_src/site/index.html").is_file()


@pytest.mark.parametrize("until", ["yesterday", "2025-01-01"])
def test_a_night_outside_the_season_is_a_one_line_error(tmp_path: Path, until: str):
    result = demo(tmp_path, "--until", until)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "--until" in result.stderr and ("2026-01-25" in result.stderr or "2026-01-04" in result.stderr)
    assert not (tmp_path / "demo").exists(), "nothing is written"
