"""End to end in a real git repository: nightly runs are idempotent and only ever append."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from generator.pipeline.nightly import nightly
from generator.timeutil import parse_ts

from helpers import tree_bytes

pytestmark = pytest.mark.e2e

APPEND_ONLY = ("data/questions/", "data/observations/", "data/leaderboard/history.csv")


def git(root: Path, *args: str) -> str:
    result = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True)
    return result.stdout


def commit_all(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", message, "--allow-empty")


@pytest.fixture
def repo(sim_hub: Path) -> Path:
    git(sim_hub, "init", "-q", "-b", "main")
    commit_all(sim_hub, "hub")
    return sim_hub


def removed_lines(root: Path, path_prefixes: tuple[str, ...]) -> list[str]:
    """Lines a diff against HEAD removes from append-only files."""
    diff = git(root, "diff", "--unified=0", "HEAD", "--", *path_prefixes)
    return [line for line in diff.splitlines() if line.startswith("-") and not line.startswith("---")]


def test_rerun_with_same_as_of_changes_no_byte_and_later_runs_only_append(repo: Path):
    nightly(repo, parse_ts("2026-01-16T00:00:00Z"))  # opens the round due 2026-01-25
    commit_all(repo, "night 1")
    assert (repo / "data/rounds/2026-01-25/questions.csv").is_file()
    assert (repo / "data/forecasts/2026-01-25/prescient.always-0.5.csv").is_file()

    nightly(repo, parse_ts("2026-01-16T00:00:00Z"))
    assert git(repo, "status", "--porcelain") == ""

    for night in ("2026-02-20T00:00:00Z", "2026-03-20T00:00:00Z"):
        nightly(repo, parse_ts(night))
        assert removed_lines(repo, APPEND_ONLY) == []
        added = git(repo, "diff", "--stat", "HEAD")
        assert "observations" in added or git(repo, "status", "--porcelain")
        commit_all(repo, night)
    history = (repo / "data/leaderboard/history.csv").read_text().splitlines()
    assert history[0].startswith("as_of,board,model,rank")
    assert {line.split(",")[0] for line in history[1:]} >= {"2026-02-20T00:00:00Z", "2026-03-20T00:00:00Z"}


def test_frozen_round_and_submitted_files_are_never_rewritten(repo: Path):
    nightly(repo, parse_ts("2026-01-16T00:00:00Z"))
    frozen = (repo / "data/rounds/2026-01-25/questions.csv").read_bytes()
    forecast = repo / "data/forecasts/2026-01-25/prescient.always-0.5.csv"
    forecast.write_text(forecast.read_text())  # untouched content, new mtime
    nightly(repo, parse_ts("2026-01-20T00:00:00Z"))
    assert (repo / "data/rounds/2026-01-25/questions.csv").read_bytes() == frozen


def test_scores_are_derived_and_reproducible(repo: Path):
    for night in ("2026-01-16T00:00:00Z", "2026-03-01T00:00:00Z"):
        nightly(repo, parse_ts(night))
    before = tree_bytes(repo)
    (repo / "data/scores/2026-01-25.csv").unlink()
    nightly(repo, parse_ts("2026-03-01T00:00:00Z"))
    assert tree_bytes(repo) == before


def test_a_forecastbench_json_submission_is_scored_like_its_csv_twin(repo: Path):
    import json

    import pandas as pd

    nightly(repo, parse_ts("2026-01-16T00:00:00Z"))
    questions = pd.read_csv(repo / "data/rounds/2026-01-25/questions.csv", dtype=str, keep_default_na=False)
    items = [
        {"id": q.question_id.split(":", 1)[1], "source": q.source, "forecast": 0.5, "resolution_date": q.resolution_date or None, "reasoning": ""}
        for q in questions.itertuples()
    ]
    body = {"organization": "Team", "model": "json", "model_organization": "Team", "question_set": "2026-01-25", "forecasts": items}
    (repo / "data/forecasts/2026-01-25/team.json.json").write_text(json.dumps(body), encoding="utf-8")
    nightly(repo, parse_ts("2026-01-17T00:00:00Z"))  # a run before the due time records it (its seal's evidence)
    nightly(repo, parse_ts("2026-03-01T00:00:00Z"))
    scores = pd.read_csv(repo / "data/scores/2026-01-25.csv", dtype={"resolution_date": str}, keep_default_na=False)
    mine = scores[scores["model"] == "team.json"].drop(columns="model").reset_index(drop=True)
    twin = scores[scores["model"] == "prescient.always-0.5"].drop(columns="model").reset_index(drop=True)
    assert len(mine) > 0 and mine["imputed"].eq(0).all()
    pd.testing.assert_frame_equal(mine, twin)


def test_a_round_is_never_frozen_empty_and_the_next_night_in_its_window_opens_it(sim_hub: Path):
    from helpers import SMALL_HUB, write_hub

    write_hub(sim_hub, SMALL_HUB.replace("[sources.sim]\nenabled = true", "[sources.sim]\nenabled = false"))
    quiet = nightly(sim_hub, parse_ts("2026-01-16T00:00:00Z"))  # every source down or disabled
    assert quiet.rounds_opened == [] and quiet.rounds_waiting == ["2026-01-25"]
    assert not (sim_hub / "data/rounds/2026-01-25").exists()
    write_hub(sim_hub)
    back = nightly(sim_hub, parse_ts("2026-01-17T00:00:00Z"))
    assert back.rounds_opened == ["2026-01-25"]
    assert len((sim_hub / "data/rounds/2026-01-25/questions.csv").read_text().splitlines()) > 1
