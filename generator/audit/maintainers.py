"""``verify --git`` on the maintainers' ledger (``data/maintainer/actions.csv``): every commit that adds
rows to it is authored by a hub maintainer, every row it adds names one in ``by``, and takes effect after
the last night the history held (both as of the commit's first parent: no one lists themselves, or
dates a decision into a night, in the commit that adds it). That the ledger is only appended is the
append-only rule of ``audit.git`` (``ledger-row-rewritten``, ``ledger-row-deleted``).

Who made a commit, as far as the repository alone can say (issue 52). A commit's author name and
e-mail are written by whoever makes the commit, so the name proves nothing (``alice
<mallory@example.com>`` is refused). The commit that adds rows is taken to be a maintainer's when:

- a receipt (``data/receipts/``, written only by the hub's nightly from GitHub's API, never by a pull
  request) records a pull request whose head is that commit, or a parent it merged, and names a
  maintainer as the pull request's GitHub author: GitHub set that login, nobody else can;
- or its author e-mail is the GitHub no-reply address of a maintainer's login
  (``[ID+]LOGIN@users.noreply.github.com``, what GitHub writes into the commits its merge button and
  web editor make for an account that keeps its e-mail private), or an e-mail address that
  ``[hub] maintainers`` itself lists.

What this does not prove: an author e-mail, no-reply or not, can be typed by anyone, so the second
rule shows only that the commit claims a maintainer's GitHub identity. That the claim is true rests on
GitHub: branch protection (only accounts with write access put commits on main, a pull request needs a
code owner's review: ``.github/CODEOWNERS``), and on GitHub's signature of the commits it makes, which
this offline audit does not verify. ``@org/team`` entries cannot be resolved offline: list the
maintainers who decide by login."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path

from ..codes import reported
from ..errors import PrescientError, Problem
from ..schemas import MAINTAINER_ACTIONS
from ..store import git
from ..store.csvio import UNREADABLE, parse_bytes
from ..submissions.policy import is_maintainer
from .git import FileChange

LEDGER = MAINTAINER_ACTIONS.path
NOREPLY = "@users.noreply.github.com"


def maintainer_problems(repo: Path, changes: list[FileChange], read, authors: Mapping[str, str] | None = None) -> list[Problem]:
    """One problem per commit not authored by a maintainer, and per added row whose ``by`` is none or
    that is backdated; ``read(blob)`` gives a blob's bytes or None; ``authors``: a pull request's head
    commit → its GitHub author, as the receipts record them."""
    authors = authors or {}
    problems: list[Problem] = []
    for c in changes:
        if c.path != LEDGER or c.status not in "AM":
            continue
        added = _added(read(c.old_blob) if c.status == "M" else None, read(c.new_blob))
        if not added:
            continue
        parent = git.first_parent(repo, c.commit)
        maintainers, last = _before(repo, parent)
        name, email = git.commit_author(repo, c.commit)
        heads = [c.commit, *git.parents(repo, c.commit)[1:]]  # the commit itself, or the pull request it merged
        claimed = _logins(email) + [authors[h] for h in heads if h in authors]
        if not any(is_maintainer(who, maintainers) for who in claimed):
            problems.append(reported("maintainer-commit-unauthorized", c.path, None, None,
                                     f"{c.where} added {len(added)} row(s) and is authored by {name} <{email}>: neither a "
                                     f"receipt of its pull request nor its e-mail names a hub maintainer "
                                     f"({', '.join(maintainers) or 'none listed'}); a commit's author name proves nothing"))
        for row in added:
            if not is_maintainer(row.get("by", ""), maintainers):
                problems.append(reported("maintainer-commit-unauthorized", c.path, None, "by",
                                         f"{c.where} added a row by @{row.get('by', '')}, not a hub maintainer"))
            if last and row.get("effective_at", "") <= last:
                problems.append(reported("maintainer-action-backdated", c.path, None, "effective_at",
                                         f"{c.where} added a {row.get('action')} of {row.get('target')} effective "
                                         f"{row.get('effective_at')}, not after the night {last} its history already held"))
    return problems


def _added(old: bytes | None, new: bytes | None) -> list[dict[str, str]]:
    """The rows of ``new`` that ``old`` does not hold (none when ``new`` does not parse)."""
    rows = _rows(new)
    before = {tuple(sorted(r.items())) for r in _rows(old)}
    return [r for r in rows if tuple(sorted(r.items())) not in before]


def _rows(data: bytes | None) -> list[dict[str, str]]:
    if data is None:
        return []
    try:
        return parse_bytes(data, LEDGER).to_dict("records")
    except UNREADABLE:
        return []


def _before(repo: Path, parent: str | None) -> tuple[tuple[str, ...], str]:
    """``[hub] maintainers`` and the latest night of the history in ``parent`` (none and "" without one)."""
    if parent is None:
        return (), ""
    tree = git.GitTree(repo, parent)
    try:
        hub = tomllib.loads(tree.read("data/hub.toml").decode("utf-8")).get("hub", {})
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, PrescientError):
        hub = {}
    maintainers = tuple(m for m in hub.get("maintainers", []) if isinstance(m, str))
    history = _rows(tree.read("data/leaderboard/history.csv")) if tree.entry("data/leaderboard/history.csv") else []
    return maintainers, max((r.get("as_of", "") for r in history), default="")


def _logins(email: str) -> list[str]:
    """Who a commit's author e-mail claims to be: the login of a GitHub no-reply e-mail, and the e-mail
    itself (``[hub] maintainers`` may list e-mail addresses). Never the author's name."""
    if email.lower().endswith(NOREPLY):
        return [email[: -len(NOREPLY)].rpartition("+")[2], email]
    return [email] if "@" in email else []
