"""Where each round stands at ``as_of``, and how its questions resolved. Pure: frames in, frames out.

A round is **open** until its due time (the question set is published before that, so every
round on disk whose due time is still ahead can take forecasts), then **closed, resolving**
while any of its units (a market, or a dataset question at one resolution date) has no final
resolution, and **scored** once every unit is resolved or void. Time is ``as_of``, never the clock.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import numpy as np
import pandas as pd

from ..scoring.resolve import LedgerView, resolve_round
from ..timeutil import parse_ts
from ..vocabulary import MARKET

OPEN, RESOLVING, SCORED = "open", "resolving", "scored"


@dataclass(frozen=True)
class RoundStatus:
    state: str  # OPEN, RESOLVING or SCORED
    label: str  # what the Rounds page shows: "open · closes in 5 d", "closed, resolving (3 of 40 resolved)", "scored"
    due: str  # the due time, as written in the question set
    units: int  # questions × resolution dates
    resolved: int
    void: int


def closes_in(due: datetime, as_of: datetime) -> str:
    """How long until ``due``, rounded down: "5 d", "14 h", "25 min" (at least "1 min")."""
    seconds = max((due - as_of).total_seconds(), 0)
    if seconds >= 86_400:
        return f"{int(seconds // 86_400)} d"
    if seconds >= 3_600:
        return f"{int(seconds // 3_600)} h"
    return f"{max(int(seconds // 60), 1)} min"


def resolutions(questions: pd.DataFrame, view: LedgerView) -> pd.DataFrame:
    """One row per unit of a round's question set (in its order): status (resolved, void, open),
    outcome, resolved_at, and ``final_value``: a market's latest value known by ``as_of``, or a
    series' value on the resolution date (its latest value while that date is ahead)."""
    resolved = resolve_round(questions, view).drop_duplicates(["question_id", "resolution_date"])
    out = questions[["question_id", "resolution_date"]].merge(resolved, on=["question_id", "resolution_date"], how="left")
    out["status"] = out["status"].fillna("open")
    states = view.states["value"] if "value" in view.states else pd.Series(dtype=float)
    final = np.full(len(out), np.nan)
    for i, (qid, kind, date) in enumerate(zip(questions["question_id"], questions["kind"], questions["resolution_date"], strict=True)):
        if kind == MARKET:
            final[i] = states.get(qid, np.nan)
        elif qid in view.series:
            series = view.series[qid]
            final[i] = series.at(f"{date}T00:00:00Z") if isinstance(date, str) and date else np.nan
    out["final_value"] = final
    return out.reset_index(drop=True)


def round_status(due: str, units: pd.DataFrame, as_of: datetime) -> RoundStatus:
    """The state of a round due at ``due`` whose units resolved as ``units`` (``resolutions``) say."""
    statuses = units["status"] if len(units) else pd.Series(dtype=str)
    resolved, void = int((statuses == "resolved").sum()), int((statuses == "void").sum())
    total = len(statuses)
    due_time = parse_ts(due)
    if as_of < due_time:
        return RoundStatus(OPEN, f"open · closes in {closes_in(due_time, as_of)}", due, total, resolved, void)
    if resolved + void < total:
        return RoundStatus(RESOLVING, f"closed, resolving ({resolved:,} of {total - void:,} resolved)", due, total, resolved, void)
    return RoundStatus(SCORED, "scored", due, total, resolved, void)


REPLAY_SOURCES = frozenset({"sim"})  # sources whose world is simulated: a hub of only these replays a season


def is_replay(settings) -> bool:
    """Whether the hub replays a simulated season, as ``prescient demo`` does: every enabled source is the
    offline ``sim`` world, whose dates are fixed. Its site's clock is the data's ``as_of``, not the
    reader's: an "Open now" countdown counts down from it and says it is a replay."""
    sources = {s.name for s in settings.enabled_sources} if settings is not None else set()
    return bool(sources) and sources <= REPLAY_SOURCES
