"""The mean-Brier board: one row per forecaster with N, per question type, and a rank. Pure.

Headline score: the mean of the dataset and market means when a forecaster has both (so neither
type dominates by count, as ForecastBench does), else the mean of the type it has.
A forecaster is provisional until it has ``min_resolved`` resolved forecasts and a round at least
``min_age_days`` old.
"""

from __future__ import annotations

from datetime import datetime

import numpy as np
import pandas as pd

from ..config import ScoringSettings
from ..models import ModelMeta
from ..vocabulary import DATASET, MARKET
from ..timeutil import days, format_ts

COLUMNS = ["rank", "model", "name", "organization", "kind", "n", "n_dataset", "n_market",
           "brier", "brier_dataset", "brier_market", "imputed_share", "provisional"]


def first_rounds(scores: pd.DataFrame) -> dict[str, str]:
    """Each model's earliest scored round, as a due timestamp (for the stability rule)."""
    if scores.empty:
        return {}
    return scores.groupby("model")["round"].min().map(lambda d: f"{d}T00:00:00Z").to_dict()


def mean_brier_board(scores: pd.DataFrame, models: dict[str, ModelMeta], as_of: datetime,
                     scoring: ScoringSettings) -> pd.DataFrame:
    if scores.empty:
        return pd.DataFrame(columns=COLUMNS)
    by_type = scores.pivot_table(index="model", columns="kind", values="brier", aggfunc=["mean", "count"])
    board = pd.DataFrame(index=by_type.index)
    for kind, label in ((DATASET, "dataset"), (MARKET, "market")):
        board[f"brier_{label}"] = by_type[("mean", kind)] if ("mean", kind) in by_type else np.nan
        counts = by_type[("count", kind)] if ("count", kind) in by_type else 0
        board[f"n_{label}"] = pd.Series(counts, index=board.index).fillna(0).astype("int64")
    board["n"] = board["n_dataset"] + board["n_market"]
    board["brier"] = board[["brier_dataset", "brier_market"]].mean(axis=1, skipna=True)
    board["imputed_share"] = scores.groupby("model")["imputed"].mean()
    first_due = first_rounds(scores)
    old_enough = board.index.map(lambda m: first_due.get(m, "9999") <= format_ts(as_of - days(scoring.min_age_days)))
    board["provisional"] = ((board["n"] < scoring.min_resolved) | ~np.asarray(old_enough, dtype=bool)).astype("int64")
    return _finish(board.reset_index(), models)


def _finish(board: pd.DataFrame, models: dict[str, ModelMeta]) -> pd.DataFrame:
    meta = {m: models.get(m) for m in board["model"]}
    board["name"] = board["model"].map(lambda m: meta[m].name if meta[m] else m)
    board["organization"] = board["model"].map(lambda m: meta[m].organization if meta[m] else "")
    board["kind"] = board["model"].map(lambda m: meta[m].kind if meta[m] else "")
    board = board.sort_values(["brier", "model"], kind="mergesort").reset_index(drop=True)
    board["rank"] = np.arange(1, len(board) + 1)
    return board[COLUMNS]


def history_rows(board: pd.DataFrame, as_of: datetime, board_name: str, version: str) -> pd.DataFrame:
    rows = board.drop(columns=["name", "organization", "kind", "imputed_share"]).copy()
    rows.insert(0, "board", board_name)
    rows.insert(0, "as_of", format_ts(as_of))
    rows["methodology_version"] = version
    return rows
