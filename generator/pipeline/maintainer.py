"""``prescient void``, ``correct`` and ``exclude``: a maintainer's decision, one row appended to the
maintainers' ledger (``schemas.MAINTAINER_ACTIONS``) under the hub lock, after the checks a pull request
that adds it passes (``submissions.maintainer.check_rows``). Nothing else is written: the next nightly
(or ``prescient verify``) scores and ranks with it, from its ``effective_at`` on."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import numpy as np
import pandas as pd

from ..errors import Problem, SubmissionInvalid
from ..schemas import CORRECT, EXCLUDE, MAINTAINER_ACTIONS, VOID
from ..scoring.resolve import latest_questions
from ..store import maintainer, readers
from ..store.hub import Hub
from ..store.lock import hub_lock
from ..submissions.maintainer import Known, check_rows
from ..timeutil import format_ts
from ..vocabulary import MARKET


@dataclass(frozen=True)
class Decision:
    """What a command asks: the action, its target and, for a correction, the outcome."""

    action: str
    target: str
    reason: str
    by: str
    effective: datetime | None = None  # None: the command's as_of
    resolution_date: str = ""
    outcome: float | None = None


@dataclass(frozen=True)
class Recorded:
    row: dict
    path: str

    @property
    def summary(self) -> str:
        r = self.row
        what = {VOID: "voided", CORRECT: f"corrected to outcome {r['outcome']:g}", EXCLUDE: "excluded from the boards"}[r["action"]]
        unit = f" (resolution date {r['resolution_date']})" if r["resolution_date"] else ""
        return f"{r['target']}{unit} {what} from {r['effective_at']}, by @{r['by']}: {r['reason']}"


def record(hub: Hub, decision: Decision, as_of: datetime) -> Recorded:
    """Check ``decision`` as a pull request adding it would be checked, then append its row."""
    stamp = format_ts(as_of)
    with hub_lock(hub.layout.data, f"prescient {decision.action} {decision.target} --as-of {stamp}"):
        readers.check_as_of(hub, stamp)
        known = _known(hub)
        row = _row(hub, decision, stamp, known)
        frame = pd.DataFrame([row], columns=list(MAINTAINER_ACTIONS.names))
        problems = [p for p in check_rows(frame, [0], known, decision.by) if p.severity == "error"]
        if problems:
            raise SubmissionInvalid(f"prescient {decision.action}: refused, nothing was written", _here(problems))
        return Recorded(row, maintainer.append(hub, frame))


def _here(problems: list[Problem]) -> list[Problem]:
    """The problems as the command's (row 2 is the row it would have written, not a row of the file)."""
    return [Problem(p.file, None, p.column, p.code, p.message, p.severity) for p in problems]


def _known(hub: Hub) -> Known:
    bank = latest_questions(readers.load_bank(hub))
    history = readers.load_history(hub)
    return Known(
        dict(zip(bank["id"], bank["kind"], strict=True)),
        frozenset(readers.load_models(hub)),
        hub.settings.maintainers,
        str(history["as_of"].max()) if len(history) else "",
    )


def _row(hub: Hub, d: Decision, stamp: str, known: Known) -> dict:
    effective = format_ts(d.effective) if d.effective is not None else stamp
    resolved_at = ""
    if d.action == CORRECT:
        resolved_at = _resolved_at(hub, d, effective, known)
    return {
        "recorded_at": stamp,
        "action": d.action,
        "target": d.target,
        "resolution_date": d.resolution_date,
        "outcome": np.nan if d.outcome is None else float(d.outcome),
        "resolved_at": resolved_at,
        "effective_at": effective,
        "by": d.by,
        "reason": d.reason.strip(),
    }


def _resolved_at(hub: Hub, d: Decision, effective: str, known: Known) -> str:
    """A dataset unit resolves on its resolution date; a market when its source resolved it (the latest
    resolved or void row of the observation ledger), else at the correction's ``effective_at``."""
    if d.resolution_date:
        return f"{d.resolution_date}T00:00:00Z"
    if known.questions.get(d.target) != MARKET:
        return effective
    obs = readers.load_observations(hub)
    closed = obs[(obs["question_id"] == d.target) & obs["status"].isin(["resolved", "void"])]
    return str(closed.sort_values(["recorded_at", "observed_at"], kind="mergesort")["observed_at"].iloc[-1]) if len(closed) else effective
