"""Paths only the hub writes (7 and 9): no pull request may change a source's records or
an agent's log, and no branch pushed by hand can name its own bot. Every step runs the real executable on a
git hub: the pull request's check (`validate --base --head`, as validate.yml runs it), its merge, and the
audit (`verify --git` from the nightly's checkpoint, and `--full`)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from generator.audit import checkpoint
from generator.timeutil import parse_ts

from helpers import PRESCIENT, commit_at, git

pytestmark = pytest.mark.e2e

LEDGER = "data/metadata/checkpoints.csv"
RESOLUTIONS = "data/resolutions/sim.csv"
ARENA_LOG = "data/llm/2026-03-08/prescient.gpt-x-arena.jsonl"
MALLORY = "mallory@example.org"


def cli(hub: Path, *args: str) -> subprocess.CompletedProcess:
    done = subprocess.run([PRESCIENT, *args], cwd=hub, capture_output=True, text=True, check=False, timeout=600)
    assert "Traceback" not in done.stderr, done.stderr
    return done


def commit_as(hub: Path, who: str, when: str, message: str) -> str:
    """Commit everything as ``who`` (author and committer), dated ``when``."""
    stamp = f"@{int(parse_ts(when).timestamp())} +0000"
    env = {**os.environ, "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
    git(hub, "add", "-A")
    subprocess.run(
        ["git", "-c", f"user.name={who.split('@')[0]}", "-c", f"user.email={who}", "commit", "-qm", message],
        cwd=hub,
        env=env,
        check=True,
        capture_output=True,
    )
    return git(hub, "rev-parse", "HEAD").strip()


def audit(hub: Path, *args: str) -> tuple[int, dict, str]:
    """verify --git's exit code, JSON report and the first line of its text."""
    done = cli(hub, "verify", "--hub", str(hub), "--git", *args, "--format", "json")
    first = cli(hub, "verify", "--hub", str(hub), "--git", *args).stdout.splitlines()[0]
    return done.returncode, json.loads(done.stdout), first


def errors(report: dict) -> set[tuple[str, str]]:
    return {(p["code"], p["file"]) for p in report["problems"] if p["severity"] == "error"}


def check(hub: Path, head: str, author: str = "mallory") -> set[tuple[str, str]]:
    """validate.yml's check of the pull request from main to ``head``: its error codes and files."""
    done = cli(
        hub, "validate", "--hub", str(hub), "--base", "main", "--head", head, "--author", author, "--at", "2026-03-02T09:00:00Z", "--format", "json"
    )
    assert done.returncode in (0, 9), done.stdout + done.stderr
    return {(p["code"], p["file"]) for p in json.loads(done.stdout)["problems"] if p["severity"] == "error"}


@pytest.fixture
def hub(git_season: Path, tmp_path: Path) -> Path:
    """The season with the nightly's checkpoint, committed by the hub's bot (t@example.invalid)."""
    root = Path(shutil.copytree(git_season, tmp_path / "hub"))
    done = cli(root, "verify", "--hub", str(root), "--git", "--full", "--record-checkpoint")
    assert done.returncode == 0 and "checkpoint recorded" in done.stdout, done.stdout + done.stderr
    commit_at(root, "2026-03-01T02:00:00Z", "nightly: the audit's checkpoint")
    return root


def a_stated_resolution(hub: Path) -> None:
    """Append one stated resolution (a round's market question resolved YES) to the sim source's ledger."""
    question = (hub / "data/rounds/2026-01-25/questions.csv").read_text().splitlines()[1].split(",")[1]
    path = hub / RESOLUTIONS
    head = "round,question_id,resolution_date,recorded_at,status,outcome,resolved_at,value,payload_sha256\n"
    text = path.read_text() if path.is_file() else head
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text + f"2026-01-25,{question},,2026-03-02T08:00:00Z,resolved,1,2026-03-01T00:00:00Z,,\n")


def merged(hub: Path, branch: str, when: str = "2026-03-02T10:00:00Z") -> str:
    """The maintainer's merge button: a merge commit of ``branch`` into main."""
    stamp = {"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
    git(hub, "checkout", "-q", "main")
    subprocess.run(
        ["git", "-c", "user.name=m", "-c", "user.email=m@example.org", "merge", "-q", "--no-ff", "-m", f"Merge {branch}", branch],
        cwd=hub,
        env={**os.environ, **stamp},
        check=True,
        capture_output=True,
    )
    return git(hub, "rev-parse", "HEAD").strip()


def test_a_resolution_appended_by_a_pull_request_is_refused_by_the_check_and_by_both_audits(hub: Path):
    git(hub, "checkout", "-q", "-b", "resolve")
    a_stated_resolution(hub)
    head = commit_as(hub, MALLORY, "2026-03-02T08:00:00Z", "a resolution, stated")
    assert check(hub, head) == {("hub-ledger", RESOLUTIONS)}, "validate judges every path under data/"
    merge = merged(hub, "resolve")
    code, report, first = audit(hub)
    assert "from checkpoint" in first and code == 10
    assert ("hub-ledger-edited", RESOLUTIONS) in errors(report)
    assert any(merge[:12] in p["message"] and "a merge" in p["message"] for p in report["problems"])
    code, full, first = audit(hub, "--full")
    assert "walked in full" in first and code == 10 and ("hub-ledger-edited", RESOLUTIONS) in errors(full)


def test_the_same_resolution_written_by_the_bots_nightly_passes(hub: Path):
    a_stated_resolution(hub)
    commit_at(hub, "2026-03-02T02:00:00Z", "nightly: data as of 2026-03-02T00:00:00Z")
    code, report, _ = audit(hub)
    assert not any(p["code"] == "hub-ledger-edited" for p in report["problems"]), report["problems"]


def test_an_arena_agents_log_edited_by_a_pull_request_is_refused_by_the_check_and_by_both_audits(hub: Path):
    log = hub / ARENA_LOG
    log.parent.mkdir(parents=True)
    log.write_text('{"round": "2026-03-08", "status": "ok", "decisions": [{"question_id": "sim:m1", "side": "YES", "amount": 100}]}\n')
    commit_at(hub, "2026-03-02T02:00:00Z", "nightly: data as of 2026-03-02T00:00:00Z")  # the agent's own record
    git(hub, "checkout", "-q", "-b", "steer")
    log.write_text(log.read_text().replace('"sim:m1", "side": "YES", "amount": 100', '"sim:m7", "side": "NO", "amount": 2400'))
    head = commit_as(hub, MALLORY, "2026-03-02T08:00:00Z", "a better bet for the agent")
    assert check(hub, head) == {("hub-ledger", ARENA_LOG)}
    merged(hub, "steer")
    for args in ((), ("--full",)):
        code, report, _ = audit(hub, *args)
        assert code == 10 and ("hub-ledger-edited", ARENA_LOG) in errors(report), args


def test_a_branch_pushed_by_hand_that_names_its_own_bot_has_its_checkpoint_refused(hub: Path):
    """Mallory pushes to main by hand: her hub.toml names her as the bot, she appends a resolution, and
    a checkpoint row of her own vouches for that commit. The checkpointed check trusts the bot the hub
    was set up with, not hers: the row is refused, the walk is full, and her change is found."""
    toml = hub / "data/hub.toml"
    toml.write_text(toml.read_text().replace('bot_email = "t@example.invalid"', f'bot_email = "{MALLORY}"'))
    assert MALLORY in toml.read_text()
    a_stated_resolution(hub)
    own = commit_as(hub, MALLORY, "2026-03-02T08:00:00Z", "nightly: data as of 2026-03-02T00:00:00Z")
    row = checkpoint.row_for(hub, own, "2026-03-02T00:00:00Z", 5, 0)
    (hub / LEDGER).write_text((hub / LEDGER).read_text() + ",".join(str(row[c][0]) for c in row.columns) + "\n")
    commit_as(hub, MALLORY, "2026-03-02T08:05:00Z", "nightly: the audit's checkpoint")
    code, report, first = audit(hub)
    assert report["git_start"]["checkpoint"] is None, first
    assert f"checkpoint {own[:12]} refused" in first and "t@example.invalid" in first, first
    assert code == 10 and ("hub-ledger-edited", RESOLUTIONS) in errors(report)
    assert ("hub-ledger-edited", LEDGER) in errors(report)


def test_a_commit_pushed_by_hand_after_a_true_checkpoint_is_judged_against_the_hubs_bot(hub: Path):
    """Without a forged row: the walk from the bot's checkpoint judges her commit against the hub's bot,
    not against the bot her hub.toml names."""
    toml = hub / "data/hub.toml"
    toml.write_text(toml.read_text().replace('bot_email = "t@example.invalid"', f'bot_email = "{MALLORY}"'))
    a_stated_resolution(hub)
    commit_as(hub, MALLORY, "2026-03-02T08:00:00Z", "nightly: data as of 2026-03-02T00:00:00Z")
    code, report, first = audit(hub)
    assert "from checkpoint" in first and code == 10
    assert ("hub-ledger-edited", RESOLUTIONS) in errors(report)
    assert any(MALLORY in p["message"] and "t@example.invalid" in p["message"] for p in report["problems"])
