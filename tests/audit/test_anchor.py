"""Anchors: each page names the commit of the data it was built from, and `verify --git --anchor COMMIT`
proves later that every row published as of that commit is unchanged — even after a history rewritten
in every commit (`git filter-branch`), which every rule of the plain walk lets through."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from generator.audit import anchor
from generator.audit import git as audit_git
from generator.site.build import build_site
from generator.timeutil import parse_ts

from helpers import SEASON_NIGHTS, commit_at, first_parent_line, git

pytestmark = pytest.mark.e2e

PRESCIENT = str(Path(sys.executable).with_name("prescient"))
HISTORY = "data/leaderboard/history.csv"
LAST = SEASON_NIGHTS[-1]


def verify(hub: Path, *args: str) -> subprocess.CompletedProcess:
    done = subprocess.run([PRESCIENT, "verify", "--hub", str(hub), *args], capture_output=True, text=True, check=False)
    assert "Traceback" not in done.stderr, done.stderr
    return done


def copy(season: Path, where: Path) -> Path:
    return Path(shutil.copytree(season, where))


def shown_commit(site: Path) -> str:
    """The commit the built home page names in its footer (the one a reader would keep)."""
    page = (site / "index.html").read_text(encoding="utf-8")
    found = re.findall(r"--anchor ([0-9a-f]{40})", page)
    assert found, "the home page names no commit"
    return found[0]


def rewrite_every_commit(repo: Path, old: str, new: str) -> None:
    """``git filter-branch``: the same edit of history.csv in every commit of main, as a forger would."""
    script = repo.parent / "edit.py"
    script.write_text(
        f"import pathlib\np = pathlib.Path({HISTORY!r})\nif p.exists(): p.write_text(p.read_text().replace({old!r}, {new!r}))\n",
        encoding="utf-8",
    )
    env = {**os.environ, "FILTER_BRANCH_SQUELCH_WARNING": "1"}
    subprocess.run(
        ["git", "filter-branch", "-f", "--tree-filter", f"{sys.executable} {script}", "main"], cwd=repo, env=env, check=True, capture_output=True
    )


def a_published_row(repo: Path, commit: str) -> tuple[str, str]:
    """A row of history.csv as ``commit`` holds it with a Brier Index, and the same row with it raised by 10."""
    rows = git(repo, "show", f"{commit}:{HISTORY}").splitlines()
    header = rows[0].split(",")
    at = header.index("dataset")
    for row in rows[1:]:
        cells = row.split(",")
        if cells[at] and cells[header.index("as_of")] == SEASON_NIGHTS[2]:
            edited = cells[:at] + [f"{float(cells[at]) + 10:.8g}"] + cells[at + 1 :]
            return row, ",".join(edited)
    raise AssertionError("no row with a Brier Index")


@pytest.fixture
def site(git_season: Path, tmp_path: Path) -> tuple[Path, str]:
    """The season's site built as of its last night (a copy: the build leaves site_src/ beside the
    hub), and the commit its home page names."""
    built = copy(git_season, tmp_path / "built")
    build_site(built, parse_ts(LAST))
    return built, shown_commit(built / "site_src" / "site")


def test_every_page_names_the_data_commit_and_the_night_and_the_api_gives_both(site: tuple[Path, str]):
    built, commit = site
    assert commit == git(built, "rev-parse", "HEAD").strip()  # the last commit that changed data/
    home = (built / "site_src/site/index.html").read_text(encoding="utf-8")
    assert f'<time datetime="{LAST}">' in home and "not committed" not in home
    methodology = (built / "site_src/site/methodology/index.html").read_text(encoding="utf-8")
    assert f"--anchor {commit}" in methodology  # a hand-written page too
    index = json.loads((built / "site_src/site/api/index.json").read_text(encoding="utf-8"))
    assert index["data_commit"] == commit and index["as_of"] == LAST and index["data_uncommitted"] is False


def test_a_commit_that_changes_no_data_changes_no_page_and_uncommitted_data_is_said(site: tuple[Path, str]):
    built, commit = site
    generated = built / "site_src/docs/generated"
    before = {p: p.read_bytes() for p in sorted(generated.rglob("*")) if p.is_file()}
    (built / "NOTES.md").write_text("code, not data\n", encoding="utf-8")
    git(built, "add", "NOTES.md")
    commit_at(built, "2026-03-02T00:00:00Z", "docs: notes")  # commits site_src/ too: none of it is data/
    assert build_site(built, parse_ts(LAST), run_mkdocs=False) == []
    assert {p: p.read_bytes() for p in before} == before
    (built / "data/notes.txt").write_text("not committed\n", encoding="utf-8")  # any file under data/ not committed
    build_site(built, parse_ts(LAST), run_mkdocs=False)
    index = json.loads((generated / "api/index.json").read_text(encoding="utf-8"))
    assert index["data_commit"] == commit and index["data_uncommitted"] is True


def test_an_anchored_audit_passes_on_the_honest_history_and_walks_only_the_commits_since(git_season: Path, tmp_path: Path):
    hub = copy(git_season, tmp_path / "hub")
    line = first_parent_line(hub)
    at = line[2]  # the night of 2026-01-20: two nights committed since
    found = anchor.check(hub, at, line[0])
    assert found.problems == [] and found.start is not None and found.start.start is not None
    changes, problems = audit_git.audit_history(hub, start=found.start.start)
    assert problems == [] and {c.commit for c in changes} == set(line[:2])
    done = verify(hub, "--git", "--anchor", at[:12])
    assert done.returncode == 0, done.stdout
    assert f"from the anchor {at[:12]}" in done.stdout.splitlines()[0]
    assert f"ok      anchor: anchor {at[:12]}: an ancestor of the head; its ledgers only appended to since" in done.stdout
    assert "2 commit(s) touching data/" in done.stdout
    report = json.loads(verify(hub, "--anchor", at, "--format", "json").stdout)  # --anchor implies --git
    assert report["ok"] and report["git_start"]["anchor"] == at and report["git_start"]["checkpoint"] is None


def test_a_history_rewritten_in_every_commit_fails_the_audit_anchored_at_a_commit_the_site_showed(site: tuple[Path, str], tmp_path: Path):
    built, shown = site
    hub = Path(shutil.copytree(built, tmp_path / "rewritten", ignore=shutil.ignore_patterns("site_src")))
    old, new = a_published_row(hub, shown)
    rewrite_every_commit(hub, old, new)
    head = git(hub, "rev-parse", "HEAD").strip()
    assert head != shown and new in git(hub, "show", f"HEAD:{HISTORY}")
    _changes, walked = audit_git.audit_history(hub)  # every rule of the walk is satisfied by the rewrite
    assert [p for p in walked if p.severity == "error"] == []
    done = verify(hub, "--git", "--anchor", shown)
    assert done.returncode == 10, done.stdout
    lines = done.stdout.splitlines()
    model = old.split(",")[2]
    named = next(line for line in lines if "[ledger-row-rewritten]" in line)
    assert named.startswith(f"error: {HISTORY}, row ") and f"model={model!r}" in named and f"as_of={SEASON_NIGHTS[2]!r}" in named
    assert any("[anchor-not-ancestor]" in line for line in lines)
    assert lines.index(named) < next(i for i, line in enumerate(lines) if line.startswith("FAILED"))
    # a clone made after the rewrite does not hold the anchor at all: said, not a crash
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--no-local", str(hub), str(clone)], check=True, capture_output=True)
    unknown = verify(clone, "--git", "--anchor", shown)
    assert unknown.returncode == 10 and "[anchor-unknown]" in unknown.stdout


def test_a_row_rewritten_by_a_new_commit_after_the_anchor_is_named_by_both_checks(git_season: Path, tmp_path: Path):
    hub = copy(git_season, tmp_path / "hub")
    at = git(hub, "rev-parse", "HEAD").strip()
    old, new = a_published_row(hub, at)
    path = hub / HISTORY
    path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    commit_at(hub, "2026-03-02T00:00:00Z", "edit a published row")
    found = anchor.check(hub, at, git(hub, "rev-parse", "HEAD").strip())
    assert [(p.file, p.code) for p in found.problems] == [(HISTORY, "ledger-row-rewritten")]
    assert "against the anchor" in found.problems[0].message
