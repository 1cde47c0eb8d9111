"""Crashes and concurrent runs: a nightly killed with SIGKILL in the middle of a write, then rerun,
ends byte for byte where an uninterrupted run ends, and never loses or half-writes a ledger row; a
second run while one is writing refuses, names the holder, and writes nothing.

The kills come from the test hook in ``atomic.write_bytes_atomic`` (``PRESCIENT_FAULT_AFTER_WRITES``):
the N-th atomic write of the process stops after its temp file is written and fsynced but before
the rename, so the hub is caught mid-write, with a temp file on disk; a ledger append
(``atomic.append_bytes_atomic``) stops after its bytes are added, with its journal on disk.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from generator.schemas import ALL_TABLES, Table
from generator.store.atomic import FAULT_ENV
from generator.store.csvio import read_table

from helpers import run_cli, tree_bytes, write_hub

pytestmark = pytest.mark.e2e

START = "2026-01-16T00:00:00Z"  # the first round opens
NIGHT = "2026-01-30T00:00:00Z"  # new observations, the first round's after-due files, the second round opens


def nightly_cmd(hub: Path, as_of: str) -> list[str]:
    return [sys.executable, "-m", "generator", "nightly", "--hub", str(hub), "--as-of", as_of]


def run_nightly(hub: Path, as_of: str, fault: str | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != FAULT_ENV}
    if fault:
        env[FAULT_ENV] = fault
    return subprocess.run(nightly_cmd(hub, as_of), capture_output=True, text=True, env=env, timeout=300)


@pytest.fixture(scope="module")
def states(tmp_path_factory) -> dict[str, Path]:
    """The hub after the START night, and the same hub after an uninterrupted NIGHT run."""
    base = tmp_path_factory.mktemp("faults")
    start = write_hub(base / "start")
    assert run_nightly(start, START).returncode == 0
    clean = base / "clean"
    shutil.copytree(start, clean)
    result = run_nightly(clean, NIGHT)
    assert result.returncode == 0, result.stderr
    return {"start": start, "clean": clean}


def table_for(rel: str) -> Table | None:
    """The schema of a CSV under data/, found by matching its path against each table's path pattern."""
    for table in ALL_TABLES:
        pattern = re.sub(r"<[^>]+>", "[^/]+", re.escape(table.path).replace(r"\<", "<").replace(r"\>", ">"))
        if re.fullmatch(pattern, rel):
            return table
    return None


def assert_readable(hub: Path) -> None:
    """Every CSV under data/ parses with its own schema (so no ledger holds a partial row)."""
    csvs = sorted(p.relative_to(hub).as_posix() for p in (hub / "data").rglob("*.csv"))
    assert csvs
    for rel in csvs:
        table = table_for(rel)
        assert table is not None, f"{rel}: no schema claims this file"
        read_table(hub / rel, table, rel)


def append_only(rel: str) -> bool:
    table = table_for(rel)
    return table is not None and table.mutability == "append-only"


def temp_files(hub: Path) -> list[str]:
    return sorted(p.relative_to(hub).as_posix() for p in (hub / "data").rglob("*.tmp"))


def test_the_paths_of_the_test_hubs_each_have_a_schema(states):
    rels = [p.relative_to(states["clean"]).as_posix() for p in (states["clean"] / "data").rglob("*.csv")]
    assert {table_for(r).name for r in rels} >= {"questions", "observations", "round_questions", "forecasts", "scores", "manifest"}
    assert table_for("data/unknown/thing.csv") is None


# The NIGHT run makes 12 atomic writes: the question bank and observation appends (1, 2), the new
# round's hub forecasts (3-6), its questions.json (7) and questions.csv (8, which marks the round as
# open), the first round's after-due forecasts (9-10: Imputed and Naive; no crowd aggregate, as no
# unit has crowd_min_forecasters submissions), the manifest (11) and the scores (12).
@pytest.mark.parametrize("n", [1, 3, 8, 10, 11, 12])
def test_a_nightly_killed_mid_write_and_rerun_ends_as_an_uninterrupted_run(states, tmp_path: Path, n: int):
    hub = tmp_path / "hub"
    shutil.copytree(states["start"], hub)
    before = tree_bytes(hub)

    killed = run_nightly(hub, NIGHT, fault=str(n))
    assert killed.returncode == -signal.SIGKILL, (killed.returncode, killed.stderr)
    crashed = tree_bytes(hub)
    assert temp_files(hub), "the kill came between the temp file and the rename"
    assert_readable(hub)  # the temp file is not a .csv: no reader takes it for data
    clean = tree_bytes(states["clean"])
    for rel, data in before.items():  # nothing committed before is lost; ledgers only grow
        if append_only(rel):
            assert crashed[rel].startswith(data), rel
        elif not rel.endswith(".lock"):  # any other file is old or new, never a mix
            assert crashed[rel] in (data, clean[rel]), rel

    rerun = run_nightly(hub, NIGHT)
    assert rerun.returncode == 0, rerun.stderr
    assert temp_files(hub) == []
    after = tree_bytes(hub)
    for rel, data in crashed.items():
        if append_only(rel):
            assert after[rel].startswith(data), rel
    assert after == clean


def process_state(pid: int) -> str:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]


def test_a_second_nightly_refuses_while_one_is_frozen_mid_write_and_names_the_holder(states, tmp_path: Path):
    hub = tmp_path / "hub"
    shutil.copytree(states["start"], hub)
    env = dict(os.environ, **{FAULT_ENV: "3:stop"})
    first = subprocess.Popen(nightly_cmd(hub, NIGHT), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not (temp_files(hub) and process_state(first.pid) == "T"):
            assert first.poll() is None and time.monotonic() < deadline, "the first run never reached its 3rd write"
            time.sleep(0.05)
        frozen = tree_bytes(hub)
        second = run_cli("nightly", "--hub", str(hub), "--as-of", NIGHT)
        assert second.returncode == 7, second.stderr
        assert str(hub / "data" / ".prescient.lock") in second.stderr
        assert f"prescient nightly --as-of {NIGHT} (pid {first.pid}, since " in second.stderr
        assert f"command: prescient nightly --hub {hub} --as-of {NIGHT})" in second.stderr
        assert "Traceback" not in second.stderr
        assert tree_bytes(hub) == frozen  # the refused run wrote nothing, not even a temp file
    finally:
        first.kill()  # SIGKILL ends a stopped process too
        first.wait(timeout=30)
    assert first.returncode == -signal.SIGKILL
    rerun = run_nightly(hub, NIGHT)
    assert rerun.returncode == 0, rerun.stderr
    assert temp_files(hub) == [] and tree_bytes(hub) == tree_bytes(states["clean"])
