"""The checkpointed ``verify --git``: a pull request's audit starts where the last nightly's full audit ended.

The full walk (``audit.git.audit_history`` from the first commit) reads every commit of the hub's life;
its cost grows with the history, and a pull request's required check runs it each time. Yet almost all
of it was already read, with the same rules, by the nightly before. So the nightly runs the full walk
(``verify --git --full --record-checkpoint``) and, when it finds no error, appends a row to
``data/metadata/checkpoints.csv`` naming the audited commit C (the night's own), its ``data/`` tree id and
date, the rules' version and the digest of the code that recomputed C's derived files; the bot commits the
row onto the default branch. ``verify --git`` then starts from the newest checkpoint it can check and judges
only the commits after C, the pull request's included (and recomputes only what they can affect: ``audit.scope``).

**Why the store is a ledger in ``data/``.** A git note or ref would live outside the history it vouches
for: a clone does not fetch it by default, a force-push replaces it without a trace, and nothing says who
wrote it. A row in a hub-written ledger is carried by every clone, is itself audited like any other
(append-only: ``ledger-row-rewritten``; only the hub's bot outside merges: ``hub-ledger-edited``), and
validate refuses a pull request that touches ``data/metadata/``.

**Why a pull request cannot choose what counts.** A row is trusted only when all of this holds, checked
each time from the repository itself, never from the row's word:

- C is on the first-parent line of the audited commit (a checkpoint of a branch that is not the default
  branch's line, or of a pull request's own commits, is not);
- the row was added by a commit after C on that line, a non-merge commit whose committer is the hub's
  bot: a pull request's merge adds nothing that counts, so a checkpoint must be in the base branch
  before the pull request. The bot is the one the hub was set up with (``bot.hub_bot``: ``[hub] bot_email``
  as data/hub.toml stood in the first commit of the line that wrote a file only the hub writes), never
  one named by C or a later commit: a branch pushed to main by hand that names its own bot in its own
  hub.toml and adds a row naming its own commit is refused (that bot is not the hub's), and so is every
  change it made to the hub's records (``hub-ledger-edited``, in both walks);
- C's ``data/`` tree id and committer date are the row's (a row edited to name another commit — moved —
  does not match it), and its ``audit_version`` is this code's (a new rule sees the whole history once);
- the checkpoints file at the audited commit parses. Otherwise — a forged, moved or unreadable row, a
  missing bot — nothing is trusted and the whole history is walked: the first line says why.

A rewrite of history before C changes every later commit id, so C is no longer on the line and the walk
is full. What the walk carries past C is either in each later change (a ledger's old version is the
parent's blob; an addition is an addition against the parent; a round file changed is changed against
it) or recomputed: the dates are read whole (cheap, no diff), and the nights whose digests were checked
are those of history.csv in C. Every rule therefore finds after C exactly what the full walk finds there
(``tests/audit/test_checkpoint.py`` runs every tamper case of the suite both ways). What the checkpoint
cannot repeat is a warning about the commits before C (a shallow-clone or an unchecked receipt of an
old night): the row counts them, and the nightly's full walk reports them.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from datetime import UTC, datetime

import pandas as pd

from ..errors import PrescientError
from ..schemas import AUDIT_CHECKPOINTS
from ..store import checkpoints, git
from ..store.cache.disk import code_digest
from ..store.csvio import UNREADABLE
from ..timeutil import format_ts
from .bot import hub_bot
from .changes import FileChange, parse_log
from .digests import digested_nights_at
from .git import Start
from .ledgers import records

AUDIT_VERSION = 1  # bump when a rule of audit.git, audit.seals or audit.maintainers changes what it finds
PATH = checkpoints.PATH


@dataclass(frozen=True)
class Found:
    """The answer of ``find``: the start to walk from (None: walk the whole history) and why, in a phrase."""

    start: Start | None
    why: str
    warnings: int = 0  # the warnings the full walk reported up to the start
    code: str = ""  # the code digest of the run that recomputed the start's derived files ("": not recorded)
    recorded_at: str = ""  # that run's as_of


def find(repo, head: str, bot: str | None = None) -> Found:
    """The newest checkpoint of ``head``'s history that can be trusted (see the module's rules), or why none.
    ``bot``: the hub's bot (default: ``hub_bot(repo, head)``)."""
    try:
        data = git.GitTree(repo, head).read(PATH) if git.GitTree(repo, head).entry(PATH) else None
        if data is None:
            return Found(None, "no checkpoint recorded")
        checkpoints.parse_checkpoints(data)  # the schema's check: a row of the wrong shape is refused whole
        columns, rows = records(data)
    except (PrescientError, ValueError, *UNREADABLE) as exc:
        return Found(None, f"{PATH} does not parse ({str(exc).splitlines()[0][:120]}): no checkpoint trusted")
    line = git.first_parent_dates(repo, head)
    position = {sha: i for i, (sha, _) in enumerate(line)}
    field = {name: columns.index(name) for name in columns}
    on_line = [r for r in rows if position.get(r[field["commit"]], 0) > 0]
    if not on_line:
        return Found(None, "no checkpoint on the first-parent line")
    current = [r for r in on_line if r[field["audit_version"]] == str(AUDIT_VERSION)]
    if not current:
        return Found(None, f"no checkpoint of audit version {AUDIT_VERSION} (the rules changed since)")
    row = min(current, key=lambda r: position[r[field["commit"]]])
    commit = row[field["commit"]]
    refused = _refused(repo, head, commit, line[position[commit]][1], row, columns, field, hub_bot(repo, head) if bot is None else bot)
    if refused:
        return Found(None, f"checkpoint {commit[:12]} refused: {refused}")
    digest = row[field["code"]] if "code" in field else ""  # the recomputing code's (a row older than the column: none)
    return Found(
        Start(commit, digested_nights_at(repo, commit)),
        f"from checkpoint {commit[:12]} ({row[field['committed_at']]}), the full audit recorded at {row[field['recorded_at']]}",
        int(row[field["warnings"]] or 0),
        digest,
        row[field["recorded_at"]],
    )


def _refused(repo, head: str, commit: str, seconds: int, row: tuple, columns: tuple, field: dict, bot: str) -> str:
    """Why the row naming ``commit`` cannot be trusted ("" when it can); ``bot``: the hub's (``hub_bot``)."""
    if row[field["committed_at"]] != _ts(seconds):
        return f"it gives the commit's date as {row[field['committed_at']]}, the commit says {_ts(seconds)}"
    tree = git.tree_id(repo, commit, "data")
    if row[field["data_tree"]] != tree:
        return f"it vouches for data/ tree {row[field['data_tree']][:12]}, the commit holds {tree[:12] or 'none'}"
    adder = _adder(repo, head, commit, row, columns)
    if adder is None:
        return "no commit after it on the first-parent line added the row"
    if adder.status == "E":
        return f"the row came with {adder.where}, which edited or removed rows before it (a moved checkpoint)"
    if adder.parents > 1:
        return f"the row was added by {adder.where}, a merge (a pull request's), not the hub's nightly"
    if adder.committer != bot:
        return f"the row was added by {adder.where}, committed by {adder.committer or 'nobody'}, not the hub's bot ({bot})"
    return ""


def _adder(repo, head: str, commit: str, row: tuple, columns: tuple) -> FileChange | None:
    """The first commit after ``commit`` on the first-parent line whose checkpoints file holds ``row``."""
    changes = parse_log(git.first_parent_raw_log(repo, head, PATH, since=commit))
    with git.BlobReader(repo) as blobs:
        for c in changes:
            data = blobs.read(c.new_blob) if c.path == PATH and c.status in "AM" else None
            if data is None:
                continue
            try:
                version_columns, version_rows = records(data)
            except ValueError:
                continue
            if version_columns == columns and row in version_rows:
                return (
                    c if _appended_to(blobs.read(c.old_blob) if c.status == "M" else b"", columns, version_rows) else replace(c, status="E")
                )  # the row came with an edit of the rows before it: moved, not recorded
    return None


def _appended_to(old: bytes | None, columns: tuple, new_rows: list[tuple]) -> bool:
    """Every record of ``old`` is still in ``new_rows`` (the change only added rows; a file written
    before a late column of the table was added may gain it, its old rows empty there)."""
    try:
        old_columns, old_rows = records(old or b"")
    except ValueError:
        return False
    extra = columns[len(old_columns) :]
    if old_columns and (columns[: len(old_columns)] != old_columns or any(c not in AUDIT_CHECKPOINTS.late for c in extra)):
        return False
    padded = [row + ("",) * len(extra) for row in old_rows] if old_columns else old_rows
    return not Counter(padded) - Counter(new_rows)


def row_for(repo, commit: str, as_of: str, commits: int, warnings: int) -> pd.DataFrame:
    """The checkpoint row of a full walk of ``commit`` that found no error."""
    seconds = int(git.run_git(repo, "show", "-s", "--format=%ct", commit).decode().strip())
    return pd.DataFrame(
        [
            {
                "recorded_at": as_of,
                "commit": commit,
                "committed_at": _ts(seconds),
                "data_tree": git.tree_id(repo, commit, "data"),
                "commits": commits,
                "warnings": warnings,
                "audit_version": AUDIT_VERSION,
                "code": code_digest(),
            }
        ],
        columns=list(AUDIT_CHECKPOINTS.names),
    )


def needed(repo, commit: str, recorded: pd.DataFrame) -> bool:
    """False when ``commit`` already has a row, or when nothing but the checkpoints file changed under
    data/ since the newest row's commit (a quiet night needs no new commit only to record a checkpoint)."""
    if recorded.empty:
        return True
    if commit in set(recorded["commit"].astype(str)):
        return False
    latest = str(recorded.sort_values(["recorded_at", "commit"], kind="mergesort")["commit"].iloc[-1])
    try:
        changed = git.run_git(repo, "diff", "--name-only", "-z", "--no-renames", latest, commit, "--", "data/")
    except PrescientError:
        return True  # the newest row's commit is not in this clone
    return [p for p in changed.decode("utf-8", "surrogateescape").split("\0") if p] != [PATH]


def _ts(seconds: int) -> str:
    return format_ts(datetime.fromtimestamp(seconds, tz=UTC))
