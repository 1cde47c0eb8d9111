"""What the git history of the hub says: ledgers only appended, frozen files kept, files on time.

The history is read through ``store.git`` (the one module that runs git) as ``audit.changes`` lists
it: every commit of the branch with the paths it changed under ``data/`` (a rename is a deletion
plus an addition); one ``git cat-file --batch`` reads, one at a time,
only the versions of the append-only ledgers that a commit changed. A commit's time is its
committer date on the branch (a merge commit's own date, not the dates of the pull request's
commits), raised to the latest date of the commits before it on the first-parent line: a committer
date is written by whoever made the commit, so one dated earlier than its parent counts at its
parent's date, and back-dating a commit can never make a file look earlier than the history under
it. Each path's rule comes from its table's mutability in ``schemas.py``:

- an append-only ledger (questions, observations, resolutions, leaderboard history, manifest,
  oracle question sets) keeps every record: each commit's new version against its old one by the
  rule of ``audit.ledgers`` (``ledger-row-rewritten``, ``ledger-row-deleted``,
  ``ledger-header-changed``, ``ledger-unreadable``), and it may not be deleted or renamed away
  (``ledger-deleted``);
- a round's files (``data/rounds/<due>/``: questions.csv, questions.json) are frozen once
  committed: never changed (``round-changed``) or deleted (``round-deleted``);
- a forecast or bet file of a round is not changed or deleted after the round's due time
  (``forecast-changed-after-due``, ``bets-changed-after-due``), nor first committed after it
  (``forecast-committed-after-due``, ``bets-committed-after-due``), except the hub's own after-due
  forecasters (``forecasters.baselines.after_due``), written after it by design. A file committed
  (or changed) after the due time is on time exactly when a receipt (``store.receipts``) attests
  its exact bytes at that path before the due time: GitHub's creation time of a pull-request run
  for a head commit holding them. That is how an on-time pull request merged the next morning passes.
  In a sealed round the seal (the bot's, checked against the receipts by ``audit.seals``) says which
  bytes count: a late version that does not count is no error once the hub's next nightly removed it
  (or put the sealed bytes back) with no nightly between to score it: it never counted, and the
  nightly's warning reported it once. Before any nightly has run since, it is a warning
  (``late-file-pending``): the next seal judges it. It stays an error when a nightly ran after it and
  left it in place, or when someone other than the nightly moved it;
- any of those files stays a regular file: a change of type, e.g. to a symlink (git status ``T``),
  is ``file-type-changed``, and one added or changed as a symlink or submodule is
  ``not-a-regular-file``; a git status the audit does not know is ``git-status-unknown``;
- along the first-parent line, no commit is dated earlier than its first parent
  (``commit-date-backwards``): the times above are only as good as that order.

Every path only the hub writes is changed only by the hub's bot, outside merges (``audit.bot``:
``hub-ledger-edited``); each night's digest matches the ledgers of its commit (``audit.digests``).
Submitted files and ``hub.toml`` may change in any commit, by their own rules.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from itertools import pairwise
from pathlib import Path

from ..errors import Problem
from ..forecasters.baselines import after_due
from ..models import DEFAULT_OWN
from ..schemas import ALL_TABLES, Table
from ..store import git
from ..store.git import blob_id
from ..submissions.paths import DATED, classify
from ..timeutil import format_ts, parse_ts
from .bot import hub_ledger_problems
from .changes import FileChange, parse_log
from .digests import HISTORY_PATH, DigestWalk
from .ledgers import ledger_rewrites

_PATTERN = re.compile(r"<[^>]+>")
LEDGERS = tuple((_PATTERN.sub("*", t.path), t) for t in ALL_TABLES if t.mutability == "append-only")
APPEND_ONLY = tuple(pattern for pattern, _table in LEDGERS)
# Frozen once published: every file of a round's folder (questions.csv, and questions.json in the
# ForecastBench format), whatever the tables say about the csv alone.
FROZEN = tuple(_PATTERN.sub("*", t.path).rsplit("/", 1)[0] + "/*" for t in ALL_TABLES if t.mutability.startswith("frozen"))
REGULAR = ("100644", "100755")
_MODES = {"120000": "a symlink", "160000": "a submodule", "040000": "a folder", "000000": "nothing"}
KNOWN_STATUS = "AMDT"  # what --no-renames leaves; R and C are split into D and A when read


def ledger_table(path: str) -> Table | None:
    """The append-only table ``path`` belongs to, or None."""
    return next((table for pattern, table in LEDGERS if fnmatch.fnmatchcase(path, pattern)), None)


def is_ledger(path: str) -> bool:
    return ledger_table(path) is not None


def is_frozen(path: str) -> bool:
    return any(fnmatch.fnmatchcase(path, pattern) for pattern in FROZEN)


def _due_file(path: str):
    """The classified target when ``path`` is a forecast, bet or commitment file of a round, else None."""
    target, errors = classify(path)
    if errors or target.kind not in DATED or target.due is None or target.fmt == "salt":
        return None  # a commit–reveal round's salt is revealed after the due time; its reveal seal judges it
    return target


# -- the checks, pure over the parsed history (the ledgers' bytes come through ``read``) -------------


@dataclass(frozen=True)
class Seal:
    """What the seals ledger says of the sealed rounds: their due dates, and path → blob of every file that counts."""

    rounds: frozenset[str]
    counted: Mapping[str, str]

    def of(self, due: str | None) -> Seal | None:
        return self if due in self.rounds else None


def file_problems(
    changes: list[FileChange],
    read,
    judged_additions=lambda c: True,
    attested: Mapping[tuple[str, str], str] | None = None,
    sealed: Seal | None = None,
    bot: str = "",
    own: str = DEFAULT_OWN,
) -> list[Problem]:
    """Every problem of the changes to guarded files. ``read(blob)`` gives a blob's bytes or None;
    ``judged_additions(c)`` says whether an addition's time can be judged (not in a shallow clone's
    oldest commit); ``attested``: (path, blob) → the earliest receipt time (ISO UTC) of those bytes, the
    rule of rounds without a seal; ``sealed``: the seals (a sealed round's file may change after its due
    time only to its sealed bytes, and only a file that does not count may be removed); ``bot``: the
    hub's committer e-mail, whose non-merge commits are its nightlies (``_late``); ``own``: its ``[hub] own_prefix``."""
    found = each_file_problems(changes, _Versions(read), judged_additions, attested, sealed, bot, own)
    return [problem for problems in found for problem in problems]


def each_file_problems(
    changes: list[FileChange],
    versions: _Versions,
    judged_additions=lambda c: True,
    attested: Mapping[tuple[str, str], str] | None = None,
    sealed: Seal | None = None,
    bot: str = "",
    own: str = DEFAULT_OWN,
) -> Iterator[list[Problem]]:
    """``file_problems`` change by change: one list (maybe empty) for each change, in order."""
    attested = attested or {}
    late, later = _Late(changes, bot), after_due(own)  # the hub's baselines written after the due time by design
    for i, c in enumerate(changes):
        table, frozen, due = ledger_table(c.path), is_frozen(c.path), _due_file(c.path)
        if table is None and not frozen and due is None:
            yield []
            continue
        kind = _kind_problem(c)
        if kind:
            yield [kind]
        elif table is not None:
            yield _ledger_change(c, table, versions)
        elif frozen:
            yield _frozen_change(c)
        else:
            seal = sealed.of(due.due) if sealed is not None else None
            found = _due_change(c, due, judged_additions(c), attested.get((c.path, c.new_blob)), seal, later)
            yield late.judge(i, found, seal) if found else []


class _Late:
    """What became of a file changed after its round's due time (a pull request checked on time and
    merged late, say): a late version never counted when the hub's next nightly put the round's files
    back as the seal says (removed a file that does not count, or restored the sealed bytes), with no
    nightly between that could have scored it; and it cannot have counted yet when no nightly has run
    since it (``late-file-pending``: the next one's seal judges it, a warning). Otherwise the problem
    stands: a nightly ran after it and left it in place (so it was scored), or someone other than the
    hub's nightly moved it. Who counts is the seal's (the bot's, checked against the receipts by
    ``audit.seals``); nobody can make a late file count by merging it, only keep it out.

    A nightly is a non-merge commit by the hub's committer (``bot``); without one configured, a
    non-merge commit that adds to the leaderboard history (every nightly does). A late file a nightly
    itself committed stands as found."""

    def __init__(self, changes: list[FileChange], bot: str):
        self.changes = changes
        order: dict[str, int] = {}
        nightly: dict[str, int] = {}
        for c in changes:
            order.setdefault(c.commit, len(order))
            if c.parents == 1 and ((bot and c.committer == bot) or (not bot and c.path == HISTORY_PATH)):
                nightly[c.commit] = order[c.commit]
        self.order, self.nightly = order, sorted(nightly.values())

    def _nightly_between(self, after: int, before: int | None) -> bool:
        return any(after < n and (before is None or n < before) for n in self.nightly)

    def judge(self, i: int, found: list[Problem], seal: Seal | None) -> list[Problem]:
        c = self.changes[i]
        at = self.order[c.commit]
        if at in self.nightly:
            return found  # the hub's own run put it there: nothing will rule it out
        nxt = next((j for j in range(i + 1, len(self.changes)) if self.changes[j].path == c.path), None)
        if seal is not None and nxt is not None:
            later = self.changes[nxt]
            kept = seal.counted.get(c.path)
            result = later.new_blob if later.status in "AMT" else None
            by_nightly = self.order[later.commit] in self.nightly
            if result == kept and by_nightly and not self._nightly_between(at, self.order[later.commit]):
                return []  # ruled out by the seal, put right by the next nightly: it never counted
        if nxt is None and not self._nightly_between(at, None):
            return [
                Problem(
                    p.file,
                    p.row,
                    p.column,
                    "late-file-pending",
                    p.message + ": no nightly has run since, and the next one's seal rules it out unless a receipt "
                    "attests these bytes before the due time",
                    "warning",
                )
                for p in found
            ]
        return found


class _Versions:
    """Blob bytes of the ledgers' versions, each read from git once a walk: the latest version read of
    each ledger path is kept, since the next commit that changes the path compares against it (and
    the digest check reads the same version of history.csv), so memory holds one version of each
    ledger: the hub's ledgers at about their present size, which ``verify`` reads anyway."""

    def __init__(self, read):
        self.read = read
        self.last: dict[str, tuple[str, bytes]] = {}  # path → (blob, bytes) of the version read last

    def of(self, path: str, blob: str) -> bytes | None:
        kept = self.last.get(path)
        if kept is not None and kept[0] == blob:
            return kept[1]
        data = self.read(blob)
        if data is not None:
            self.last[path] = (blob, data)
        return data

    def pair(self, c: FileChange) -> tuple[bytes | None, bytes | None]:
        return self.of(c.path, c.old_blob), self.of(c.path, c.new_blob)


def _kind_problem(c: FileChange) -> Problem | None:
    """A status the audit does not know, a change of file type, or a file that is not a regular one."""
    if c.status not in KNOWN_STATUS:
        return Problem(c.path, None, None, "git-status-unknown", f"{c.where} has git status {c.status!r} for it, which the audit cannot judge")
    if c.status == "T":
        return Problem(c.path, None, None, "file-type-changed", f"{c.where} changed it from {_mode(c.old_mode)} to {_mode(c.new_mode)}")
    if c.status in "AM" and c.new_mode not in REGULAR:
        return Problem(c.path, None, None, "not-a-regular-file", f"{c.where} made it {_mode(c.new_mode)}")
    return None


def _mode(mode: str) -> str:
    return _MODES.get(mode, "a regular file" if mode in REGULAR else f"mode {mode}")


def _ledger_change(c: FileChange, table: Table, versions: _Versions) -> list[Problem]:
    if c.status == "D":
        return [Problem(c.path, None, None, "ledger-deleted", f"{c.where} deleted (or renamed away) an append-only ledger")]
    if c.status != "M" or c.old_blob == c.new_blob or c.old_mode not in REGULAR:
        return []  # an addition, a mode change, or a version whose type change was reported already
    old, new = versions.pair(c)
    if old is None or new is None:
        missing = c.old_blob if old is None else c.new_blob
        return [
            Problem(c.path, None, None, "git-object-missing", f"{c.where}: blob {missing} is not in this repository, so the change cannot be checked")
        ]
    return ledger_rewrites(c, table, old, new)


def _frozen_change(c: FileChange) -> list[Problem]:
    if c.status == "D":
        return [Problem(c.path, None, None, "round-deleted", f"{c.where} deleted (or renamed away) a file of a published round")]
    if c.status == "M" and c.old_blob != c.new_blob:
        return [Problem(c.path, None, None, "round-changed", f"{c.where} changed a published round's question set, which is frozen")]
    return []


def _due_change(c: FileChange, target, judged: bool, receipt: str | None, seal: Seal | None, later: Mapping[str, object]) -> list[Problem]:
    """``later``: the hub's baselines written after the due time by design (``after_due``), never late."""
    due = format_ts(parse_ts(target.due))
    forecast = target.kind != "bets"  # a forecast or commitment file
    if c.time <= due:
        return []
    if seal is not None:  # a sealed round: after its due time a file only ever becomes its sealed bytes, or goes
        if (c.status in "AM" and c.new_blob == seal.counted.get(c.path)) or (c.status == "D" and c.path not in seal.counted):
            return []
    elif c.status in "AM" and receipt is not None and receipt < due:  # a round sealed before 0.7: the receipts' rule
        return []
    if c.status in "MDT":
        if c.status == "M" and c.old_blob == c.new_blob:
            return []
        verb = {"M": "changed", "D": "deleted", "T": "changed the type of"}[c.status]
        return [
            Problem(
                c.path,
                None,
                None,
                "forecast-changed-after-due" if forecast else "bets-changed-after-due",
                f"{c.where} {verb} it after the round's due time {due}",
            )
        ]
    if c.status == "A" and judged and not (forecast and target.model in later):
        return [
            Problem(
                c.path,
                None,
                None,
                "forecast-committed-after-due" if forecast else "bets-committed-after-due",
                f"first committed by {c.where}, after the round's due time {due}",
            )
        ]
    return []


def date_problems(dates: list[tuple[str, int]]) -> list[Problem]:
    """Commits (newest first, each followed by its first parent) dated earlier than their first parent."""
    problems = []
    for (sha, seconds), (parent, parent_seconds) in pairwise(dates):
        if seconds < parent_seconds:
            problems.append(
                Problem(
                    ".git",
                    None,
                    None,
                    "commit-date-backwards",
                    f"commit {sha[:12]} is dated {_ts(seconds)}, earlier than its first parent "
                    f"{parent[:12]} ({_ts(parent_seconds)}): the commit times cannot be trusted",
                )
            )
    return problems


def _ts(seconds: int) -> str:
    return format_ts(datetime.fromtimestamp(seconds, tz=UTC))


def committed_before(changes: list[FileChange], path: str, data: bytes, due: str) -> bool:
    """True when a commit before ``due`` added or changed ``path`` to exactly these bytes."""
    ids = {len(c.new_blob) for c in changes} or {40}
    wanted = {blob_id(data, n) for n in ids}
    return any(c.path == path and c.new_blob in wanted and c.new_mode in REGULAR and c.time < due for c in changes)


def effective_times(changes: list[FileChange], dates: list[tuple[str, int]]) -> list[FileChange]:
    """``changes`` with each commit's time raised to the latest committer date at or before it on
    the first-parent line (``dates``: newest first, as ``store.git.first_parent_dates`` lists them)."""
    latest, running = {}, None
    for sha, seconds in reversed(dates):
        running = seconds if running is None else max(running, seconds)
        latest[sha] = _ts(running)
    return [replace(c, time=latest.get(c.commit, c.time)) for c in changes]


@dataclass(frozen=True)
class Start:
    """Where a checkpointed walk starts (``audit.checkpoint``): a commit whose history a full walk found
    without error, and the nights whose digests that walk checked (the rest is in each later change)."""

    commit: str
    nights: frozenset[str] = frozenset()


def audit_history(
    repo: Path,
    rev: str = "HEAD",
    attested: Mapping[tuple[str, str], str] | None = None,
    sealed: Seal | None = None,
    bot: str = "",
    start: Start | None = None,
    own: str = DEFAULT_OWN,
) -> tuple[list[FileChange], list[Problem]]:
    """The history of ``rev`` and every problem in it; ``attested`` and ``sealed``: the receipts and the
    seals (see ``file_problems``); ``bot``: the committer e-mail of the hub's own runs, the only one that
    may change a path only the hub writes (none: only merges are refused; ``verify`` passes
    ``bot.hub_bot``); ``own``: the hub's own prefix (``bot.hub_own``); ``start``: a trusted checkpoint,
    to judge only the commits after it (None: every commit from the first)."""
    head = git.resolve_commit(repo, rev)
    if not git.tracked(repo, head, "data/"):
        return [], [
            Problem(
                "data/",
                None,
                None,
                "data-not-tracked",
                f"{rev} holds nothing under data/: the hub's ledgers are not in this git repository, so its "
                "history proves nothing (commit data/, or audit the repository that holds it)",
            )
        ]
    dates = git.first_parent_dates(repo, head)
    since = start.commit if start is not None else None
    changes = effective_times(parse_log(git.first_parent_raw_log(repo, head, "data/", since)), dates)
    if since is not None:  # the pairs up to the start were checked by the walk that made it
        dates = dates[: next((i for i, (sha, _) in enumerate(dates) if sha == since), len(dates) - 1) + 1]
    boundary = git.shallow_commits(repo)
    # In a shallow clone the oldest commits show every file as added then; when a file was really
    # first committed is unknown, so those additions are not judged.
    with git.BlobReader(repo) as blobs:
        # one pass: each change's digest check right after its ledger check, from the same versions
        versions = _Versions(blobs.read)
        nights = DigestWalk(repo, blobs.read, start.nights if start is not None else frozenset(), version=versions.of)
        found = each_file_problems(changes, versions, lambda c: not (c.commit in boundary and c.status == "A"), attested, sealed, bot, own)
        problems, digests = [], []
        for c, of_file in zip(changes, found, strict=True):
            problems += of_file
            digests += nights(c)
        problems += digests
    problems += date_problems(dates) + hub_ledger_problems(changes, bot, boundary, own)
    replaced = git.replaced(repo)
    if replaced:
        problems.append(
            Problem(
                ".git",
                None,
                None,
                "replace-refs",
                f"{len(replaced)} replace ref(s) or a grafts file ({replaced[0]}): ignored, the commits were read as their ids name them",
                "warning",
            )
        )
    if boundary:
        problems.insert(
            0,
            Problem(
                ".git",
                None,
                None,
                "shallow-clone",
                "this is a shallow clone: commits before its oldest one were not checked "
                "(clone with full history, e.g. actions/checkout fetch-depth: 0)",
                "warning",
            ),
        )
    return changes, problems


def shallow_boundary(repo: Path) -> set[str]:
    """The commits a shallow clone was cut at (empty for a full clone)."""
    return git.shallow_commits(repo)
