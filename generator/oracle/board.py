"""The oracle board (per set and model: N, accuracy, Brier, refusals, YoY before/after the cutoff,
who ran it, and true/false and multiple-choice accuracy apart) and the one function that reads a
hub's oracle sets into scores."""

from __future__ import annotations

from datetime import datetime

import pandas as pd

from ..errors import Problem
from ..models import DEFAULT_OWN, is_own
from ..store import readers
from ..store.hub import Hub
from ..timeutil import format_date, format_ts
from .importer import current
from .scoring import ANSWERED, MISSING, REFUSED, SCORE_COLUMNS, empty_scores, scorable, score_set
from .temporal import temporal_view, yoy_summary

BOARD_COLUMNS = (
    "set",
    "model",
    "n",
    "answered",
    "refused",
    "missing",
    "accuracy",
    "brier",
    "knowledge_cutoff",
    "yoy_accuracy_before",
    "yoy_accuracy_after",
    "yoy_brier_before",
    "yoy_brier_after",
    "yoy_months_before",
    "yoy_months_after",
    "run_by",
    "n_tf",
    "accuracy_tf",
    "n_mc",
    "accuracy_mc",
)
HUB_RUN, SELF_REPORTED = "hub", "self-reported"


def run_by(model: str, own: str = DEFAULT_OWN) -> str:
    """``hub`` for the hub's own runs (``<own>.*``, ``[hub] own_prefix``: no pull request may add or change
    their files, and their calls are logged), ``self-reported`` for every answer file a forecaster submitted."""
    return HUB_RUN if is_own(model, own) else SELF_REPORTED


def oracle_scores(hub: Hub, as_of: datetime, sets: list[str] | None = None, quarantine: list[Problem] | None = None) -> pd.DataFrame:
    """Score every forecast file of the hub's oracle sets (or of ``sets``) as of ``as_of``:
    questions recorded by then, in their latest version, resolved on or before its date. An
    unreadable answer file is left out; ``quarantine`` collects those files."""
    frames, quarantine = [], [] if quarantine is None else quarantine
    for qset in sets if sets is not None else hub.layout.oracle_sets():
        questions = scorable(current(readers.load_oracle_questions(hub, qset), format_ts(as_of)), format_date(as_of))
        frames.append(score_set(qset, questions, readers.load_oracle_forecasts(hub, qset, quarantine)))
    frames = [f for f in frames if len(f)]
    return pd.concat(frames, ignore_index=True) if frames else empty_scores()


def oracle_board(scores: pd.DataFrame, cutoffs: dict[str, str], own: str = DEFAULT_OWN) -> pd.DataFrame:
    """Per set and model: N questions, how many were answered, refused or missing, accuracy (refusals
    and missing count as wrong), mean multi-class Brier, the knowledge cutoff and the YoY summary of
    ``temporal.yoy_summary``. Sorted by set, then accuracy (best first), then model.

    ``scores`` comes from ``oracle_scores`` (or ``scoring.score_set``); ``cutoffs`` maps model id →
    ``ModelMeta.knowledge_cutoff``; ``own``: the hub's ``[hub] own_prefix`` (its rows are ``run_by`` hub).
    """
    if scores.empty:
        return pd.DataFrame(columns=list(BOARD_COLUMNS))
    status = scores.assign(**{s: (scores["status"] == s).astype("int64") for s in (ANSWERED, REFUSED, MISSING)})
    board = (
        status.groupby(["set", "model"], sort=True)
        .agg(
            n=("correct", "size"),
            answered=(ANSWERED, "sum"),
            refused=(REFUSED, "sum"),
            missing=(MISSING, "sum"),
            accuracy=("correct", "mean"),
            brier=("brier", "mean"),
        )
        .reset_index()
    )
    board["knowledge_cutoff"] = board["model"].map(lambda m: cutoffs.get(m, ""))
    board = board.merge(yoy_summary(temporal_view(scores, cutoffs)), on=["set", "model"], how="left")
    board = board.assign(run_by=board["model"].map(lambda m: run_by(m, own))).merge(_by_kind(scores), on=["set", "model"], how="left")
    board = board.sort_values(["set", "accuracy", "model"], ascending=[True, False, True], kind="mergesort")
    return board[list(BOARD_COLUMNS)].reset_index(drop=True)


def _by_kind(scores: pd.DataFrame) -> pd.DataFrame:
    """Per set and model: N and accuracy of the true/false (tf) and the multiple-choice (mc) questions apart."""
    by_kind = scores.groupby(["set", "model", "kind"], sort=True)["correct"].agg(["size", "mean"]).unstack("kind")
    out = pd.DataFrame(index=by_kind.index)
    for kind in ("tf", "mc"):
        present = ("size", kind) in by_kind.columns
        out[f"n_{kind}"] = by_kind[("size", kind)].fillna(0).astype("int64") if present else 0
        out[f"accuracy_{kind}"] = by_kind[("mean", kind)] if present else float("nan")
    return out.reset_index()


__all__ = ["HUB_RUN", "SCORE_COLUMNS", "SELF_REPORTED", "oracle_board", "oracle_scores", "run_by"]
