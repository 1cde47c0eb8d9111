"""Receipts, through the library: a local bare repository plays GitHub's git side, ``tests/_github.py``
(through ``httpx.MockTransport``) its REST API. What the receipts decide is tried end to end, with the
real executable, in ``tests/submissions/test_seals.py``; here: which files a receipt names, the walk, the audit of
the ledgers' history and the nightly's digest.

The hub's nightly (as of 2026-01-16) opened the round due 2026-01-25T00:00:00Z and registered
acme.gpt-x. A forecaster pushes a pull request from a clone; GitHub "creates a run" for each push
at a time the test chooses (the fake API reports it); the hub records the receipt; a maintainer
merges with a merge commit dated when the button was pressed.
"""

from __future__ import annotations

import shutil
import subprocess
from datetime import timedelta
from pathlib import Path

import pandas as pd
import pytest
from _github import FakeGitHub

from generator.audit import git as audit_git
from generator.audit.verify import check_timing
from generator.pipeline.forecaster import forecast_template
from generator.pipeline.nightly import nightly
from generator.pipeline.receipts import receipt_files, record_run, walk
from generator.sources.github import parse_run
from generator.store import receipts
from generator.store.hub import Hub
from generator.submissions import validate_pr
from generator.timeutil import format_ts, parse_ts

from helpers import commit_dated as commit
from helpers import git_dated as git
from helpers import write_hub

pytestmark = pytest.mark.e2e

DUE = "2026-01-25T00:00:00Z"
FILE = "data/forecasts/2026-01-25/acme.gpt-x.csv"
MODEL = "data/models/acme.gpt-x.yml"


@pytest.fixture(scope="module")
def world_template(tmp_path_factory) -> Path:
    top = tmp_path_factory.mktemp("world")
    hub = write_hub(top / "hub")
    git(hub, "init", "-q", "-b", "main")
    nightly(hub, parse_ts("2026-01-16T00:00:00Z"))
    (hub / MODEL).write_text("name: GPT-X\norganization: Acme\nkind: llm\nmaintainers: [alice]\n", encoding="utf-8")
    commit(hub, "2026-01-16T01:00:00Z", "nightly: data as of 2026-01-16, and acme.gpt-x registered")
    subprocess.run(["git", "clone", "-q", "--bare", str(hub), str(top / "origin.git")], check=True)
    git(hub, "remote", "add", "origin", "../origin.git")  # relative: each test's copy has its own "GitHub"
    subprocess.run(["git", "clone", "-q", str(top / "origin.git"), str(top / "fork")], check=True)
    git(top / "fork", "remote", "set-url", "origin", "../origin.git")
    return top


@pytest.fixture
def world(world_template: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(world_template, tmp_path / "world", symlinks=True))


def forecast_bytes(hub: Path, p: str = "0.5") -> bytes:
    lines = forecast_template(Hub(hub), parse_ts(DUE), "csv", None).decode().splitlines()
    rows = [line.removesuffix(",,") + f",{p}," for line in lines[1:]]  # question_id,resolution_date,probability,reasoning
    return ("\n".join([lines[0], *rows]) + "\n").encode()


def push(world: Path, data: bytes, when: str, pr: int = 1, path: str = FILE, message: str = "forecast") -> str:
    """The forecaster commits ``data`` at ``path`` (committer date ``when``, which they choose) and pushes."""
    fork = world / "fork"
    (fork / path).parent.mkdir(parents=True, exist_ok=True)
    (fork / path).write_bytes(data)
    sha = commit(fork, when, message)
    git(fork, "push", "-q", "-f", "origin", f"HEAD:refs/pull/{pr}/head")
    return sha


def fetch_pull(world: Path, pr: int = 1) -> None:
    git(world / "hub", "fetch", "-q", "origin", f"+refs/pull/{pr}/head:refs/prescient/pull/{pr}")


def merge(world: Path, when: str, pr: int = 1, fast_forward: bool = False) -> str:
    """The maintainer merges the pull request: GitHub's merge commit is dated when the button was pressed."""
    hub = world / "hub"
    fetch_pull(world, pr)
    if fast_forward:
        git(hub, "merge", "-q", "--ff-only", f"refs/prescient/pull/{pr}")
    else:
        git(hub, "merge", "-q", "--no-ff", "-m", f"Merge pull request #{pr}", f"refs/prescient/pull/{pr}", when=when)
    return git(hub, "rev-parse", "HEAD")


def receipt(world: Path, api: FakeGitHub, run_id: int, as_of: str):
    fetch_pull(world, next(pr for pr, p in api.pulls.items() if p["head"]["sha"] == api.runs[run_id]["head_sha"]))
    return record_run(Hub.load(world / "hub"), api.client(), run_id, parse_ts(as_of))


def commit_receipts(world: Path, when: str) -> None:
    commit(world / "hub", when, "receipts")


def audit(world: Path) -> list[tuple[str, str]]:
    hub = world / "hub"
    stamps = {k: format_ts(v) for k, v in receipts.attested(receipts.load_receipts_at(hub, git(hub, "rev-parse", "HEAD"))).items()}
    return [(p.code, p.file) for p in audit_git.audit_history(hub, "HEAD", stamps)[1]]


def check(world: Path, head: str, at: str) -> list[str]:
    hub = world / "hub"
    report = validate_pr(hub, "main", head, "alice", parse_ts(at), receipts.load_receipts(Hub(hub)))
    return sorted(p.code for p in report.problems if p.severity == "error")


# -- the cases -------------------------------------------------------------------------------


def test_a_back_dated_committer_date_changes_nothing(world: Path):
    api, hub = FakeGitHub(), world / "hub"
    (hub / "data" / "notes.txt").write_text("after the due time\n")
    commit(hub, "2026-01-25T06:00:00Z", "a commit on main after the due time")
    git(hub, "push", "-q", "origin", "main")
    fork = world / "fork"
    git(fork, "pull", "-q", "--ff-only", "origin", "main")
    late = push(world, forecast_bytes(hub), "2026-01-20T00:00:00Z", message="back-dated")  # pushed at 07:00
    assert git(fork, "log", "-1", "--format=%cI", late).startswith("2026-01-20")
    receipt(world, api, api.run(1, late, "2026-01-25T07:00:02Z"), "2026-01-25T07:01:00Z")
    assert check(world, late, "2026-01-25T07:00:02Z") == ["round-closed"]
    # Merged by the merge button (GitHub dates the merge commit) or fast-forwarded (the back-dated
    # commit itself lands on main, on top of later commits): late both ways.
    merged = shutil.copytree(world, world.parent / "merged", symlinks=True)
    merge(merged, "2026-01-25T09:00:00Z")
    assert audit(merged) == [("late-file-pending", FILE)], "late: the next nightly's seal rules it out"
    git(hub, "fetch", "-q", "origin", "+refs/pull/1/head:refs/prescient/pull/1")
    git(hub, "rebase", "-q", "--committer-date-is-author-date", "HEAD", "refs/prescient/pull/1", when="2026-01-20T00:00:00Z")
    git(hub, "checkout", "-q", "-B", "main")
    assert git(hub, "log", "-1", "--format=%cI").startswith("2026-01-20")
    codes = audit(world)
    assert ("late-file-pending", FILE) in codes and ("commit-date-backwards", ".git") in codes


def test_the_receipts_ledger_is_append_only_under_verify_git(world: Path):
    api, hub = FakeGitHub(), world / "hub"
    head = push(world, forecast_bytes(hub), "2026-01-24T20:00:00Z")
    receipt(world, api, api.run(1, head, "2026-01-24T20:00:07Z"), "2026-01-24T20:03:00Z")
    commit_receipts(world, "2026-01-24T20:03:30Z")
    merge(world, "2026-01-25T09:00:00Z")
    ledger = next((hub / "data" / "receipts").glob("*.csv"))
    rel = ledger.relative_to(hub).as_posix()
    # Back-dating the receipt to before the due time would be a rewrite; so would deleting it.
    ledger.write_text(ledger.read_text().replace("2026-01-24T20:00:07Z", "2026-01-20T20:00:07Z"))
    commit(hub, "2026-01-25T10:00:00Z", "edit a receipt")
    assert ("ledger-row-rewritten", rel) in audit(world)
    ledger.unlink()
    commit(hub, "2026-01-25T11:00:00Z", "drop the receipts")
    assert ("ledger-deleted", rel) in audit(world)


def test_a_fork_run_is_matched_to_its_pull_request_and_other_events_give_no_receipt(world: Path):
    api, hub = FakeGitHub(), world / "hub"
    head = push(world, forecast_bytes(hub), "2026-01-24T20:00:00Z", pr=7)
    run = api.run(7, head, "2026-01-24T20:00:07Z", fork=True)
    assert receipt(world, api, run, "2026-01-24T20:01:00Z").added["pr"].tolist() == [7]
    api.runs[run]["event"] = "push"
    api.runs[run]["head_sha"] = "f" * 40
    done = record_run(Hub.load(hub), api.client(), run, parse_ts("2026-01-24T20:02:00Z"))
    assert done.added.empty and "not a pull request" in done.notes[0]


def test_only_dated_submission_files_get_a_receipt(world: Path):
    hub, fork = world / "hub", world / "fork"
    (fork / "data" / "models" / "acme.gpt-y.yml").write_text("name: Y\norganization: Acme\nkind: llm\nmaintainers: [alice]\n")
    (fork / "data" / "bets" / "2026-01-25").mkdir(parents=True)
    (fork / "data" / "bets" / "2026-01-25" / "acme.gpt-x.csv").write_text("x\n")
    head = push(world, forecast_bytes(hub), "2026-01-24T20:00:00Z")
    fetch_pull(world)
    files, why = receipt_files(hub, "main", head, "alice", "2026-01-24T20:00:05Z")
    assert sorted(files) == ["data/bets/2026-01-25/acme.gpt-x.csv", FILE] and why == ""
    assert receipt_files(hub, "main", head, "mallory", "2026-01-24T20:00:05Z") == ({}, "@mallory may not submit for acme.gpt-x")
    assert receipt_files(hub, "main", head, "alice", "2026-01-25T00:00:05Z")[0] == {}, "a round closed at the push: nothing"


def test_the_walk_records_every_run_once_and_a_head_it_cannot_read_as_unreadable(world: Path):
    api, hub = FakeGitHub(), world / "hub"
    first = push(world, forecast_bytes(hub, "0.2"), "2026-01-24T10:00:00Z")
    api.run(1, first, "2026-01-24T10:00:05Z")
    fetch_pull(world)
    second = push(world, forecast_bytes(hub, "0.7"), "2026-01-24T11:00:00Z")  # a force push: the first head is fetched, this one not
    api.run(1, second, "2026-01-24T11:00:05Z")
    done = walk(Hub.load(hub), api.client(), parse_ts("2026-01-25T02:00:00Z"))
    assert done.complete and done.added[["head_sha", "path", "verdict"]].values.tolist() == [
        [first, FILE, "success"],
        [second, "*", "head-unavailable"],
    ]
    assert any("could not be read" in note for note in done.notes)
    again = walk(Hub.load(hub), api.client(), parse_ts("2026-01-25T03:00:00Z"))
    assert again.added.empty, "a run is recorded once"
    assert any("validate.yml/runs?created=>=2026-01-14" in r for r in api.requests), "from the open round's freeze, a day early"


def test_timing_in_verify_takes_a_receipt_as_evidence(world: Path):
    api, hub = FakeGitHub(), world / "hub"
    data = forecast_bytes(hub)
    receipt(world, api, api.run(1, push(world, data, "2026-01-24T20:00:00Z"), "2026-01-24T20:00:07Z"), "2026-01-24T20:01:00Z")
    (hub / FILE).write_bytes(data)
    files = Hub(hub)
    attested = receipts.attested(receipts.load_receipts(files))
    assert check_timing(files, parse_ts("2026-01-26T00:00:00Z"), None, attested)[0] == []
    (hub / FILE).write_bytes(data + b"\n")
    assert [p.code for p in check_timing(files, parse_ts("2026-01-26T00:00:00Z"), None, attested)[0]] == ["timing-unproven"]


def test_parse_run_reads_githubs_own_fields_only():
    run = parse_run(
        {
            "id": 5,
            "head_sha": "a" * 40,
            "created_at": "2026-01-24T20:00:07Z",
            "event": "pull_request",
            "conclusion": None,
            "pull_requests": [{"number": 3}],
            "head_commit": {"timestamp": "2020-01-01T00:00:00Z"},
        }
    )
    assert (run.created_at, run.verdict, run.pulls) == ("2026-01-24T20:00:07Z", "pending", (3,))
    with pytest.raises(ValueError):
        parse_run({"id": 5, "head_sha": "not a sha", "created_at": "2026-01-24T20:00:07Z"})
    assert parse_ts(run.created_at) - parse_ts(DUE) < timedelta(0)


# -- the nightly ledger digest (anchoring) ---------------------------------------------------------


def test_each_night_records_the_digest_of_its_manifest_and_receipts_and_verify_git_recomputes_it(world: Path):
    from generator.store import manifest, readers

    api, hub = FakeGitHub(), world / "hub"
    receipt(world, api, api.run(1, push(world, forecast_bytes(hub), "2026-01-24T20:00:00Z"), "2026-01-24T20:00:07Z"), "2026-01-24T20:01:00Z")
    commit_receipts(world, "2026-01-24T20:02:00Z")
    for night in ("2026-02-20T00:00:00Z", "2026-03-01T00:00:00Z"):
        nightly(hub, parse_ts(night))
        commit(hub, night.replace("T00", "T01"), f"nightly {night}")
    files = Hub(hub)
    layout = files.layout
    history = readers.load_history(files)
    latest = history[history["as_of"] == history["as_of"].max()]
    assert set(latest["ledger_digest"]) == {manifest.ledger_digest(files)}
    files = sorted(layout.relative(p) for p in [*layout.manifest_files(), *layout.receipt_files()])
    assert any(f.startswith("data/receipts/") for f in files) and any(f.startswith("data/manifest/") for f in files)
    assert audit(world) == []
    # A later night whose digest does not match its commit's ledgers (as after a rewrite) is reported.
    header, *rows = (hub / "data/leaderboard/history.csv").read_text().splitlines()
    forged = rows[-1].split(",")
    forged[0], forged[header.split(",").index("ledger_digest")] = "2026-03-02T00:00:00Z", "0" * 64
    with (hub / "data/leaderboard/history.csv").open("a") as f:
        f.write(",".join(forged) + "\n")
    commit(hub, "2026-03-02T01:00:00Z", "a night with a forged digest")
    assert audit(world) == [("ledger-digest-differs", "data/leaderboard/history.csv")]


def test_a_history_written_before_the_digest_column_is_read_extended_and_accepted_by_verify_git(world: Path):
    from generator.store import readers

    hub = world / "hub"
    nightly(hub, parse_ts("2026-02-20T00:00:00Z"))
    path = hub / "data/leaderboard/history.csv"
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    old = frame[frame["view"] == "overall"].drop(columns=["ledger_digest", "view"]).to_csv(index=False, lineterminator="\n")
    path.write_text(old)  # as written before both late columns: the overall view only, no digest
    commit(hub, "2026-02-20T01:00:00Z", "a night of the old format")
    assert readers.load_history(Hub(hub))["ledger_digest"].eq("").all()
    nightly(hub, parse_ts("2026-03-01T00:00:00Z"))
    text = path.read_text()
    assert text.splitlines()[0].endswith(",methodology_version,ledger_digest,view") and old.splitlines()[1] + ",," in text
    commit(hub, "2026-03-01T01:00:00Z", "nightly")
    assert audit(world) == []


def test_the_changes_page_lists_the_latest_digests_newest_first():
    from generator.site.listings import night_digests

    history = pd.DataFrame(
        {
            "as_of": ["2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z"],
            "ledger_digest": ["a" * 64, "a" * 64, "", "b" * 64],
        }
    )
    assert night_digests(history) == [("2026-01-03T00:00:00Z", "b" * 64), ("2026-01-01T00:00:00Z", "a" * 64)]


def test_a_receipt_names_the_maintainers_ledger_only_for_a_hub_maintainers_push(world: Path):
    """A decision's pull request pushed by a hub maintainer gets a receipt of the maintainers' ledger, so the
    audit can name the decision's author from GitHub's record; anyone else's gets none."""
    hub, fork = world / "hub", world / "fork"
    ledger = "data/maintainer/actions.csv"
    (fork / ledger).parent.mkdir(parents=True, exist_ok=True)
    (fork / ledger).write_text("recorded_at,action,target,reason\n")  # the bytes do not matter to the receipt
    head = commit(fork, "2026-01-20T10:00:00Z", "a decision")
    git(fork, "push", "-q", "-f", "origin", "HEAD:refs/pull/4/head")
    fetch_pull(world, 4)
    base = git(hub, "rev-parse", "HEAD")
    files, why = receipt_files(hub, base, head, "hub-maintainer", "2026-01-20T10:00:05Z")
    assert (list(files), why) == ([ledger], "")
    assert receipt_files(hub, base, head, "mallory", "2026-01-20T10:00:05Z") == ({}, "")
