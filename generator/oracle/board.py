"""The oracle board (per set and model: N, accuracy, Brier, refusals, YoY before/after the cutoff)
and the one function that reads a hub's oracle sets into scores."""

from __future__ import annotations

from datetime import datetime

import pandas as pd

from ..errors import Problem
from ..store import readers
from ..store.hub import Hub
from ..timeutil import format_date, format_ts
from .importer import current
from .scoring import ANSWERED, MISSING, REFUSED, SCORE_COLUMNS, empty_scores, scorable, score_set
from .temporal import temporal_view, yoy_summary

BOARD_COLUMNS = ("set", "model", "n", "answered", "refused", "missing", "accuracy", "brier", "knowledge_cutoff",
                 "yoy_accuracy_before", "yoy_accuracy_after", "yoy_brier_before", "yoy_brier_after",
                 "yoy_months_before", "yoy_months_after")


def oracle_scores(hub: Hub, as_of: datetime, sets: list[str] | None = None,
                quarantine: list[Problem] | None = None) -> pd.DataFrame:
    """Score every forecast file of the hub's oracle sets (or of ``sets``) as of ``as_of``:
    questions recorded by then, in their latest version, resolved on or before its date. An
    unreadable answer file is left out; ``quarantine`` collects those files."""
    frames, quarantine = [], [] if quarantine is None else quarantine
    for qset in sets if sets is not None else hub.layout.oracle_sets():
        questions = scorable(current(readers.load_oracle_questions(hub, qset), format_ts(as_of)), format_date(as_of))
        frames.append(score_set(qset, questions, readers.load_oracle_forecasts(hub, qset, quarantine)))
    frames = [f for f in frames if len(f)]
    return pd.concat(frames, ignore_index=True) if frames else empty_scores()


def oracle_board(scores: pd.DataFrame, cutoffs: dict[str, str]) -> pd.DataFrame:
    """Per set and model: N questions, how many were answered, refused or missing, accuracy (refusals
    and missing count as wrong), mean multi-class Brier, the knowledge cutoff and the YoY summary of
    ``temporal.yoy_summary``. Sorted by set, then accuracy (best first), then model.

    ``scores`` comes from ``oracle_scores`` (or ``scoring.score_set``); ``cutoffs`` maps model id →
    ``ModelMeta.knowledge_cutoff``.
    """
    if scores.empty:
        return pd.DataFrame(columns=list(BOARD_COLUMNS))
    status = scores.assign(**{s: (scores["status"] == s).astype("int64") for s in (ANSWERED, REFUSED, MISSING)})
    board = status.groupby(["set", "model"], sort=True).agg(
        n=("correct", "size"), answered=(ANSWERED, "sum"), refused=(REFUSED, "sum"), missing=(MISSING, "sum"),
        accuracy=("correct", "mean"), brier=("brier", "mean")).reset_index()
    board["knowledge_cutoff"] = board["model"].map(lambda m: cutoffs.get(m, ""))
    board = board.merge(yoy_summary(temporal_view(scores, cutoffs)), on=["set", "model"], how="left")
    board = board.sort_values(["set", "accuracy", "model"], ascending=[True, False, True], kind="mergesort")
    return board[list(BOARD_COLUMNS)].reset_index(drop=True)


__all__ = ["SCORE_COLUMNS", "oracle_board", "oracle_scores"]
