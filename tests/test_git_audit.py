"""The git history audit (`prescient verify --git`) on a real repository in tmp_path."""

from __future__ import annotations

import os
import shutil
import subprocess
from datetime import timedelta
from pathlib import Path

import pytest

from generator.audit import git as audit_git
from generator.pipeline import nightly
from generator.timeutil import parse_ts

from conftest import write_hub

NIGHTS = ("2026-01-16T00:00:00Z", "2026-01-20T00:00:00Z", "2026-02-20T00:00:00Z", "2026-03-01T00:00:00Z")  # round due 01-25
OBS = "data/observations/sim/2026-01.csv"


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout


def commit_at(root: Path, when: str, message: str) -> str:
    """Commit everything with author and committer dates set to ``when``; return the sha."""
    stamp = f"@{int(parse_ts(when).timestamp())} +0000"
    env = {**os.environ, "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
    git(root, "add", "-A")
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", message],
                   cwd=root, env=env, check=True, capture_output=True)
    return git(root, "rev-parse", "HEAD").strip()


def an_hour_after(when: str) -> str:
    return (parse_ts(when) + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")


def build_season(root: Path) -> Path:
    """A hub with four nightly runs, each committed an hour after its as_of, like the workflow does."""
    write_hub(root)
    git(root, "init", "-q", "-b", "main")
    commit_at(root, "2026-01-01T00:00:00Z", "hub")
    for night in NIGHTS:
        nightly(root, parse_ts(night))
        commit_at(root, an_hour_after(night), f"nightly: data as of {night}")
    return root


@pytest.fixture(scope="module")
def season(tmp_path_factory) -> Path:
    return build_season(tmp_path_factory.mktemp("season") / "hub")


@pytest.fixture
def repo(season: Path, tmp_path: Path) -> Path:
    """A private copy of the season (working tree and .git) that a test may change."""
    return Path(shutil.copytree(season, tmp_path / "hub"))


def codes(problems) -> list[str]:
    return [p.code for p in problems]


def test_a_clean_history_has_no_problem_and_after_due_baselines_are_not_reported(repo: Path):
    changes, problems = audit_git.audit_history(repo)
    assert problems == []
    late_hub_files = [c for c in changes if c.path.startswith("data/forecasts/2026-01-25/prescient.imputed")]
    assert late_hub_files and late_hub_files[0].time > "2026-01-25T00:00:00Z"  # written after due, by design


def test_rewriting_an_observation_row_reports_the_commit_and_row(repo: Path):
    path = repo / OBS
    lines = path.read_text().splitlines(keepends=True)
    fields = lines[2].split(",")
    fields[3] = "0.999"
    lines[2] = ",".join(fields)
    path.write_text("".join(lines))
    sha = commit_at(repo, "2026-03-02T00:00:00Z", "quietly fix a value")
    _, problems = audit_git.audit_history(repo)
    assert codes(problems) == ["ledger-row-rewritten"]
    assert problems[0].file == OBS and problems[0].row == 3 and sha[:12] in problems[0].message


def test_re_sorting_a_ledger_is_not_a_rewrite_but_deleting_one_is(repo: Path):
    path = repo / OBS
    header, *rows = path.read_text().splitlines(keepends=True)
    path.write_text(header + "".join(reversed(rows)))
    commit_at(repo, "2026-03-02T00:00:00Z", "re-sort")
    assert audit_git.audit_history(repo)[1] == []
    path.unlink()
    sha = commit_at(repo, "2026-03-03T00:00:00Z", "delete")
    _, problems = audit_git.audit_history(repo)
    assert codes(problems) == ["ledger-deleted"] and sha[:12] in problems[0].message


def test_a_changed_header_is_a_warning(repo: Path):
    path = repo / "data/leaderboard/history.csv"
    text = path.read_text()
    path.write_text(text.replace("as_of", "as_of_renamed", 1))
    commit_at(repo, "2026-03-02T00:00:00Z", "rename a column")
    _, problems = audit_git.audit_history(repo)
    assert [(p.code, p.severity, p.row) for p in problems] == [("ledger-header-changed", "warning", 1)]


def test_a_forecast_file_first_committed_after_due_is_reported(repo: Path):
    late = "data/forecasts/2026-01-25/team.late.csv"
    shutil.copy(repo / "data/forecasts/2026-01-25/prescient.always-0.5.csv", repo / late)
    sha = commit_at(repo, "2026-01-25T00:00:01Z", "a second too late")
    _, problems = audit_git.audit_history(repo)
    assert codes(problems) == ["forecast-committed-after-due"]
    assert problems[0].file == late and sha[:12] in problems[0].message


def test_a_forecast_file_committed_before_due_is_fine_and_editing_it_after_due_is_reported(repo: Path):
    path = "data/forecasts/2026-01-25/prescient.always-0.csv"
    (repo / path).write_text((repo / path).read_text().replace("0.000000", "0.100000"))
    commit_at(repo, "2026-03-02T00:00:00Z", "improve a past forecast")
    _, problems = audit_git.audit_history(repo)
    assert [(p.code, p.file) for p in problems] == [("forecast-changed-after-due", path)]


def test_committed_before_matches_the_exact_bytes(repo: Path):
    changes = audit_git.history(repo)
    path = "data/forecasts/2026-01-25/prescient.always-0.csv"
    data = (repo / path).read_bytes()
    assert audit_git.committed_before(changes, path, data, "2026-01-25T00:00:00Z")
    assert not audit_git.committed_before(changes, path, data + b"x", "2026-01-25T00:00:00Z")
    assert not audit_git.committed_before(changes, path, data, "2026-01-16T00:30:00Z")  # committed at 01:00


def test_a_bad_ref_is_a_clear_error(repo: Path):
    from generator.errors import PrescientError

    with pytest.raises(PrescientError, match="not a commit"):
        audit_git.audit_history(repo, "no-such-branch")


def test_a_shallow_clone_is_checked_as_far_as_it_goes_and_says_so(repo: Path, tmp_path: Path):
    shallow = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "2", f"file://{repo}", str(shallow)], check=True, capture_output=True)
    changes, problems = audit_git.audit_history(shallow)
    assert codes(problems) == ["shallow-clone"] and problems[0].severity == "warning"
    assert len({c.commit for c in changes}) == 2
