"""What arrives too late to count is ruled out, reported once, and never leaves the audit red.

Each case drives a hub made by `prescient init` (the offline sim world as its source) with the real
executable and real git, one nightly commit a night by the hub's bot and the checkpoint its full audit
records, as `nightly.yml` does; the pull requests are merged with `git merge --no-ff`, as GitHub's
merge button does."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from generator.config import BOT_EMAIL

from helpers import INIT_AT, PRESCIENT, sim_only
from helpers import scene_commit as commit
from helpers import scene_ok as ok
from helpers import scene_run as run

pytestmark = pytest.mark.e2e

DUE = "2026-03-08"


def new_hub(tmp_path: Path, receipts: str = "github", boards_at_once: bool = False) -> Path:
    """``boards_at_once``: a model is ranked from its first resolved question (the history then has rows
    from the first scored night)."""
    hub = tmp_path / "lab-hub"
    ok(PRESCIENT, "init", str(hub), "--title", "Lab", "--maintainer", "alice", "--as-of", INIT_AT)
    text = sim_only((hub / "data/hub.toml").read_text()).replace('\nreceipts = "github"\n', f'\nreceipts = "{receipts}"\n')
    if boards_at_once:
        text = text.replace("min_age_days = 50", "min_age_days = 0").replace("min_resolved = 20", "min_resolved = 1")
    (hub / "data/hub.toml").write_text(text)
    commit(hub, "A new hub (prescient init), on the sim world", INIT_AT)
    night(hub, "2026-03-02T12:00:00Z")
    assert (hub / f"data/rounds/{DUE}/questions.csv").is_file()
    return hub


def night(hub: Path, at: str, *, audit: bool = True) -> str:
    """One nightly as nightly.yml runs it: the data commit, the full audit recording its checkpoint (and
    its commit), then a pull request's check, the audit from that checkpoint. Returns the nightly's stderr."""
    done = run(PRESCIENT, "nightly", "--hub", str(hub), "--as-of", at, at=at)
    assert done.returncode == 0, done.stderr
    commit(hub, f"nightly: data as of {at}", at, email=BOT_EMAIL)
    if audit:
        full = run(PRESCIENT, "verify", "--hub", str(hub), "--git", "--full", "--record-checkpoint", at=at)
        assert full.returncode == 0, (at, full.stdout, full.stderr)
        if run("git", "status", "--porcelain", cwd=hub).stdout.strip():
            commit(hub, "nightly: the audit's checkpoint", at, email=BOT_EMAIL)
        checked = run(PRESCIENT, "verify", "--hub", str(hub), "--git", at=at)
        assert checked.returncode == 0, (at, checked.stdout, checked.stderr)
        assert "from checkpoint" in checked.stdout, checked.stdout
    return done.stderr


def forecasts(hub: Path, probability: float) -> str:
    questions = pd.read_csv(hub / f"data/rounds/{DUE}/questions.csv", dtype=str, keep_default_na=False)
    rows = [f"{q},{d},{probability},\n" for q, d in zip(questions["question_id"], questions["resolution_date"], strict=True)]
    return "question_id,resolution_date,probability,reasoning\n" + "".join(rows)


def pull_request(hub: Path, team: str, probability: float, at: str, *, author: str = "alice", green: bool = True) -> str:
    """A team's branch with its model and forecast, checked (green unless ``green`` is false) as the
    validate workflow checks it."""
    base = ok("git", "rev-parse", "HEAD", cwd=hub).strip()
    ok("git", "checkout", "-q", "-b", team, cwd=hub)
    model = f"{team}.gpt-x"
    (hub / f"data/models/{model}.yml").write_text(f"name: GPT-X\norganization: {team}\nkind: llm\nmaintainers: [{author}]\n")
    (hub / f"data/forecasts/{DUE}/{model}.csv").write_text(forecasts(hub, probability))
    commit(hub, f"{model} for round {DUE}", at)
    head = ok("git", "rev-parse", "HEAD", cwd=hub).strip()
    report = run(PRESCIENT, "validate", "--hub", str(hub), "--base", base, "--head", head, "--author", author, "--at", at)
    assert report.stdout.startswith("Passed" if green else "Failed"), report.stdout
    ok("git", "checkout", "-q", "main", cwd=hub)
    return f"data/forecasts/{DUE}/{model}.csv"


def merge(hub: Path, branch: str, at: str) -> None:
    ok("git", "merge", "-q", "--no-ff", "-m", f"Merge pull request from {branch}", branch, cwd=hub, at=at)


def test_green_pull_requests_merged_after_the_due_time_are_ruled_out_and_the_audit_stays_green(tmp_path):
    """On a hub whose seals learn only of data/receipts/ (what 0.13.3's init wrote): two
    pull requests checked green before the due time, one merged after the due time but before the night
    that seals the round, one after that night. Each nightly rules its file out (removed, with a
    warning); the full and the checkpointed audit pass that night and every later night. On 0.13.3
    every audit from then on failed forecast-committed-after-due."""
    hub = new_hub(tmp_path, receipts="ledger")
    early = pull_request(hub, "acme", 0.6, "2026-03-06T09:00:00Z")
    weekend = pull_request(hub, "beta", 0.7, "2026-03-07T09:00:00Z")
    merge(hub, "acme", "2026-03-08T06:00:00Z")  # after the due time, before the first nightly after it
    pending = run(PRESCIENT, "verify", "--hub", str(hub), "--git", "--full", "--format", "json", at="2026-03-08T06:00:00Z")
    found = [(p["code"], p["severity"]) for p in json.loads(pending.stdout)["problems"] if p["file"] == early]
    assert found == [("late-file-pending", "warning")], pending.stdout
    said = night(hub, "2026-03-09T02:00:00Z")  # seals the round: acme's file does not count and goes
    assert early in said and not (hub / early).exists()
    merge(hub, "beta", "2026-03-09T10:00:00Z")  # after the seal
    said = night(hub, "2026-03-10T02:00:00Z")
    assert weekend in said and "[seal-enforced]" in said and not (hub / weekend).exists()
    for at in ("2026-03-11T02:00:00Z", "2026-03-17T02:00:00Z"):
        assert weekend not in night(hub, at), "reported once, by the night that ruled it out"
    full = run(PRESCIENT, "verify", "--hub", str(hub), "--git", "--full", "--format", "json")
    assert json.loads(full.stdout)["ok"] and not [p for p in json.loads(full.stdout)["problems"] if p["file"] in (early, weekend)]


def test_a_late_file_a_nightly_left_in_place_and_scored_still_fails(tmp_path):
    """The rule cannot be used to slip a late file in: merged after the due time and never removed
    (the nightly that followed did not put the seal back, here: a hand-made 'nightly' commit by the
    bot that keeps it), it stands as forecast-committed-after-due."""
    hub = new_hub(tmp_path, receipts="ledger")
    night(hub, "2026-03-09T02:00:00Z")
    late = pull_request(hub, "gamma", 0.9, "2026-03-09T05:00:00Z", green=False)  # round-closed, merged anyway
    merge(hub, "gamma", "2026-03-09T06:00:00Z")
    (hub / "data/models/gamma.gpt-x.yml").write_text((hub / "data/models/gamma.gpt-x.yml").read_text() + "# kept\n")
    commit(hub, "nightly: data as of 2026-03-10T02:00:00Z", "2026-03-10T02:00:00Z", email=BOT_EMAIL)
    audited = run(PRESCIENT, "verify", "--hub", str(hub), "--git", "--full", "--format", "json")
    assert audited.returncode == 10
    errors = [(p["code"], p["file"]) for p in json.loads(audited.stdout)["problems"] if p["severity"] == "error"]
    assert ("forecast-committed-after-due", late) in errors, errors


def test_on_a_hub_init_made_with_github_receipts_a_green_pull_request_merged_late_counts(tmp_path, monkeypatch):
    """What init writes now (receipts = "github"): the nightly reads GitHub's validation runs, so the run
    created before the due time proves the push in time, the seal counts it and the late merge brings
    exactly the sealed bytes; the audit is green every night."""
    from _github import FakeGitHub

    api = FakeGitHub()
    with api.serve() as env:
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        hub = new_hub(tmp_path)
        path = pull_request(hub, "acme", 0.6, "2026-03-07T09:00:00Z")
        api.run(1, ok("git", "rev-parse", "acme", cwd=hub).strip(), "2026-03-07T09:00:05Z", author="alice", branch="acme")
        said = night(hub, "2026-03-09T02:00:00Z")
        assert path not in said
        merge(hub, "acme", "2026-03-09T10:00:00Z")  # the weekend: merged after the due time and after the seal
        for at in ("2026-03-10T02:00:00Z", "2026-03-17T02:00:00Z"):
            assert path not in night(hub, at)
        assert (hub / path).is_file() and "acme.gpt-x" in (hub / f"data/scores/{DUE}.csv").read_text()
        seals = pd.read_csv(hub / "data/seals/2026.csv", dtype=str, keep_default_na=False)
        assert seals.loc[seals["model"] == "acme.gpt-x", "status"].tolist() == ["sealed"]


ALICE = "1234+alice@users.noreply.github.com"  # the e-mail GitHub's merge button writes for alice


def decision(hub: Path, name: str, args: tuple[str, ...], at: str) -> None:
    """alice's decision on a branch, checked green as the validate workflow checks it."""
    base = ok("git", "rev-parse", "HEAD", cwd=hub).strip()
    ok("git", "checkout", "-q", "-b", name, cwd=hub)
    ok(PRESCIENT, *args, "--reason", "Decided.", "--by", "alice", "--hub", str(hub), "--as-of", at, at=at)
    commit(hub, name, at, email=ALICE)
    head = ok("git", "rev-parse", "HEAD", cwd=hub).strip()
    report = ok(PRESCIENT, "validate", "--hub", str(hub), "--base", base, "--head", head, "--author", "alice", "--at", at)
    assert report.startswith("Passed"), report
    ok("git", "checkout", "-q", "main", cwd=hub)


def test_a_season_with_merges_early_on_time_and_late_and_decisions_before_and_after_nightlies_stays_green(tmp_path, monkeypatch):
    """The season: an init-made hub with one nightly commit a night (and its checkpoint), pull
    requests merged early, on time, after the due time (pushed in time, so it counts) and after it
    (pushed too late: ruled out), a decision merged before a night and one merged a night late. Every
    night the full and the checkpointed audits pass; the late decision acts from the night it arrived."""
    from _github import FakeGitHub

    api = FakeGitHub()
    with api.serve() as env:
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        hub = new_hub(tmp_path, boards_at_once=True)
        prs = {}

        def pr(team: str, p: float, at: str, *, green: bool = True) -> str:
            path = pull_request(hub, team, p, at, green=green)
            prs[team] = len(prs) + 1
            api.run(prs[team], ok("git", "rev-parse", team, cwd=hub).strip(), at.replace(":00Z", ":05Z"), branch=team)
            return path

        pr("acme", 0.6, "2026-03-03T09:00:00Z")
        merge(hub, "acme", "2026-03-03T10:00:00Z")  # early
        night(hub, "2026-03-04T02:00:00Z")
        pr("beta", 0.3, "2026-03-07T09:00:00Z")
        merge(hub, "beta", "2026-03-07T20:00:00Z")  # on time
        counted = pr("gamma", 0.7, "2026-03-07T22:00:00Z")
        late = pr("delta", 0.9, "2026-03-08T03:00:00Z", green=False)  # pushed after the due time
        merge(hub, "gamma", "2026-03-08T06:00:00Z")  # after the due time, pushed before it: counts
        merge(hub, "delta", "2026-03-08T07:00:00Z")  # merged anyway: ruled out
        said = night(hub, "2026-03-09T02:00:00Z")
        assert (hub / counted).is_file() and not (hub / late).exists() and late in said

        night(hub, "2026-03-16T02:00:00Z")
        question = pd.read_csv(hub / f"data/rounds/{DUE}/questions.csv", dtype=str)["question_id"].iloc[0]
        decision(hub, "void", ("void", question), "2026-03-16T09:00:00Z")
        ok("git", "merge", "-q", "--no-ff", "-m", "Merge the void", "void", cwd=hub, at="2026-03-16T10:00:00Z", email=ALICE)
        night(hub, "2026-03-17T02:00:00Z")
        decision(hub, "exclude", ("exclude", "beta.gpt-x"), "2026-03-17T09:00:00Z")
        night(hub, "2026-03-18T02:00:00Z")  # a night between the check and the merge
        ok("git", "merge", "-q", "--no-ff", "-m", "Merge the exclusion", "exclude", cwd=hub, at="2026-03-18T10:00:00Z", email=ALICE)
        for at in ("2026-03-19T02:00:00Z", "2026-03-20T02:00:00Z"):
            night(hub, at)
        taken = pd.read_csv(hub / "data/metadata/decisions.csv", dtype=str, keep_default_na=False)
        assert taken[["action", "taken_at", "effective_at"]].values.tolist() == [
            ["void", "2026-03-17T02:00:00Z", "2026-03-16T09:00:00Z"],
            ["exclude", "2026-03-19T02:00:00Z", "2026-03-19T02:00:00Z"],
        ]
        history = pd.read_csv(hub / "data/leaderboard/history.csv", dtype=str, keep_default_na=False)
        boards = history.groupby("as_of")["model"].apply(set)
        assert "beta.gpt-x" in boards["2026-03-18T02:00:00Z"], "the night it missed keeps its board"
        assert "beta.gpt-x" not in boards["2026-03-19T02:00:00Z"], "it acts from the night it arrived"
