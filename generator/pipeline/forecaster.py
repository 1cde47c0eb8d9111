"""What a forecaster asks of the hub: which rounds are open and for how long (``prescient
rounds``), and a ready-to-fill forecast file for one round (``prescient round template``)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

import numpy as np
import pandas as pd

from ..errors import PrescientError
from ..schemas import FORECASTS
from ..store import readers
from ..store.csvio import encode
from ..store.hub import Hub
from ..timeutil import format_date, format_ts


@dataclass(frozen=True, slots=True)
class RoundStatus:
    due: datetime
    units: int  # question × resolution date rows of the frozen question set
    resolved: int  # of those, the units with a score
    is_open: bool
    status: str  # "open · closes in 5 d", "closed, resolving (3 of 40 resolved, 1 void)", "scored (39 resolved, 1 void)"
    void: int = 0  # of the units, those of a question void by then (never scored)


def _left(seconds: float) -> str:
    days, hours = int(seconds // 86400), int(seconds % 86400 // 3600)
    return f"{days} d {hours} h" if days else f"{hours} h {int(seconds % 3600 // 60)} min"


def round_statuses(hub: Hub, as_of: datetime) -> list[RoundStatus]:
    """Every published round, newest first, with its status as of ``as_of``: the Rounds page's
    (``site.rounds.round_status``: open, closed and resolving, scored once every unit is resolved
    or void), the time left to the minute while it is open, and how many of its units are void."""
    from ..site.rounds import OPEN, SCORED, resolutions, round_status
    from .recompute import hub_view

    view = hub_view(hub, readers.load_observations(hub), as_of)
    out = []
    for due in reversed(readers.round_dues(hub)):
        questions = readers.load_round(hub, due)
        units = resolutions(questions, view) if len(questions) else pd.DataFrame(columns=["status"])
        state = round_status(format_ts(due), units, as_of)
        label = f"open · closes in {_left((due - as_of).total_seconds())}" if state.state == OPEN else state.label
        if state.state == SCORED:
            label += f" ({state.resolved} resolved)"
        label += f" · {state.void} void" if state.void else ""
        out.append(RoundStatus(due, state.units, state.resolved, state.state == OPEN, label, state.void))
    return out


def forecast_template(hub: Hub, due: datetime, fmt: str, model: str | None) -> bytes:
    """Every question × resolution date of the round due at ``due``, probability empty: the CSV
    columns ``prescient validate`` expects, or a ForecastBench forecast-set JSON (``forecast`` null)."""
    if not hub.layout.round_questions(due).is_file():
        have = ", ".join(format_date(d) for d in readers.round_dues(hub)) or "none yet"
        raise PrescientError(f"--due {format_date(due)}: no such round (published rounds: {have})")
    frame = readers.load_round(hub, due)
    rows = sorted(
        (str(q), "" if pd.isna(d) else str(d), str(s))
        for q, d, s in zip(frame["question_id"], frame["resolution_date"], frame["source"], strict=True)
    )
    if fmt == "json":
        team, _, name = (model or "TEAM.MODEL").partition(".")
        body = {
            "organization": team,
            "model": name or model,
            "model_organization": team,
            "question_set": f"{format_date(due)}-prescient.json",
            "forecasts": [
                {"id": q.removeprefix(f"{s}:"), "source": s, "forecast": None, "resolution_date": d or None, "reasoning": ""} for q, d, s in rows
            ],
        }
        return (json.dumps(body, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    cells = {"question_id": [q for q, _, _ in rows], "resolution_date": [d for _, d, _ in rows]}
    blank = [""] * len(rows)
    return encode(FORECASTS.names, [np.array(cells.get(name, blank), dtype=object) for name in FORECASTS.names])
