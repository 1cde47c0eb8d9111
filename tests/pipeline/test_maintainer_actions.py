"""`prescient void`, `correct` and `exclude`: a maintainer's decision is one row of
data/maintainer/actions.csv, written by the real executable, checked by the pull-request validator,
merged with real git, applied by the next nightly from its effective time on (never to a past night),
published on the Changes page with its reason, and accepted by `verify --git` only from a maintainer."""

from __future__ import annotations

import shutil
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

SCORES = f"data/scores/{DUE}.csv"
ACTIONS = "data/maintainer/actions.csv"
DECIDED = "2026-03-17T09:00:00Z"  # after the night of 2026-03-17T02:00:00Z
ALICE = "1234+alice@users.noreply.github.com"  # what GitHub writes into the commits alice makes on its site


def forecasts(hub: Path, probability: float) -> str:
    questions = pd.read_csv(hub / f"data/rounds/{DUE}/questions.csv", dtype=str, keep_default_na=False)
    return "question_id,resolution_date,probability,reasoning\n" + "".join(
        f"{q},{d},{probability},\n" for q, d in zip(questions["question_id"], questions["resolution_date"], strict=True)
    )


def nightly(hub: Path, at: str) -> None:
    done = run(PRESCIENT, "nightly", "--hub", str(hub), "--as-of", at)
    assert done.returncode == 0, done.stderr
    commit(hub, f"nightly {at}", at, email=BOT_EMAIL)


@pytest.fixture(scope="module")
def season(tmp_path_factory) -> Path:
    """A hub (init, the sim world) whose first round is scored, with two teams' forecasts, in git."""
    hub = tmp_path_factory.mktemp("season") / "hub"
    ok(PRESCIENT, "init", str(hub), "--title", "Lab", "--maintainer", "alice", "--as-of", INIT_AT)
    text = sim_only((hub / "data/hub.toml").read_text())
    (hub / "data/hub.toml").write_text(text.replace("min_age_days = 50", "min_age_days = 0").replace("min_resolved = 20", "min_resolved = 1"))
    commit(hub, "A new hub on the sim world", INIT_AT)
    nightly(hub, "2026-03-02T12:00:00Z")
    for model, p in (("acme.gpt-x", 0.6), ("beta.owl", 0.3)):
        team = model.partition(".")[0]
        (hub / f"data/models/{model}.yml").write_text(f"name: {model}\norganization: {team}\nkind: llm\nmaintainers: [alice]\n")
        (hub / f"data/forecasts/{DUE}/{model}.csv").write_text(forecasts(hub, p))
        commit(hub, f"{model} for round {DUE}", "2026-03-03T09:00:00Z")
    for at in ("2026-03-04T02:00:00Z", "2026-03-09T02:00:00Z", "2026-03-17T02:00:00Z"):
        nightly(hub, at)
    return hub


@pytest.fixture
def hub(season, tmp_path) -> Path:
    return Path(shutil.copytree(season, tmp_path / "hub", symlinks=True))


def scored_units(hub: Path) -> list[tuple[str, str]]:
    """The (question, resolution date) units of the round scored so far (the sim world's round asks series)."""
    scores = pd.read_csv(hub / SCORES, dtype=str, keep_default_na=False)
    mine = scores[scores["model"] == "acme.gpt-x"]
    return sorted(set(zip(mine["question_id"], mine["resolution_date"], strict=True)))


def validate(hub: Path, base: str, head: str, author: str):
    return run(PRESCIENT, "validate", "--hub", str(hub), "--base", base, "--head", head, "--author", author, "--at", "2026-03-17T09:30:00Z")


def test_void_correct_and_exclude_are_validated_merged_applied_from_their_time_and_pass_verify_git(hub):
    (voided, _), (corrected, date) = scored_units(hub)[:2]
    before = pd.read_csv(hub / SCORES, dtype=str, keep_default_na=False)
    outcome = before.loc[before["question_id"] == corrected, "outcome"].iloc[0]
    flipped = "0" if float(outcome) == 1 else "1"
    history_before = (hub / "data/leaderboard/history.csv").read_bytes()
    assert b"acme.gpt-x" in history_before
    base = ok("git", "rev-parse", "HEAD", cwd=hub).strip()
    ok("git", "checkout", "-q", "-b", "decisions", cwd=hub)

    said = ok(
        PRESCIENT, "void", voided, "--reason", "The market was annulled by its operator.", "--by", "alice", "--hub", str(hub), "--as-of", DECIDED
    )
    assert f"{voided} voided from {DECIDED}, by @alice" in said and "open a pull request" in said
    ok(
        PRESCIENT,
        "correct",
        corrected,
        "--resolution-date",
        date,
        "--outcome",
        flipped,
        "--reason",
        "The source resolved it the wrong way.",
        "--hub",
        str(hub),
        "--as-of",
        DECIDED,
    )  # --by: the hub's only maintainer
    ok(
        PRESCIENT,
        "exclude",
        "acme.gpt-x",
        "--reason",
        "It was found to read the resolutions.",
        "--by",
        "alice",
        "--hub",
        str(hub),
        "--as-of",
        DECIDED,
    )
    rows = pd.read_csv(hub / ACTIONS, dtype=str, keep_default_na=False)
    assert list(rows["action"]) == ["correct", "exclude", "void"] and set(rows["by"]) == {"alice"}
    assert (rows["effective_at"] == DECIDED).all()
    commit(hub, "Void, correct, exclude", "2026-03-17T09:10:00Z")
    head = ok("git", "rev-parse", "HEAD", cwd=hub).strip()

    assert validate(hub, base, head, "alice").stdout.startswith("Passed"), validate(hub, base, head, "alice").stdout
    refused = validate(hub, base, head, "mallory")
    assert refused.returncode == 9 and "[action-not-maintainer]" in refused.stdout

    ok("git", "checkout", "-q", "main", cwd=hub)
    ok("git", "merge", "-q", "--no-ff", "-m", "Merge decisions", "decisions", cwd=hub, at="2026-03-17T10:00:00Z", email=ALICE)
    nightly(hub, "2026-03-18T02:00:00Z")

    after = pd.read_csv(hub / SCORES, dtype=str, keep_default_na=False)
    assert voided not in set(after["question_id"]), "a void drops the question from scoring"
    fixed = after[(after["question_id"] == corrected) & (after["resolution_date"] == date)]
    assert len(fixed) and set(fixed["outcome"].astype(float)) == {float(flipped)}
    assert "acme.gpt-x" in set(after["model"]), "an excluded model's scores stay"
    history = pd.read_csv(hub / "data/leaderboard/history.csv", dtype=str, keep_default_na=False)
    assert (hub / "data/leaderboard/history.csv").read_bytes().startswith(history_before), "past nights unchanged"
    assert "acme.gpt-x" in set(history.loc[history["as_of"] == "2026-03-17T02:00:00Z", "model"])
    assert "acme.gpt-x" not in set(history.loc[history["as_of"] == "2026-03-18T02:00:00Z", "model"])
    assert "beta.owl" in set(history.loc[history["as_of"] == "2026-03-18T02:00:00Z", "model"])

    ok(PRESCIENT, "build", "--hub", str(hub), "--no-mkdocs")
    changes = (hub / "site_src/docs/generated/changes.md").read_text()
    for reason in ("The market was annulled by its operator.", "The source resolved it the wrong way.", "It was found to read the resolutions."):
        assert reason in changes
    audited = run(PRESCIENT, "verify", "--hub", str(hub), "--git", "--all")
    assert audited.returncode == 0, (audited.stdout, audited.stderr)


def test_a_decision_may_not_reach_a_past_night_nor_name_an_unknown_target(hub):
    market = scored_units(hub)[0][0]
    back = run(PRESCIENT, "void", market, "--reason", "x", "--by", "alice", "--hub", str(hub), "--as-of", DECIDED, "--from", "2026-03-16T00:00:00Z")
    assert back.returncode == 9 and "[action-backdated]" in back.stderr and not (hub / ACTIONS).exists()
    unknown = run(PRESCIENT, "exclude", "nobody.none", "--reason", "x", "--by", "alice", "--hub", str(hub), "--as-of", DECIDED)
    assert unknown.returncode == 9 and "[action-unknown-target]" in unknown.stderr
    blank = run(PRESCIENT, "void", market, "--reason", "  ", "--by", "alice", "--hub", str(hub), "--as-of", DECIDED)
    assert blank.returncode == 9 and "[action-no-reason]" in blank.stderr
    stranger = run(PRESCIENT, "void", market, "--reason", "x", "--by", "mallory", "--hub", str(hub), "--as-of", DECIDED)
    assert stranger.returncode == 9 and "[action-not-maintainer]" in stranger.stderr and not (hub / ACTIONS).exists()


def test_verify_git_refuses_a_non_maintainers_decision_and_a_rewritten_one(hub):
    market = scored_units(hub)[0][0]
    ok(PRESCIENT, "void", market, "--reason", "Annulled.", "--by", "alice", "--hub", str(hub), "--as-of", DECIDED)
    base = ok("git", "rev-parse", "HEAD", cwd=hub).strip()
    commit(hub, "a decision committed by someone else", "2026-03-17T09:10:00Z", email="mallory@example.org")
    ok("git", "commit", "-q", "--amend", "--no-edit", "--author", "mallory <mallory@example.org>", cwd=hub, at="2026-03-17T09:10:00Z")
    audited = run(PRESCIENT, "verify", "--hub", str(hub), "--git")
    assert audited.returncode != 0 and "[maintainer-commit-unauthorized]" in audited.stdout, audited.stdout

    ok("git", "reset", "-q", "--hard", base, cwd=hub)
    ok(PRESCIENT, "void", market, "--reason", "Annulled.", "--by", "alice", "--hub", str(hub), "--as-of", DECIDED)
    commit(hub, "void", "2026-03-17T09:10:00Z", email=ALICE)
    assert run(PRESCIENT, "verify", "--hub", str(hub), "--git").returncode == 0
    edited = base_rev = ok("git", "rev-parse", "HEAD", cwd=hub).strip()
    text = (hub / ACTIONS).read_text().replace("Annulled.", "Cancelled.")
    (hub / ACTIONS).write_text(text)
    commit(hub, "reword the reason", "2026-03-17T09:20:00Z")
    head = ok("git", "rev-parse", "HEAD", cwd=hub).strip()
    audited = run(PRESCIENT, "verify", "--hub", str(hub), "--git")
    assert audited.returncode != 0 and "[ledger-row-rewritten]" in audited.stdout, audited.stdout
    refused = validate(hub, edited, head, "alice")
    assert refused.returncode == 9 and "[action-rewritten]" in refused.stdout and base_rev


def _void_on_a_branch(hub: Path, market: str, author_email: str) -> str:
    """alice's void of ``market`` committed on a branch (author alice <author_email>); the head."""
    ok("git", "checkout", "-q", "-b", "decision", cwd=hub)
    ok(PRESCIENT, "void", market, "--reason", "Annulled.", "--by", "alice", "--hub", str(hub), "--as-of", DECIDED)
    commit(hub, "void", "2026-03-17T09:10:00Z", email=author_email)
    ok("git", "checkout", "-q", "main", cwd=hub)
    return ok("git", "rev-parse", "decision", cwd=hub).strip()


def _receipt(hub: Path, head: str, author: str) -> None:
    """The nightly's receipt of the decision's pull request (GitHub's author login), in a bot commit."""
    from generator.store import receipts
    from generator.store.git import blob_id
    from generator.store.hub import Hub
    from generator.timeutil import parse_ts

    files = {ACTIONS: blob_id(ok("git", "show", f"{head}:{ACTIONS}", cwd=hub).encode())}
    receipts.record(
        Hub.load(hub),
        [
            receipts.receipt_rows(
                files,
                attested_at="2026-03-17T09:11:00Z",
                head_sha=head,
                pr=7,
                run_id=9007,
                verdict="success",
                as_of=parse_ts("2026-03-17T11:00:00Z"),
                author=author,
            )
        ],
        parse_ts("2026-03-17T11:00:00Z"),
    )
    commit(hub, "receipts", "2026-03-17T11:00:00Z", email=BOT_EMAIL)


def _audit_codes(hub: Path) -> list[str]:
    audited = run(PRESCIENT, "verify", "--hub", str(hub), "--git", "--full", "--format", "json")
    import json

    return [p["code"] for p in json.loads(audited.stdout)["problems"] if p["severity"] == "error"]


def test_the_audit_takes_a_decisions_author_from_what_the_committer_cannot_set(hub, tmp_path):
    """A commit's author name is typed by whoever commits; `alice <mallory@example.com>`
    passed on 0.13.3. A maintainer's GitHub no-reply e-mail passes (what GitHub writes in the commits
    its merge button makes), and so does a decision whose pull request a receipt says alice opened."""
    market = scored_units(hub)[0][0]
    spoofed = Path(shutil.copytree(hub, tmp_path / "spoofed", symlinks=True))
    _void_on_a_branch(spoofed, market, "mallory@example.com")
    ok("git", "merge", "-q", "--ff-only", "decision", cwd=spoofed)
    assert git_author(spoofed) == "alice <mallory@example.com>"
    assert _audit_codes(spoofed) == ["maintainer-commit-unauthorized"]

    github = Path(shutil.copytree(hub, tmp_path / "github", symlinks=True))
    _void_on_a_branch(github, market, ALICE)
    ok("git", "merge", "-q", "--ff-only", "decision", cwd=github)
    assert _audit_codes(github) == []

    for login, expected in (("alice", []), ("mallory", ["maintainer-commit-unauthorized"])):
        merged = Path(shutil.copytree(hub, tmp_path / f"receipt-{login}", symlinks=True))
        head = _void_on_a_branch(merged, market, "mallory@example.com")
        ok(
            "git",
            "merge",
            "-q",
            "--no-ff",
            "-m",
            "Merge pull request #7",
            "decision",
            cwd=merged,
            at="2026-03-17T10:00:00Z",
            email="alice@example.org",
        )  # the merge's author proves nothing either
        _receipt(merged, head, login)
        assert _audit_codes(merged) == expected, login


def git_author(hub: Path) -> str:
    return ok("git", "log", "-1", "--format=%an <%ae>", cwd=hub).strip()


TAKEN = "data/metadata/decisions.csv"


def _audit(hub: Path, *args: str) -> dict:
    import json

    done = run(PRESCIENT, "verify", "--hub", str(hub), "--git", *args, "--format", "json")
    return json.loads(done.stdout)


def test_a_decision_merged_a_night_late_acts_from_the_night_it_arrived_and_the_audit_stays_green(hub, tmp_path):
    """A void checked green before a nightly and merged after it acted on the night recorded
    before it reached main, and `verify --git` failed maintainer-action-backdated and history-differs for
    ever. The nightly that first sees it now takes it up as of its own night (data/metadata/decisions.csv),
    the earlier night's boards stay as they were, and the audit is green on every later night."""
    ((voided, _),) = scored_units(hub)[:1]
    base = ok("git", "rev-parse", "HEAD", cwd=hub).strip()
    head = _void_on_a_branch(hub, voided, ALICE)
    assert validate(hub, base, head, "alice").stdout.startswith("Passed")
    nightly(hub, "2026-03-18T02:00:00Z")  # a night runs between the check and the merge
    assert voided in set(pd.read_csv(hub / SCORES, dtype=str)["question_id"])
    ok("git", "merge", "-q", "--no-ff", "-m", "Merge pull request #7", "decision", cwd=hub, at="2026-03-18T10:00:00Z", email=ALICE)
    pending = _audit(hub, "--full")
    assert pending["ok"], pending["problems"]
    assert [(p["code"], p["severity"]) for p in pending["problems"] if p["file"] == ACTIONS] == [("maintainer-action-pending", "warning")]
    forged = Path(shutil.copytree(hub, tmp_path / "forged", symlinks=True))

    nightly(hub, "2026-03-19T02:00:00Z")
    taken = pd.read_csv(hub / TAKEN, dtype=str, keep_default_na=False)
    assert taken[["action", "target", "taken_at", "effective_at"]].values.tolist() == [
        ["void", voided, "2026-03-19T02:00:00Z", "2026-03-19T02:00:00Z"]
    ]
    assert voided not in set(pd.read_csv(hub / SCORES, dtype=str)["question_id"]), "it acts from the night it arrived"
    history = pd.read_csv(hub / "data/leaderboard/history.csv", dtype=str, keep_default_na=False)
    assert set(history["as_of"]) >= {"2026-03-18T02:00:00Z", "2026-03-19T02:00:00Z"}
    for at in ("2026-03-19T02:00:00Z", "2026-03-20T02:00:00Z"):
        if at != "2026-03-19T02:00:00Z":
            nightly(hub, at)
        for args in (("--full", "--all"), ("--all",)):
            audited = _audit(hub, *args)
            assert audited["ok"] and not [p for p in audited["problems"] if p["severity"] == "error"], (at, args, audited["problems"])

    # A record that makes it act before it reached main (the night it missed) is refused.
    path = forged / TAKEN
    key = pd.read_csv(forged / ACTIONS, dtype=str, keep_default_na=False).iloc[0]
    path.write_text(path.read_text() + f"{key['recorded_at']},void,{voided},{key['resolution_date']},2026-03-19T02:00:00Z,{key['effective_at']}\n")
    commit(forged, "nightly: data as of 2026-03-19T02:00:00Z", "2026-03-19T02:00:00Z", email=BOT_EMAIL)
    errors = [p["code"] for p in _audit(forged, "--full")["problems"] if p["severity"] == "error"]
    assert "maintainer-action-backdated" in errors, errors
