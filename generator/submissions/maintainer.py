"""The maintainers' ledger in a pull request (``data/maintainer/actions.csv``, ``schemas.MAINTAINER_ACTIONS``):
its rows only appended, each naming a known question or model, with a reason, by a hub maintainer
(the pull request's author), taking effect after the last night the history recorded. The same checks
run in ``prescient void``, ``correct`` and ``exclude`` before they write (``check_rows``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..codes import problem
from ..errors import Problem
from ..schemas import CORRECT, EXCLUDE, MAINTAINER_ACTIONS
from ..store.csvio import UNREADABLE, check_frame, coerce, parse_bytes, why_unreadable
from .policy import is_maintainer

LEDGER = MAINTAINER_ACTIONS.path


@dataclass(frozen=True)
class Known:
    """What the hub holds when the rows are judged: question ids with their kind, model ids (those with
    metadata), ``[hub] maintainers`` and the latest night of the leaderboard history (empty: none yet)."""

    questions: dict[str, str]
    models: frozenset[str]
    maintainers: tuple[str, ...]
    last_night: str = ""


def read_rows(data: bytes, label: str = LEDGER) -> tuple[pd.DataFrame | None, list[Problem]]:
    """The ledger's rows, typed; None and the problems (``action-malformed``) when it does not read."""
    try:
        raw = parse_bytes(data, label)
    except UNREADABLE as exc:
        return None, [problem("action-malformed", label, None, None, why_unreadable(exc))]
    found = check_frame(raw, MAINTAINER_ACTIONS, label)
    if found:
        return None, [problem("action-malformed", label, p.row, p.column, p.message) for p in found[:20]]
    return coerce(raw, MAINTAINER_ACTIONS), []


def check_change(old: bytes | None, new: bytes | None, known: Known, author: str) -> list[Problem]:
    """A pull request's change of the ledger (``old``/``new``: its bytes at base and head, None when absent)."""
    if new is None:
        return [problem("action-rewritten", LEDGER, None, None, "the maintainers' ledger was deleted; it is append-only")]
    head, found = read_rows(new)
    if head is None:
        return found
    base = read_rows(old)[0] if old is not None else None
    before = set(_records(base)) if base is not None else set()
    rows = _records(head)
    lost = before - set(rows)
    if lost:
        return [
            problem(
                "action-rewritten",
                LEDGER,
                None,
                None,
                f"{len(lost)} row(s) of the base branch were changed or "
                "deleted; the maintainers' ledger is append-only: add rows, never edit them (a mistake is undone "
                "by a new row)",
            )
        ]
    added = [i for i, record in enumerate(rows) if record not in before]
    return check_rows(head, added, known, author)


def _records(frame: pd.DataFrame) -> list[tuple]:
    return list(frame.astype(str).itertuples(index=False, name=None))


def check_rows(rows: pd.DataFrame, positions: list[int], known: Known, author: str) -> list[Problem]:
    """The rows at ``positions`` of ``rows`` (as read: row i is line i + 2), written by ``author``."""
    out: list[Problem] = []
    if positions and not is_maintainer(author, known.maintainers):
        who = ", ".join(known.maintainers) or "nobody ([hub] maintainers in data/hub.toml is empty)"
        out.append(
            problem(
                "action-not-maintainer",
                LEDGER,
                positions[0] + 2,
                "by",
                f"@{author} is not a hub maintainer ({who}): only they void, correct or exclude",
            )
        )
    for i in positions:
        out += _row_problems(rows.iloc[i], i + 2, known, author)
    return out


def _row_problems(row: pd.Series, line: int, known: Known, author: str) -> list[Problem]:
    found, target, action = [], row["target"], row["action"]
    if not str(row["reason"]).strip():
        found.append(problem("action-no-reason", LEDGER, line, "reason", "give the reason, in a sentence: it is published"))
    if row["by"].lower() != author.lower():
        found.append(problem("action-not-maintainer", LEDGER, line, "by", f"the row says it is by @{row['by']}, but the pull request is @{author}'s"))
    kind = known.questions.get(target)
    if (target not in known.models) if action == EXCLUDE else kind is None:
        what = "model (no data/models/<model>.yml)" if action == EXCLUDE else "question (not in data/questions/)"
        found.append(problem("action-unknown-target", LEDGER, line, "target", f"{target!r} is not a known {what}"))
    outcome = row["outcome"]
    if action == CORRECT and (np.isnan(outcome) or not 0 <= outcome <= 1 or not row["resolved_at"]):
        found.append(problem("action-bad-outcome", LEDGER, line, "outcome", "a correction states an outcome in [0, 1] and its resolved_at"))
    elif action != CORRECT and (not np.isnan(outcome) or row["resolved_at"]):
        found.append(problem("action-bad-outcome", LEDGER, line, "outcome", f"{action} takes no outcome or resolved_at"))
    if action == CORRECT and kind == "dataset" and not row["resolution_date"]:
        found.append(problem("action-bad-outcome", LEDGER, line, "resolution_date", "a dataset question is corrected one resolution date at a time"))
    if action == EXCLUDE and row["resolution_date"]:
        found.append(problem("action-bad-outcome", LEDGER, line, "resolution_date", "an exclusion names no resolution date"))
    effective = row["effective_at"]
    if effective < row["recorded_at"] or (known.last_night and effective <= known.last_night):
        found.append(
            problem(
                "action-backdated",
                LEDGER,
                line,
                "effective_at",
                f"it takes effect at {effective}, "
                + (
                    f"at or before the night {known.last_night} the history already recorded"
                    if effective >= row["recorded_at"]
                    else f"before it was recorded ({row['recorded_at']})"
                )
                + ": no decision may change a past night; write it again with a later --from",
            )
        )
    return found


def known_in(tree, maintainers: tuple[str, ...]) -> Known:
    """``Known`` from a hub's files as ``tree`` (a ``store.git.GitTree``: the base commit) holds them."""
    questions: dict[str, str] = {}
    for name in tree.names("data/questions"):
        if name.endswith(".csv"):
            bank = _cells(tree, f"data/questions/{name}")
            if bank is not None and {"id", "kind"} <= set(bank.columns):
                questions.update(zip(bank["id"], bank["kind"], strict=True))
    models = frozenset(n.removesuffix(".yml") for n in tree.names("data/models") if n.endswith(".yml"))
    history = _cells(tree, "data/leaderboard/history.csv")
    last = str(history["as_of"].max()) if history is not None and "as_of" in history and len(history) else ""
    return Known(questions, models, maintainers, last)


def _cells(tree, path: str) -> pd.DataFrame | None:
    entry = tree.entry(path)
    if not entry or entry[0] != "file":
        return None
    try:
        return parse_bytes(tree.read(path), path)
    except UNREADABLE:
        return None
