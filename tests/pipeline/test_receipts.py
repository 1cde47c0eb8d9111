"""One provable submission time, end to end: a local bare repository plays GitHub's git side, an
``httpx.MockTransport`` plays its REST API (workflow runs and pull requests), and the receipts the
hub records from them decide the same thing in the pull-request check and in ``verify --git``.

The hub's nightly (as of 2026-01-16) opened the round due 2026-01-25T00:00:00Z and registered
acme.gpt-x. A forecaster pushes a pull request from a clone; GitHub "creates a run" for each push
at a time the test chooses (the fake API reports it); the hub records the receipt; a maintainer
merges with a merge commit dated when the button was pressed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from datetime import timedelta
from pathlib import Path

import httpx
import pandas as pd
import pytest

from generator.audit import git as audit_git
from generator.audit.verify import check_timing
from generator.pipeline.forecaster import forecast_template
from generator.pipeline.nightly import nightly
from generator.pipeline.receipts import catch_up, record_run, submission_blobs
from generator.sources.github import GitHub, parse_run
from generator.sources.http import http_for
from generator.store import receipts
from generator.store.hub import Hub
from generator.submissions import validate_pr
from generator.timeutil import format_ts, parse_ts

from helpers import write_hub

DUE = "2026-01-25T00:00:00Z"
FILE = "data/forecasts/2026-01-25/acme.gpt-x.csv"
MODEL = "data/models/acme.gpt-x.yml"
REPO = "acme/hub"
API = "https://api.github.test"


def git(root: Path, *args: str, when: str | None = None) -> str:
    stamp = f"@{int(parse_ts(when).timestamp())} +0000" if when else None
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.invalid", **({"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp} if stamp else {})}
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, env=env, check=True).stdout.strip()


def commit(root: Path, when: str, message: str) -> str:
    git(root, "add", "-A")
    git(root, "commit", "-qm", message, when=when)
    return git(root, "rev-parse", "HEAD")


class FakeGitHub:
    """The REST API's answers for the runs and pull requests a test creates."""

    def __init__(self):
        self.runs: dict[int, dict] = {}
        self.pulls: dict[int, str] = {}  # open pull request → head sha
        self.requests: list[str] = []

    def run(self, pr: int, head: str, created_at: str, *, fork: bool = False, conclusion: str | None = "success") -> int:
        run_id = 9000 + len(self.runs)
        self.runs[run_id] = {"id": run_id, "head_sha": head, "created_at": created_at, "event": "pull_request",
                             "status": "completed", "conclusion": conclusion,
                             "pull_requests": [] if fork else [{"number": pr, "head": {"sha": head}}]}
        self.pulls[pr] = head
        return run_id

    def handler(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(str(request.url))
        assert request.headers["Authorization"] == "Bearer t0ken"
        path = request.url.path.removeprefix(f"/repos/{REPO}/")
        if path.startswith("actions/runs/"):
            run = self.runs.get(int(path.rsplit("/", 1)[1]))
            return httpx.Response(200, json=run) if run else httpx.Response(404, json={"message": "Not Found"})
        if path == "actions/runs":
            sha = request.url.params["head_sha"]
            found = sorted((r for r in self.runs.values() if r["head_sha"] == sha), key=lambda r: -r["id"])
            return httpx.Response(200, json={"total_count": len(found), "workflow_runs": found})
        if path == "pulls":
            assert request.url.params["state"] == "open"
            page = int(request.url.params.get("page", "1"))
            pulls = [{"number": n, "state": "open", "head": {"sha": s}} for n, s in sorted(self.pulls.items())]
            return httpx.Response(200, json=pulls if page == 1 else [])
        return httpx.Response(404, json={"message": "Not Found"})

    def client(self) -> GitHub:
        http = http_for(httpx.Client(transport=httpx.MockTransport(self.handler)), {"retries": 0},
                        headers={"Authorization": "Bearer t0ken"})
        return GitHub(http, REPO, API)


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
    fetch_pull(world, next(pr for pr, s in api.pulls.items() if s == api.runs[run_id]["head_sha"]))
    return record_run(Hub.load(world / "hub"), api.client(), run_id, parse_ts(as_of))


def commit_receipts(world: Path, when: str) -> None:
    commit(world / "hub", when, "receipts")


def audit(world: Path) -> list[tuple[str, str]]:
    hub = world / "hub"
    stamps = {k: format_ts(v) for k, v in receipts.attested(receipts.load_receipts_at(hub, git(hub, "rev-parse", "HEAD"))).items()}
    return [(p.code, p.file) for p in audit_git.audit_history(hub, "HEAD", stamps)[1]]


def check(world: Path, head: str, at: str) -> list[str]:
    hub = world / "hub"
    attested = receipts.attested(receipts.load_receipts(Hub(hub)))
    report = validate_pr(hub, "main", head, "alice", parse_ts(at), attested)
    return sorted(p.code for p in report.problems if p.severity == "error")


# -- the cases -------------------------------------------------------------------------------

def test_an_on_time_pull_request_merged_after_the_due_time_passes_verify(world: Path):
    api, data = FakeGitHub(), forecast_bytes(world / "hub")
    head = push(world, data, "2026-01-24T20:00:00Z")
    run = api.run(1, head, "2026-01-24T20:00:07Z")
    added = receipt(world, api, run, "2026-01-24T20:03:00Z").added
    assert list(added["path"]) == [FILE] and list(added["attested_at"]) == ["2026-01-24T20:00:07Z"]
    assert list(added["blob"]) == [audit_git.blob_id(data)] and list(added["pr"]) == [1]
    commit_receipts(world, "2026-01-24T20:03:30Z")
    merge(world, "2026-01-25T09:00:00Z")  # the next morning
    assert audit(world) == []
    without = [(p.code, p.file) for p in audit_git.audit_history(world / "hub")[1]]
    assert without == [("forecast-committed-after-due", FILE)], "without the receipt the merge time would count"


def test_update_branch_after_due_keeps_the_file_on_time(world: Path):
    api, hub, data = FakeGitHub(), world / "hub", forecast_bytes(world / "hub")
    first = push(world, data, "2026-01-24T22:00:00Z")
    receipt(world, api, api.run(1, first, "2026-01-24T22:00:05Z"), "2026-01-24T22:02:00Z")
    commit_receipts(world, "2026-01-24T22:02:30Z")
    git(hub, "push", "-q", "origin", "main")
    # After the due time a maintainer presses "Update branch": main is merged into the pull request.
    fork = world / "fork"
    git(fork, "fetch", "-q", "origin", "main")
    git(fork, "merge", "-q", "--no-ff", "-m", "Merge branch 'main'", "FETCH_HEAD", when="2026-01-25T08:00:00Z")
    git(fork, "push", "-q", "-f", "origin", "HEAD:refs/pull/1/head")
    second = git(fork, "rev-parse", "HEAD")
    later = api.run(1, second, "2026-01-25T08:00:04Z")
    fetch_pull(world)
    assert check(world, second, "2026-01-25T08:00:04Z") == [], "the unchanged file counts at its first receipt"
    assert receipt(world, api, later, "2026-01-25T08:01:00Z").added["attested_at"].tolist() == ["2026-01-25T08:00:04Z"]
    commit_receipts(world, "2026-01-25T08:01:30Z")
    merge(world, "2026-01-25T09:00:00Z")
    assert audit(world) == []


def test_a_changed_file_pushed_after_due_is_late(world: Path):
    api, data = FakeGitHub(), forecast_bytes(world / "hub")
    first = push(world, data, "2026-01-24T22:00:00Z")
    receipt(world, api, api.run(1, first, "2026-01-24T22:00:05Z"), "2026-01-24T22:02:00Z")
    commit_receipts(world, "2026-01-24T22:02:30Z")
    second = push(world, forecast_bytes(world / "hub", "0.6"), "2026-01-25T07:00:00Z", message="better")
    receipt(world, api, api.run(1, second, "2026-01-25T07:00:03Z"), "2026-01-25T07:01:00Z")
    assert check(world, second, "2026-01-25T07:00:03Z") == ["round-closed"]
    assert check(world, first, "2026-01-25T07:00:03Z") == [], "the first push's bytes stay on time"
    commit_receipts(world, "2026-01-25T07:01:30Z")
    merge(world, "2026-01-25T09:00:00Z")
    assert audit(world) == [("forecast-committed-after-due", FILE)]


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
    commit_receipts(world, "2026-01-25T07:01:30Z")
    # Merged by the merge button (GitHub dates the merge commit) or fast-forwarded (the back-dated
    # commit itself lands on main, on top of later commits): late both ways.
    merged = shutil.copytree(world, world.parent / "merged", symlinks=True)
    merge(merged, "2026-01-25T09:00:00Z")
    assert audit(merged) == [("forecast-committed-after-due", FILE)]
    git(hub, "fetch", "-q", "origin", "+refs/pull/1/head:refs/prescient/pull/1")
    git(hub, "rebase", "-q", "--committer-date-is-author-date", "HEAD", "refs/prescient/pull/1", when="2026-01-20T00:00:00Z")
    git(hub, "checkout", "-q", "-B", "main")
    assert git(hub, "log", "-1", "--format=%cI").startswith("2026-01-20")
    codes = audit(world)
    assert ("forecast-committed-after-due", FILE) in codes and ("commit-date-backwards", ".git") in codes


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


def test_catch_up_records_the_earliest_run_of_every_open_pull_request_once(world: Path):
    api, hub = FakeGitHub(), world / "hub"
    head = push(world, forecast_bytes(hub), "2026-01-24T20:00:00Z")
    api.run(1, head, "2026-01-24T20:00:07Z", fork=True, conclusion="failure")
    api.run(1, head, "2026-01-24T21:30:00Z", fork=True)  # a later run on the same head (e.g. a reopen)
    fetch_pull(world)
    done = catch_up(Hub.load(hub), api.client(), parse_ts("2026-01-25T00:30:00Z"))
    assert done.added[["attested_at", "pr", "verdict", "path"]].values.tolist() == [
        ["2026-01-24T20:00:07Z", 1, "failure", FILE]]
    before = {p: p.read_bytes() for p in (hub / "data" / "receipts").glob("*.csv")}
    again = catch_up(Hub.load(hub), api.client(), parse_ts("2026-01-26T00:30:00Z"))
    assert again.added.empty and {p: p.read_bytes() for p in (hub / "data" / "receipts").glob("*.csv")} == before


def test_catch_up_names_what_it_cannot_record(world: Path):
    api, hub = FakeGitHub(), world / "hub"
    head = push(world, forecast_bytes(hub), "2026-01-24T20:00:00Z")
    api.pulls[1] = head  # open, but no run yet
    assert catch_up(Hub.load(hub), api.client(), parse_ts("2026-01-25T00:30:00Z")).notes == [
        f"pull request #1: no run yet for head {head[:12]}"]
    api.run(1, head, "2026-01-24T20:00:07Z")
    notes = catch_up(Hub.load(hub), api.client(), parse_ts("2026-01-25T00:30:00Z")).notes  # not fetched yet
    assert notes == [f"pull request #1: head {head[:12]} is not fetched (git fetch origin refs/pull/1/head)"]


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
    assert sorted(submission_blobs(hub, "main", head)) == ["data/bets/2026-01-25/acme.gpt-x.csv", FILE]


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
    run = parse_run({"id": 5, "head_sha": "a" * 40, "created_at": "2026-01-24T20:00:07Z", "event": "pull_request",
                     "conclusion": None, "pull_requests": [{"number": 3}], "head_commit": {"timestamp": "2020-01-01T00:00:00Z"}})
    assert (run.created_at, run.verdict, run.pulls) == ("2026-01-24T20:00:07Z", "pending", (3,))
    with pytest.raises(ValueError):
        parse_run({"id": 5, "head_sha": "not a sha", "created_at": "2026-01-24T20:00:07Z"})
    assert parse_ts(run.created_at) - parse_ts(DUE) < timedelta(0)


def test_a_bets_price_follows_its_attested_time(world: Path):
    """A bet that claims an early time buys at the price of the push that made it."""
    from generator.arena.gather import load_cohorts
    from generator.scoring.resolve import values_at
    from generator.store import readers

    api, hub = FakeGitHub(), world / "hub"
    nightly(hub, parse_ts("2026-01-30T00:00:00Z"))  # opens the round due 2026-02-08, with markets
    nightly(hub, parse_ts("2026-02-03T00:00:00Z"))  # a second night of prices
    files, due = Hub(hub), "2026-02-08T00:00:00Z"
    questions = readers.load_round(files, parse_ts(due))
    known = readers.load_observations(files)
    early, late = "2026-01-30T00:00:00Z", "2026-02-03T06:00:00Z"
    at = lambda q, t: float(values_at(known, pd.Series([q]), t).iloc[0])  # noqa: E731
    moved = [q for q in questions.loc[questions["kind"] == "binary", "question_id"] if at(q, early) != at(q, late)]
    assert moved, "the sim world moved some price between the two nights"
    bet = f"question_id,placed_at,side,amount,reasoning\n{moved[0]},{early},YES,100,\n".encode()
    path = "data/bets/2026-02-08/acme.gpt-x.csv"
    (hub / path).parent.mkdir(parents=True, exist_ok=True)
    (hub / path).write_bytes(bet)

    def price() -> float:
        positions = load_cohorts(hub, parse_ts("2026-02-04T00:00:00Z")).positions
        return float(positions.loc[positions["view"] == "bets", "yes_price"].iloc[0])

    assert price() == at(moved[0], early), "no receipt: priced at placed_at"
    head = push(world, bet, early, path=path)  # a back-dated commit, pushed on 02-03
    receipt(world, api, api.run(1, head, late), "2026-02-03T06:01:00Z")
    assert price() == at(moved[0], late)


# -- the nightly ledger digest (anchoring) ---------------------------------------------------------

def test_each_night_records_the_digest_of_its_manifest_and_receipts_and_verify_git_recomputes_it(world: Path):
    from generator.store import manifest, readers

    api, hub = FakeGitHub(), world / "hub"
    receipt(world, api, api.run(1, push(world, forecast_bytes(hub), "2026-01-24T20:00:00Z"), "2026-01-24T20:00:07Z"),
            "2026-01-24T20:01:00Z")
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
    from generator.site.render import night_digests

    history = pd.DataFrame({"as_of": ["2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z"],
                            "ledger_digest": ["a" * 64, "a" * 64, "", "b" * 64]})
    assert night_digests(history) == [("2026-01-03T00:00:00Z", "b" * 64), ("2026-01-01T00:00:00Z", "a" * 64)]
