"""The checkpointed `verify --git`: it finds after a checkpoint exactly what the full walk finds,
and a checkpoint it cannot check — forged, moved, on another branch, of other rules — is never trusted."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from generator.audit import checkpoint
from generator.audit import git as audit_git
from generator.audit.digests import digested_nights_at

from helpers import commit_at, first_parent_line, git, rewrite_an_observation

pytestmark = pytest.mark.e2e

PRESCIENT = str(Path(sys.executable).with_name("prescient"))
LEDGER = "data/metadata/checkpoints.csv"


# -- the proof that both walks find the same is tests/audit/test_git_audit.py's fixture ``both_ways``:
# every tamper case there is walked again from a checkpoint before the tamper and compared; and
# tests/audit/test_tamper_both_modes.py runs every tamper case of the audit's tests through the
# checkpointed `verify --git` and `--full`, each mode held to the case's verdict and codes.


def test_a_checkpointed_walk_reads_only_the_commits_after_it(git_season: Path):
    line = first_parent_line(git_season)
    start = audit_git.Start(line[1], digested_nights_at(git_season, line[1]))
    changes, problems = audit_git.audit_history(git_season, start=start)
    assert problems == [] and {c.commit for c in changes} == {line[0]}


# -- the real executable: recorded by the full walk, trusted only when it checks -------------------------


def cli(hub: Path, *args: str) -> subprocess.CompletedProcess:
    done = subprocess.run([PRESCIENT, "verify", "--hub", str(hub), *args], capture_output=True, text=True, check=False)
    assert "Traceback" not in done.stderr, done.stderr
    return done


def audit(hub: Path, *args: str) -> tuple[dict, str]:
    """verify --git's JSON report and its text's first line."""
    done = cli(hub, "--git", *args, "--format", "json")
    assert done.returncode in (0, 10), done.stderr
    first = cli(hub, "--git", *args).stdout.splitlines()[0]
    return json.loads(done.stdout), first


@pytest.fixture
def hub(git_season: Path, tmp_path: Path) -> Path:
    """The season with a checkpoint recorded by the nightly's full walk and committed by the hub's bot
    (the season's hub.toml names the tests' committer, t@example.invalid, as bot_email)."""
    root = Path(shutil.copytree(git_season, tmp_path / "hub"))
    done = cli(root, "--git", "--full", "--record-checkpoint")
    assert done.returncode == 0 and f"checkpoint recorded in {LEDGER}" in done.stdout, done.stdout + done.stderr
    commit_at(root, "2026-03-01T02:00:00Z", "nightly: the audit's checkpoint")
    return root


def test_the_full_walk_records_a_checkpoint_once_and_verify_git_starts_from_it(hub: Path):
    checkpointed = git(hub, "rev-parse", "HEAD~1").strip()
    report, first = audit(hub)
    assert report["ok"] and report["git_start"]["checkpoint"] == checkpointed
    assert f"from checkpoint {checkpointed[:12]}" in first
    assert "1 commit(s) touching data/" in next(c["note"] for c in report["checks"] if c["name"] == "git")
    # nothing but the checkpoint row changed since: every round and night is the checkpoint's
    assert next(c["note"] for c in report["checks"] if c["name"] == "scores").startswith(
        f"scores of 3 round(s) unchanged since checkpoint {checkpointed[:12]}"
    )
    assert report["recompute"] == {"checkpoint": checkpointed, "why": "", "rounds": {}}
    full, first_full = audit(hub, "--full")
    assert full["ok"] and full["git_start"]["checkpoint"] is None and "walked in full" in first_full
    assert full["recompute"]["why"] == "--full" and full["recompute"]["checkpoint"] is None
    again = cli(hub, "--git", "--full", "--record-checkpoint")  # nothing but the checkpoint changed since: no new row
    assert "no checkpoint recorded" in again.stdout and git(hub, "status", "--porcelain").strip() == ""


def test_a_checkpoint_added_by_anyone_but_the_bot_is_refused_and_the_walk_is_full(git_season: Path, tmp_path: Path):
    root = Path(shutil.copytree(git_season, tmp_path / "hub"))
    assert cli(root, "--git", "--full", "--record-checkpoint").returncode == 0
    git(root, "add", "-A")
    git(root, "-c", "user.name=m", "-c", "user.email=mallory@example.org", "commit", "-qm", "my own checkpoint")
    report, first = audit(root)
    assert report["git_start"]["checkpoint"] is None
    assert "refused" in first and "mallory@example.org" in first and "not the hub's bot" in first
    assert [p["code"] for p in report["problems"] if p["severity"] == "error"] == ["hub-ledger-edited"]


def test_a_checkpoint_moved_to_another_commit_is_refused(hub: Path):
    text = (hub / LEDGER).read_text()
    checkpointed, older = git(hub, "rev-parse", "HEAD~1").strip(), git(hub, "rev-parse", "HEAD~2").strip()
    (hub / LEDGER).write_text(text.replace(checkpointed, older))  # same tree id and date: they no longer match
    commit_at(hub, "2026-03-02T00:00:00Z", "move the checkpoint back")
    report, first = audit(hub)
    assert report["git_start"]["checkpoint"] is None and f"checkpoint {older[:12]} refused" in first
    assert "ledger-row-deleted" in [p["code"] for p in report["problems"]]  # the row of its key (the commit) is gone


def test_a_checkpoint_moved_with_its_tree_and_date_is_still_refused(hub: Path):
    """The row rewritten to name an older commit with that commit's own tree and date: it was not appended."""
    checkpointed, older = git(hub, "rev-parse", "HEAD~1").strip(), git(hub, "rev-parse", "HEAD~2").strip()
    row = checkpoint.row_for(hub, older, "2026-03-01T00:00:00Z", 1, 0)
    header, line = (hub / LEDGER).read_text().splitlines()
    fields = line.split(",")
    fields[1:4] = [older, row["committed_at"][0], row["data_tree"][0]]
    assert checkpointed not in ",".join(fields)
    (hub / LEDGER).write_text(f"{header}\n{','.join(fields)}\n")
    commit_at(hub, "2026-03-02T00:00:00Z", "move the checkpoint back, consistently")
    report, first = audit(hub)
    assert report["git_start"]["checkpoint"] is None and "a moved checkpoint" in first


def test_a_checkpoint_of_a_commit_off_the_first_parent_line_is_ignored(hub: Path):
    """A row naming a commit of a side branch (a pull request's), merged in: not on the line, not a start."""
    git(hub, "checkout", "-q", "-b", "side", "HEAD~1")
    (hub / "notes.txt").write_text("a side commit\n")
    side = commit_at(hub, "2026-03-01T03:00:00Z", "on a branch")
    git(hub, "checkout", "-q", "main")
    merge_at = {"GIT_COMMITTER_DATE": "@1772330400 +0000", "GIT_AUTHOR_DATE": "@1772330400 +0000"}  # 2026-03-01T02:00Z
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "merge", "-q", "--no-ff", "-m", "merge side", "side"],
        cwd=hub,
        env={**os.environ, **merge_at},
        check=True,
        capture_output=True,
    )
    row = checkpoint.row_for(hub, side, "2026-03-02T00:00:00Z", 5, 0)
    fields = [str(row[c][0]) for c in row.columns]
    (hub / LEDGER).write_text((hub / LEDGER).read_text() + ",".join(fields) + "\n")
    commit_at(hub, "2026-03-02T00:00:00Z", "a checkpoint of the side branch")
    report, first = audit(hub)
    # the bot's own checkpoint (the fixture's) is still on the line, so it is the one used, never the side one
    assert report["git_start"]["checkpoint"] == git(hub, "rev-parse", "HEAD~3").strip() and side[:12] not in first


def test_a_checkpoint_a_pull_requests_merge_adds_is_refused(git_season: Path, tmp_path: Path):
    root = Path(shutil.copytree(git_season, tmp_path / "hub"))
    git(root, "checkout", "-q", "-b", "pr")
    assert cli(root, "--git", "--full", "--record-checkpoint").returncode == 0
    commit_at(root, "2026-03-01T02:00:00Z", "a pull request that brings its own checkpoint")
    git(root, "checkout", "-q", "main")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "merge", "-q", "--no-ff", "-m", "merge pr", "pr")
    report, first = audit(root)
    assert report["git_start"]["checkpoint"] is None and "a merge" in first
    assert "hub-ledger-edited" in [p["code"] for p in report["problems"]]


def test_a_history_rewritten_before_the_checkpoint_makes_the_walk_full(hub: Path):
    """The checkpoint's commit is no longer on the rewritten line: nothing of the old row is trusted."""
    git(hub, "checkout", "-q", "-b", "rewritten", "HEAD~2")
    rewrite_an_observation(hub)
    commit_at(hub, "2026-03-01T01:30:00Z", "the night, rewritten")
    git(hub, "checkout", "-q", "main", "--", LEDGER)  # carry the old checkpoint row over
    commit_at(hub, "2026-03-01T02:00:00Z", "nightly: the audit's checkpoint, carried over")
    report, first = audit(hub)
    assert report["git_start"]["checkpoint"] is None and "no checkpoint on the first-parent line" in first


def test_a_checkpoint_of_other_audit_rules_is_ignored(hub: Path):
    path = hub / LEDGER
    head, row = path.read_text().rstrip("\n").split("\n")
    cells = row.split(",")
    cells[head.split(",").index("audit_version")] = "0"  # audit_version 1 → 0, edited in place
    path.write_text(f"{head}\n{','.join(cells)}\n")
    commit_at(hub, "2026-03-02T00:00:00Z", "an older audit's checkpoint")
    report, first = audit(hub)
    assert report["git_start"]["checkpoint"] is None and "audit version" in first


def test_record_checkpoint_needs_the_full_walk(hub: Path):
    done = cli(hub, "--git", "--record-checkpoint")
    assert done.returncode == 2 and "--full" in done.stderr


def test_a_stale_local_build_is_named_with_its_fix_and_records_no_checkpoint(git_season: Path, tmp_path: Path):
    """After `build` at an older time (or before the latest nightly), verify said "111 page-differs" with no
    hint and still recorded a checkpoint; now it says to run `build` and records none while pages differ."""
    root = Path(shutil.copytree(git_season, tmp_path / "hub"))
    built = subprocess.run([PRESCIENT, "build", "--hub", str(root), "--no-mkdocs", "--as-of", "2026-02-20T00:00:00Z"], capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    stale = cli(root, "--git", "--full", "--record-checkpoint")
    assert stale.returncode == 10 and "[page-differs]" in stale.stdout, stale.stdout
    assert f"run `prescient build --hub {root}` and verify again" in stale.stdout, stale.stdout
    assert "no checkpoint recorded:" in stale.stdout and "page(s) differ" in stale.stdout
    assert not (root / LEDGER).exists(), "no checkpoint while the pages differ"
    built = subprocess.run([PRESCIENT, "build", "--hub", str(root), "--no-mkdocs"], capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    fresh = cli(root, "--git", "--full", "--record-checkpoint")
    assert fresh.returncode == 0 and f"checkpoint recorded in {LEDGER}" in fresh.stdout, fresh.stdout
    assert "run `prescient build" not in fresh.stdout
