"""What the git history of the hub says: ledgers only appended, frozen files kept, files on time.

The history is read through ``store.git`` (the one module that runs git): ``git log
--first-parent --raw`` lists every commit of the branch with the paths it changed under ``data/``
(a rename is a deletion plus an addition), and one ``git cat-file --batch`` reads, one at a time,
only the versions of the append-only ledgers that a commit changed. A commit's time is its
committer date on the branch (a merge commit's own date, not the dates of the pull request's
commits), raised to the latest date of the commits before it on the first-parent line: a committer
date is written by whoever made the commit, so one dated earlier than its parent counts at its
parent's date, and back-dating a commit can never make a file look earlier than the history under
it. Each path's rule comes from its table's mutability in ``schemas.py``:

- an append-only ledger (questions, observations, resolutions, leaderboard history, manifest,
  oracle question sets) keeps every record. Both versions are parsed as the store parses them and
  compared as records: each old record must still be there, unchanged (a record whose key is still
  there with other values was edited, ``ledger-row-rewritten``; one whose key is gone was deleted,
  ``ledger-row-deleted``); order is not compared, because ``store.ledger.append`` may re-sort a
  file. Its header may not change (``ledger-header-changed``) and it may not be deleted or renamed
  away (``ledger-deleted``). A version that does not parse is a warning (``ledger-unreadable``),
  and its lines are compared instead;
- a round's files (``data/rounds/<due>/``: questions.csv, questions.json) are frozen once
  committed: never changed (``round-changed``) or deleted (``round-deleted``);
- a forecast or bet file of a round is not changed or deleted after the round's due time
  (``forecast-changed-after-due``, ``bets-changed-after-due``), nor first committed after it
  (``forecast-committed-after-due``, ``bets-committed-after-due``), except the hub's own after-due
  forecasters (``forecasters.baselines.AFTER_DUE``), written after it by design. A file committed
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
``hub-ledger-edited``). Submitted files and ``hub.toml`` may change in any commit, by their own rules.
"""

from __future__ import annotations

import fnmatch
import re
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from ..errors import Problem
from ..forecasters.baselines import AFTER_DUE
from ..schemas import ALL_TABLES, HISTORY, Table
from ..store import git
from ..store.csvio import UNREADABLE, parse_bytes, why_unreadable
from ..store.git import blob_id
from ..store.manifest import root_hash, sha256
from ..submissions.paths import DATED, classify
from ..timeutil import format_ts, parse_ts
from .bot import hub_ledger_problems

_PATTERN = re.compile(r"<[^>]+>")
LEDGERS = tuple((_PATTERN.sub("*", t.path), t) for t in ALL_TABLES if t.mutability == "append-only")
APPEND_ONLY = tuple(pattern for pattern, _table in LEDGERS)
# Frozen once published: every file of a round's folder (questions.csv, and questions.json in the
# ForecastBench format), whatever the tables say about the csv alone.
FROZEN = tuple(_PATTERN.sub("*", t.path).rsplit("/", 1)[0] + "/*" for t in ALL_TABLES if t.mutability.startswith("frozen"))
REGULAR = ("100644", "100755")
_MODES = {"120000": "a symlink", "160000": "a submodule", "040000": "a folder", "000000": "nothing"}
KNOWN_STATUS = "AMDT"  # what --no-renames leaves; R and C are split into D and A when read


@dataclass(frozen=True)
class FileChange:
    """One path changed by one commit: its status letter, and the modes and blob ids before and after."""

    commit: str
    time: str  # committer date, ISO UTC
    status: str
    path: str
    old_blob: str
    new_blob: str
    old_mode: str = "100644"
    new_mode: str = "100644"
    committer: str = ""  # the commit's committer e-mail
    parents: int = 1  # 2 or more: a merge (a pull request's, on GitHub)

    @property
    def where(self) -> str:
        return f"commit {self.commit[:12]} ({self.time})"


def history(repo: Path, rev: str = "HEAD") -> list[FileChange]:
    """Every change under ``data/`` along the first-parent line of ``rev``, oldest first."""
    return parse_log(git.first_parent_raw_log(repo, git.resolve_commit(repo, rev), "data/"))


def parse_log(out: bytes) -> list[FileChange]:
    """The changes in ``store.git.first_parent_raw_log`` output. A copy (C) is an addition of its new
    path; a rename (R, when detected) is a deletion of its old path and an addition of its new one."""
    changes = []
    for record in out.split(b"\x01")[1:]:
        header, _, body = record.partition(b"\0")
        sha, seconds, *rest = header.decode("utf-8", "replace").split(" ")
        when = format_ts(datetime.fromtimestamp(int(seconds), tz=UTC))
        who, parents = (rest[0], len([p for p in rest[1:] if p])) if rest else ("", 1)
        fields, i = body.lstrip(b"\n").split(b"\0"), 0
        while i < len(fields) and fields[i].startswith(b":"):
            old_mode, new_mode, old_blob, new_blob, status = fields[i].decode().lstrip(":").split()
            letter, paths = status[0], [f.decode("utf-8", "surrogateescape") for f in fields[i + 1:i + 3]]
            if letter in "RC":
                if letter == "R":
                    changes.append(FileChange(sha, when, "D", paths[0], old_blob, "0" * len(old_blob), old_mode, "000000", who, parents))
                changes.append(FileChange(sha, when, "A", paths[1], "0" * len(new_blob), new_blob, "000000", new_mode, who, parents))
                i += 3
            else:
                changes.append(FileChange(sha, when, letter, paths[0], old_blob, new_blob, old_mode, new_mode, who, parents))
                i += 2
    return changes


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


def file_problems(changes: list[FileChange], read, judged_additions=lambda c: True,
                  attested: Mapping[tuple[str, str], str] | None = None, sealed: Seal | None = None,
                  bot: str = "") -> list[Problem]:
    """Every problem of the changes to guarded files. ``read(blob)`` gives a blob's bytes or None;
    ``judged_additions(c)`` says whether an addition's time can be judged (not in a shallow clone's
    oldest commit); ``attested``: (path, blob) → the earliest receipt time (ISO UTC) of those bytes, the
    rule of rounds without a seal; ``sealed``: the seals (a sealed round's file may change after its due
    time only to its sealed bytes, and only a file that does not count may be removed); ``bot``: the
    hub's committer e-mail, whose non-merge commits are its nightlies (``_late``)."""
    attested = attested or {}
    problems, versions = [], _Versions(read)
    late = _Late(changes, bot)
    for i, c in enumerate(changes):
        table, frozen, due = ledger_table(c.path), is_frozen(c.path), _due_file(c.path)
        if table is None and not frozen and due is None:
            continue
        kind = _kind_problem(c)
        if kind:
            problems.append(kind)
        elif table is not None:
            problems += _ledger_change(c, table, versions)
        elif frozen:
            problems += _frozen_change(c)
        else:
            seal = sealed.of(due.due) if sealed is not None else None
            found = _due_change(c, due, judged_additions(c), attested.get((c.path, c.new_blob)), seal)
            problems += late.judge(i, found, seal) if found else []
    return problems


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
            return [Problem(p.file, p.row, p.column, "late-file-pending",
                            p.message + ": no nightly has run since, and the next one's seal rules it out unless a receipt "
                                        "attests these bytes before the due time", "warning") for p in found]
        return found


class _Versions:
    """Blob bytes for the ledger comparisons. The new version of each ledger a commit changed is
    kept until the commit after next, since the next nightly commit usually compares against it;
    older versions are dropped, so memory holds about two nights of changed ledgers."""

    def __init__(self, read):
        self.read, self.commit, self.current, self.previous = read, None, {}, {}

    def pair(self, c: FileChange) -> tuple[bytes | None, bytes | None]:
        if c.commit != self.commit:
            self.commit, self.previous, self.current = c.commit, self.current, {}
        old = self.current.get(c.old_blob) or self.previous.get(c.old_blob)
        old = old if old is not None else self.read(c.old_blob)
        new = self.read(c.new_blob)
        if new is not None:
            self.current[c.new_blob] = new
        return old, new


def _kind_problem(c: FileChange) -> Problem | None:
    """A status the audit does not know, a change of file type, or a file that is not a regular one."""
    if c.status not in KNOWN_STATUS:
        return Problem(c.path, None, None, "git-status-unknown",
                       f"{c.where} has git status {c.status!r} for it, which the audit cannot judge")
    if c.status == "T":
        return Problem(c.path, None, None, "file-type-changed",
                       f"{c.where} changed it from {_mode(c.old_mode)} to {_mode(c.new_mode)}")
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
        return [Problem(c.path, None, None, "git-object-missing",
                        f"{c.where}: blob {missing} is not in this repository, so the change cannot be checked")]
    return ledger_rewrites(c, table, old, new)


def ledger_rewrites(c: FileChange, table: Table, old: bytes, new: bytes) -> list[Problem]:
    """What one commit's new version of a ledger lost of its old version."""
    if appended(old, new):
        return []
    try:
        (old_columns, old_rows), (new_columns, new_rows) = records(old), records(new)
    except ValueError as exc:
        return [Problem(c.path, None, None, "ledger-unreadable",
                        f"{c.where}: a version does not parse as CSV ({_first_line(exc)}); its lines were compared instead",
                        "warning"), *_lines_lost(c, old, new)]
    problems = []
    if old_columns != new_columns and not _late_columns_added(table, old_columns, new_columns):
        problems.append(Problem(c.path, 1, None, "ledger-header-changed",
                                f"{c.where} changed the header from {','.join(old_columns)!r} to {','.join(new_columns)!r}"))
    return problems + _records_lost(c, table, old_columns, old_rows, new_columns, new_rows)


def _late_columns_added(table: Table, old: tuple[str, ...], new: tuple[str, ...]) -> bool:
    """The new header is the old one followed by some of the table's late columns (its rows keep
    their old cells, which the record comparison checks on the columns both versions name)."""
    return bool(old) and new[:len(old)] == old and all(name in table.late for name in new[len(old):])


def appended(old: bytes, new: bytes) -> bool:
    """True when ``new`` is ``old`` followed by more bytes, and ``old`` ends at a record boundary
    (a line end outside quotes), so every record of ``old`` parses the same in ``new``."""
    return new.startswith(old) and (not old or old.endswith(b"\n") and old.count(b'"') % 2 == 0)


def records(data: bytes) -> tuple[tuple[str, ...], list[tuple[str, ...]]]:
    """(header, rows as tuples of cell text) of a CSV version, parsed as ``store.csvio`` reads a
    ledger (``csvio.parse_bytes``: every cell kept as text, nothing read as missing). ValueError when
    it does not parse."""
    if not data.strip():
        return (), []
    try:
        frame = parse_bytes(data, "")
    except UNREADABLE as exc:
        raise ValueError(why_unreadable(exc)) from None
    if not isinstance(frame.index, pd.RangeIndex):  # more cells than header names in every row
        raise ValueError("rows have more cells than the header names")
    # the rows as tuples, built column by column (a fifth of itertuples' time on text columns)
    return tuple(str(c) for c in frame.columns), list(zip(*(frame.iloc[:, i].tolist() for i in range(frame.shape[1]))))


def _records_lost(c: FileChange, table: Table, old_columns: tuple[str, ...], old_rows: list[tuple],
                  new_columns: tuple[str, ...], new_rows: list[tuple]) -> list[Problem]:
    """Old records missing from the new version, keyed by the table's key. Under a changed header
    of the same width the records are compared cell by cell in order; otherwise on the columns both
    versions name."""
    if len(old_columns) == len(new_columns):
        pick_old = pick_new = list(range(len(old_columns)))
    else:
        common = [name for name in old_columns if name in new_columns]
        pick_old, pick_new = [old_columns.index(n) for n in common], [new_columns.index(n) for n in common]
    before = [tuple(row[i] for i in pick_old) for row in old_rows]
    after = [tuple(row[i] for i in pick_new) for row in new_rows]
    missing = Counter(before) - Counter(after)
    if not missing:
        return []
    key = [pick_old.index(old_columns.index(k)) for k in table.key
           if k in old_columns and old_columns.index(k) in pick_old] or list(range(len(pick_old)))
    keys_after = {tuple(row[i] for i in key) for row in after}
    edited: list[tuple[int, tuple]] = []
    deleted: list[tuple[int, tuple]] = []
    for row, values in enumerate(before, start=2):  # the header is row 1
        if missing.get(values):
            missing[values] -= 1
            (edited if tuple(values[i] for i in key) in keys_after else deleted).append((row, values))
    names = [old_columns[i] for i in pick_old]
    problems = []
    for found, code, verb in ((edited, "ledger-row-rewritten", "edited"), (deleted, "ledger-row-deleted", "deleted")):
        if found:
            row, values = found[0]
            what = ", ".join(f"{names[i]}={values[i]!r}" for i in key)[:160]
            problems.append(Problem(c.path, row, None, code,
                                    f"{c.where} {verb} {len(found)} existing row(s); the first is ({what})"))
    return problems


def _lines_lost(c: FileChange, old: bytes, new: bytes) -> list[Problem]:
    old_lines, new_lines = old.split(b"\n"), new.split(b"\n")
    missing = Counter(line for line in old_lines if line) - Counter(new_lines)
    if not missing:
        return []
    row = next(i for i, line in enumerate(old_lines) if missing.get(line))
    text = old_lines[row].decode("utf-8", "replace")[:120]
    return [Problem(c.path, row + 1, None, "ledger-row-rewritten",
                    f"{c.where} edited or deleted {sum(missing.values())} existing line(s); the first is {text!r}")]


def _first_line(exc: Exception) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0][:160]


def _frozen_change(c: FileChange) -> list[Problem]:
    if c.status == "D":
        return [Problem(c.path, None, None, "round-deleted", f"{c.where} deleted (or renamed away) a file of a published round")]
    if c.status == "M" and c.old_blob != c.new_blob:
        return [Problem(c.path, None, None, "round-changed", f"{c.where} changed a published round's question set, which is frozen")]
    return []


def _due_change(c: FileChange, target, judged: bool, receipt: str | None = None, seal: Seal | None = None) -> list[Problem]:
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
        return [Problem(c.path, None, None, "forecast-changed-after-due" if forecast else "bets-changed-after-due",
                        f"{c.where} {verb} it after the round's due time {due}")]
    if c.status == "A" and judged and not (forecast and target.model in AFTER_DUE):
        return [Problem(c.path, None, None, "forecast-committed-after-due" if forecast else "bets-committed-after-due",
                        f"first committed by {c.where}, after the round's due time {due}")]
    return []


def date_problems(dates: list[tuple[str, int]]) -> list[Problem]:
    """Commits (newest first, each followed by its first parent) dated earlier than their first parent."""
    problems = []
    for (sha, seconds), (parent, parent_seconds) in zip(dates, dates[1:]):
        if seconds < parent_seconds:
            problems.append(Problem(".git", None, None, "commit-date-backwards",
                                    f"commit {sha[:12]} is dated {_ts(seconds)}, earlier than its first parent "
                                    f"{parent[:12]} ({_ts(parent_seconds)}): the commit times cannot be trusted"))
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


HISTORY_PATH = HISTORY.path
DIGESTED = ("data/manifest/", "data/receipts/", "data/seals/", "data/metadata/models.csv")


def digest_problems(repo: Path, changes: list[FileChange], read, checked: frozenset[str] = frozenset(),
                    plain: bool = False) -> list[Problem]:
    """Each night's ``ledger_digest`` in history.csv equals the digest of the manifest and receipts
    files in the first-parent commit that recorded that night: a later rewrite of those ledgers (or
    of the digest) shows here, and against every copy of the digest published before it. ``checked``:
    the nights already checked (a checkpointed walk's: those of history.csv in its start commit).
    ``plain``: parse every version of history.csv whole (``_digests``), the method that ``_NewNights``,
    used otherwise, gives the same problems as in time linear in what each version appended."""
    problems: list[Problem] = []
    seen = set(checked)
    nights_of: Callable[[bytes], dict[str, str]] = _digests if plain else _NewNights()
    hashes: dict[str, str] = {}
    for c in changes:
        data = read(c.new_blob) if c.path == HISTORY_PATH and c.status in "AM" else None
        nights = nights_of(data) if data is not None else {}
        fresh = {night: digest for night, digest in nights.items() if night not in seen}
        if not fresh:
            continue
        seen.update(fresh)
        actual = tree_digest(repo, c.commit, read, None if plain else hashes)
        for night, digest in sorted(fresh.items()):
            if digest != actual:
                problems.append(Problem(HISTORY_PATH, None, "ledger_digest", "ledger-digest-differs",
                                        f"the night {night} published {digest[:16]}…, but the manifest and receipts files of "
                                        f"{c.where} hash to {actual[:16]}…"))
    return problems


def digested_nights_at(repo: Path, commit: str) -> frozenset[str]:
    """The nights whose digests history.csv holds in ``commit``: those a walk up to it has checked."""
    tree = git.GitTree(repo, commit)
    return frozenset(_digests(tree.read(HISTORY_PATH))) if tree.entry(HISTORY_PATH) else frozenset()


def _digests(data: bytes) -> dict[str, str]:
    """as_of → ledger_digest of the nights of a history.csv version that have one."""
    try:
        columns, rows = records(data)
    except ValueError:
        return {}
    return _night_digests(columns, rows)


def _night_digests(columns: tuple[str, ...], rows: list[tuple[str, ...]]) -> dict[str, str]:
    if "ledger_digest" not in columns or "as_of" not in columns:
        return {}
    when, digest = columns.index("as_of"), columns.index("ledger_digest")
    return {row[when]: row[digest] for row in rows if row[digest]}


class _NewNights:
    """``_digests`` of the successive versions of history.csv a walk meets, for ``digest_problems``: a
    version that is the last one followed by more records (``appended``) is parsed only past it (its
    header line, then the bytes after), and gives the digests of the nights of those records. They are
    the digests ``_digests`` finds in the whole version for every night the caller has not seen yet: the
    nights of the rows before are the last version's, which the caller saw, and a night's later row
    replaces an earlier one either way. Any other version is parsed whole, as are the appended records
    when they do not parse under the same header (the whole version's parse then says what they are)."""

    def __init__(self) -> None:
        self.data, self.header = b"", b""
        self.columns: tuple[str, ...] = ()

    def __call__(self, data: bytes) -> dict[str, str]:
        if self.columns and appended(self.data, data):
            try:
                columns, rows = records(self.header + data[len(self.data):])
            except ValueError:
                columns = ()
            if columns == self.columns:
                self.data = data
                return _night_digests(columns, rows)
        try:
            columns, rows = records(data)
        except ValueError:
            columns, rows = (), []
        line = data.partition(b"\n")[0] + b"\n"  # the header, when it is one line as the parser reads it
        self.data, self.header = data, line
        self.columns = columns if line.strip() and b'"' not in line and b"\r" not in line else ()
        return _night_digests(columns, rows)


def tree_digest(repo: Path, commit: str, read, hashes: dict[str, str] | None = None) -> str:
    """``store.manifest.ledger_digest`` of the manifest and receipts files as stored in ``commit``;
    ``hashes``: blob id → sha256 of the blobs hashed before (a walk reads each version once)."""
    blobs = git.tree_blobs(repo, commit, DIGESTED)
    if hashes is None:
        return root_hash({path: sha256(read(blob) or b"") for path, blob in blobs.items()})
    for blob in blobs.values():
        if blob not in hashes:
            hashes[blob] = sha256(read(blob) or b"")
    return root_hash({path: hashes[blob] for path, blob in blobs.items()})


@dataclass(frozen=True)
class Start:
    """Where a checkpointed walk starts (``audit.checkpoint``): a commit whose history a full walk found
    without error, and the nights whose digests that walk checked (the rest is in each later change)."""

    commit: str
    nights: frozenset[str] = frozenset()


def audit_history(repo: Path, rev: str = "HEAD", attested: Mapping[tuple[str, str], str] | None = None,
                  sealed: Seal | None = None, bot: str = "", start: Start | None = None) -> tuple[list[FileChange], list[Problem]]:
    """The history of ``rev`` and every problem in it; ``attested`` and ``sealed``: the receipts and the
    seals (see ``file_problems``); ``bot``: the committer e-mail of the hub's own runs, the only one that
    may change a path only the hub writes (none: only merges are refused; ``verify`` passes
    ``bot.hub_bot``); ``start``: a trusted checkpoint,
    to judge only the commits after it (None: every commit from the first)."""
    head = git.resolve_commit(repo, rev)
    if not git.tracked(repo, head, "data/"):
        return [], [Problem("data/", None, None, "data-not-tracked",
                            f"{rev} holds nothing under data/: the hub's ledgers are not in this git repository, so its "
                            "history proves nothing (commit data/, or audit the repository that holds it)")]
    dates = git.first_parent_dates(repo, head)
    since = start.commit if start is not None else None
    changes = effective_times(parse_log(git.first_parent_raw_log(repo, head, "data/", since)), dates)
    if since is not None:  # the pairs up to the start were checked by the walk that made it
        dates = dates[:next((i for i, (sha, _) in enumerate(dates) if sha == since), len(dates) - 1) + 1]
    boundary = git.shallow_commits(repo)
    # In a shallow clone the oldest commits show every file as added then; when a file was really
    # first committed is unknown, so those additions are not judged.
    with git.BlobReader(repo) as blobs:
        problems = file_problems(changes, blobs.read, lambda c: not (c.commit in boundary and c.status == "A"), attested, sealed, bot)
        problems += digest_problems(repo, changes, blobs.read, start.nights if start is not None else frozenset())
    problems += date_problems(dates) + hub_ledger_problems(changes, bot, boundary)
    replaced = git.replaced(repo)
    if replaced:
        problems.append(Problem(".git", None, None, "replace-refs",
                                f"{len(replaced)} replace ref(s) or a grafts file ({replaced[0]}): ignored, the commits were read "
                                "as their ids name them", "warning"))
    if boundary:
        problems.insert(0, Problem(".git", None, None, "shallow-clone",
                                   "this is a shallow clone: commits before its oldest one were not checked "
                                   "(clone with full history, e.g. actions/checkout fetch-depth: 0)", "warning"))
    return changes, problems


def shallow_boundary(repo: Path) -> set[str]:
    """The commits a shallow clone was cut at (empty for a full clone)."""
    return git.shallow_commits(repo)
