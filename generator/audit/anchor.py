"""``verify --git --anchor COMMIT``: everything published as of a commit a reader kept is unchanged now.

Inside one repository nothing proves that a whole history was not rewritten: a rewrite of every commit
(``git filter-branch``) leaves a history that passes every rule of ``audit.git``. What a reader can keep
is an **anchor**: the commit id a page of the site named when they read it (each page's footer names the
last commit that changed ``data/`` when it was built, and ``/api/index.json`` gives it as ``data_commit``).
From that id one command proves, against the audited head:

- the anchor is in this repository (``anchor-unknown`` otherwise: a rewritten history no longer holds it,
  or this clone never fetched it) and is an ancestor of the head (``anchor-not-ancestor``: the history
  since it was rewritten, or it is another branch's);
- every append-only ledger of the anchor (history.csv's published rows among them) still holds each of
  its records at the head, by the rule of ``audit.ledgers`` (``ledger-row-rewritten``,
  ``ledger-row-deleted``, ``ledger-header-changed`` name the file and the anchor's row), and none is gone
  (``ledger-deleted``); every file of a round published by then is byte for byte the same
  (``round-changed``, ``round-deleted``). The two trees are compared directly, so the row is named even
  when the anchor is no longer an ancestor (a clone or an archive that still holds the old commits);
- when it is an ancestor, ``verify`` walks the history from the anchor (``audit.git.audit_history`` with
  the anchor as its start, as from a checkpoint): every commit since is judged by the full walk's rules,
  so the ledgers were only appended to at every step, not only between the two ends.

Cost: ``git diff-tree`` of the two commits lists only the paths changed since the anchor, each compared
once (an appended ledger as a prefix of bytes), and the walk reads only the commits after it; nothing
reads the commits before the anchor, so the time grows with what happened since, not with the nights
before it (``benchmarks/bench_anchor.py``). What the anchor cannot prove is that its own commit was
honest: that is what the audit at the time it was published (the nightly's full walk) said.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import PrescientError, Problem
from ..schemas import Table
from ..store import git
from .changes import FileChange, parse_log
from .checkpoint import Found
from .digests import digested_nights_at
from .git import REGULAR, Start, is_frozen, ledger_table
from .ledgers import ledger_rewrites


@dataclass(frozen=True)
class Anchored:
    """What ``check`` found: where the git walk may start (None: not from the anchor), the problems, a note."""

    start: Found | None
    problems: list[Problem]
    note: str
    commit: str = ""  # the anchor's full id ("" when it is not in the repository)


@dataclass(frozen=True)
class _AgainstAnchor(FileChange):
    """A path's change from the anchor to the head, worded as such in the rules' messages."""

    anchor: str = ""

    @property
    def where(self) -> str:
        return f"the head {self.commit[:12]}, against the anchor {self.anchor[:12]},"


def check(repo: Path, anchor: str, head: str) -> Anchored:
    """Prove ``anchor`` (a commit id or ref) an ancestor of ``head`` (a full id) and its ledgers' records
    and round files unchanged at ``head`` (see the module)."""
    try:
        commit = git.resolve_commit(repo, anchor)
    except PrescientError:
        return Anchored(
            None,
            [
                Problem(
                    ".git",
                    None,
                    None,
                    "anchor-unknown",
                    f"the anchor {anchor} is not a commit of this repository: the history was rewritten since it was "
                    f"published, or this clone lacks it (git fetch origin {anchor}); nothing published as of it can be checked",
                )
            ],
            "the anchor is not in this repository",
        )
    problems = _changed_since(repo, commit, head)
    ancestor = is_ancestor(repo, commit, head)
    if not ancestor:
        problems.insert(
            0,
            Problem(
                ".git",
                None,
                None,
                "anchor-not-ancestor",
                f"the anchor {commit[:12]} is not an ancestor of the audited head {head[:12]}: the history since it was "
                "rewritten (or it is another branch's commit); the differences below are between the two trees",
            ),
        )
    changed = len({p.file for p in problems if p.file != ".git"})
    note = f"anchor {commit[:12]}: " + ("an ancestor of the head" if ancestor else "NOT an ancestor of the head")
    note += f"; {changed} of its ledger or round file(s) changed other than by appending" if changed else "; its ledgers only appended to since"
    start = Found(Start(commit, digested_nights_at(repo, commit)), f"from the anchor {commit[:12]} (--anchor)") if ancestor else None
    return Anchored(start, problems, note, commit)


def is_ancestor(repo: Path, commit: str, head: str) -> bool:
    """True when ``commit`` is ``head`` or one of its ancestors."""
    try:
        return git.run_git(repo, "merge-base", commit, head).decode().strip() == commit
    except PrescientError:  # no common ancestor at all
        return False


def _changed_since(repo: Path, anchor: str, head: str) -> list[Problem]:
    """Every ledger record and round file of ``anchor`` that ``head`` no longer holds as it was."""
    out = git.run_git(repo, "diff-tree", "-r", "-z", "--no-renames", "--no-abbrev", "--no-ext-diff", "--no-textconv", anchor, head, "--", "data/")
    # diff-tree's raw records are those of ``git log --raw``; parse_log reads them under a header line of its form
    header = f"\x01{head} 0\0".encode()
    changes = [
        _AgainstAnchor(c.commit, "", c.status, c.path, c.old_blob, c.new_blob, c.old_mode, c.new_mode, anchor=anchor)
        for c in parse_log(header + out)
        if c.status != "A"  # a path the anchor did not hold: nothing of it was published then
    ]
    problems: list[Problem] = []
    with git.BlobReader(repo) as blobs:
        for c in changes:
            table = ledger_table(c.path)
            if table is not None:
                problems += _ledger(c, table, blobs.read)
            elif is_frozen(c.path):
                problems += _frozen(c)
    return sorted(problems, key=Problem.sort_key)


def _ledger(c: FileChange, table: Table, read) -> list[Problem]:
    if c.status == "D" or c.new_mode not in REGULAR:
        return [Problem(c.path, None, None, "ledger-deleted", f"{c.where} no longer holds this append-only ledger")]
    old, new = read(c.old_blob), read(c.new_blob)
    if old is None or new is None:
        missing = c.old_blob if old is None else c.new_blob
        return [Problem(c.path, None, None, "git-object-missing", f"{c.where}: blob {missing} is not in this repository")]
    return ledger_rewrites(c, table, old, new)


def _frozen(c: FileChange) -> list[Problem]:
    if c.status == "D":
        return [Problem(c.path, None, None, "round-deleted", f"{c.where} no longer holds this file of a published round")]
    return [Problem(c.path, None, None, "round-changed", f"{c.where} holds other bytes for this file of a published round, which is frozen")]
