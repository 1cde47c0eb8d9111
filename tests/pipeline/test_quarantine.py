"""One unreadable submitted file never stops the night: the nightly quarantines it (reports its path
and code, scores everything else, writes everything else, exits 6 so the workflow commits what was
fetched), the next night does the same, and `prescient build` still produces the site.

The runs are the real executable on a sim hub; the other kinds of broken file (bets, oracle
answers, JSON, a symbolic link, a model with two files) are read through the same readers below.
"""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pandas as pd
import pytest

from generator.errors import SchemaError
from generator.schemas import SCORES
from generator.store import readers
from generator.store.csvio import read_table
from generator.store.hub import Hub
from generator.timeutil import parse_ts

from helpers import run_cli, tree_bytes, write_hub

START, NIGHT, NEXT = "2026-01-16T00:00:00Z", "2026-03-01T00:00:00Z", "2026-03-02T00:00:00Z"  # scored by NIGHT
ROUND = "data/forecasts/2026-01-25"
GARBAGE = b'question_id,probability\n"an unclosed quote,0.5\n\xff\xfe,1,2,3\n'


def nightly(hub: Path, as_of: str):
    return run_cli("nightly", "--hub", str(hub), "--as-of", as_of)


@pytest.fixture(scope="module")
def hubs(tmp_path_factory) -> dict[str, Path]:
    """A hub after its first night, and a copy that runs NIGHT with no broken file (the reference)."""
    base = tmp_path_factory.mktemp("quarantine")
    start = write_hub(base / "start")
    assert nightly(start, START).returncode == 0
    clean = base / "clean"
    shutil.copytree(start, clean)
    result = nightly(clean, NIGHT)
    assert result.returncode == 0, result.stderr
    return {"start": start, "clean": clean}


def test_a_garbage_forecast_file_is_quarantined_the_rest_is_scored_and_written(hubs, tmp_path: Path):
    hub = tmp_path / "hub"
    shutil.copytree(hubs["start"], hub)
    (hub / ROUND / "team.garbage.csv").write_bytes(GARBAGE)
    before = tree_bytes(hub)

    first = nightly(hub, NIGHT)
    assert first.returncode == 6, first.stderr
    assert "Traceback" not in first.stderr + first.stdout
    assert f"{ROUND}/team.garbage.csv" in first.stderr and "quarantined" in first.stderr
    assert "[bad-csv]" in first.stderr or "[not-utf8]" in first.stderr
    assert "sim: ok" in first.stdout

    after, clean = tree_bytes(hub), tree_bytes(hubs["clean"])
    obs = "data/observations/sim/2026-03.csv"
    assert obs not in before and obs in after  # the fetched rows are kept
    # Everything else is exactly what a night without the broken file writes (the manifest also
    # records the broken file's hash, as it records every file it sees).
    # The night's ledger digest (history.csv's ledger_digest column) covers the manifest, so it differs too.
    def kept(files):
        undigested = lambda d: pd.read_csv(io.BytesIO(d), dtype=str, keep_default_na=False).drop(columns="ledger_digest").to_csv()  # noqa: E731
        return {p: undigested(d) if p == "data/leaderboard/history.csv" else d for p, d in files.items()
                if not p.startswith("data/manifest/") and not p.endswith("team.garbage.csv")}
    assert kept(after) == kept(clean)
    scores = read_table(hub / "data/scores/2026-01-25.csv", SCORES)
    assert "team.garbage" not in set(scores["model"]) and "prescient.always-0.5" in set(scores["model"])

    second = nightly(hub, NEXT)
    assert second.returncode == 6, second.stderr
    assert "Traceback" not in second.stderr and f"{ROUND}/team.garbage.csv" in second.stderr
    assert tree_bytes(hub)[obs].startswith(after[obs])

    built = run_cli("build", "--hub", str(hub), "--as-of", NEXT)
    assert built.returncode == 0, built.stderr
    assert "Traceback" not in built.stderr and f"warning: {ROUND}/team.garbage.csv" in built.stderr
    assert (hub / "site_src/site/index.html").is_file()
    assert not list((hub / "site_src").rglob("team.garbage.csv"))  # not offered for download either

    verified = run_cli("verify", "--hub", str(hub))
    assert verified.returncode == 0, verified.stdout + verified.stderr  # verify leaves it out alike


# -- the readers: strict by default, quarantining on request ------------------------------------

DUE = parse_ts("2026-01-25T00:00:00Z")
BROKEN = {
    "team.nul.csv": (b"question_id,probability,reasoning\n\"open\n", "bad-csv"),
    "team.latin.csv": ("question_id,probability,reasoning\nx,0.5,caf\xe9\n".encode("latin-1"), "not-utf8"),
    "team.schema.csv": (b"x,y\n1,2\n", "missing-column"),
    "team.json.json": (b"{", "bad-json"),
    "team.empty.csv": (b"", "empty-file"),
}


def test_each_broken_forecast_file_is_set_aside_with_its_code(hubs, tmp_path: Path):
    hub = tmp_path / "hub"
    shutil.copytree(hubs["start"], hub)
    folder = hub / ROUND
    good = set(readers.load_forecasts(Hub(hub), DUE))
    for name, (data, _) in BROKEN.items():
        (folder / name).write_bytes(data)
    (folder / "team.link.csv").symlink_to(folder / "prescient.always-0.5.csv")
    (folder / "team.twice.csv").write_bytes((folder / "prescient.always-0.5.csv").read_bytes())
    (folder / "team.twice.json").write_bytes(b"{}")

    with pytest.raises(SchemaError):
        readers.load_forecasts(Hub(hub), DUE)
    quarantine = []
    assert set(readers.load_forecasts(Hub(hub), DUE, quarantine)) == good
    codes = {p.file.rsplit("/", 1)[1]: p.code for p in quarantine}
    assert codes == {**{name: code for name, (_, code) in BROKEN.items()}, "team.link.csv": "not-a-regular-file",
                     "team.twice.json": "duplicate-submission"}
    readers.load_forecasts(Hub(hub), DUE, quarantine)
    assert len(quarantine) == len(codes)  # a file read twice is reported once


def test_broken_bet_and_oracle_answer_files_are_set_aside(tmp_path: Path):
    hub_files = Hub(write_hub(tmp_path / "hub"))
    layout = hub_files.layout
    bets, answers = layout.bets(DUE, "team.bets"), layout.oracle_forecast("news", "team.answers")
    for path in (bets, answers):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(GARBAGE)
    quarantine = []
    assert readers.load_bets(hub_files, DUE, quarantine) == {}
    assert readers.load_oracle_forecasts(hub_files, "news", quarantine) == {}
    assert [p.file for p in quarantine] == [layout.relative(bets), layout.relative(answers)]
    with pytest.raises(SchemaError):
        readers.load_bets(hub_files, DUE)
