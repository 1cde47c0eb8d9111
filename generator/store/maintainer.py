"""The maintainers' ledger (``data/maintainer/actions.csv``, ``schemas.MAINTAINER_ACTIONS``) and what it
means for scoring: a ``void`` or ``correct`` row is a stated resolution recorded at its ``effective_at``
(``statements``), an ``exclude`` row takes a model off the boards of every night from its
``effective_at`` on (``excluded``). Both are pure functions of the ledger and a time, so a night's
boards are fixed by what the ledger said by then and ``prescient verify`` recomputes them alike."""

from __future__ import annotations

import dataclasses

import pandas as pd

from ..models import ModelMeta
from ..schemas import CORRECT, EXCLUDE, MAINTAINER_ACTIONS, RESOLUTIONS, VOID
from . import ledger
from .csvio import coerce, empty_frame
from .hub import Hub


def load_actions(hub: Hub) -> pd.DataFrame:
    """Every row of the maintainers' ledger; empty when the hub has none."""
    path = hub.layout.maintainer_actions
    return hub.cache.read_table(path, MAINTAINER_ACTIONS, hub.layout.relative(path)) if path.is_file() \
        else empty_frame(MAINTAINER_ACTIONS)


def append(hub: Hub, rows: pd.DataFrame) -> str:
    """Append ``rows`` (the caller holds the hub lock); return the ledger's path relative to the hub."""
    layout = hub.layout
    ledger.append(layout.maintainer_actions, rows, MAINTAINER_ACTIONS, layout.relative(layout.maintainer_actions), hub.cache)
    return layout.relative(layout.maintainer_actions)


def statements(actions: pd.DataFrame, dates: dict[str, list[str]]) -> pd.DataFrame:
    """The ``void`` and ``correct`` rows as stated resolutions (``schemas.RESOLUTIONS``) of every round
    (``round`` empty), each recorded at its ``effective_at``. A ``void`` without a resolution date
    covers every resolution date ``dates`` knows for the question (its rounds' units; a market's is
    empty). Empty when there is none."""
    rows = []
    for a in actions[actions["action"].isin([VOID, CORRECT])].itertuples(index=False):
        void = a.action == VOID
        for date in ([a.resolution_date] if a.resolution_date or not void else dates.get(a.target) or [""]):
            rows.append({"round": "", "question_id": a.target, "resolution_date": date, "recorded_at": a.effective_at,
                         "status": "void" if void else "resolved", "outcome": "" if void else a.outcome,
                         "resolved_at": "" if void else a.resolved_at, "value": "", "payload_sha256": ""})
    if not rows:
        return empty_frame(RESOLUTIONS)
    return coerce(pd.DataFrame(rows, columns=list(RESOLUTIONS.names)).astype(str).replace("nan", ""), RESOLUTIONS)


def excluded(actions: pd.DataFrame, as_of: str) -> dict[str, str]:
    """The models excluded from the boards at ``as_of``: model → the ``effective_at`` of its exclusion."""
    if actions.empty:  # most hubs, most nights
        return {}
    rows = actions[(actions["action"] == EXCLUDE) & (actions["effective_at"] <= as_of)]
    return dict(sorted(rows.groupby("target")["effective_at"].min().items()))


def with_exclusions(models: dict[str, ModelMeta], actions: pd.DataFrame, as_of: str) -> dict[str, ModelMeta]:
    """``models`` with ``excluded`` set on each model the ledger excludes at ``as_of``."""
    out = excluded(actions, as_of)
    return {m: dataclasses.replace(meta, excluded=True) if m in out else meta for m, meta in models.items()} if out else models


def unit_dates(rounds: list[pd.DataFrame], questions: set[str]) -> dict[str, list[str]]:
    """Per question of ``questions``: the resolution dates its rounds ask (sorted, distinct)."""
    out: dict[str, set[str]] = {}
    for frame in rounds:
        asked = frame[frame["question_id"].isin(questions)]
        for q, date in zip(asked["question_id"], asked["resolution_date"]):
            out.setdefault(q, set()).add(date)
    return {q: sorted(d) for q, d in out.items()}


def voided_questions(actions: pd.DataFrame) -> set[str]:
    """The questions a ``void`` row names (for ``unit_dates``)."""
    return set(actions.loc[(actions["action"] == VOID) & (actions["resolution_date"] == ""), "target"])


__all__ = ["append", "excluded", "load_actions", "statements", "unit_dates", "voided_questions", "with_exclusions"]
