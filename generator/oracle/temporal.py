"""The view over time (Daily Oracle): accuracy and Brier by resolution month, relative to each
model's knowledge cutoff.

Definitions (also on the Methodology page):
- **monthly accuracy / Brier**: the mean over the questions that resolved in that calendar month
  (refusals and missing forecasts included, as wrong / uniform);
- **5-month moving average** at month m: the unweighted mean of the monthly values of the calendar
  months m−2 … m+2 that have questions; empty when fewer than 3 of those 5 months do;
- **months from cutoff**: m − c in calendar months, c being the month of ``knowledge_cutoff``;
- **year-on-year change** at month m: value(m) − value(m−12), defined when both months have
  questions; **YoY before / after** is its mean over the months m ≤ c / m > c (the cutoff month counts
  as before, since training data may cover part of it). Computed from the monthly values, not the
  moving average.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

MA_WINDOW, MA_MIN_MONTHS = 5, 3
VIEW_COLUMNS = ("n", "accuracy", "brier", "accuracy_ma5", "brier_ma5", "knowledge_cutoff", "months_from_cutoff")


def month_index(month: pd.Series) -> np.ndarray:
    """'YYYY-MM' → a running month number (year × 12 + month − 1)."""
    text = month.astype(str)
    return text.str[:4].astype(int).to_numpy() * 12 + text.str[5:7].astype(int).to_numpy() - 1


def cutoff_month(cutoff: str) -> int | None:
    """The running month number of a ``YYYY-MM-DD`` (or ``YYYY-MM``) cutoff; None when unknown."""
    if not cutoff or len(cutoff) < 7 or not cutoff[:4].isdigit() or not cutoff[5:7].isdigit():
        return None
    return int(cutoff[:4]) * 12 + int(cutoff[5:7]) - 1


def moving_average(index: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The centred 5-calendar-month moving average of ``values`` at each month of ``index``."""
    series = pd.Series(values, index=index, dtype=float)
    full = series.reindex(np.arange(index.min() - 2, index.max() + 3)) if len(index) else series
    smooth = full.rolling(MA_WINDOW, center=True, min_periods=MA_MIN_MONTHS).mean()
    return smooth.reindex(index).to_numpy()


def temporal_view(scores: pd.DataFrame, cutoffs: dict[str, str], by: tuple[str, ...] = ("set", "model")) -> pd.DataFrame:
    """Per ``by`` group and resolution month: N, accuracy, Brier, their 5-month moving averages,
    the model's knowledge cutoff and the months from it.

    ``scores`` is ``scoring.score_set`` output (or several concatenated); ``cutoffs`` maps a model
    id to its ``ModelMeta.knowledge_cutoff`` (missing or empty: unknown, months_from_cutoff empty).
    Pass ``by=("model",)`` to pool a model's sets into one series.
    """
    keys = [*by, "month"]
    monthly = scores.groupby(keys, sort=True).agg(n=("correct", "size"), accuracy=("correct", "mean"), brier=("brier", "mean")).reset_index()
    parts = [_smooth(group, cutoffs.get(str(group["model"].iloc[0]), "")) for _, group in monthly.groupby(list(by), sort=True)]
    columns = [*keys, *VIEW_COLUMNS]
    return pd.concat(parts, ignore_index=True)[columns] if parts else pd.DataFrame(columns=columns)


def _smooth(group: pd.DataFrame, cutoff: str) -> pd.DataFrame:
    index, c = month_index(group["month"]), cutoff_month(cutoff)
    return group.assign(
        accuracy_ma5=moving_average(index, group["accuracy"].to_numpy()),
        brier_ma5=moving_average(index, group["brier"].to_numpy()),
        knowledge_cutoff=cutoff,
        months_from_cutoff=pd.array(index - c if c is not None else [None] * len(index), dtype="Int64"),
    )


def yoy(index: np.ndarray, values: np.ndarray) -> pd.Series:
    """value(m) − value(m−12) at each month m of ``index`` whose month m−12 is also present."""
    series = pd.Series(values, index=index, dtype=float)
    change = series - series.reindex(index - 12).to_numpy()
    return change.dropna()


def yoy_summary(view: pd.DataFrame, by: tuple[str, ...] = ("set", "model")) -> pd.DataFrame:
    """Per group: mean YoY change of accuracy and Brier over months up to and after the cutoff month,
    with the number of months each mean is taken over (see the module docstring)."""
    rows = [
        dict(zip(by, key if isinstance(key, tuple) else (key,), strict=True)) | _yoy_row(group) for key, group in view.groupby(list(by), sort=True)
    ]
    columns = [*by, "yoy_accuracy_before", "yoy_accuracy_after", "yoy_brier_before", "yoy_brier_after", "yoy_months_before", "yoy_months_after"]
    return pd.DataFrame(rows, columns=columns)


def _yoy_row(group: pd.DataFrame) -> dict[str, float]:
    index, c = month_index(group["month"]), cutoff_month(str(group["knowledge_cutoff"].iloc[0]))
    acc, brier = yoy(index, group["accuracy"].to_numpy()), yoy(index, group["brier"].to_numpy())
    if c is None:
        return {"yoy_months_before": 0, "yoy_months_after": 0}
    before, after = acc.index <= c, acc.index > c
    return {
        "yoy_accuracy_before": _mean(acc[before]),
        "yoy_accuracy_after": _mean(acc[after]),
        "yoy_brier_before": _mean(brier[before]),
        "yoy_brier_after": _mean(brier[after]),
        "yoy_months_before": int(before.sum()),
        "yoy_months_after": int(after.sum()),
    }


def _mean(values: pd.Series) -> float:
    return float(values.mean()) if len(values) else float("nan")
