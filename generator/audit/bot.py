"""Who the hub's bot is, and what only it may change (DESIGN.md §6 "The trust model").

Every path only the hub writes (``submissions.paths.hub_written``: the sources' records, rounds, scores,
history, manifest, receipts, seals, checkpoints, news, the run logs under ``data/llm/``, the hub's own
``<own>.*`` files) is changed only by the bot's own commits on the first-parent line: a merge (a pull
request's) or a commit by another committer that changes one is ``hub-ledger-edited``
(``hub_ledger_problems``).

**The bot** is ``[hub] bot_email`` as ``data/hub.toml`` stood in the first commit of the line that wrote
such a path (``hub_bot``): the hub's first nightly, or the oldest commit of a shallow clone. Until that
run the maintainers may set it; from then on it is fixed by history an earlier audit covered. It is never
the bot a later commit's ``hub.toml`` names, so a branch pushed to main by hand cannot name itself the bot:
neither its changes to the hub's records nor a checkpoint row it adds (``audit.checkpoint``) pass. A hub's
first commit (``prescient init``, ``prescient demo``) holds ``data/hub.toml`` and no hub-written path.
**The hub's own prefix** (``[hub] own_prefix``, whose files are the hub's own forecasters') is read the same
way, from the same commit (``hub_own``): a later edit of ``hub.toml`` cannot make the hub's files a team's,
or a team's the hub's; a head whose ``hub.toml`` names another is ``own-prefix-changed``.
A hub whose bot really changes is audited as changed by someone else (the audit cannot tell that change
from a hand-pushed one); the Methodology page says so.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from ..config import BOT_EMAIL
from ..errors import Problem
from ..models import DEFAULT_OWN
from ..store import git
from ..submissions.paths import HUB_RECORDS, is_hub_written


class Change(Protocol):
    """What the rule reads of one changed path (``audit.changes.FileChange``)."""

    @property
    def commit(self) -> str: ...
    @property
    def path(self) -> str: ...
    @property
    def committer(self) -> str: ...
    @property
    def parents(self) -> int: ...
    @property
    def where(self) -> str: ...


def hub_bot(repo, head: str) -> str:
    """The hub's bot: ``[hub] bot_email`` in the first commit of ``head``'s first-parent line that wrote a
    record only the hub writes; ``head``'s own when no commit did yet (a hub with no records)."""
    return bot_at(repo, first_run(repo, head))


def hub_own(repo, head: str) -> str:
    """The hub's own prefix: ``[hub] own_prefix`` in the same commit as ``hub_bot``'s (its default when unset)."""
    return git.hub_own_prefix(git.GitTree(repo, first_run(repo, head)))


def first_run(repo, head: str) -> str:
    """The first commit of ``head``'s first-parent line that wrote one of the hub's records (``HUB_RECORDS``,
    whatever its prefix: the hub's first nightly), or ``head`` when none did yet."""
    specs = [f":(glob){pattern}" for pattern in HUB_RECORDS]
    first = git.run_git(repo, "rev-list", "--first-parent", "--reverse", head, "--", *specs).split(b"\n", 1)[0].strip()
    return first.decode() if first else head


def own_prefix_problems(repo, head: str, own: str) -> list[Problem]:
    """``own-prefix-changed`` when ``head``'s data/hub.toml names another ``[hub] own_prefix`` than ``own``, the one
    the hub's first nightly ran under (``hub_own``)."""
    now = git.hub_own_prefix(git.GitTree(repo, head))
    if now == own:
        return []
    return [
        Problem(
            "data/hub.toml",
            None,
            "hub.own_prefix",
            "own-prefix-changed",
            f"[hub] own_prefix is {now!r} at {head[:12]}, but the hub's first nightly ran under {own!r}: the hub's own "
            f"forecasters are {own}.* for good (a change would make its files a team's, or a team's the hub's); put it back",
        )
    ]


def bot_at(repo, commit: str) -> str:
    """``[hub] bot_email`` as ``commit`` holds data/hub.toml (its default when unset)."""
    hub = git.hub_table(git.GitTree(repo, commit))
    if hub is None:
        return ""
    bot = hub.get("bot_email", BOT_EMAIL)
    return bot if isinstance(bot, str) else ""


def hub_ledger_problems(
    changes: Iterable[Change], bot: str, boundary: frozenset[str] | set[str] = frozenset(), own: str = DEFAULT_OWN
) -> list[Problem]:
    """One problem per commit that changed a path only the hub writes (its own forecasters' files: ``<own>.*``)
    and is a merge, or not committed by ``bot`` ("": only merges are refused). ``boundary``: a shallow clone's
    oldest commits, which show every file as added and are not judged (the walk says so)."""
    problems, seen = [], set()
    for c in changes:
        if c.commit in seen or c.commit in boundary or not is_hub_written(c.path, own):
            continue
        why = (
            "is a merge (a pull request's)"
            if c.parents > 1
            else f"was committed by {c.committer or 'nobody'}, not the hub ({bot})"
            if bot and c.committer != bot
            else ""
        )
        if why:
            seen.add(c.commit)
            problems.append(Problem(c.path, None, None, "hub-ledger-edited", f"{c.where} changed it and {why}"))
    return problems
