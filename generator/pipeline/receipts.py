"""``prescient receipts``: write the receipts that make a submission's time provable.

- ``record_run``: after a validation run (the trusted ``receipts`` workflow, on ``workflow_run``),
  ask GitHub when that run was created and for which head commit, and record the forecast and bet
  files the pull request adds or changes at that head, by path and blob id.
- ``catch_up``: the nightly's safety net. For every open pull request whose head commit no receipt
  records yet, take the earliest pull-request run GitHub created for that head and record it the
  same way, so a receipts run that failed or never started is made good the same night.

The files are read from the local repository through git plumbing (the head commit must have been
fetched, e.g. ``git fetch origin refs/pull/<n>/head``); nothing from the pull request is checked out
or run. The diff is the pull request's own: ``base...head`` (from their merge base), as GitHub shows it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

import pandas as pd

from ..errors import PrescientError
from ..sources.github import GitHub, Pull, Run
from ..store import git, receipts
from ..store.hub import Hub, as_hub
from ..submissions.paths import BETS, FORECAST, classify

DATED = (FORECAST, BETS)  # the files with a due time


@dataclass
class Receipts:
    """What one command recorded, and what it could not (one line each)."""

    added: pd.DataFrame
    notes: list[str] = field(default_factory=list)


def submission_blobs(repo, base: str, head: str) -> dict[str, str]:
    """path → blob id of each forecast or bet file ``head`` adds or changes since it left ``base``."""
    changed = git.changed_files(repo, base, head)
    paths = [c.path for c in changed if c.status in "AMR" and classify(c.path)[0].kind in DATED]
    return git.blob_ids(repo, head, paths)


def _present(repo, sha: str) -> bool:
    try:
        git.resolve_commit(repo, sha)
    except PrescientError:
        return False
    return True


def _rows(hub: Hub, run: Run, pr: int, base: str, as_of: datetime) -> pd.DataFrame:
    files = submission_blobs(hub.root, base, run.head_sha)
    return receipts.receipt_rows(files, attested_at=run.created_at, head_sha=run.head_sha, pr=pr,
                                 run_id=run.id, verdict=run.verdict, as_of=as_of)


def record_run(hub: Hub, github: GitHub, run_id: int, as_of: datetime, base: str = "HEAD") -> Receipts:
    """The receipt of workflow run ``run_id``; ``base``: the default branch's commit (the checkout)."""
    hub = as_hub(hub)
    run = github.fetch_run(run_id)
    if run.event != "pull_request":
        return Receipts(receipts.empty(), [f"run {run_id} was triggered by {run.event or 'an unknown event'}, not a pull request: no receipt"])
    if not _present(hub.root, run.head_sha):
        raise PrescientError(f"the head commit {run.head_sha} of run {run_id} is not in {hub.root}; "
                             f"fetch it first (git fetch origin {run.head_sha})")
    pr = run.pulls[0] if run.pulls else _pull_for(github, run.head_sha)
    rows = _rows(hub, run, pr, base, as_of)
    return Receipts(receipts.record(hub, [rows], as_of))


def _pull_for(github: GitHub, head_sha: str) -> int:
    """The open pull request whose head is ``head_sha`` (a fork's run names none); 0 when none is."""
    return next((p.number for p in github.fetch_open_pulls() if p.head_sha == head_sha), 0)


def catch_up(hub: Hub, github: GitHub, as_of: datetime, base: str = "HEAD") -> Receipts:
    """Receipts for the open pull requests whose head commit has none yet."""
    hub = as_hub(hub)
    known = receipts.heads(receipts.load_receipts(hub))
    frames, notes = [], []
    for pull in sorted(github.fetch_open_pulls(), key=lambda p: p.number):
        if pull.head_sha in known:
            continue
        frame, note = _catch_one(hub, github, pull, base, as_of)
        frames.append(frame)
        notes += [note] if note else []
    return Receipts(receipts.record(hub, frames, as_of), notes)


def _catch_one(hub: Hub, github: GitHub, pull: Pull, base: str, as_of: datetime) -> tuple[pd.DataFrame, str]:
    runs = sorted(github.fetch_runs_for(pull.head_sha), key=lambda r: (r.created_at, r.id))
    if not runs:
        return receipts.empty(), f"pull request #{pull.number}: no run yet for head {pull.head_sha[:12]}"
    if not _present(hub.root, pull.head_sha):
        return receipts.empty(), (f"pull request #{pull.number}: head {pull.head_sha[:12]} is not fetched "
                                        f"(git fetch origin refs/pull/{pull.number}/head)")
    return _rows(hub, runs[0], pull.number, base, as_of), ""
