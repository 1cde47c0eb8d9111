"""``prescient receipts``: the receipts that make a submission's push time provable.

A receipt row says that GitHub created the validation run ``run_id`` for the head commit ``head_sha``
at ``attested_at``, and that this commit held ``blob`` at ``path`` (``store.receipts``). Which files a
run's receipt may name is bounded as the pull-request check bounds what it reads (``receipt_files``):
at most ``validate.MAX_FILES`` changed files in the pull request, only well-formed forecast, bet and
commitment files of open rounds (and a commit–reveal round's revealed forecast and salt while its
reveal window is open: a reveal counts by its push, not its merge), of one model that the account
that pushed may submit for, none larger than the file cap, and at most ``MAX_ROWS_PER_PR`` rows for one pull request; and the
maintainers' ledger (``data/maintainer/actions.csv``) when that account is a hub maintainer, so that
``verify --git`` names a decision's author from GitHub's record. Anything else gets no row, so no push
can flood the ledger.

- ``record_run``: the ``receipts`` workflow, after each validation run: the run's receipt, read from
  GitHub's API by run id and from the head commit's objects (fetched, never checked out). With an
  ``out`` folder the rows go to ``<out>/<run_id>.csv`` (the workflow pushes them to the receipts
  branch, which needs no key that bypasses the default branch's rules); without, to the hub's ledger.
- ``walk``: the nightly's, before it seals: every validation run GitHub created since the oldest
  round still open or unsealed, page by page; each run no receipt records yet is recorded from its
  head commit, or from the receipts branch's file for it when the head is gone, or, when neither
  can be read, as a row with path ``*`` (``head-unavailable``: what it held is unknown, and the seal
  then lets no earlier version of its author's models count in its place). One run that cannot be
  read never stops the others, and a run whose head cannot be judged (one that shares no history with
  the default branch, say) counts for nothing and stops nothing: only GitHub's API failing makes the
  walk incomplete. It returns whether every run was read.

Every run is judged once, by facts fixed when GitHub created it, so a later night gives the same
answer: it is attributed to the run's ``actor`` (the account whose push created it: GitHub sets it,
nobody else can), and judged against the default branch **as it stood at the run's creation**
(``main_then``: who may submit for a model, whether the round was still open), never against the
branch as it is when the walk happens to read the run. A maintainer added a week after the due time
therefore cannot make a version they pushed before it count.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import pandas as pd

from ..errors import PrescientError, SchemaError
from ..schemas import MAINTAINER_ACTIONS, RECEIPTS
from ..sources._util import ParseError
from ..sources.github import GitHub, Run
from ..sources.http import FetchError
from ..store import git, readers, receipts, seals
from ..store.atomic import write_bytes_atomic
from ..store.csvio import parse_bytes, to_csv_bytes
from ..store.forecast_file import MAX_FORECAST_BYTES
from ..store.hub import Hub, as_hub
from ..submissions import deadline, paths, policy
from ..submissions.sealing import NULL_BLOB
from ..submissions.validate import MAX_FILES
from ..timeutil import days, format_date, format_ts, parse_ts
from .seal import due_time, reveal_by

DECISIONS = MAINTAINER_ACTIONS.path  # the maintainers' ledger: void, correct, exclude
MAX_ROWS_PER_PR = 200  # receipt rows one pull request may ever add (a file's versions over many pushes)
WINDOW_DAYS = 90  # the longest look back: GitHub keeps a run's record about this long by default
HEAD_UNAVAILABLE = "head-unavailable"


@dataclass
class Receipts:
    """What one command recorded, what it could not (one line each), and whether it read every run."""

    added: pd.DataFrame
    notes: list[str] = field(default_factory=list)
    complete: bool = True


def receipt_files(repo, base: str, head: str, author: str, at: str) -> tuple[dict[str, str], str]:
    """path → blob of the files a receipt of ``head`` (pushed by ``author`` at ``at``) may name, and why
    nothing, when nothing: the pull request's forecast, bet and commitment files (added or changed
    since it left ``base``) of rounds still open at ``at``, of one model ``author`` may submit for;
    and the maintainers' ledger, when ``author`` is a hub maintainer at ``base`` (so the audit can name
    a decision's author from GitHub's record, not from a commit's author line)."""
    if not git.shares_history(repo, base, head):
        return {}, "its head shares no history with the default branch"
    changed = [c for c in git.changed_files(repo, base, head) if c.status in "AMR"]
    if len(changed) > MAX_FILES:
        return {}, f"{len(changed)} files changed (the check reads none past {MAX_FILES})"
    base_tree = git.GitTree(repo, base)
    decided = (
        git.blob_ids(repo, head, [DECISIONS])
        if any(c.path == DECISIONS for c in changed) and policy.is_maintainer(author, git.hub_maintainers(base_tree))
        else {}
    )
    files, why = _submitted(repo, base_tree, head, changed, author, at, git.hub_own_prefix(base_tree))
    return {**files, **decided}, ("" if decided else why)


def _submitted(repo, base_tree: git.GitTree, head: str, changed: list, author: str, at: str, own: str) -> tuple[dict[str, str], str]:
    """The forecast, bet and commitment files of ``receipt_files``; ``own``: the hub's ``[hub] own_prefix`` at base."""
    targets = [t for c in changed if not (found := paths.classify(c.path))[1] and (t := found[0]).kind in paths.DATED]
    models = sorted({t.model for t in targets if t.model})
    if not targets:
        return {}, ""
    if len(models) != 1 or any(t.model is None for t in targets):
        return {}, "the submission files are not all one model's"
    model, head_tree = models[0], git.GitTree(repo, head)
    if not _may_submit(base_tree, head_tree, model, author, own):
        return {}, f"@{author or '?'} may not submit for {model}"
    open_rounds = {t.due for t in targets if t.due and _open_at(base_tree, t.due, at)}
    kept = [t.path for t in targets if t.due in open_rounds or (t.due and deadline.is_reveal(t, own) and _revealing(base_tree, t.due, at))]
    sizes = git.blob_sizes(repo, head, kept)
    kept = [p for p in kept if sizes.get(p, MAX_FORECAST_BYTES + 1) <= MAX_FORECAST_BYTES]
    return git.blob_ids(repo, head, kept), ""


def _may_submit(base: git.GitTree, head: git.GitTree, model: str, author: str, own: str) -> bool:
    """The pull-request check's rules on who may submit: a maintainer of the model at base, or, for a
    model the pull request registers, one its new metadata lists whose team prefix is free or theirs."""
    if policy.check_reserved_prefix(paths.Target(paths.model_path(model), paths.MODEL, model), own):
        return False
    at_base = policy.metadata_in(base, paths.model_path(model))
    if at_base is not None:
        return policy.is_maintainer(author, policy.maintainers_of(at_base))
    if not policy.is_maintainer(author, policy.maintainers_in(head, model)):
        return False
    team = model.partition(".")[0]
    stems = [n.removesuffix(".yml") for n in base.names(paths.MODELS_DIR) if n.endswith(".yml")]
    team_models = {s: policy.maintainers_in(base, s) for s in stems if s.partition(".")[0] == team}
    return not policy.check_team_prefix(paths.Target(paths.model_path(model), paths.MODEL, model), author, team_models, own)


def _revealing(base: git.GitTree, due: str, at: str) -> bool:
    """A commit–reveal round past its due time whose reveal window was still open at ``at``: a reveal (a
    team's forecast file or salt) is attested by its push, as a commitment is, not by its merge."""
    entry = base.entry(paths.round_path(due))
    if not entry or entry[0] != "file" or at < _due_of(base.read(paths.round_path(due)), due):
        return False
    window = deadline.reveal_deadline(lambda path: base.read(path) if (e := base.entry(path)) and e[0] == "file" else None, due)
    return window is not None and at < window


def _open_at(base: git.GitTree, due: str, at: str) -> bool:
    """The round exists at base and was still open at ``at``."""
    entry = base.entry(paths.round_path(due))
    if not entry or entry[0] != "file":
        return False
    return at < _due_of(base.read(paths.round_path(due)), due)


def _due_of(data: bytes, due: str) -> str:
    try:
        frame = parse_bytes(data, paths.round_path(due))
    except (SchemaError, ValueError):
        return f"{due}T00:00:00Z"
    return str(frame["due"].iloc[0]) if "due" in frame.columns and len(frame) else f"{due}T00:00:00Z"


def _present(repo, sha: str) -> bool:
    try:
        git.resolve_commit(repo, sha)
    except PrescientError:
        return False
    return True


def main_then(dates: list[tuple[str, int]], run: Run) -> str | None:
    """The default branch's commit when GitHub created ``run`` (``dates``: the branch's first-parent line,
    newest first, as ``git.first_parent_dates`` lists it); None when it held nothing yet."""
    return git.held_at(dates, int(parse_ts(run.created_at).timestamp()))


def run_rows(hub: Hub, run: Run, pr: int, author: str, base: str | None, as_of: datetime) -> tuple[pd.DataFrame, str]:
    """The rows of one run's receipt, judged against ``base``, the default branch as it stood when the run
    was created (and why none, when none)."""
    if base is None:
        return receipts.empty(), "the default branch held no commit when the run was created"
    files, why = receipt_files(hub.root, base, run.head_sha, author, run.created_at)
    rows = receipts.receipt_rows(
        files, attested_at=run.created_at, head_sha=run.head_sha, pr=pr, run_id=run.id, verdict=run.verdict, as_of=as_of, author=author
    )
    return rows, why


def unreadable_row(run: Run, pr: int, author: str, as_of: datetime) -> pd.DataFrame:
    """The row of a run whose head commit could not be read: what it held is unknown."""
    return receipts.receipt_rows(
        {"*": NULL_BLOB},
        attested_at=run.created_at,
        head_sha=run.head_sha,
        pr=pr,
        run_id=run.id,
        verdict=HEAD_UNAVAILABLE,
        as_of=as_of,
        author=author,
    )


def _author(github: GitHub, run: Run, pulls: dict) -> tuple[int, str]:
    """The run's pull request and the account it is attributed to: the run's ``actor``, whose push created
    it. A fork's run names no pull request; the number is then looked up among the pull requests from its
    branch opened by that same account (0 when none is, or the lookup fails): it labels the row, it never
    decides who the files are attributed to."""
    if run.pulls or not (run.head_owner and run.head_branch and run.actor):
        return (run.pulls[0] if run.pulls else 0), run.actor
    key = (run.head_owner, run.head_branch)
    if key not in pulls:
        try:
            pulls[key] = github.fetch_pulls_from(run.head_owner, run.head_branch)
        except (FetchError, ParseError):
            pulls[key] = []
    mine = [p.number for p in pulls[key] if p.author.lower() == run.actor.lower()]
    return (max(mine) if mine else 0), run.actor


def _cap_key(pr: int, author: str) -> object:
    """What ``MAX_ROWS_PER_PR`` counts rows by: the pull request, or for a run with none, its account."""
    return pr if pr else f"@{author.lower()}"


def _counts(recorded: pd.DataFrame) -> dict[object, int]:
    """Receipt rows recorded so far, by ``_cap_key``."""
    authors = recorded["author"].fillna("").astype(str)
    keys = [_cap_key(int(pr), author) for pr, author in zip(recorded["pr"], authors, strict=True)]
    return pd.Series(keys, dtype=object).value_counts().to_dict() if keys else {}


def record_run(hub: Hub, github: GitHub, run_id: int, as_of: datetime, base: str = "HEAD", out=None) -> Receipts:
    """The receipt of workflow run ``run_id``; ``base``: the default branch's commit (the checkout);
    ``out``: a folder to write ``<run_id>.csv`` in instead of appending to the hub's ledger."""
    hub = as_hub(hub)
    run = github.fetch_run(run_id)
    if run.event != "pull_request":
        return Receipts(receipts.empty(), [f"run {run_id} was triggered by {run.event or 'an unknown event'}, not a pull request: no receipt"])
    if not _present(hub.root, run.head_sha):
        raise PrescientError(f"the head commit {run.head_sha} of run {run_id} is not in {hub.root}; fetch it first (git fetch origin {run.head_sha})")
    pr, author = _author(github, run, {})
    then = main_then(git.first_parent_dates(hub.root, git.resolve_commit(hub.root, base)), run)
    rows, why = run_rows(hub, run, pr, author, then, as_of)
    notes = [f"run {run_id}: no receipt ({why})"] if why else []
    rows = rows.iloc[: max(0, MAX_ROWS_PER_PR - _counts(receipts.load_receipts(hub)).get(_cap_key(pr, author), 0))]
    if out is not None:
        target = out / f"{run_id}.csv"
        if len(rows):
            write_bytes_atomic(target, to_csv_bytes(rows, RECEIPTS), hub_file=False)
        return Receipts(rows, notes)
    return Receipts(receipts.record(hub, [rows], as_of), notes)


def window_start(hub: Hub, as_of: datetime) -> str | None:
    """The date from which the walk lists runs: the freeze of the oldest round still open, not yet
    sealed, or with its reveal window not yet closed, a day early (None when there is no such round), never more than WINDOW_DAYS back."""
    recorded = seals.load_seals(hub)
    sealed, revealed = seals.sealed_rounds(recorded), seals.sealed_rounds(recorded, "reveal")
    pending = [
        d
        for d in readers.round_dues(hub)
        if format_date(d) not in sealed or (format_date(d) not in revealed and reveal_by(hub, d) is not None)  # a reveal window still to close
    ]
    if not pending:
        return None
    questions = readers.load_round(hub, min(pending))
    freeze = str(questions["freeze_time"].min()) if len(questions) else due_time(hub, min(pending))
    start = max(freeze[:10], format_date(as_of - timedelta(days=WINDOW_DAYS)))
    return format_date(datetime.fromisoformat(start + "T00:00:00+00:00") - days(1))


def walk(
    hub: Hub, github: GitHub, as_of: datetime, base: str = "HEAD", branch_rows: Callable[[int], pd.DataFrame | None] = lambda _run: None
) -> Receipts:
    """Record every validation run since ``window_start`` that no receipt records yet.
    ``branch_rows(run_id)``: the receipts workflow's file for that run, when the receipts branch has one."""
    hub = as_hub(hub)
    since = window_start(hub, as_of)
    if since is None:
        return Receipts(receipts.empty())
    try:
        runs, complete = github.fetch_validation_runs(since)
    except (FetchError, ParseError) as exc:
        return Receipts(receipts.empty(), [f"the validation runs since {since} could not be listed: {exc}"], complete=False)
    recorded = receipts.load_receipts(hub)
    known, counts = receipts.heads(recorded), _counts(recorded)
    dates = git.first_parent_dates(hub.root, git.resolve_commit(hub.root, base))
    frames: list[pd.DataFrame] = []
    notes: list[str] = []
    pulls: dict[tuple[str, str], list] = {}
    for run in sorted(runs, key=lambda r: (r.created_at, r.id)):
        if run.event != "pull_request" or run.head_sha in known or run.created_at > format_ts(as_of):
            continue
        try:
            frame, note = _walk_one(hub, github, run, main_then(dates, run), as_of, pulls, branch_rows)
        except PrescientError as exc:  # its head cannot be judged (git refused it): it counts for nothing, stops nothing
            notes.append(f"run {run.id}: its head {run.head_sha[:12]} could not be judged, so it counts for nothing ({exc})")
            continue
        except (FetchError, ParseError) as exc:  # GitHub did not answer for it: the walk is incomplete
            notes.append(f"run {run.id}: {exc}")
            complete = False
            continue
        key = _cap_key(int(frame["pr"].iloc[0]), str(frame["author"].iloc[0] or "")) if len(frame) else None
        frame = frame.iloc[: max(0, MAX_ROWS_PER_PR - counts.get(key, 0))]
        counts[key] = counts.get(key, 0) + len(frame)
        known.update(frame["head_sha"])
        frames.append(frame)
        notes += [note] if note else []
    return Receipts(receipts.record(hub, frames, as_of), notes, complete)


def _walk_one(
    hub: Hub, github: GitHub, run: Run, then: str | None, as_of: datetime, pulls: dict, branch_rows: Callable[[int], pd.DataFrame | None]
) -> tuple[pd.DataFrame, str]:
    """One run's rows: the receipts workflow's file for it when the branch has one (read when the run
    completed, against the default branch as it stood when the run was created), else read from its head
    now against the same commit (``then``), else unreadable."""
    pr, author = _author(github, run, pulls)
    prompt, present = branch_rows(run.id), _present(hub.root, run.head_sha)
    if (
        prompt is not None
        and 0 < len(prompt) <= MAX_FILES
        and (prompt["head_sha"] == run.head_sha).all()
        and all(str(p) == DECISIONS or paths.classify(str(p))[0].kind in paths.DATED for p in prompt["path"])
        and (not present or git.blob_ids(hub.root, run.head_sha, list(prompt["path"])) == dict(zip(prompt["path"], prompt["blob"], strict=True)))
    ):
        # the time, run, pull request and author are GitHub's, read again now; the files are the prompt record's
        return prompt.assign(recorded_at=format_ts(as_of), attested_at=run.created_at, run_id=run.id, pr=pr, author=author), ""
    if present:
        rows, why = run_rows(hub, run, pr, author, then, as_of)
        return rows, (f"run {run.id}: no receipt ({why})" if why else "")
    return unreadable_row(run, pr, author, as_of), f"run {run.id}: head {run.head_sha[:12]} could not be read (recorded as {HEAD_UNAVAILABLE})"


def catch_up(hub: Hub, github: GitHub, as_of: datetime, base: str = "HEAD") -> Receipts:
    """``walk``, by hand (``prescient receipts catch-up``)."""
    return walk(hub, github, as_of, base)
