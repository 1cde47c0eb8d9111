"""Secondary leaderboard columns from SCORES rows, following ForecastBench's definitions. Pure.

Per forecast p of an outcome o ∈ {0, 1}:

- **log score**: −ln(q) if o = 1, −ln(1 − q) if o = 0, with q = p clipped to [ε, 1 − ε] and
  ε = ``LOG_EPS`` = 0.001 (a certain, wrong forecast costs ln(1000) ≈ 6.91 nats, not infinity).
  Lower is better; always answering 0.5 scores ln 2 ≈ 0.693.
- **correct** (for accuracy): p > 0.5 predicts 1, p < 0.5 predicts 0, and p = 0.5 predicts nothing
  and counts as wrong (so an imputed 0.5 is wrong, as Daily Oracle counts a refusal).

Per model, over the rows it is given (one row per scored unit: round × question × resolution date):

- ``peer``: mean over the model's units of (mean Brier of every forecaster on the unit − the
  model's Brier). Positive is better than the field.
- ``bss``: mean over the units both answered of (the Naive forecaster's Brier − the model's
  Brier), FB's Brier skill score against its Naive Forecaster in absolute form. NaN when the
  Naive forecaster is absent.
- ``log_score``, ``accuracy``: means of the per-forecast values; ``n_dataset``, ``n_market``: rows.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..vocabulary import MARKET

LOG_EPS = 0.001
NAIVE_MODEL = "prescient.naive"
SECONDARY = ["log_score", "peer", "bss", "accuracy", "n_dataset", "n_market"]
UNIT = ["round", "question_id", "resolution_date"]


def log_score(probability, outcome, eps: float = LOG_EPS):
    """Negative log-likelihood (nats) of the outcome under the clipped forecast; lower is better."""
    q = np.clip(np.asarray(probability, dtype=float), eps, 1 - eps)
    o = np.asarray(outcome, dtype=float)
    return -(o * np.log(q) + (1 - o) * np.log(1 - q))


def correct(probability, outcome) -> np.ndarray:
    """1 where the forecast's side (p > 0.5 → 1, p < 0.5 → 0) matches the outcome; p = 0.5 is wrong."""
    p, o = np.asarray(probability, dtype=float), np.asarray(outcome, dtype=float)
    return np.where(p > 0.5, o == 1, np.where(p < 0.5, o == 0, False)).astype(np.int64)


def _unit_key(rows: pd.DataFrame) -> pd.Series:
    """One integer key per scored unit (a market's empty resolution date included): the columns'
    codes combined two at a time, each product below rows², so no key can overflow or collide."""
    key = np.zeros(len(rows), dtype=np.int64)
    for column in UNIT:
        codes, uniques = pd.factorize(rows[column].fillna("").astype(str))
        key = pd.factorize(key * max(len(uniques), 1) + codes)[0]
    return pd.Series(key, index=rows.index)


def secondary_columns(rows: pd.DataFrame, naive_model: str | None = NAIVE_MODEL) -> pd.DataFrame:
    """``SECONDARY`` per model (the index, sorted); an empty frame for no rows."""
    if rows.empty:
        return pd.DataFrame(columns=SECONDARY, index=pd.Index([], name="model"))
    brier = rows["brier"].to_numpy(dtype=float)
    unit = _unit_key(rows)
    field = pd.Series(brier, index=rows.index).groupby(unit).transform("mean").to_numpy()
    naive = _naive_brier(rows, unit, brier, naive_model)
    per_row = pd.DataFrame({
        "model": rows["model"].to_numpy(),
        "log_score": log_score(rows["probability"], rows["outcome"]),
        "peer": field - brier,
        "bss": naive - brier,
        "accuracy": correct(rows["probability"], rows["outcome"]),
        "n_dataset": (rows["kind"] != MARKET).to_numpy(dtype=np.int64),
        "n_market": (rows["kind"] == MARKET).to_numpy(dtype=np.int64),
    })
    grouped = per_row.groupby("model", sort=True)
    out = grouped[["log_score", "peer", "bss", "accuracy"]].mean()
    out[["n_dataset", "n_market"]] = grouped[["n_dataset", "n_market"]].sum()
    return out[SECONDARY]


def _naive_brier(rows: pd.DataFrame, unit: pd.Series, brier: np.ndarray, naive_model: str | None) -> np.ndarray:
    """Per row: the Naive forecaster's Brier on the same unit (NaN where it did not answer)."""
    is_naive = (rows["model"] == naive_model).to_numpy()
    lookup = pd.Series(brier[is_naive], index=unit[is_naive].to_numpy())
    lookup = lookup[~lookup.index.duplicated()]
    return lookup.reindex(unit.to_numpy()).to_numpy(dtype=float)
