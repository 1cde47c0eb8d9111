"""Time never runs backwards in a ledger: a `nightly`, `fetch` or `import` dated before the latest
time the ledgers record is refused with `as-of-before-ledger` (exit 4) and writes nothing.

The latest record is read from the files that can hold it: each source's latest observations file
(they are filed by the month of the run that recorded them), the question banks, the stated
resolutions, the latest manifest, the oracle question sets and the history. The manifest and the
history alone would not do: `fetch` and the imports write neither.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from generator.store import readers
from generator.store.hub import Hub

from helpers import DATA, run_cli, tree_bytes, write_hub

START, LATER, EARLIER = "2026-01-16T00:00:00Z", "2026-01-20T00:00:00Z", "2026-01-18T00:00:00Z"
ORACLE = DATA / "oracle"


def refused(result, as_of: str, latest: str) -> None:
    assert result.returncode == 4, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert "[as-of-before-ledger]" in result.stderr and as_of in result.stderr and latest in result.stderr


@pytest.fixture(scope="module")
def fetched(tmp_path_factory) -> Path:
    """A hub whose latest record is a `fetch` at LATER (no history, no new manifest rows)."""
    hub = write_hub(tmp_path_factory.mktemp("order") / "hub")
    assert run_cli("nightly", "--hub", str(hub), "--as-of", START).returncode == 0
    result = run_cli("fetch", "--hub", str(hub), "--as-of", LATER)
    assert result.returncode == 0, result.stderr
    return hub


@pytest.mark.parametrize("command", [["nightly"], ["fetch"], ["fetch", "--source", "sim"]])
def test_a_run_dated_before_the_latest_record_is_refused_and_writes_nothing(fetched: Path, command):
    before = tree_bytes(fetched)
    refused(run_cli(*command, "--hub", str(fetched), "--as-of", EARLIER), EARLIER, LATER)
    assert tree_bytes(fetched) == before


def test_imports_dated_before_the_latest_record_are_refused(fetched: Path, tmp_path: Path):
    from helpers import mini_fb

    hub = tmp_path / "hub"
    shutil.copytree(fetched, hub)
    before = tree_bytes(hub)
    refused(run_cli("import", "oracle", str(ORACLE / "questions.csv"), "--set", "news", "--hub", str(hub), "--as-of", EARLIER), EARLIER, LATER)
    data, forecasts = mini_fb(tmp_path)
    refused(run_cli("import", "forecastbench", str(data), "--forecasts", str(forecasts), "--hub", str(hub), "--as-of", EARLIER), EARLIER, LATER)
    assert tree_bytes(hub) == before
    again = run_cli("import", "oracle", str(ORACLE / "questions.csv"), "--set", "news", "--hub", str(hub), "--as-of", LATER)
    assert again.returncode == 0, again.stderr  # the same time as the latest record is fine


def test_a_nightly_dated_before_an_import_is_refused_the_issue_case(tmp_path: Path):
    """Importing without --as-of (so: now) and then running nightlies dated earlier made score files
    that verify reported as derived-differs, with no hint of the cause."""
    hub = write_hub(tmp_path / "hub")
    imported = run_cli("import", "oracle", str(ORACLE / "questions.csv"), "--set", "news", "--hub", str(hub), "--as-of", "2026-03-01T00:00:00Z")
    assert imported.returncode == 0, imported.stderr
    before = tree_bytes(hub)
    refused(run_cli("nightly", "--hub", str(hub), "--as-of", START), START, "2026-03-01T00:00:00Z")
    assert tree_bytes(hub) == before


def test_the_latest_record_is_found_in_each_kind_of_ledger(fetched: Path, tmp_path: Path):
    hub = tmp_path / "hub"
    shutil.copytree(fetched, hub)
    hub_files = Hub(hub)
    assert readers.latest_recorded(hub_files) == (LATER, "data/observations/sim/2026-01.csv", "recorded_at")
    readers.check_as_of(hub_files, LATER)  # a rerun at the same time is allowed (and changes nothing)
    ledgers = {  # one row each, dated after LATER, in every other ledger that records when the hub learned something
        "data/resolutions/sim.csv": (
            "round,question_id,resolution_date,recorded_at,status,outcome,resolved_at,value,payload_sha256\n,sim:x,,{t},open,,,,\n",
            "recorded_at",
        ),
        "data/leaderboard/history.csv": (
            "as_of,board,model,rank,n,n_dataset,n_market,overall,dataset,market,"
            "brier_overall,provisional,methodology_version\n{t},tournament,a.b,,0,0,0,,,,,1,1\n",
            "as_of",
        ),
    }
    for i, (rel, (text, column)) in enumerate(sorted(ledgers.items())):
        stamp = f"2026-02-0{i + 1}T00:00:00Z"
        (hub / rel).parent.mkdir(parents=True, exist_ok=True)
        (hub / rel).write_text(text.format(t=stamp))
        assert readers.latest_recorded(hub_files) == (stamp, rel, column)
    assert readers.latest_recorded(Hub(write_hub(tmp_path / "new"))) is None


def test_the_kept_latest_record_is_the_largest_stamp_of_a_scan(fetched: Path, tmp_path: Path):
    """``latest_recorded`` takes each ledger's largest stamp from its kept largest sort key
    (``ledger.last_key``, kept by ``ledger.append``): the same as the maximum of a whole column,
    for a ledger appended to through the cache and for one written by hand out of order."""
    from generator.schemas import OBSERVATIONS
    from generator.store import ledger
    from generator.store.csvio import read_table

    hub = tmp_path / "hub"
    shutil.copytree(fetched, hub)
    hub_files = Hub(hub)
    obs = hub / "data/observations/sim/2026-01.csv"
    assert readers.latest_recorded(hub_files)[0] == LATER
    rows = read_table(obs, OBSERVATIONS).tail(2).assign(recorded_at="2026-01-25T00:00:00Z", value=[0.125, 0.875])
    assert len(ledger.append(obs, rows, OBSERVATIONS, "obs", hub_files.cache)) == 2
    assert readers.latest_recorded(hub_files) == ("2026-01-25T00:00:00Z", "data/observations/sim/2026-01.csv", "recorded_at")
    history = hub / "data/leaderboard/history.csv"
    history.parent.mkdir(parents=True, exist_ok=True)
    head = "as_of,board,model,rank,n,n_dataset,n_market,overall,dataset,market,brier_overall,provisional,methodology_version\n"
    history.write_text(
        head + "".join(f"{t},tournament,a.b,,0,0,0,,,,,1,1\n" for t in ("2026-02-03T00:00:00Z", "2026-02-09T00:00:00Z", "2026-02-05T00:00:00Z"))
    )
    scanned = max(max(read_table(p, t)[c]) for p, t, c in readers._recording_ledgers(hub_files.layout) if len(read_table(p, t)))
    assert (
        readers.latest_recorded(hub_files)
        == (scanned, "data/leaderboard/history.csv", "as_of")
        == ("2026-02-09T00:00:00Z", "data/leaderboard/history.csv", "as_of")
    )
