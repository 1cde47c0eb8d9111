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
from pandas.api.types import infer_dtype

from ..forecasters.baselines import naive_model
from ..vocabulary import MARKET
from .panel import sorted_codes

LOG_EPS = 0.001
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


def _unit_key(rows: pd.DataFrame, unit: np.ndarray | None = None) -> np.ndarray:
    """One integer key per scored unit (a market's empty resolution date included): the columns'
    codes combined two at a time, each product below rows², so no key can overflow or collide.
    ``unit``: the rows' codes of their units as ``fb_board.unit_codes`` gives them, if ``units_as_text``
    holds for the rows (or a frame they were taken from): taken as the key without hashing the ids again."""
    if unit is not None:
        return unit
    key = np.zeros(len(rows), dtype=np.int64)
    for column in UNIT:
        codes, uniques = pd.factorize(_as_text(rows[column]))
        key = pd.factorize(key * max(len(uniques), 1) + codes)[0]
    return key


def _as_text(values: pd.Series) -> pd.Series:
    """``values`` with missing cells as "" and every cell as text; a column already all text is
    kept as it is (converting it again cost as much as the rest of the secondary columns)."""
    values = values.fillna("") if values.hasnans else values
    return values if infer_dtype(values, skipna=False) == "string" else values.astype(str)


def units_as_text(rows: pd.DataFrame) -> bool:
    """Every cell of the unit's columns is text (none missing, which ``_unit_key`` would join to the
    empty one): codes of the units as ``fb_board.unit_codes`` gives them then group the rows, and
    any subset of them, as ``_unit_key`` does."""
    return all(not rows[c].hasnans and infer_dtype(rows[c], skipna=False) == "string" for c in UNIT)


def secondary_columns(rows: pd.DataFrame, naive_model: str | None = naive_model()) -> pd.DataFrame:
    """``SECONDARY`` per model (the index, sorted); an empty frame for no rows."""
    if rows.empty:
        return pd.DataFrame(columns=SECONDARY, index=pd.Index([], name="model"))
    models, model = sorted_codes(rows["model"].to_numpy())
    return pd.DataFrame(model_secondary(rows, models, model, naive_model), index=pd.Index(models, name="model"))[SECONDARY]


def model_secondary(
    rows: pd.DataFrame, models: np.ndarray, model: np.ndarray, naive_model: str | None, unit: np.ndarray | None = None, counts: bool = True
) -> dict[str, np.ndarray]:
    """``SECONDARY`` as arrays over ``models`` (sorted; ``model``: each row's index among them), what
    a board reads without the frame ``secondary_columns`` makes of them; ``unit``: the rows' unit
    codes, when the caller has them and ``units_as_text`` holds (``_unit_key``). ``counts`` False: no
    ``n_dataset``/``n_market`` (a board counts its units from its fit; comparing every row's kind
    as text cost a fifth of these columns at three years' size)."""
    brier = rows["brier"].to_numpy(dtype=float)
    probability, outcome = rows["probability"].to_numpy(dtype=float), rows["outcome"].to_numpy(dtype=float)
    unit = _unit_key(rows, unit)
    # the means of floats stay pandas' groupby means (compensated sums), so every digit is the plain groupby's;
    # counts and the 0/1 accuracy are exact integer sums either way
    field = _unit_means(brier, unit)
    naive = _naive_brier(unit, brier, model == _code_of(models, naive_model))
    means = (
        pd.DataFrame({"log_score": log_score(probability, outcome), "peer": field - brier, "bss": naive - brier})
        .groupby(_coded(model, len(models)), observed=True)
        .mean()
    )
    count = np.bincount(model, minlength=len(models))
    out = {
        "log_score": means["log_score"].to_numpy(),
        "peer": means["peer"].to_numpy(),
        "bss": means["bss"].to_numpy(),
        "accuracy": np.bincount(model, weights=correct(probability, outcome), minlength=len(models)) / count,
    }
    if counts:
        market = np.bincount(model, weights=(rows["kind"] == MARKET).to_numpy(), minlength=len(models)).astype(np.int64)
        out.update(n_dataset=count - market, n_market=market)
    return out


def _coded(codes: np.ndarray, size: int) -> pd.Categorical:
    """``codes`` (integers in ``[0, size)``) as a grouper pandas takes without hashing them again: the
    same groups, in the same sorted order, each mean the same compensated sum in row order."""
    return pd.Categorical.from_codes(codes, categories=pd.RangeIndex(size))


def _unit_means(brier: np.ndarray, unit: np.ndarray) -> np.ndarray:
    """Per row: the mean Brier of its unit, as pandas' ``groupby(unit).transform("mean")`` gives it (the
    same compensated sums, in row order); for codes 0..k-1, each present, the groups' means taken by
    code, without ``transform``'s broadcast (a third of its cost)."""
    grouped = pd.Series(brier).groupby(unit)
    means = grouped.mean()
    if means.index.equals(pd.RangeIndex(len(means))):
        return means.to_numpy()[unit]
    return grouped.transform("mean").to_numpy()


def _code_of(models: np.ndarray, wanted: str | None) -> int:
    """The index of ``wanted`` among ``models``; -1 (no row's) when it is absent."""
    hits = np.flatnonzero(models == wanted)
    return int(hits[0]) if hits.size else -1


def _naive_brier(unit: np.ndarray, brier: np.ndarray, is_naive: np.ndarray) -> np.ndarray:
    """Per row: the Naive forecaster's Brier on the same unit (its first row's; NaN where it did not answer)."""
    units, first = np.unique(unit[is_naive], return_index=True)
    by_unit = np.full(int(unit.max(initial=-1)) + 1, np.nan)
    by_unit[units] = brier[is_naive][first]
    return by_unit[unit]
