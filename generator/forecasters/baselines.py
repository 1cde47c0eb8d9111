"""The hub's own forecasters, written as ordinary forecast files and validated like any submission.

Two kinds, by when they can be written:
- at the round's publication (``at_open``): Always 0.5, Always 0, Always 1, and Random uniform
  (seeded by the due date, so a rerun writes the same file);
- once the due time has passed (``after_due``), because they need what was known at the deadline:
  Imputed (the crowd's market value at the due time; 0.5 on datasets), Naive (the market value of
  the day before the due date; on datasets, the direction of the series' last change), and the
  crowd aggregates of the forecasts submitted for the round (median, geometric mean, and the mean
  of log-odds), unit by unit over the forecasters that answered it, and only on units at least
  ``min_forecasters`` of them answered (no row otherwise: the unit is imputed when scored).
All of these are ``kind: baseline``: they are shown on the boards and left out of the fixed-effects
estimation sample.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property
from types import MappingProxyType

import numpy as np
import pandas as pd

from ..models import DEFAULT_OWN, HUB_ORGANIZATION, ModelMeta, is_own
from ..scoring.resolve import LedgerView
from ..timeutil import days, format_ts
from ..vocabulary import MARKET

_UNIT = ["question_id", "resolution_date"]


def forecast_frame(questions: pd.DataFrame, probability, reasoning: str = "") -> pd.DataFrame:
    """A forecast file's frame for every row of a round's question set."""
    return pd.DataFrame(
        {
            "question_id": questions["question_id"].to_numpy(),
            "resolution_date": questions["resolution_date"].to_numpy(),
            "probability": probability,
            "reasoning": reasoning,
        }
    )


def constant(value: float) -> Callable[[pd.DataFrame], pd.DataFrame]:
    return lambda questions: forecast_frame(questions, float(value))


def random_uniform(questions: pd.DataFrame) -> pd.DataFrame:
    due = questions["due"].iloc[0] if len(questions) else "1970-01-01"
    rng = np.random.default_rng(int(due[:10].replace("-", "")))
    return forecast_frame(questions, np.round(rng.uniform(0.0, 1.0, len(questions)), 6))


@dataclass(frozen=True)
class AtDeadline:
    """What the after-due forecasters may use: the ledgers as of now, and the submitted files."""

    view: LedgerView
    due: datetime
    submitted: dict[str, pd.DataFrame]
    min_forecasters: int = 2  # hub.toml [scoring] crowd_min_forecasters
    own: str = DEFAULT_OWN  # hub.toml [hub] own_prefix: the hub's own forecasters are no part of the crowd

    @cached_property
    def crowd(self) -> tuple[pd.MultiIndex, _Groups] | None:
        """The others' forecasts pooled by unit (``_units``), or None for a crowd of nobody: made
        once per round for all the crowd aggregates."""
        others = [f[[*_UNIT, "probability"]] for m, f in self.submitted.items() if not is_own(m, self.own)]
        return _units(pd.concat(others, ignore_index=True)) if others else None


def imputed(questions: pd.DataFrame, ctx: AtDeadline) -> pd.DataFrame:
    crowd = _market_value(questions, ctx, ctx.due)
    return forecast_frame(questions, crowd.fillna(0.5).clip(0.0, 1.0).to_numpy())


def naive(questions: pd.DataFrame, ctx: AtDeadline) -> pd.DataFrame:
    markets = _market_value(questions, ctx, ctx.due - days(1))
    direction = questions["question_id"].map(lambda q: _last_direction(ctx, q, format_ts(ctx.due)))
    values = np.where(questions["kind"] == MARKET, markets, direction)
    return forecast_frame(questions, pd.Series(values).fillna(0.5).clip(0.0, 1.0).to_numpy())


def _market_value(questions: pd.DataFrame, ctx: AtDeadline, when: datetime) -> pd.Series:
    """The latest market value observed at or before ``when`` (NaN for series or unknown)."""
    stamp = format_ts(when)
    return pd.Series(
        [
            ctx.view.series[q].at(stamp) if k == MARKET and q in ctx.view.series else np.nan
            for q, k in zip(questions["question_id"], questions["kind"], strict=True)
        ],
        dtype=float,
    )


def _last_direction(ctx: AtDeadline, question_id: str, when: str) -> float:
    series = ctx.view.series.get(question_id)
    if series is None:
        return 0.5
    values = series.values[series.dates <= when]
    if len(values) < 2 or values[-1] == values[-2]:
        return 0.5
    return 1.0 if values[-1] > values[-2] else 0.0


def crowd(aggregate: Callable[[np.ndarray], float]) -> Callable[[pd.DataFrame, AtDeadline], pd.DataFrame]:
    def run(questions: pd.DataFrame, ctx: AtDeadline) -> pd.DataFrame:
        if ctx.crowd is None:  # a crowd of nobody forecasts nothing (every unit is then imputed when scored)
            return forecast_frame(questions.iloc[:0], np.empty(0))
        units, groups = ctx.crowd
        values = groups.medians() if aggregate is _median else groups.apply(aggregate)
        by_unit = pd.Series(values, index=units)[np.diff(groups.bounds) >= ctx.min_forecasters]
        values = by_unit.reindex(pd.MultiIndex.from_frame(questions[_UNIT])).to_numpy(dtype=float)
        kept = ~np.isnan(values)
        return forecast_frame(questions[kept], np.clip(values[kept], 0.0, 1.0).round(6))

    return run


@dataclass(frozen=True)
class _Groups:
    """The pooled probabilities sorted by unit, each unit's in the order submitted: unit ``i`` is
    ``values[bounds[i]:bounds[i + 1]]``."""

    values: np.ndarray
    bounds: np.ndarray

    def apply(self, aggregate: Callable[[np.ndarray], float]) -> np.ndarray:
        return np.array([aggregate(self.values[a:b]) for a, b in zip(self.bounds[:-1], self.bounds[1:], strict=True)], dtype=float)

    def medians(self) -> np.ndarray:
        """``apply(_median)`` in one sort: each unit's middle value, or the mean of its two middle
        ones ((a + b) / 2, as ``np.median`` takes it), to the last bit. A missing value (never in a
        read forecast file) leaves it to ``apply``."""
        counts = np.diff(self.bounds)
        if np.isnan(self.values).any() or not counts.all():
            return self.apply(_median)
        ordered = self.values[np.lexsort((self.values, np.repeat(np.arange(len(counts)), counts)))]
        starts = self.bounds[:-1]
        return (ordered[starts + (counts - 1) // 2] + ordered[starts + counts // 2]) / 2


def _units(pooled: pd.DataFrame) -> tuple[pd.MultiIndex, _Groups]:
    """The units in order of first appearance and their forecasts: one stable sort instead of a
    Python call per unit through pandas (31,000 units a night at ForecastBench scale)."""
    grouped = pooled.groupby(_UNIT, sort=False)
    units = grouped.size().index  # group i is the i-th unit of ngroup
    codes = grouped.ngroup().to_numpy(dtype=float)
    known = ~np.isnan(codes)  # a unit with a missing key part is no unit: groupby drops it
    codes = codes[known].astype(np.int64)
    order = np.flatnonzero(known)[np.argsort(codes, kind="stable")]
    bounds = np.concatenate([[0], np.cumsum(np.bincount(codes, minlength=len(units)))])
    return units, _Groups(pooled["probability"].to_numpy(dtype=float)[order], bounds)


def _mean(x: np.ndarray) -> float:
    """pandas' ``Series.mean`` exactly: NaN counts as 0 in the sum and not in the count."""
    missing = np.isnan(x)
    if not missing.any():
        return float(x.sum() / len(x)) if len(x) else np.nan
    kept = int((~missing).sum())
    return float(np.where(missing, 0.0, x).sum() / kept) if kept else np.nan


def _median(p: np.ndarray) -> float:
    p = p[~np.isnan(p)]
    return float(np.median(p)) if len(p) else np.nan


def _geometric_mean(p: np.ndarray) -> float:
    return float(np.exp(_mean(np.log(np.clip(p, 1e-6, 1.0)))))


def _mean_log_odds(p: np.ndarray) -> float:
    q = np.clip(p, 1e-6, 1 - 1e-6)
    return float(1.0 / (1.0 + np.exp(-_mean(np.log(q / (1 - q))))))


def _meta(own: str, name: str, method: str, saw_crowd: bool = False) -> ModelMeta:
    """Metadata of a hub baseline, ``<own>.<name's slug>``. ``saw_crowd``: it uses the market's value (Imputed,
    Naive) or aggregates forecasts that may have (the crowd aggregates), so it is off the baseline board."""
    model_id = f"{own}." + name.lower().replace(" ", "-").replace("(", "").replace(")", "")
    return ModelMeta(id=model_id, name=name, organization=HUB_ORGANIZATION, kind="baseline", method=method, saw_crowd=saw_crowd)


Table = Mapping[str, tuple[ModelMeta, Callable]]


@functools.cache
def at_open(own: str = DEFAULT_OWN) -> Table:
    """The baselines written at a round's publication, by model id under the hub's prefix ``own``."""
    return MappingProxyType(
        {
            m.id: (m, run)
            for m, run in [
                (_meta(own, "Always 0.5", "Forecasts 0.5 on every question."), constant(0.5)),
                (_meta(own, "Always 0", "Forecasts 0 on every question."), constant(0.0)),
                (_meta(own, "Always 1", "Forecasts 1 on every question."), constant(1.0)),
                (_meta(own, "Random uniform", "A uniform random number per question, seeded by the due date."), random_uniform),
            ]
        }
    )


@functools.cache
def after_due(own: str = DEFAULT_OWN) -> Table:
    """The baselines written once the due time has passed, by model id under the hub's prefix ``own``."""
    return MappingProxyType(
        {
            m.id: (m, run)
            for m, run in [
                (_meta(own, "Imputed", "The crowd's market value at the due time; 0.5 on dataset questions.", saw_crowd=True), imputed),
                (
                    _meta(own, "Naive", "The market value of the day before the due date; the direction of the series' last change.", saw_crowd=True),
                    naive,
                ),
                (
                    _meta(own, "Crowd median", "Median of the forecasts submitted for the round, question by question.", saw_crowd=True),
                    crowd(_median),
                ),
                (_meta(own, "Crowd geometric mean", "Geometric mean of the submitted forecasts.", saw_crowd=True), crowd(_geometric_mean)),
                (
                    _meta(own, "Crowd log-odds mean", "Mean of the submitted forecasts' log-odds, mapped back to a probability.", saw_crowd=True),
                    crowd(_mean_log_odds),
                ),
            ]
        }
    )


def baselines(own: str = DEFAULT_OWN) -> Table:
    """Every baseline of the hub whose own prefix is ``own``, by model id."""
    return {**at_open(own), **after_due(own)}


def naive_model(own: str = DEFAULT_OWN) -> str:
    """The Naive baseline's id: the reference of the skill scores (``leaderboard.secondary``)."""
    return f"{own}.naive"
