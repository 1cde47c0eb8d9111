"""The maintainers' ledger (``data/maintainer/actions.csv``, ``schemas.MAINTAINER_ACTIONS``) and what it
means for scoring: a ``void`` or ``correct`` row is a stated resolution recorded at its ``effective_at``
(``statements``), an ``exclude`` row takes a model off the boards of every night from its
``effective_at`` on (``excluded``). Both are pure functions of the ledger and a time, so a night's
boards are fixed by what the ledger said by then and ``prescient verify`` recomputes them alike."""

from __future__ import annotations

import dataclasses

import pandas as pd

from ..models import ModelMeta
from ..schemas import CORRECT, DECISIONS_TAKEN, EXCLUDE, MAINTAINER_ACTIONS, RESOLUTIONS, VOID
from ..timeutil import format_ts
from . import ledger
from .atomic import write_bytes_atomic
from .csvio import coerce, empty_frame, to_csv_bytes
from .hub import Hub

KEY = list(MAINTAINER_ACTIONS.key)  # a decision's identity, in actions.csv and in the taken ledger


def load_actions(hub: Hub) -> pd.DataFrame:
    """Every row of the maintainers' ledger; empty when the hub has none."""
    path = hub.layout.maintainer_actions
    return hub.cache.read_table(path, MAINTAINER_ACTIONS, hub.layout.relative(path)) if path.is_file() else empty_frame(MAINTAINER_ACTIONS)


def taken_file(hub: Hub):
    """``data/metadata/decisions.csv``: when the nightly took up each decision (``schemas.DECISIONS_TAKEN``)."""
    return hub.root / DECISIONS_TAKEN.path


def load_taken(hub: Hub) -> pd.DataFrame | None:
    """The taken ledger's rows; None when the hub has none yet (before its first 0.14 nightly)."""
    path = taken_file(hub)
    return hub.cache.read_table(path, DECISIONS_TAKEN, DECISIONS_TAKEN.path) if path.is_file() else None


def acting(actions: pd.DataFrame, taken: pd.DataFrame | None, last_night: str) -> pd.DataFrame:
    """The decisions as scoring takes them: each from the ``effective_at`` the nightly recorded
    when it took it up. One no night has taken up yet acts from its own ``effective_at`` when that is
    after ``last_night`` (the history's latest: it reached main in time), and not at all otherwise (it
    was merged after a night it was meant to act from: the next nightly takes it up as of its own night).
    Without a taken ledger (a hub before 0.14) every row acts from its own ``effective_at``. Pure."""
    if taken is None or actions.empty:
        return actions
    when = _taken_times(taken)
    keys = list(map(tuple, actions[KEY].astype(str).to_numpy().tolist()))
    effective = [when.get(k, e if e > last_night else "") for k, e in zip(keys, actions["effective_at"].astype(str), strict=True)]
    out = actions.assign(effective_at=effective)
    return out[out["effective_at"] != ""].reset_index(drop=True)


def as_taken(actions: pd.DataFrame, taken: pd.DataFrame | None) -> pd.DataFrame:
    """``actions`` with the ``effective_at`` the nightly recorded for each it took up (the others as
    they are): what the Changes page says of when a decision acts. Pure."""
    if taken is None or actions.empty or taken.empty:
        return actions
    when = _taken_times(taken)
    keys = list(map(tuple, actions[KEY].astype(str).to_numpy().tolist()))
    return actions.assign(effective_at=[when.get(k, e) for k, e in zip(keys, actions["effective_at"].astype(str), strict=True)])


def _taken_times(taken: pd.DataFrame) -> dict[tuple, str]:
    return dict(zip(map(tuple, taken[KEY].astype(str).to_numpy().tolist()), taken["effective_at"].astype(str), strict=True))


def take_up(hub: Hub, as_of, last_night: str) -> list[str]:
    """The nightly's record of the decisions it sees on main for the first time (the caller holds the hub
    lock): each acts from its ``effective_at`` when that is after ``last_night`` (the latest night the
    history held before this run), else from this night, ``as_of``. The first run that finds no ledger
    starts it: empty on a hub without decisions, else with every decision at its own ``effective_at``
    (each was checked on time by the audit until then). Returns the files written."""
    path, stamp = taken_file(hub), format_ts(as_of)
    actions, taken = load_actions(hub), load_taken(hub)
    if taken is None and actions.empty:
        write_bytes_atomic(path, to_csv_bytes(empty_frame(DECISIONS_TAKEN), DECISIONS_TAKEN))
        return [DECISIONS_TAKEN.path]
    if actions.empty:  # no decision yet: nothing to take up (most nights of most hubs)
        return []
    seen = set() if taken is None else set(map(tuple, taken[KEY].astype(str).to_numpy().tolist()))
    rows = []
    for row in actions.astype(str).to_dict("records"):
        if tuple(row[k] for k in KEY) in seen:
            continue
        on_time = taken is None or row["effective_at"] > last_night
        rows.append({**{k: row[k] for k in KEY}, "taken_at": stamp, "effective_at": row["effective_at"] if on_time else stamp})
    if not rows:
        return []
    frame = coerce(pd.DataFrame(rows, columns=list(DECISIONS_TAKEN.names)).replace("nan", ""), DECISIONS_TAKEN)
    ledger.append(path, frame, DECISIONS_TAKEN, DECISIONS_TAKEN.path, hub.cache)
    return [DECISIONS_TAKEN.path]


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
        for date in [a.resolution_date] if a.resolution_date or not void else dates.get(a.target) or [""]:
            rows.append(
                {
                    "round": "",
                    "question_id": a.target,
                    "resolution_date": date,
                    "recorded_at": a.effective_at,
                    "status": "void" if void else "resolved",
                    "outcome": "" if void else a.outcome,
                    "resolved_at": "" if void else a.resolved_at,
                    "value": "",
                    "payload_sha256": "",
                }
            )
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
        for q, date in zip(asked["question_id"], asked["resolution_date"], strict=True):
            out.setdefault(q, set()).add(date)
    return {q: sorted(d) for q, d in out.items()}


def voided_questions(actions: pd.DataFrame) -> set[str]:
    """The questions a ``void`` row names (for ``unit_dates``)."""
    return set(actions.loc[(actions["action"] == VOID) & (actions["resolution_date"] == ""), "target"])


__all__ = [
    "acting",
    "append",
    "as_taken",
    "excluded",
    "load_actions",
    "load_taken",
    "statements",
    "take_up",
    "taken_file",
    "unit_dates",
    "voided_questions",
    "with_exclusions",
]
