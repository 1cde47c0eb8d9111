"""``benchmarks/bench_full_audit.py`` on a few nights, so the script cannot rot: the demo's nights are
committed with the audit's checkpoint after each, as the nightly workflow records it (a row naming the
night's commit, committed by the hub's bot), and the full audit of each length is timed and green. No
timing is asserted (the machine is shared)."""

from __future__ import annotations

import subprocess

import pandas as pd
import pytest

from generator.config import BOT_EMAIL

from helpers import benchmark

pytestmark = pytest.mark.e2e


def _git(repo, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout.strip()


def test_each_night_is_committed_with_its_checkpoint_and_each_length_audited(tmp_path, capsys):
    result = benchmark("bench_full_audit").main(["--nights", "2", "4", "--repeat", "1", "--work", str(tmp_path)])
    made = result["codes"]["this checkout"]
    assert made["exit"] == {2: [0], 4: [0]} and set(made["cpu"]) == {2, 4} and made["ratio"] > 0
    hub = tmp_path / "hub"
    line = _git(hub, "log", "--first-parent", "--format=%H %ce %s", "main").splitlines()[::-1]
    nightly = [sha for sha, _, subject in (entry.split(" ", 2) for entry in line) if subject.startswith("nightly: data as of")]
    recorded = [(sha, who) for sha, who, subject in (entry.split(" ", 2) for entry in line) if subject == "nightly: the audit's checkpoint"]
    assert len(nightly) == len(recorded) == 4 and {who for _, who in recorded} == {BOT_EMAIL}
    rows = pd.read_csv(hub / "data/metadata/checkpoints.csv", dtype=str)
    assert list(rows["commit"]) == nightly  # each night's row names that night's commit
    assert _git(tmp_path / "at-2", "rev-parse", "HEAD") == recorded[1][0]  # the audit of 2 nights is at its checkpoint
    assert "4 / 2 nights" in capsys.readouterr().out
