"""Leaderboard statistics from bootstrap replicates: CIs, p-values, ranks, pairwise tests.

Everything is computed on the Brier Index scale (higher is better), as ForecastBench does:

* CI: the 2.5% and 97.5% percentiles of the replicates (linear interpolation, as pandas'
  ``quantile``), per type and overall.
* p-value against a reference row (FB ``get_comparison_p_val``, not centred): the share of
  replicates in which the model scores at least as well as the reference. Small p supports
  "the reference is better" (FB's "Supers > Forecaster?"); ``alternative="model_better"`` returns
  1 - p (FB's "Forecaster > Public?"). Labels: Yes p<0.01, Likely p<0.10, No; the reference row
  gets "—". FB can BH-adjust (off by default); we do not.
* % ranked #1: FB uses ``idxmax`` (the first of tied models wins); we share ties equally.
  % top 5%: the model scores at least the replicate's 95th percentile across models (as FB).
* Rank intervals (not in FB): the 2.5% (rounded down) and 97.5% (rounded up) quantiles of the
  model's rank (1 = best, ties take the lowest rank) over the replicates.
* Pairwise matrix (not in FB): for the top K by point estimate, p[i, k] = share of replicates in
  which model i does not beat model k (one-sided test of "i better than k").
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Literal

import numpy as np

from .bootstrap import BootstrapResult
from .fixed_effects import FitResult, brier_index

ALTERNATIVES = ("reference_better", "model_better")
NO_VALUE = "—"


def _nanquantile(x: np.ndarray, q, method: Literal["linear", "lower", "higher"] = "linear") -> np.ndarray:
    """``np.nanquantile`` over axis 0 that returns NaN for all-NaN columns without warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanquantile(x, q, axis=0, method=method)


def percentile_ci(replicates: np.ndarray, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval per column of (n_replicates, n_models) replicates."""
    if not 0 < level < 1:
        raise ValueError("level must be in (0, 1)")
    low, high = _nanquantile(replicates, [(1 - level) / 2, (1 + level) / 2])
    return low, high


def p_label(p: float) -> str:
    """FB's verdict for a one-sided p-value: Yes (p<0.01), Likely (p<0.10), No; NaN -> '—'."""
    if not np.isfinite(p):
        return NO_VALUE
    return "Yes" if p < 0.01 else "Likely" if p < 0.10 else "No"


def format_p(p: float) -> str:
    """FB's display of a p-value: '<0.001', '<0.01' or two decimals; NaN -> '—'."""
    if not np.isfinite(p):
        return NO_VALUE
    return "<0.001" if p < 0.001 else "<0.01" if p < 0.01 else f"{p:.2f}"


def one_sided_p(bi: np.ndarray, reference: int, alternative: str = "reference_better") -> np.ndarray:
    """p-values of every column of ``bi`` (replicates x models) against column ``reference``."""
    if alternative not in ALTERNATIVES:
        raise ValueError(f"alternative must be one of {ALTERNATIVES}")
    both = np.isfinite(bi) & np.isfinite(bi[:, [reference]])
    with np.errstate(invalid="ignore"):
        p = ((bi >= bi[:, [reference]]) & both).sum(axis=0) / both.sum(axis=0)
    p = 1.0 - p if alternative == "model_better" else p
    p[reference] = np.nan
    return p


def rankdata(*args, **kwargs) -> np.ndarray:
    """``scipy.stats.rankdata``, imported on first use: scipy.stats takes about a second to import,
    which a nightly with nothing new to rank (its boards kept) would pay for nothing."""
    from scipy.stats import rankdata as scipy_rankdata

    return scipy_rankdata(*args, **kwargs)


def replicate_ranks(bi: np.ndarray) -> np.ndarray:
    """Rank per replicate row (1 = highest index; ties share the lowest rank; NaN stays NaN): scipy's
    ``rankdata(-bi, axis=1, method="min", nan_policy="omit")`` (tests/leaderboard/test_bootstrap.py) from one
    sort of the rows, each value's rank one plus the position where its run of equal values starts
    (scipy ranked the site's 1,999 replicates a row at a time)."""
    x = -np.asarray(bi, dtype=float)
    order = np.argsort(x, axis=1, kind="stable")  # NaN last
    ordered = np.take_along_axis(x, order, axis=1)
    starts = np.ones(ordered.shape, dtype=bool)
    starts[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    position = np.broadcast_to(np.arange(x.shape[1]), x.shape)
    ranked = np.maximum.accumulate(np.where(starts, position, 0), axis=1) + 1.0
    ranked[np.isnan(ordered)] = np.nan
    out = np.empty_like(ranked)
    np.put_along_axis(out, order, ranked, axis=1)
    return out if np.isnan(ordered).any() else out.astype(np.int64)  # scipy's integers when nothing is NaN


def min_ranks(values: np.ndarray) -> np.ndarray:
    """``rankdata(values, method="min")`` of finite values (1 = smallest; ties share the lowest rank),
    as floats: one plus the number of smaller values. scipy's checks cost a board of point
    estimates a tenth of its time (``_rank_stats``: the nightly's headline ranks 8 boards a night)."""
    return np.searchsorted(np.sort(values), values, side="left") + 1.0


def pct_rank1(bi: np.ndarray) -> np.ndarray:
    """Percent of replicates in which each model is best; tied models share the replicate."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        best = bi == np.nanmax(bi, axis=1, keepdims=True)
    share = best / np.maximum(best.sum(axis=1, keepdims=True), 1)
    return 100.0 * share.mean(axis=0)


def pct_top(bi: np.ndarray, quantile: float = 0.95) -> np.ndarray:
    """Percent of replicates in which a model reaches the replicate's ``quantile`` across models."""
    threshold = row_nanquantile(bi, quantile)
    return 100.0 * (bi >= threshold[:, None]).mean(axis=0)


def row_nanquantile(x: np.ndarray, q: float) -> np.ndarray:
    """``np.nanquantile(x, q, axis=1)`` (NaN for a row of NaN only, without a warning): numpy takes a
    row with a NaN one at a time, but its value is the quantile of the row's other values, so rows
    sharing which cells are NaN (a board's replicates: those of the models outside the ranking) are
    taken together, as ``np.quantile`` of their finite columns (tests/leaderboard/test_bootstrap.py)."""
    out = np.full(x.shape[0], np.nan)
    missing = np.isnan(x)
    patterns, group = np.unique(missing, axis=0, return_inverse=True)
    for g, pattern in enumerate(patterns):
        if not pattern.all():
            rows = np.flatnonzero(group.ravel() == g)
            out[rows] = np.quantile(x[np.ix_(rows, np.flatnonzero(~pattern))], q, axis=1)
    return out


def rank_interval(ranks: np.ndarray, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Integer rank interval: lower quantile rounded down, upper quantile rounded up."""
    low = _nanquantile(ranks, (1 - level) / 2, method="lower")
    return low, _nanquantile(ranks, (1 + level) / 2, method="higher")


def pairwise_p(bi: np.ndarray, models: np.ndarray) -> np.ndarray:
    """p[i, k]: share of replicates where models[i] scores no better than models[k]."""
    sub = bi[:, models]
    both = np.isfinite(sub[:, :, None]) & np.isfinite(sub[:, None, :])
    with np.errstate(invalid="ignore"):
        p = ((sub[:, :, None] <= sub[:, None, :]) & both).sum(axis=0) / both.sum(axis=0)
    np.fill_diagonal(p, np.nan)
    return p


@dataclass(frozen=True)
class Summary:
    """Per-model leaderboard statistics. (n_scores, n_models) arrays follow ``score_names``;
    the rank statistics and p-values are for ``score`` and NaN for models outside the ranking.
    ``top_k`` holds model codes best first; ``pairwise`` is the matrix of ``pairwise_p`` on them."""

    score_names: tuple[str, ...]
    D: np.ndarray
    brier_index: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    score: str
    rank: np.ndarray
    p_value: np.ndarray
    p_label: tuple[str, ...]
    pct_rank1: np.ndarray
    pct_top5: np.ndarray
    rank_low: np.ndarray
    rank_high: np.ndarray
    top_k: np.ndarray
    pairwise: np.ndarray


def _point_and_replicates(fit: FitResult, boot: BootstrapResult | None):
    """Stack point D and replicate D (None without a bootstrap) over (types..., overall)."""
    names = tuple(fit.type_names) + ("overall",)
    point = np.vstack([fit.D, fit.overall[None]])
    reps = None if boot is None else np.concatenate([boot.D, boot.overall[None]], axis=0)
    return names, point, reps


def _ranking_mask(point_bi: np.ndarray, rankable) -> np.ndarray:
    """Models in the ranking: ``rankable`` (default all) with a finite point estimate."""
    mask = np.ones(point_bi.size, bool) if rankable is None else np.asarray(rankable, bool)
    if mask.shape != point_bi.shape:
        raise ValueError(f"rankable must have one flag per model ({point_bi.size})")
    return mask & np.isfinite(point_bi)


def _rank_stats(point_bi, bi, mask, top_k: int, level: float):
    """Point rank, % #1, % top 5%, rank interval, top-K codes and their pairwise p-matrix; without
    replicates (``bi`` None) only the rank and the top K, every replicate statistic NaN."""
    rank = np.full(point_bi.size, np.nan)
    rank[mask] = min_ranks(-point_bi[mask])
    order = np.flatnonzero(mask)[np.argsort(-point_bi[mask], kind="stable")][:top_k]
    if bi is None:
        nan = np.full(point_bi.size, np.nan)
        return rank, nan, nan.copy(), nan.copy(), nan.copy(), order, np.full((order.size, order.size), np.nan)
    bi = np.where(mask, bi, np.nan)
    ranks = replicate_ranks(bi)
    low, high = rank_interval(ranks, level)
    nan_out = lambda x: np.where(mask, x, np.nan)  # noqa: E731
    return (rank, nan_out(pct_rank1(bi)), nan_out(pct_top(bi)), nan_out(low), nan_out(high), order, pairwise_p(bi, order))


def summarize(
    fit: FitResult,
    boot: BootstrapResult | None,
    reference: int | None = None,
    top_k: int = 10,
    score: str = "overall",
    alternative: str = "reference_better",
    rankable=None,
    level: float = 0.95,
) -> Summary:
    """Turn a fit and its bootstrap into CIs (every score), p-values vs ``reference`` and rank
    statistics (for ``score``, among ``rankable`` models with a finite point estimate). ``boot``
    None (no replicates: a board of point estimates and ranks) leaves every statistic of the
    replicates NaN: computing them from one replicate only to discard them cost the nightly's
    headline boards a third of their time."""
    names, point, reps = _point_and_replicates(fit, boot)
    if score not in names:
        raise ValueError(f"score must be one of {names}")
    point_bi, reps_bi = brier_index(point), None if reps is None else brier_index(reps)
    s = names.index(score)
    p = np.full(point.shape[1], np.nan)
    if reps_bi is None:
        low, high = np.full(point.shape, np.nan), np.full(point.shape, np.nan)
    else:
        low, high = np.stack([np.stack(percentile_ci(r, level)) for r in reps_bi], axis=1)
        if reference is not None:
            p = one_sided_p(reps_bi[s], int(reference), alternative)
    mask = _ranking_mask(point_bi[s], rankable)
    ranked = _rank_stats(point_bi[s], None if reps_bi is None else reps_bi[s], mask, top_k, level)
    return Summary(names, point, point_bi, low, high, score, ranked[0], p, tuple(p_label(x) for x in p), *ranked[1:])
