"""What the git history of the hub says: append-only ledgers kept, forecast files on time.

The history is read with two plumbing calls through ``submissions.gitdiff`` (the one module that
runs git): ``git log --first-parent --raw`` lists every commit of the branch with the blobs it
changed under ``data/``, and ``git cat-file --batch`` reads the ledger versions to compare.
Times are the commits' committer dates on the branch (a merge commit's own date, not the dates of
the pull request's commits). The checks, all pure over the parsed history:

- an append-only ledger (see ``APPEND_ONLY``) keeps every row: each commit's new version holds
  every line of the old version at least as often (old rows ⊆ new rows as a multiset of lines;
  ``store.ledger.append`` may re-sort a file, so order is not required); its header may not
  change silently (reported as a warning) and it may not be deleted;
- a forecast file of a round is not changed or deleted after the round's due time;
- a forecast file is not first committed after the round's due time, except the hub's own
  after-due forecasters (``forecasters.baselines.AFTER_DUE``), written after it by design.
"""

from __future__ import annotations

import fnmatch
import hashlib
import re
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from ..errors import Problem
from ..forecasters.baselines import AFTER_DUE
from ..schemas import ALL_TABLES
from ..submissions.gitdiff import _git, resolve_commit
from ..submissions.paths import FORECAST, classify
from ..timeutil import format_ts, parse_ts

APPEND_ONLY = tuple(re.sub(r"<[^>]+>", "*", t.path) for t in ALL_TABLES if t.mutability == "append-only")


@dataclass(frozen=True)
class FileChange:
    """One path changed by one commit: status A, M or D, and the blob ids before and after."""

    commit: str
    time: str  # committer date, ISO UTC
    status: str
    path: str
    old_blob: str
    new_blob: str


def history(repo: Path, rev: str = "HEAD") -> list[FileChange]:
    """Every change under ``data/`` along the first-parent line of ``rev``, oldest first."""
    head = resolve_commit(repo, rev)
    out = _git(repo, "log", "--first-parent", "--diff-merges=first-parent", "--reverse", "--no-renames",
               "--no-abbrev", "--raw", "-z", "--format=%x01%H %ct", head, "--", "data/")
    return parse_log(out)


def parse_log(out: bytes) -> list[FileChange]:
    changes = []
    for record in out.split(b"\x01")[1:]:
        header, _, body = record.partition(b"\0")
        sha, seconds = header.decode().split()
        when = format_ts(datetime.fromtimestamp(int(seconds), tz=timezone.utc))
        fields = body.lstrip(b"\n").split(b"\0")
        for meta, path in zip(fields[0::2], fields[1::2]):
            _old_mode, _new_mode, old_blob, new_blob, status = meta.decode().lstrip(":").split()
            changes.append(FileChange(sha, when, status[0], path.decode("utf-8", "surrogateescape"), old_blob, new_blob))
    return changes


def read_blobs(repo: Path, blobs: set[str]) -> dict[str, bytes]:
    """Blob id → bytes, all read by one ``git cat-file --batch``."""
    order = sorted(b for b in blobs if b.strip("0"))
    if not order:
        return {}
    out, found, pos = _git(repo, "cat-file", "--batch", stdin="".join(f"{b}\n" for b in order).encode()), {}, 0
    for blob in order:
        end = out.index(b"\n", pos)
        size = int(out[pos:end].split()[2])
        found[blob] = out[end + 1:end + 1 + size]
        pos = end + 2 + size
    return found


def blob_id(data: bytes, length: int = 40) -> str:
    """git's object id of a file's bytes (sha1, or sha256 in a sha256 repository)."""
    algorithm = hashlib.sha1 if length == 40 else hashlib.sha256
    return algorithm(b"blob %d\0" % len(data) + data).hexdigest()


def is_ledger(path: str) -> bool:
    return any(fnmatch.fnmatchcase(path, pattern) for pattern in APPEND_ONLY)


def ledger_problems(changes: list[FileChange], blobs: dict[str, bytes]) -> list[Problem]:
    problems = []
    for c in changes:
        if not is_ledger(c.path) or c.status == "A":
            continue
        if c.status == "D":
            problems.append(Problem(c.path, None, None, "ledger-deleted",
                                    f"commit {c.commit[:12]} ({c.time}) deleted an append-only ledger"))
            continue
        problems += _rewritten(c, blobs[c.old_blob], blobs[c.new_blob])
    return problems


def _rewritten(c: FileChange, old: bytes, new: bytes) -> list[Problem]:
    if new.startswith(old):  # the usual append: the old bytes, then new rows
        return []
    old_lines, new_lines = old.split(b"\n"), new.split(b"\n")
    if old_lines[0] != new_lines[0]:
        return [Problem(c.path, 1, None, "ledger-header-changed",
                        f"commit {c.commit[:12]} ({c.time}) changed the header; rows were not compared", "warning")]
    missing = Counter(line for line in old_lines[1:] if line) - Counter(new_lines[1:])
    if not missing:
        return []
    row = next(i for i, line in enumerate(old_lines) if i and missing.get(line))
    text = old_lines[row].decode("utf-8", "replace")[:120]
    return [Problem(c.path, row + 1, None, "ledger-row-rewritten",
                    f"commit {c.commit[:12]} ({c.time}) edited or deleted {sum(missing.values())} existing row(s); "
                    f"the first is {text!r}")]


def forecast_problems(changes: list[FileChange]) -> list[Problem]:
    problems = []
    for c in changes:
        target, errors = classify(c.path)
        if errors or target.kind != FORECAST or target.due is None:
            continue
        due = format_ts(parse_ts(target.due))
        if c.time <= due:
            continue
        if c.status in ("M", "D"):
            verb = "changed" if c.status == "M" else "deleted"
            problems.append(Problem(c.path, None, None, "forecast-changed-after-due",
                                    f"commit {c.commit[:12]} ({c.time}) {verb} it after the round's due time {due}"))
        elif target.model not in AFTER_DUE:
            problems.append(Problem(c.path, None, None, "forecast-committed-after-due",
                                    f"first committed by {c.commit[:12]} ({c.time}), after the round's due time {due}"))
    return problems


def committed_before(changes: list[FileChange], path: str, data: bytes, due: str) -> bool:
    """True when a commit before ``due`` added or changed ``path`` to exactly these bytes."""
    ids = {len(c.new_blob) for c in changes} or {40}
    wanted = {blob_id(data, n) for n in ids}
    return any(c.path == path and c.new_blob in wanted and c.time < due for c in changes)


def audit_history(repo: Path, rev: str = "HEAD") -> tuple[list[FileChange], list[Problem]]:
    """The history of ``rev`` and every problem in it."""
    changes = history(repo, rev)
    wanted = {b for c in changes if is_ledger(c.path) and c.status == "M" for b in (c.old_blob, c.new_blob)}
    boundary = shallow_boundary(repo)
    # In a shallow clone the oldest commits show every file as added then; when a file was really
    # first committed is unknown, so those additions are not judged.
    judged = [c for c in changes if not (c.commit in boundary and c.status == "A")]
    problems = ledger_problems(changes, read_blobs(repo, wanted)) + forecast_problems(judged)
    if boundary:
        problems.insert(0, Problem(".git", None, None, "shallow-clone",
                                   "this is a shallow clone: commits before its oldest one were not checked "
                                   "(clone with full history, e.g. actions/checkout fetch-depth: 0)", "warning"))
    return changes, problems


def shallow_boundary(repo: Path) -> set[str]:
    """The commits a shallow clone was cut at (empty for a full clone)."""
    if _git(repo, "rev-parse", "--is-shallow-repository").strip() != b"true":
        return set()
    shallow = Path(_git(repo, "rev-parse", "--git-path", "shallow").decode().strip())
    shallow = shallow if shallow.is_absolute() else repo / shallow
    return set(shallow.read_text(encoding="ascii").split()) if shallow.is_file() else set()
