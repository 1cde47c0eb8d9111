"""One unreadable submitted file never stops the night. Pushed before the due time as the last
version, it is what the seal fixes, and it fails validation: the seal says so with its code, the file
is removed, and everything else is scored and written; in an open round the site build quarantines it
(reports its path and code and leaves it out).

The runs are the real executable on a sim hub; the other kinds of broken file (bets, oracle
answers, JSON, a symbolic link, a model with two files) are read through the same readers below.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

from generator.errors import SchemaError
from generator.schemas import SCORES, SEALS
from generator.store import readers
from generator.store.csvio import read_table
from generator.store.hub import Hub
from generator.timeutil import parse_ts

from helpers import run_cli, tree_bytes, write_hub

pytestmark = pytest.mark.e2e

START, NIGHT, NEXT = "2026-01-16T00:00:00Z", "2026-03-01T00:00:00Z", "2026-03-02T00:00:00Z"  # scored by NIGHT
BEFORE_DUE = "2026-01-20T00:00:00Z"
ROUND = "data/forecasts/2026-01-25"
GARBAGE = b'question_id,probability\n"an unclosed quote,0.5\n\xff\xfe,1,2,3\n'


def nightly(hub: Path, as_of: str):
    return run_cli("nightly", "--hub", str(hub), "--as-of", as_of)


@pytest.fixture(scope="module")
def hubs(tmp_path_factory) -> dict[str, Path]:
    """A hub after its first night, and a copy that runs BEFORE_DUE and NIGHT with no broken file (the reference)."""
    base = tmp_path_factory.mktemp("quarantine")
    start = write_hub(base / "start")
    assert nightly(start, START).returncode == 0
    clean = base / "clean"
    shutil.copytree(start, clean)
    assert nightly(clean, BEFORE_DUE).returncode == 0
    result = nightly(clean, NIGHT)
    assert result.returncode == 0, result.stderr
    return {"start": start, "clean": clean}


def test_a_garbage_forecast_file_is_sealed_invalid_the_rest_is_scored_and_written(hubs, tmp_path: Path):
    """A broken file pushed before the due time is the version that counts, and it fails validation: the
    seal says so (with its code), the file is removed, and everything else is what a night without it writes."""
    hub = tmp_path / "hub"
    shutil.copytree(hubs["start"], hub)
    (hub / ROUND / "team.garbage.csv").write_bytes(GARBAGE)
    early = nightly(hub, BEFORE_DUE)  # the round is open: the manifest records the file, and the night reports it
    assert early.returncode == 6 and f"{ROUND}/team.garbage.csv" in early.stderr and "quarantined" in early.stderr
    before = tree_bytes(hub)

    first = nightly(hub, NIGHT)
    assert first.returncode == 0, first.stderr
    assert "Traceback" not in first.stderr + first.stdout
    assert f"{ROUND}/team.garbage.csv" in first.stderr and "[seal-not-counted]" in first.stderr
    assert "[bad-csv]" in first.stderr or "[not-utf8]" in first.stderr
    assert "sim: ok" in first.stdout
    assert not (hub / ROUND / "team.garbage.csv").exists()
    sealed = read_table(hub / "data/seals/2026.csv", SEALS)
    row = sealed[sealed["model"] == "team.garbage"].iloc[0]
    assert (row["status"], row["evidence"], row["attested_at"]) == ("invalid", "manifest", BEFORE_DUE)

    after = tree_bytes(hub)
    obs = "data/observations/sim/2026-03.csv"
    assert obs not in before and obs in after  # the fetched rows are kept
    scores = read_table(hub / "data/scores/2026-01-25.csv", SCORES)
    assert "team.garbage" not in set(scores["model"]) and "prescient.always-0.5" in set(scores["model"])
    clean = read_table(hubs["clean"] / "data/scores/2026-01-25.csv", SCORES)
    pd.testing.assert_frame_equal(scores, clean)  # the same scores as a night that never saw the file

    second = nightly(hub, NEXT)
    assert second.returncode == 0, second.stderr
    assert tree_bytes(hub)[obs].startswith(after[obs])
    built = run_cli("build", "--hub", str(hub), "--as-of", NEXT)
    assert built.returncode == 0, built.stderr
    assert (hub / "site_src/site/index.html").is_file()
    assert not list((hub / "site_src").rglob("team.garbage.csv"))  # not offered for download either
    verified = run_cli("verify", "--hub", str(hub))
    assert verified.returncode == 0, verified.stdout + verified.stderr


def test_a_garbage_file_in_an_open_round_is_quarantined_by_the_site_build(hubs, tmp_path: Path):
    hub = tmp_path / "hub"
    shutil.copytree(hubs["start"], hub)
    (hub / ROUND / "team.garbage.csv").write_bytes(GARBAGE)
    built = run_cli("build", "--hub", str(hub), "--as-of", BEFORE_DUE)
    assert built.returncode == 0, built.stderr
    assert "Traceback" not in built.stderr and f"warning: {ROUND}/team.garbage.csv" in built.stderr
    assert not list((hub / "site_src").rglob("team.garbage.csv"))


# -- the readers: strict by default, quarantining on request ------------------------------------

DUE = parse_ts("2026-01-25T00:00:00Z")
BROKEN = {
    "team.nul.csv": (b'question_id,probability,reasoning\n"open\n', "bad-csv"),
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
    assert codes == {
        **{name: code for name, (_, code) in BROKEN.items()},
        "team.link.csv": "not-a-regular-file",
        "team.twice.json": "duplicate-submission",
    }
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
