"""Sealed at the deadline, tried as an attacker would: a local bare repository plays GitHub's git
side, ``tests/_github.py`` plays its REST API on 127.0.0.1, and every step runs the real ``prescient``
executable: the pull-request check, the nightly (which walks GitHub's runs, records the receipts and
seals the round), and ``verify --git``.

The hub (``[hub] receipts = "github"``) opened the round due 2026-01-25T00:00:00Z on 2026-01-16 and
registered acme.gpt-x, maintained by @alice. The test commits each night as the hub's nightly would
(the tests' committer is the hub's ``bot_email``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from _github import FakeGitHub

from generator.pipeline.forecaster import forecast_template
from generator.store.git import blob_id
from generator.store.hub import Hub
from generator.timeutil import parse_ts

from helpers import PRESCIENT, SMALL_HUB, write_hub
from helpers import commit_dated as commit
from helpers import git_dated as git

pytestmark = pytest.mark.e2e

DUE = "2026-01-25T00:00:00Z"
FILE = "data/forecasts/2026-01-25/acme.gpt-x.csv"
MODEL = "data/models/acme.gpt-x.yml"
SEAL_NIGHT, SCORE_NIGHT = "2026-01-25T02:23:00Z", "2026-03-01T02:23:00Z"
HUB = SMALL_HUB.replace('title = "Test hub"\n', 'title = "Test hub"\nreceipts = "github"\n')


def cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """The real executable, as a user (or a workflow) runs it."""
    return subprocess.run([PRESCIENT, *args], capture_output=True, text=True, timeout=600, env={**os.environ, **(env or {})})


@pytest.fixture(scope="module")
def world_template(tmp_path_factory) -> Path:
    """``origin.git`` plays GitHub; ``hub`` is a maintainer's clone (merges are pushed to origin, as
    the merge button does); ``fork`` is the forecaster's clone (pushes go to refs/pull/<n>/head)."""
    top = tmp_path_factory.mktemp("sealed")
    return make_world(top, HUB)


def make_world(top: Path, hub_toml: str) -> Path:
    seed = write_hub(top / "seed", hub_toml)
    git(seed, "init", "-q", "-b", "main")
    assert cli("nightly", "--hub", str(seed), "--as-of", "2026-01-16T00:00:00Z").returncode == 0
    (seed / MODEL).write_text("name: GPT-X\norganization: Acme\nkind: llm\nmaintainers: [alice]\n", encoding="utf-8")
    commit(seed, "2026-01-16T01:00:00Z", "nightly: data as of 2026-01-16, and acme.gpt-x registered")
    subprocess.run(["git", "clone", "-q", "--bare", str(seed), str(top / "origin.git")], check=True)
    shutil.rmtree(seed)
    for name in ("hub", "fork"):
        subprocess.run(["git", "clone", "-q", str(top / "origin.git"), str(top / name)], check=True)
        git(top / name, "remote", "set-url", "origin", "../origin.git")  # relative: each test's copy has its own "GitHub"
    return top


@pytest.fixture
def world(world_template: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(world_template, tmp_path / "world", symlinks=True))


def forecast_bytes(hub: Path, p: str | list[str] = "0.5") -> bytes:
    lines = forecast_template(Hub(hub), parse_ts(DUE), "csv", None).decode().splitlines()
    values = p if isinstance(p, list) else [p] * (len(lines) - 1)
    rows = [line.removesuffix(",,") + f",{v}," for line, v in zip(lines[1:], values, strict=True)]
    return ("\n".join([lines[0], *rows]) + "\n").encode()


def versions(hub: Path, n: int = 8) -> list[bytes]:
    """``n`` different forecasts of the whole round (each question's probability differs per version)."""
    units = len(forecast_template(Hub(hub), parse_ts(DUE), "csv", None).decode().splitlines()) - 1
    return [forecast_bytes(hub, [f"{(0.05 + 0.9 * ((i * 7 + u * 3) % n) / (n - 1)):.6f}" for u in range(units)]) for i in range(n)]


def push(world: Path, files: dict[str, bytes], when: str, pr: int = 1, branch: str | None = None) -> str:
    """The forecaster commits ``files`` on a branch of the default branch and pushes it to pull request ``pr``
    (a force push: a branch's earlier heads are no longer reachable from any ref)."""
    fork = world / "fork"
    git(fork, "fetch", "-q", "origin")
    git(fork, "checkout", "-q", "-B", branch or f"pr-{pr}", "origin/main")
    for path, data in files.items():
        (fork / path).parent.mkdir(parents=True, exist_ok=True)
        (fork / path).write_bytes(data)
    sha = commit(fork, when, f"forecast at {when}")
    git(fork, "push", "-q", "-f", "origin", f"HEAD:refs/pull/{pr}/head")
    return sha


def pushed(
    world: Path, api: FakeGitHub, data: bytes | dict[str, bytes], when: str, pr: int = 1, author: str = "alice", branch: str | None = None
) -> str:
    """A push, the validation run GitHub creates for it seconds later, and the receipts workflow after it."""
    head = push(world, data if isinstance(data, dict) else {FILE: data}, when, pr, branch)
    run = api.run(pr, head, when.replace(":00Z", ":05Z"), author=author, branch=branch)
    receipts_workflow(world, api, run, pr)
    return head


def runner(world: Path, name: str) -> Path:
    """A fresh checkout of the default branch, as a workflow's runner gets."""
    place = world / name
    shutil.rmtree(place, ignore_errors=True)
    subprocess.run(["git", "clone", "-q", str(world / "origin.git"), str(place)], check=True)
    return place


def receipts_workflow(world: Path, api: FakeGitHub, run: int, pr: int) -> None:
    """receipts.yml: `record` reads the run and its head (fetched as objects), `push` adds the one file
    to the prescient-receipts branch."""
    checkout = runner(world, "receipts-runner")
    git(checkout, "fetch", "-q", "origin", f"+refs/pull/{pr}/head:refs/prescient/pull-head")
    out = world / "artifact"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir()
    with api.serve() as env:
        done = cli("receipts", "record", "--hub", str(checkout), "--run-id", str(run), "--out", str(out), env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    if not (out / f"{run}.csv").exists():
        return
    branch = world / "receipts-branch"
    shutil.rmtree(branch, ignore_errors=True)
    git(world, "init", "-q", str(branch))
    git(branch, "remote", "add", "origin", "../origin.git")
    if git(branch, "fetch", "-q", "origin", "prescient-receipts", check=False) or git(
        branch, "rev-parse", "-q", "--verify", "FETCH_HEAD", check=False
    ):
        git(branch, "checkout", "-q", "-B", "prescient-receipts", "FETCH_HEAD")
    else:
        git(branch, "checkout", "-q", "--orphan", "prescient-receipts")
    (branch / "runs").mkdir(exist_ok=True)
    shutil.copy(out / f"{run}.csv", branch / "runs" / f"{run}.csv")
    commit(branch, api.runs[run]["created_at"], f"receipt of run {run}")
    git(branch, "push", "-q", "origin", "HEAD:prescient-receipts")


def nightly(world: Path, api: FakeGitHub, as_of: str) -> subprocess.CompletedProcess:
    """nightly.yml on a fresh runner: fetch the heads and the receipts branch, run the nightly, commit as
    the hub, push; the maintainer's clone then pulls."""
    checkout = runner(world, "nightly-runner")
    git(checkout, "fetch", "-q", "origin", "+refs/pull/*/head:refs/prescient/pull/*", check=False)
    git(checkout, "fetch", "-q", "origin", "+refs/heads/prescient-receipts:refs/prescient/receipts", check=False)
    receipts = (
        ["--receipts-from", "refs/prescient/receipts"] if git(checkout, "rev-parse", "-q", "--verify", "refs/prescient/receipts", check=False) else []
    )
    with api.serve() as env:
        done = cli("nightly", "--hub", str(checkout), "--as-of", as_of, *receipts, env=env)
    assert done.returncode in (0, 6), done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    commit(checkout, as_of, f"nightly: data as of {as_of}")
    git(checkout, "push", "-q", "origin", "HEAD:main")
    git(world / "hub", "pull", "-q", "--ff-only", "origin", "main")
    return done


def fetch_pulls(world: Path) -> None:
    git(world / "hub", "fetch", "-q", "origin", "+refs/pull/*/head:refs/prescient/pull/*")


def merge(world: Path, when: str, pr: int = 1) -> str:
    """A maintainer presses the merge button (GitHub dates the merge commit then)."""
    hub = world / "hub"
    git(hub, "pull", "-q", "--ff-only", "origin", "main")
    fetch_pulls(world)
    git(hub, "merge", "-q", "--no-ff", "-m", f"Merge pull request #{pr}", f"refs/prescient/pull/{pr}", when=when)
    git(hub, "push", "-q", "origin", "HEAD:main")
    return git(hub, "rev-parse", "HEAD")


def check(world: Path, head: str, at: str, author: str = "alice") -> list[str]:
    """validate.yml: the base's checkout, the pull request's commits as objects; the error codes."""
    hub = world / "hub"
    git(hub, "pull", "-q", "--ff-only", "origin", "main")
    fetch_pulls(world)
    git(hub, "fetch", "-q", "origin", "+refs/heads/prescient-receipts:refs/prescient/receipts", check=False)
    branch = ["--receipts-from", "refs/prescient/receipts"] if git(hub, "rev-parse", "-q", "--verify", "refs/prescient/receipts", check=False) else []
    done = cli(
        "validate",
        "--hub",
        str(hub),
        "--base",
        "main",
        "--head",
        head,
        "--author",
        author,
        "--at",
        at,
        "--receipts-rev",
        "main",
        *branch,
        "--format",
        "json",
    )
    assert "Traceback" not in done.stderr, done.stderr
    return sorted({p["code"] for p in json.loads(done.stdout)["problems"] if p["severity"] == "error"})


def audit(world: Path) -> tuple[int, list[tuple[str, str]]]:
    """ci.yml's audit: the heads fetched, then verify --git."""
    fetch_pulls(world)
    done = cli("verify", "--hub", str(world / "hub"), "--git", "--format", "json")
    assert "Traceback" not in done.stderr, done.stderr
    report = json.loads(done.stdout)
    return done.returncode, sorted((p["code"], p["file"]) for p in report["problems"] if p["severity"] == "error")


def seal_of(world: Path, model: str = "acme.gpt-x", kind: str = "forecast") -> dict:
    frame = pd.read_csv(world / "hub" / "data/seals/2026.csv", dtype=str, keep_default_na=False)
    return frame[(frame["model"] == model) & (frame["kind"] == kind)].iloc[0].to_dict()


def scores_of(world: Path, model: str = "acme.gpt-x") -> pd.DataFrame:
    frame = pd.read_csv(world / "hub" / "data/scores/2026-01-25.csv", dtype=str, keep_default_na=False)
    return frame[frame["model"] == model].reset_index(drop=True)


# -- "pick the winner late": 2^3 versions before the due time, every choice after it -----------------

SCENARIOS = (
    "nothing merged",
    "the last merged the next morning",
    "an earlier one merged after the due time",
    "an earlier one opened and merged days later",
    "versions split over two pull requests",
)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_of_eight_versions_pushed_before_the_due_time_the_last_counts_whatever_is_done_after_it(world: Path, scenario: str):
    api, hub = FakeGitHub(), world / "hub"
    eight = versions(hub)
    for i, data in enumerate(eight):
        pr = 2 if scenario == SCENARIOS[4] and i >= 4 else 1
        pushed(world, api, data, f"2026-01-24T1{i}:00:00Z", pr=pr, branch=f"v-{pr}")
        if scenario == SCENARIOS[4] and i == 3:
            merge(world, "2026-01-24T13:30:00Z", pr=1)  # the fourth version, merged before the due time
    last = blob_id(eight[-1])
    if scenario == SCENARIOS[1]:  # before the seal: the check knows what counts from the receipts branch
        assert check(world, git(world / "fork", "rev-parse", "HEAD"), "2026-01-25T01:00:00Z") == []
        merge(world, "2026-01-25T01:00:00Z")
    if scenario == SCENARIOS[2]:  # a new pull request, after the due time, with the third version
        head = pushed(world, api, eight[2], "2026-01-25T01:00:00Z", pr=3)
        assert check(world, head, "2026-01-25T01:00:05Z") == ["not-the-sealed-version"]
        merge(world, "2026-01-25T01:30:00Z", pr=3)  # merged anyway (a maintainer with admin rights)
    nightly(world, api, SEAL_NIGHT)
    seal = seal_of(world)
    assert (seal["status"], seal["blob"], seal["evidence"], seal["versions"]) == ("sealed", last, "receipt", "8")
    assert (hub / FILE).read_bytes() == eight[-1], "the hub put the sealed version in place itself"
    if scenario == SCENARIOS[3]:  # days later: an earlier version, in a new pull request
        head = pushed(world, api, eight[4], "2026-01-29T09:00:00Z", pr=4)
        assert check(world, head, "2026-01-29T09:00:05Z") == ["not-the-sealed-version"]
        merge(world, "2026-01-29T10:00:00Z", pr=4)
        assert (hub / FILE).read_bytes() == eight[4]
        done = nightly(world, api, "2026-01-30T02:23:00Z")
        assert "[seal-enforced]" in done.stderr and (hub / FILE).read_bytes() == eight[-1]
    nightly(world, api, SCORE_NIGHT)
    scores = scores_of(world)
    assert len(scores) and scores["imputed"].eq("0").all()
    expected = pd.read_csv(pd.io.common.BytesIO(eight[-1]), dtype=str, keep_default_na=False)
    by_unit = dict(zip(zip(expected["question_id"], expected["resolution_date"], strict=True), expected["probability"], strict=True))
    assert [by_unit[(q, d)] for q, d in zip(scores["question_id"], scores["resolution_date"], strict=True)] == list(scores["probability"])
    code, problems = audit(world)
    # A forced merge of a version that does not count is ruled out by the next nightly, which put the
    # sealed bytes back: it never counted, the nightly reported it once, the audit stays green.
    assert code == 0 and problems == [], problems


def test_one_process_holds_a_sealed_file_every_night_though_it_skips_the_pass_while_nothing_changed(world: Path):
    """The nightly's pass over the sealed files is skipped while the seals and the files are as a pass
    of the same command left them (the demo runs a season in one process): a file changed between two
    nights of one process is still put back, and the pass after that finds nothing again."""
    from generator.pipeline.seal import seal_stage

    api, hub = FakeGitHub(), world / "hub"
    eight = versions(hub, 2)
    for i, data in enumerate(eight):
        pushed(world, api, data, f"2026-01-24T1{i}:00:00Z")
    nightly(world, api, SEAL_NIGHT)
    one = Hub.load(hub)  # one command's hub and cache, night after night
    night = parse_ts("2026-01-26T02:23:00Z")
    assert seal_stage(one, night).problems == []
    (hub / FILE).write_bytes(eight[0])  # an earlier version, put in place between two nights
    again = seal_stage(one, night)
    assert [p.code for p in again.problems] == ["seal-enforced"] and again.written == [FILE]
    assert (hub / FILE).read_bytes() == eight[-1]
    assert seal_stage(one, night).problems == [] and seal_stage(one, night).written == []
    (hub / FILE).write_bytes(eight[0])  # and again, the night after
    assert [p.code for p in seal_stage(one, night).problems] == ["seal-enforced"]
    assert (hub / FILE).read_bytes() == eight[-1]


def test_a_sealed_file_deleted_after_the_due_time_is_put_back_and_still_scored(world: Path):
    """Deleting one's file after the due time (say, once its questions resolve badly) must not take it
    off the board: the next night puts the sealed bytes back, as it does for a changed file, scores the
    round with them, and the night after finds nothing more to do."""
    api, hub = FakeGitHub(), world / "hub"
    eight = versions(hub, 2)
    for i, data in enumerate(eight):
        pushed(world, api, data, f"2026-01-24T1{i}:00:00Z")
    merge(world, "2026-01-24T12:00:00Z")
    nightly(world, api, SEAL_NIGHT)
    assert (hub / FILE).read_bytes() == eight[-1]
    (hub / FILE).unlink()  # withdrawn after the due time, merged to the default branch
    commit(hub, "2026-02-01T00:00:00Z", "withdraw acme.gpt-x's forecasts")
    git(hub, "push", "-q", "origin", "HEAD:main")
    done = nightly(world, api, SCORE_NIGHT)
    assert "seal-enforced" in done.stdout + done.stderr and "was missing: the sealed bytes were put back" in done.stdout + done.stderr
    assert (hub / FILE).read_bytes() == eight[-1]
    scores = pd.read_csv(hub / "data/scores/2026-01-25.csv", dtype=str, keep_default_na=False)
    assert (scores["model"] == "acme.gpt-x").sum() > 0
    again = nightly(world, api, SCORE_NIGHT)
    assert "seal-enforced" not in again.stdout + again.stderr


def test_the_score_never_depends_on_what_is_merged_after_the_due_time(world: Path, tmp_path: Path):
    """The same eight pushes, then two different choices after the due time: byte-identical scores."""
    api, hub = FakeGitHub(), world / "hub"
    eight = versions(hub)
    for i, data in enumerate(eight):
        pushed(world, api, data, f"2026-01-24T1{i}:00:00Z")
    other = Path(shutil.copytree(world, tmp_path / "other", symlinks=True))
    merge(world, "2026-01-25T01:00:00Z")  # one merges the last version after the due time; the other merges nothing
    for w in (world, other):
        nightly(w, api, SEAL_NIGHT)
        nightly(w, api, SCORE_NIGHT)
    assert (world / "hub/data/scores/2026-01-25.csv").read_bytes() == (other / "hub/data/scores/2026-01-25.csv").read_bytes()


# -- receipts: bounded, authorised, never dropped -------------------------------------------------


def test_a_push_of_thousands_of_junk_paths_adds_no_receipt_row_and_poisons_no_other_pull_request(world: Path):
    api, hub = FakeGitHub(), world / "hub"
    good = pushed(world, api, forecast_bytes(hub), "2026-01-24T10:00:00Z", pr=1)
    # long names: git's argument list would overflow if they were ever passed on one command line
    junk = {f"data/forecasts/2026-01-25/zz.{'x' * 180}-{i:04d}.csv": b"junk\n" for i in range(1500)}
    pushed(world, api, junk, "2026-01-24T11:00:00Z", pr=9, author="mallory")
    stranger = pushed(world, api, forecast_bytes(hub, "0.9"), "2026-01-24T12:00:00Z", pr=10, author="mallory")  # not a maintainer
    assert not list((world / "artifact").glob("*.csv")), "the receipts workflow records nothing for mallory's pushes"
    nightly(world, api, SEAL_NIGHT)
    receipts = pd.concat([pd.read_csv(p, dtype=str) for p in (hub / "data/receipts").glob("*.csv")])
    assert receipts["head_sha"].tolist() == [good], "only the authorised, well-formed push has a receipt"
    assert receipts["author"].tolist() == ["alice"]
    assert seal_of(world)["blob"] == blob_id(forecast_bytes(hub)), "mallory's push for alice's model never counts"
    assert stranger not in set(receipts["head_sha"])


def test_runs_the_receipts_workflow_never_recorded_are_walked_and_a_github_outage_defers_the_seal(world: Path):
    api, hub = FakeGitHub(), world / "hub"
    pushed(world, api, forecast_bytes(hub, "0.2"), "2026-01-24T10:00:00Z")
    pushed(world, api, forecast_bytes(hub, "0.7"), "2026-01-24T20:00:00Z")
    api.fail.add("actions/workflows/validate.yml/runs")
    done = nightly(world, api, SEAL_NIGHT)
    assert "[receipts-incomplete]" in done.stderr and not (hub / "data/seals").exists()
    api.fail.clear()
    nightly(world, api, "2026-01-26T02:23:00Z")
    assert seal_of(world)["blob"] == blob_id(forecast_bytes(hub, "0.7")) and seal_of(world)["versions"] == "2"


# -- forged and hand-edited ledgers ---------------------------------------------------------------


def test_a_forged_receipt_row_is_refused_by_the_check_and_reported_by_verify(world: Path):
    api, hub = FakeGitHub(), world / "hub"
    pushed(world, api, forecast_bytes(hub, "0.3"), "2026-01-24T10:00:00Z")
    nightly(world, api, SEAL_NIGHT)
    late = forecast_bytes(hub, "0.99")
    ledger = "data/receipts/2026-01.csv"
    forged = f"2026-01-24T00:00:00Z,2026-01-24T09:00:00Z,{FILE},{blob_id(late)},{'a' * 40},1,1,success,alice\n"
    head = push(world, {ledger: (hub / ledger).read_bytes() + forged.encode()}, "2026-02-02T10:00:00Z", pr=5)
    assert "hub-ledger" in check(world, head, "2026-02-02T10:00:05Z")
    merge(world, "2026-02-02T11:00:00Z", pr=5)  # merged all the same
    code, problems = audit(world)
    assert code == 10 and ("hub-ledger-edited", ledger) in problems


def test_a_ledger_row_hidden_by_a_replace_ref_is_still_found(world: Path):
    api, hub = FakeGitHub(), world / "hub"
    nightly(world, api, SEAL_NIGHT)
    ledger = next((hub / "data/seals").glob("*.csv"))
    lines = ledger.read_text().splitlines(keepends=True)
    ledger.write_text("".join(lines[:-1]))  # a seal row deleted
    bad = commit(hub, "2026-01-26T00:00:00Z", "drop a seal")
    git(hub, "replace", git(hub, "rev-parse", f"{bad}^{{tree}}"), git(hub, "rev-parse", f"{bad}~1^{{tree}}"))
    assert git(hub, "diff", "--stat", f"{bad}~1", bad) == "", "the replace ref hides the deletion from plain git"
    done = cli("verify", "--hub", str(hub), "--git", "--format", "json")
    codes = {(p["code"], p["severity"]) for p in json.loads(done.stdout)["problems"]}
    assert done.returncode == 10 and ("ledger-row-deleted", "error") in codes and ("replace-refs", "warning") in codes


def test_an_edited_history_row_is_reported_with_a_code_not_a_traceback(world: Path):
    api, hub = FakeGitHub(), world / "hub"
    nightly(world, api, SCORE_NIGHT)
    path = hub / "data/leaderboard/history.csv"
    lines = path.read_text().splitlines(keepends=True)
    cells = lines[1].split(",")
    cells[4] = str(int(cells[4]) + 1)
    path.write_text("".join([lines[0], ",".join(cells), *lines[2:]]))
    commit(hub, "2026-03-02T00:00:00Z", "edit one history row")
    done = cli("verify", "--hub", str(hub), "--git")
    assert done.returncode == 10 and "Traceback" not in done.stderr
    assert "[ledger-row-rewritten]" in done.stdout


def test_verify_git_fails_a_hub_whose_data_is_not_in_git(tmp_path: Path):
    hub = write_hub(tmp_path / "hub")
    git(hub, "init", "-q", "-b", "main")
    (hub / "README.md").write_text("a hub whose data/ is git-ignored\n")
    (hub / ".gitignore").write_text("data/\n")
    commit(hub, "2026-01-01T00:00:00Z", "no data")
    done = cli("verify", "--hub", str(hub), "--git")
    assert done.returncode == 10 and "[data-not-tracked]" in done.stdout


# -- metadata fixed in time -----------------------------------------------------------------------


def test_a_later_kind_flip_needs_a_hub_maintainer_and_never_changes_a_past_night(world: Path):
    api, hub = FakeGitHub(), world / "hub"
    pushed(world, api, forecast_bytes(hub, "0.4"), "2026-01-24T10:00:00Z")
    nightly(world, api, SEAL_NIGHT)
    nightly(world, api, SCORE_NIGHT)
    flipped = b"name: GPT-X\norganization: Acme\nkind: human\nsaw_crowd: true\nmaintainers: [alice]\n"
    head = push(world, {MODEL: flipped}, "2026-03-02T10:00:00Z", pr=6)
    assert check(world, head, "2026-03-02T10:00:05Z") == ["scoring-metadata-changed"]
    assert check(world, head, "2026-03-02T10:00:05Z", author="hub-maintainer") == []
    merge(world, "2026-03-02T11:00:00Z", pr=6)
    nightly(world, api, "2026-03-03T02:23:00Z")
    log = pd.read_csv(hub / "data/metadata/models.csv", dtype=str, keep_default_na=False)
    assert log.loc[log["model"] == "acme.gpt-x", ["recorded_at", "kind"]].values.tolist() == [
        ["2026-01-25T02:23:00Z", "llm"],
        ["2026-03-03T02:23:00Z", "human"],
    ]
    done = cli("verify", "--hub", str(hub), "--all")
    assert done.returncode == 0, done.stdout  # every past night recomputes with the metadata it had


# -- bets: priced at a time GitHub or the hub attests -----------------------------------------------


def test_a_bet_is_never_priced_before_a_record_of_it(world: Path):
    from generator.arena.gather import load_cohorts
    from generator.scoring.resolve import values_at
    from generator.store import readers

    api, hub = FakeGitHub(), world / "hub"
    nightly(world, api, "2026-01-30T00:00:00Z")  # opens the round due 2026-02-08, with markets
    nightly(world, api, "2026-02-03T00:00:00Z")
    layout, due = Hub(hub), "2026-02-08T00:00:00Z"
    questions = readers.load_round(layout, parse_ts(due))
    known = readers.load_observations(layout)
    early, late = "2026-01-30T00:00:00Z", "2026-02-03T06:00:00Z"
    at = lambda q, t: float(values_at(known, pd.Series([q]), t).iloc[0])  # noqa: E731
    moved = [q for q in questions.loc[questions["kind"] == "binary", "question_id"] if at(q, early) != at(q, late)]
    assert moved, "the sim world moved some price between the two nights"
    bet = f"question_id,placed_at,side,amount,reasoning\n{moved[0]},{early},YES,100,\n".encode()
    path = "data/bets/2026-02-08/acme.gpt-x.csv"
    (hub / path).parent.mkdir(parents=True, exist_ok=True)
    (hub / path).write_bytes(bet)  # claims to have been placed a week ago; nothing attests it yet
    commit(hub, "2026-02-03T05:00:00Z", "a bet file")
    git(hub, "push", "-q", "origin", "HEAD:main")

    def positions() -> pd.DataFrame:
        found = load_cohorts(hub, parse_ts("2026-02-09T00:00:00Z")).positions
        return found[found["view"] == "bets"]

    assert positions().empty, "no receipt and no record: not priced at all, never at its own placed_at"
    nightly(world, api, late)  # the hub's manifest records it now
    assert float(positions()["yes_price"].iloc[0]) == at(moved[0], late)


# -- file mode agrees with the pull-request check -------------------------------------------------


def test_file_mode_checks_the_hubs_prefix_by_the_nightlys_rules_and_names_the_rule_it_cannot_check(world: Path):
    hub = world / "hub"
    own = hub / "data/forecasts/2026-01-25/prescient.mine.csv"
    own.write_bytes(forecast_bytes(hub))
    done = cli("validate", "--hub", str(hub), "--at", "2026-01-20T00:00:00Z", "--format", "json", str(own))
    report = json.loads(done.stdout)
    # not one of the hub's own models: refused, and the report says a pull request adding it is refused too
    assert done.returncode == 9 and "missing-model-metadata" in {p["code"] for p in report["problems"]}
    assert any("reserved-prefix" in note for note in report["notes"])
    (hub / FILE).write_bytes(forecast_bytes(hub))
    done = cli("validate", "--hub", str(hub), "--at", "2026-01-20T00:00:00Z", "--format", "json", str(hub / FILE))
    found = json.loads(done.stdout)["problems"]
    assert done.returncode == 0 and [(p["code"], p["severity"]) for p in found] == [("author-unchecked", "warning")]


# -- commit–reveal ---------------------------------------------------------------------------------


def test_a_commit_reveal_round_from_commitment_to_a_scored_reveal(tmp_path: Path):
    api = FakeGitHub()
    world = make_world(tmp_path, HUB.replace("[rounds]\n", '[rounds]\nsecrecy = "commit-reveal"\nreveal_days = 2\n'))
    hub = world / "hub"
    assert (hub / "data/rounds/2026-01-25/reveal.csv").read_text() == "reveal_by\n2026-01-27T00:00:00Z\n"
    secret = world / "secret.csv"  # kept outside the hub until the due time
    secret.write_bytes(forecast_bytes(hub, "0.8"))
    early = push(world, {FILE: secret.read_bytes()}, "2026-01-24T09:00:00Z", pr=1)  # the file itself, before the due time
    assert check(world, early, "2026-01-24T09:00:05Z") == ["commitment-required"]
    made = cli("commit", str(secret), "--round", "2026-01-25", "--model", "acme.gpt-x", "--hub", str(hub))
    assert made.returncode == 0, made.stderr
    commitment = "data/commitments/2026-01-25/acme.gpt-x.sha256"
    head = pushed(world, api, {commitment: (hub / commitment).read_bytes()}, "2026-01-24T10:00:00Z", pr=2)
    (hub / commitment).unlink()
    assert check(world, head, "2026-01-24T10:00:05Z") == []
    merge(world, "2026-01-24T11:00:00Z", pr=2)
    nightly(world, api, SEAL_NIGHT)
    assert seal_of(world, kind="commitment")["status"] == "sealed"
    # after the due time: the file and its salt; another file is refused, and so is a reveal after the window
    salt = "data/commitments/2026-01-25/acme.gpt-x.salt"
    wrong = push(world, {FILE: forecast_bytes(hub, "0.1"), salt: salt_of(world).read_bytes()}, "2026-01-25T10:00:00Z", pr=3)
    assert check(world, wrong, "2026-01-25T10:00:05Z") == ["reveal-mismatch"]
    right = pushed(world, api, {FILE: secret.read_bytes(), salt: salt_of(world).read_bytes()}, "2026-01-25T10:10:00Z", pr=3)
    assert check(world, right, "2026-01-25T10:10:05Z") == []
    assert check(world, right, "2026-01-27T10:10:05Z") == ["reveal-window-closed"]
    merge(world, "2026-01-25T11:00:00Z", pr=3)
    nightly(world, api, "2026-01-27T02:23:00Z")
    assert seal_of(world, kind="reveal")["status"] == "revealed"
    nightly(world, api, SCORE_NIGHT)
    assert len(scores_of(world)) and set(scores_of(world)["probability"]) == {"0.800000"}
    code, problems = audit(world)
    assert code == 0 and problems == [], problems


# -- what counts is fixed when it happens: attacks on the walk (issue: Trust III) -------------------


def register(world: Path, when: str, maintainers: str) -> None:
    """The model's maintainer changes its metadata on the default branch (an ordinary, green pull request)."""
    hub = world / "hub"
    git(hub, "pull", "-q", "--ff-only", "origin", "main")
    (hub / MODEL).write_text(f"name: GPT-X\norganization: Acme\nkind: llm\nmaintainers: [{maintainers}]\n", encoding="utf-8")
    commit(hub, when, "Merge pull request #20: add a maintainer")
    git(hub, "push", "-q", "origin", "HEAD:main")


def test_a_version_refused_before_the_due_time_never_counts_once_its_author_is_authorised_later(world: Path):
    """@bob may not submit for acme.gpt-x when he pushes (refused, no receipt); days after the due time,
    while GitHub's API was down and the round waited, he is added to its maintainers. The walk judges his
    run against the default branch as it stood when GitHub created the run: still refused."""
    api, hub = FakeGitHub(), world / "hub"
    honest, late_author = forecast_bytes(hub, "0.3"), forecast_bytes(hub, "0.9")
    pushed(world, api, honest, "2026-01-24T10:00:00Z", pr=1)
    push(world, {FILE: late_author}, "2026-01-24T20:00:00Z", pr=5, branch="bob")
    api.run(5, git(world / "fork", "rev-parse", "HEAD"), "2026-01-24T20:00:05Z", author="bob")
    api.fail.add("actions/workflows/validate.yml/runs")
    assert "[receipts-incomplete]" in nightly(world, api, SEAL_NIGHT).stderr
    register(world, "2026-01-25T10:00:00Z", "alice, bob")
    api.fail.clear()
    nightly(world, api, "2026-01-26T02:23:00Z")
    receipts = pd.concat([pd.read_csv(p, dtype=str) for p in (hub / "data/receipts").glob("*.csv")])
    assert "bob" not in set(receipts["author"]), "bob's run was judged against main as it was then"
    seal = seal_of(world)
    assert (seal["status"], seal["blob"]) == ("sealed", blob_id(honest))
    assert (hub / FILE).read_bytes() == honest


def test_a_head_with_no_shared_history_counts_for_nothing_and_defers_no_seal(world: Path):
    """After the due time mallory opens a pull request whose head shares no history with main: every other
    model's round is sealed on time, the walk complete."""
    api, hub, fork = FakeGitHub(), world / "hub", world / "fork"
    honest = forecast_bytes(hub, "0.4")
    pushed(world, api, honest, "2026-01-24T10:00:00Z", pr=1)
    git(fork, "checkout", "-q", "--orphan", "unrelated")
    git(fork, "rm", "-rq", "--cached", ".")
    (fork / "junk.txt").write_text("no shared history\n")
    git(fork, "add", "junk.txt")
    git(fork, "commit", "-qm", "from scratch", when="2026-01-25T01:00:00Z")
    git(fork, "push", "-q", "-f", "origin", "HEAD:refs/pull/7/head")
    api.run(7, git(fork, "rev-parse", "HEAD"), "2026-01-25T01:00:05Z", author="mallory")
    done = nightly(world, api, SEAL_NIGHT)
    assert "[receipts-incomplete]" not in done.stderr and "[seal-deferred]" not in done.stderr, done.stderr
    assert "run 9001: no receipt (its head shares no history with the default branch)" in done.stderr
    assert (seal_of(world)["status"], seal_of(world)["blob"]) == ("sealed", blob_id(honest))


def test_a_rivals_pull_request_from_the_victims_branch_erases_none_of_her_versions(world: Path):
    """alice submits from her fork's branch (a fork's run names no pull request); mallory opens a pull request
    from that same branch; alice's later push creates a run on both. Each run is hers (GitHub's actor):
    her last version counts."""
    api, hub = FakeGitHub(), world / "hub"
    first, last = forecast_bytes(hub, "0.2"), forecast_bytes(hub, "0.8")
    one = push(world, {FILE: first}, "2026-01-24T10:00:00Z", pr=1, branch="alice-b")
    receipts_workflow(world, api, api.run(1, one, "2026-01-24T10:00:05Z", author="alice", fork=True, branch="alice-b"), 1)
    git(world / "fork", "push", "-q", "-f", "origin", f"{one}:refs/pull/8/head")
    api.run(8, one, "2026-01-24T11:00:05Z", author="mallory", fork=True, branch="alice-b", owner="alice")  # opened by mallory
    two = push(world, {FILE: last}, "2026-01-24T12:00:00Z", pr=1, branch="alice-b")
    git(world / "fork", "push", "-q", "-f", "origin", f"{two}:refs/pull/8/head")
    for pr, author in ((1, "alice"), (8, "mallory")):
        run = api.run(pr, two, "2026-01-24T12:00:05Z", author=author, actor="alice", fork=True, branch="alice-b", owner="alice")
        receipts_workflow(world, api, run, pr)
    nightly(world, api, SEAL_NIGHT)
    seal = seal_of(world)
    assert (seal["status"], seal["blob"], seal["versions"]) == ("sealed", blob_id(last), "2"), seal
    assert (hub / FILE).read_bytes() == last


def test_a_nightly_stopped_between_a_seals_rows_and_its_files_recovers_byte_for_byte(tmp_path: Path, monkeypatch):
    """The runner is stopped at each step of writing a seal (its rows, then each file it puts in place or
    removes); the next run leaves data/ exactly as an uninterrupted run does, the rows of the files the
    seal removed included."""
    from generator.pipeline import seal as sealing
    from generator.pipeline.nightly import nightly as run_nightly
    from generator.store import seals

    top = make_world(tmp_path / "w", SMALL_HUB)
    hub = top / "hub"
    (hub / FILE).parent.mkdir(parents=True, exist_ok=True)
    (hub / FILE).write_bytes(forecast_bytes(hub, "0.3"))
    commit(hub, "2026-01-24T10:00:00Z", "acme's forecast, on time")
    (hub / "data/forecasts/2026-01-25/acme.late.csv").write_bytes(forecast_bytes(hub, "0.6"))
    commit(hub, "2026-01-25T01:00:00Z", "a forecast first committed after the due time")

    def tree(root: Path) -> dict[str, bytes]:
        return {str(p.relative_to(root)): p.read_bytes() for p in sorted((root / "data").rglob("*")) if p.is_file()}

    expected = Path(shutil.copytree(hub, tmp_path / "uninterrupted", symlinks=True))
    run_nightly(Hub.load(expected), parse_ts(SEAL_NIGHT))
    assert "unproven" in (expected / "data/seals/2026.csv").read_text()
    real_put, real_append, stops = sealing._put, seals.append, 0
    while True:
        copy = Path(shutil.copytree(hub, tmp_path / f"stopped-{stops}", symlinks=True))
        steps = iter(range(stops + 1))

        def step(real):
            def stopped(*args, **kwargs):
                if next(steps, None) == stops:
                    raise KeyboardInterrupt  # the runner is stopped here
                return real(*args, **kwargs)

            return stopped

        monkeypatch.setattr(sealing, "_put", step(real_put))
        monkeypatch.setattr(seals, "append", step(real_append))
        try:
            run_nightly(Hub.load(copy), parse_ts(SEAL_NIGHT))
            stopped = False
        except KeyboardInterrupt:
            stopped = True
        monkeypatch.setattr(sealing, "_put", real_put)
        monkeypatch.setattr(seals, "append", real_append)
        if not stopped:
            break
        run_nightly(Hub.load(copy), parse_ts(SEAL_NIGHT))
        assert tree(copy) == tree(expected), f"stopped before write {stops}"
        stops += 1
    assert stops >= 3, "the seal's rows and at least two files were each a place to stop"


# -- commit–reveal II: a commitment binds one model, and not revealing is never free -----------------

CR_HUB = HUB.replace("[rounds]\n", '[rounds]\nsecrecy = "commit-reveal"\nreveal_days = 2\n')
REVEAL_NIGHT = "2026-01-27T02:23:00Z"  # the first nightly after the window (reveal_by 2026-01-27T00:00:00Z)


@pytest.fixture(scope="module")
def cr_template(tmp_path_factory) -> Path:
    """A commit–reveal hub; besides acme.gpt-x (@alice) it registers acme.other (@alice) and rival.copy (@mallory)."""
    top = make_world(tmp_path_factory.mktemp("revealed"), CR_HUB)
    hub = top / "hub"
    for model, who in (("acme.other", "alice"), ("rival.copy", "mallory")):
        (hub / f"data/models/{model}.yml").write_text(f"name: {model}\norganization: {who}\nkind: llm\nmaintainers: [{who}]\n", encoding="utf-8")
    commit(hub, "2026-01-16T02:00:00Z", "Merge pull request #19: register acme.other and rival.copy")
    git(hub, "push", "-q", "origin", "HEAD:main")
    return top


@pytest.fixture
def cr_world(cr_template: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(cr_template, tmp_path / "world", symlinks=True))


def salt_of(world: Path, model: str = "acme.gpt-x", name: str = "secret.csv") -> Path:
    """Where `prescient commit` keeps the salt: beside the file, one per round, model and kind."""
    return world / f"{name}.2026-01-25.{model}.forecast.salt"


def committed(world: Path, api: FakeGitHub, secret: Path, when: str, pr: int, model: str = "acme.gpt-x", author: str = "alice") -> bytes:
    """`prescient commit` in the clone, the commitment pushed to pull request ``pr`` (and left out of the clone)."""
    hub, path = world / "hub", f"data/commitments/2026-01-25/{model}.sha256"
    made = cli("commit", str(secret), "--round", "2026-01-25", "--model", model, "--hub", str(hub))
    assert made.returncode == 0, made.stdout + made.stderr
    data = (hub / path).read_bytes()
    (hub / path).unlink()
    pushed(world, api, {path: data}, when, pr=pr, author=author)
    return data


def revealed(world: Path, api: FakeGitHub, model: str, data: bytes, salt: bytes, when: str, pr: int, author: str = "alice") -> str:
    files = {f"data/forecasts/2026-01-25/{model}.csv": data, f"data/commitments/2026-01-25/{model}.salt": salt}
    return pushed(world, api, files, when, pr=pr, author=author)


def test_a_copied_commitment_is_refused_and_its_reveal_never_counts(cr_world: Path):
    """mallory pushes alice's commitment as rival.copy's, then her file and salt under his paths once she has
    revealed: the copy is refused, his reveal does not open it (it names her model), and he is scored as a
    forecaster who committed and did not reveal."""
    api, world = FakeGitHub(), cr_world
    secret = world / "secret.csv"
    secret.write_bytes(forecast_bytes(world / "hub", "0.8"))
    hers = committed(world, api, secret, "2026-01-24T10:00:00Z", pr=2)
    merge(world, "2026-01-24T11:00:00Z", pr=2)
    copy = "data/commitments/2026-01-25/rival.copy.sha256"
    head = pushed(world, api, {copy: hers}, "2026-01-24T12:00:00Z", pr=4, author="mallory")
    assert check(world, head, "2026-01-24T12:00:05Z", author="mallory") == ["commitment-copied"]
    nightly(world, api, SEAL_NIGHT)
    assert seal_of(world, "rival.copy", kind="commitment")["status"] == "sealed"  # his push was on time; it opens to nothing
    salt = salt_of(world).read_bytes()
    revealed(world, api, "acme.gpt-x", secret.read_bytes(), salt, "2026-01-25T10:00:00Z", pr=3)
    theft = revealed(world, api, "rival.copy", secret.read_bytes(), salt, "2026-01-25T11:00:00Z", pr=5, author="mallory")
    assert check(world, theft, "2026-01-25T11:00:05Z", author="mallory") == ["reveal-mismatch"]
    merge(world, "2026-01-25T12:00:00Z", pr=3)
    merge(world, "2026-01-25T12:30:00Z", pr=5)  # merged anyway
    done = nightly(world, api, REVEAL_NIGHT)
    assert seal_of(world, kind="reveal")["status"] == "revealed"
    assert seal_of(world, "rival.copy", kind="reveal")["status"] == "not-revealed"
    assert "[seal-not-counted]" in done.stdout + done.stderr
    nightly(world, api, SCORE_NIGHT)
    assert set(scores_of(world)["probability"]) == {"0.800000"}
    theirs = scores_of(world, "rival.copy")
    assert len(theirs) and theirs["imputed"].eq("1").all() and set(theirs["probability"]) == {"0.500000"}
    code, problems = audit(world)
    assert code == 0 and problems == [], problems


def test_an_unrevealed_commitment_is_scored_as_a_missing_forecast_and_said_so(cr_world: Path):
    api, world = FakeGitHub(), cr_world
    hub, secret = world / "hub", world / "secret.csv"
    secret.write_bytes(forecast_bytes(hub, "0.9"))
    committed(world, api, secret, "2026-01-24T10:00:00Z", pr=2)
    merge(world, "2026-01-24T11:00:00Z", pr=2)
    nightly(world, api, SEAL_NIGHT)
    nightly(world, api, REVEAL_NIGHT)  # never revealed
    seal = seal_of(world, kind="reveal")
    assert seal["status"] == "not-revealed" and "imputed" in seal["detail"] and seal["path"] == FILE
    nightly(world, api, SCORE_NIGHT)
    scores = scores_of(world)
    assert len(scores) and scores["imputed"].eq("1").all() and set(scores["probability"]) == {"0.500000"}
    code, problems = audit(world)
    assert code == 0 and problems == [], problems
    built = cli("build", "--hub", str(hub), "--no-mkdocs", "--no-cache", "--as-of", SCORE_NIGHT)
    assert built.returncode == 0, built.stdout + built.stderr
    pages = hub / "site_src/docs/generated"
    for page in ("rounds/2026-01-25.md", "models/acme.gpt-x.md"):
        text = (pages / page).read_text(encoding="utf-8")
        row = next(line for line in text.splitlines() if 'data-model="acme.gpt-x" data-kind="reveal"' in line)
        assert "not-revealed" in row and "scored as a missing forecast" in row, page


def test_a_reveal_pushed_in_the_window_counts_though_merged_after_it(cr_world: Path):
    api, world = FakeGitHub(), cr_world
    hub, secret = world / "hub", world / "secret.csv"
    secret.write_bytes(forecast_bytes(hub, "0.7"))
    committed(world, api, secret, "2026-01-24T10:00:00Z", pr=2)
    nightly(world, api, SEAL_NIGHT)  # the commitment was never merged: its receipt is what counts
    head = revealed(world, api, "acme.gpt-x", secret.read_bytes(), salt_of(world).read_bytes(), "2026-01-26T10:00:00Z", pr=3)
    assert check(world, head, "2026-01-26T10:00:05Z") == []
    merge(world, "2026-01-27T01:00:00Z", pr=3)  # 14 hours later, an hour after reveal_by
    nightly(world, api, REVEAL_NIGHT)
    seal = seal_of(world, kind="reveal")
    assert (seal["status"], seal["evidence"], seal["attested_at"]) == ("revealed", "receipt", "2026-01-26T10:00:05Z")
    nightly(world, api, SCORE_NIGHT)
    assert set(scores_of(world)["probability"]) == {"0.700000"}
    code, problems = audit(world)
    assert code == 0 and problems == [], problems


def test_a_crlf_file_and_one_file_committed_for_two_models_both_reveal(cr_world: Path):
    """Committed with Windows line ends and revealed as git stores them under core.autocrlf (LF), and the
    same file committed for two models: each model has its own salt and its own commitment."""
    api, world = FakeGitHub(), cr_world
    hub, secret = world / "hub", world / "secret.csv"
    secret.write_bytes(forecast_bytes(hub, "0.6").replace(b"\n", b"\r\n"))
    one = committed(world, api, secret, "2026-01-24T10:00:00Z", pr=2)
    two = committed(world, api, secret, "2026-01-24T10:30:00Z", pr=6, model="acme.other")
    assert one != two and salt_of(world).read_bytes() != salt_of(world, "acme.other").read_bytes()
    nightly(world, api, SEAL_NIGHT)
    lf = secret.read_bytes().replace(b"\r\n", b"\n")
    a = revealed(world, api, "acme.gpt-x", lf, salt_of(world).read_bytes(), "2026-01-25T10:00:00Z", pr=3)
    b = revealed(world, api, "acme.other", secret.read_bytes(), salt_of(world, "acme.other").read_bytes(), "2026-01-25T10:30:00Z", pr=7)
    assert check(world, a, "2026-01-25T10:00:05Z") == [] and check(world, b, "2026-01-25T10:30:05Z") == []
    nightly(world, api, REVEAL_NIGHT)
    assert seal_of(world, kind="reveal")["status"] == seal_of(world, "acme.other", kind="reveal")["status"] == "revealed"
    nightly(world, api, SCORE_NIGHT)
    assert set(scores_of(world)["probability"]) == set(scores_of(world, "acme.other")["probability"]) == {"0.600000"}


def test_a_second_commit_keeps_the_first_salt_and_no_salt_is_written_into_data(cr_world: Path):
    hub, secret = cr_world / "hub", cr_world / "secret.csv"
    secret.write_bytes(forecast_bytes(hub, "0.4"))
    args = ("commit", str(secret), "--round", "2026-01-25", "--model", "acme.gpt-x", "--hub", str(hub))
    first = cli(*args)
    salt, commitment = salt_of(cr_world).read_bytes(), (hub / "data/commitments/2026-01-25/acme.gpt-x.sha256").read_bytes()
    assert first.returncode == 0 and salt_of(cr_world).name in first.stdout and "private until the due time" in first.stdout
    again = cli(*args)
    assert again.returncode == 0 and "kept" in again.stdout, again.stdout + again.stderr
    assert salt_of(cr_world).read_bytes() == salt
    assert (hub / "data/commitments/2026-01-25/acme.gpt-x.sha256").read_bytes() == commitment
    inside = hub / FILE
    inside.parent.mkdir(parents=True, exist_ok=True)
    inside.write_bytes(secret.read_bytes())
    refused = cli("commit", str(inside), "--round", "2026-01-25", "--model", "acme.gpt-x", "--hub", str(hub))
    assert refused.returncode != 0 and "[salt-in-hub]" in refused.stdout + refused.stderr and "Traceback" not in refused.stderr
    assert not list(inside.parent.glob("*.salt"))


def test_before_the_seal_a_reveal_is_checked_against_the_commitment_the_seal_will_count(cr_world: Path):
    """The commitment merged to main is an older one: the check compares a reveal with the last one the
    receipts attest before the due time, which the seal will count."""
    api, world = FakeGitHub(), cr_world
    hub, old, new = world / "hub", world / "old.csv", world / "secret.csv"
    old.write_bytes(forecast_bytes(hub, "0.3"))
    new.write_bytes(forecast_bytes(hub, "0.7"))
    committed(world, api, old, "2026-01-24T10:00:00Z", pr=2)
    merge(world, "2026-01-24T11:00:00Z", pr=2)
    committed(world, api, new, "2026-01-24T20:00:00Z", pr=8)  # the last before the due time, never merged
    stale = revealed(world, api, "acme.gpt-x", old.read_bytes(), salt_of(world, name="old.csv").read_bytes(), "2026-01-25T01:00:00Z", pr=3)
    assert check(world, stale, "2026-01-25T01:00:05Z") == ["reveal-mismatch"]
    right = revealed(world, api, "acme.gpt-x", new.read_bytes(), salt_of(world).read_bytes(), "2026-01-25T01:10:00Z", pr=9)
    assert check(world, right, "2026-01-25T01:10:05Z") == []
