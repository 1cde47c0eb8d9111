"""``verify --git`` on the maintainers' ledger (``data/maintainer/actions.csv``): every commit that adds
rows to it is a hub maintainer's (below), every row it adds names one in ``by`` (``[hub] maintainers``
as of the commit's first parent: no one lists themselves in the commit that adds the row), and each row
acts only after the last night the history held when it reached main (its first parent's history). A
row whose ``effective_at`` is after that night acts from it; one checked before a night and merged
after it acts from the first night after the merge, as the nightly that took it up recorded in
``data/metadata/decisions.csv`` (``store.maintainer.take_up``; written only by the hub's nightly, so
``audit.git`` refuses anyone else's change to it): the record must say exactly that, or the row is
``maintainer-action-backdated``; before any night has taken it up it is ``maintainer-action-pending``,
a warning. On a hub whose head has no such record (before 0.14) every row must be on time. That the
ledger is only appended is the append-only rule of ``audit.git`` (``ledger-row-rewritten``,
``ledger-row-deleted``).

Who made a commit, as far as the repository alone can say. A commit's author name and
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

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..codes import reported
from ..errors import Problem
from ..schemas import DECISIONS_TAKEN, HISTORY, MAINTAINER_ACTIONS
from ..store import git
from ..store.csvio import UNREADABLE, parse_bytes
from ..submissions.policy import is_maintainer
from .changes import FileChange

LEDGER = MAINTAINER_ACTIONS.path
NOREPLY = "@users.noreply.github.com"


def maintainer_problems(repo: Path, changes: list[FileChange], read, authors: Mapping[str, str] | None = None) -> list[Problem]:
    """One problem per commit not authored by a maintainer, and per added row whose ``by`` is none or
    that is backdated; ``read(blob)`` gives a blob's bytes or None; ``authors``: a pull request's head
    commit → its GitHub author, as the receipts record them."""
    authors = authors or {}
    problems: list[Problem] = []
    taken: Taken | None | bool = False  # read once, when a commit added rows
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
            problems.append(
                reported(
                    "maintainer-commit-unauthorized",
                    c.path,
                    None,
                    None,
                    f"{c.where} added {len(added)} row(s) and is authored by {name} <{email}>: neither a "
                    f"receipt of its pull request nor its e-mail names a hub maintainer "
                    f"({', '.join(maintainers) or 'none listed'}); a commit's author name proves nothing",
                )
            )
        if taken is False:
            taken = Taken.at(repo, changes[-1].commit)
        for row in added:
            if not is_maintainer(row.get("by", ""), maintainers):
                problems.append(
                    reported(
                        "maintainer-commit-unauthorized", c.path, None, "by", f"{c.where} added a row by @{row.get('by', '')}, not a hub maintainer"
                    )
                )
            problems += _timing(c, row, last, taken if isinstance(taken, Taken) else None)
    return problems


@dataclass(frozen=True)
class Taken:
    """The nightly's record of when each decision acts (``schemas.DECISIONS_TAKEN``) and the nights the
    history holds, both as stored in the audited head."""

    effective: Mapping[tuple[str, ...], str]
    nights: tuple[str, ...]

    @classmethod
    def at(cls, repo: Path, commit: str) -> Taken | None:
        """None when the head holds no taken ledger (a hub before 0.14: each decision acts from its own time)."""
        tree = git.GitTree(repo, commit)
        if not tree.entry(DECISIONS_TAKEN.path):
            return None
        rows = _rows(tree.read(DECISIONS_TAKEN.path), DECISIONS_TAKEN.path)
        history = _rows(tree.read(HISTORY.path), HISTORY.path) if tree.entry(HISTORY.path) else []
        return cls({_key(r): r.get("effective_at", "") for r in rows}, tuple(sorted({r.get("as_of", "") for r in history})))

    def first_night_after(self, last: str) -> str | None:
        return next((n for n in self.nights if n > last), None)


def _key(row: dict[str, str]) -> tuple[str, ...]:
    return tuple(str(row.get(k, "")) for k in MAINTAINER_ACTIONS.key)


def _timing(c: FileChange, row: dict[str, str], last: str, taken: Taken | None) -> list[Problem]:
    """A decision acts after the last night its history held when it reached main (``last``): from its own
    ``effective_at`` when that is after it; else from the first night after it, as the nightly that took
    it up recorded (a decision checked before a night and merged after it). Before any night
    has taken it up, a late one is a warning (``maintainer-action-pending``)."""
    effective, what = row.get("effective_at", ""), f"a {row.get('action')} of {row.get('target')}"
    if not last or (taken is None and effective > last):
        return []
    if taken is None:
        return [
            reported(
                "maintainer-action-backdated",
                c.path,
                None,
                "effective_at",
                f"{c.where} added {what} effective {effective}, not after the night {last} its history already held",
            )
        ]
    first = taken.first_night_after(last)
    acts = taken.effective.get(_key(row))
    if acts is None:
        if effective > last:
            return []  # on time; the next nightly records it
        if first is None:
            return [
                reported(
                    "maintainer-action-pending",
                    c.path,
                    None,
                    "effective_at",
                    f"{c.where} added {what} effective {effective}, not after the night {last} the history held when it "
                    "reached main: the next nightly takes it up as of its own night",
                )
            ]
        return [
            reported(
                "maintainer-action-backdated",
                c.path,
                None,
                "effective_at",
                f"{c.where} added {what} effective {effective}, not after the night {last}, and the night {first} "
                f"did not take it up ({DECISIONS_TAKEN.path})",
            )
        ]
    if (acts == effective and effective > last) or acts == first:
        return []
    return [
        reported(
            "maintainer-action-backdated",
            DECISIONS_TAKEN.path,
            None,
            "effective_at",
            f"{what} added by {c.where} is recorded to act from {acts}; it reached main after the night {last}, so it "
            f"acts from {effective if effective > last else first}",
        )
    ]


def _added(old: bytes | None, new: bytes | None) -> list[dict[str, str]]:
    """The rows of ``new`` that ``old`` does not hold (none when ``new`` does not parse)."""
    rows = _rows(new)
    before = {tuple(sorted(r.items())) for r in _rows(old)}
    return [r for r in rows if tuple(sorted(r.items())) not in before]


def _rows(data: bytes | None, label: str = LEDGER) -> list[dict[str, str]]:
    if data is None:
        return []
    try:
        return parse_bytes(data, label).to_dict("records")
    except UNREADABLE:
        return []


def _before(repo: Path, parent: str | None) -> tuple[tuple[str, ...], str]:
    """``[hub] maintainers`` and the latest night of the history in ``parent`` (none and "" without one)."""
    if parent is None:
        return (), ""
    tree = git.GitTree(repo, parent)
    maintainers = git.hub_maintainers(tree)
    history = _rows(tree.read(HISTORY.path), HISTORY.path) if tree.entry(HISTORY.path) else []
    return maintainers, max((r.get("as_of", "") for r in history), default="")


def _logins(email: str) -> list[str]:
    """Who a commit's author e-mail claims to be: the login of a GitHub no-reply e-mail, and the e-mail
    itself (``[hub] maintainers`` may list e-mail addresses). Never the author's name."""
    if email.lower().endswith(NOREPLY):
        return [email[: -len(NOREPLY)].rpartition("+")[2], email]
    return [email] if "@" in email else []
