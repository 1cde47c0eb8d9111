"""The commands a forecaster reads: the leaderboard as a compact table, the rounds and their
status, a ready-to-fill forecast template, and validation messages (issue 19), each through the
real ``prescient`` executable."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import write_hub

NIGHTS = ("2026-01-16", "2026-01-30", "2026-02-10", "2026-02-24", "2026-03-10")


def prescient(*args: str, cwd: Path | None = None, columns: int | None = None) -> subprocess.CompletedProcess:
    """The installed ``prescient`` executable (never ``python -m``), optionally with a terminal width."""
    env = {k: v for k, v in os.environ.items() if k not in ("SOURCE_DATE_EPOCH", "COLUMNS")}
    if columns:
        env["COLUMNS"] = str(columns)
    exe = Path(sys.executable).with_name("prescient")
    return subprocess.run([str(exe), *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=600)


@pytest.fixture(scope="module")
def season(tmp_path_factory) -> Path:
    """A small sim hub after five nightly runs: two rounds, scores and a history."""
    hub = write_hub(tmp_path_factory.mktemp("season") / "hub")
    for night in NIGHTS:
        result = prescient("nightly", "--hub", str(hub), "--as-of", f"{night}T00:00:00Z")
        assert result.returncode in (0, 6), result.stderr
    return hub


def test_leaderboard_table_is_compact_titled_and_fits_the_terminal(season):
    result = prescient("leaderboard", "--hub", str(season), "--replicates", "20", columns=80)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    title, header = lines[0], lines[1].split()
    # no --as-of: the latest night history.csv records (as the site shows), not the clock
    assert title.startswith("tournament board · view overall · as of 2026-03-10T00:00:00Z")
    assert "higher is better" in title
    assert header[:2] == ["rank", "model"] and "Index" in header and "N" in header and "interval" in header
    assert all(len(line) <= 80 for line in lines[1:]), result.stdout
    assert "nan" not in result.stdout.lower() and "Empty DataFrame" not in result.stdout
    first = lines[2].split()
    assert first[0] == "1" and "[" in lines[2] and "]" in lines[2]  # a rank as an integer; the BI with its CI


def test_leaderboard_wide_has_every_non_empty_column_and_csv_json_keep_the_full_data(season):
    wide = prescient("leaderboard", "--hub", str(season), "--replicates", "20", "--wide")
    assert wide.returncode == 0, wide.stderr
    header = wide.stdout.splitlines()[1].split()
    assert {"brier_overall", "n_dataset", "log_score", "rank_low"} <= set(header)
    assert "nan" not in wide.stdout.lower()
    row = dict(zip(header, wide.stdout.splitlines()[2].split()))
    assert len(row["brier_overall"].split(".")[1]) == 3 and "." not in row["rank"]
    full = prescient("leaderboard", "--hub", str(season), "--replicates", "20", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(full.stdout)))
    assert rows and "p_value" in rows[0] and "in_estimation" in rows[0]
    records = json.loads(prescient("leaderboard", "--hub", str(season), "--replicates", "20", "--format", "json").stdout)
    assert len(records) == len(rows) and set(records[0]) == set(rows[0])
