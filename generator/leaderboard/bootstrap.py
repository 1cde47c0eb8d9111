"""Stratified cluster bootstrap of the difficulty-adjusted Brier, all replicates in batches.

ForecastBench (src/leaderboard/main.py, ``generate_simulated_leaderboards``) draws, within every
(forecast due date, source) stratum, as many ``question_pk`` as the stratum holds, with
replacement, relabels repeated draws so that each copy is its own question, refits pyfixest for
each of 1,999 replicates (joblib, unseeded pandas sampling) and keeps the Brier Index per model
and type. A question drawn k times with its own fixed effect is, for least squares and for every
mean in the score, exactly a question with weight k; so a replicate here is a vector of integer
unit weights, and a chunk of replicates is solved at once (see ``fixed_effects``).

Differences: the draw uses the caller's ``numpy.random.Generator`` (reproducible, and independent
of ``chunk``: replicate r always consumes the same random numbers), and the resampling unit is a
*cluster* (default: the unit, as in FB; pass the question id to keep all horizons of a dataset
question together, so the CIs do not ignore how the horizons of one question cluster).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .fixed_effects import overall_score, scores_for_weights
from .panel import Panel


@dataclass(frozen=True)
class BootstrapResult:
    """Replicate scores: D (n_types, n_replicates, n_models) and overall (n_replicates, n_models)."""

    type_names: tuple[str, ...]
    D: np.ndarray
    overall: np.ndarray

    def scores(self, name: str) -> np.ndarray:
        """Replicates (n_replicates, n_models) of a type name or of "overall"."""
        if name == "overall":
            return self.overall
        if name not in self.type_names:
            raise ValueError(f"unknown score {name!r}; expected 'overall' or one of {self.type_names}")
        return self.D[self.type_names.index(name)]


def draw_weights(panel: Panel, n_replicates: int, rng: np.random.Generator) -> np.ndarray:
    """Unit weights (n_replicates, n_units): how often each unit's cluster was drawn
    (``unit_draws``, replicate-major)."""
    return unit_draws(panel, n_replicates, rng).T


def unit_draws(panel: Panel, n_replicates: int, rng: np.random.Generator) -> np.ndarray:
    """Unit weights (n_units, n_replicates), unit-major (what ``scores_for_weights`` reads): how often
    each unit's cluster was drawn in each replicate.

    Within every stratum, as many clusters as it holds are drawn uniformly with replacement.
    Replicate r consumes exactly ``n_clusters`` uniforms, in order, so splitting the replicates
    into chunks does not change any draw.
    """
    n_c = panel.n_clusters
    u = rng.random((n_replicates, n_c))
    # The same arithmetic as cluster_order[slot_start + int64(u * slot_size)], done in place.
    np.multiply(u, panel.slot_size, out=u)
    slot = u.astype(np.int64)
    del u
    slot += panel.slot_start
    picked = panel.cluster_order[slot]
    del slot
    picked += n_c * np.arange(n_replicates)[:, None]
    counts = np.bincount(picked.ravel(), minlength=n_replicates * n_c).reshape(n_replicates, n_c)
    del picked
    # unit-major in one transposing copy, of 4-byte counts (a count is at most n_clusters < 2**31):
    # counting straight into unit-major cells scatters every write, and each type's float weights
    # then come as whole rows (``scores_for_weights``) where replicate-major needs a gather per type
    counts = np.ascontiguousarray(counts.astype(np.int32).T)
    if not _identity(panel.unit_cluster, n_c):  # every unit its own cluster (the default): no gather
        counts = counts[panel.unit_cluster]
    if not panel.active.all():
        counts *= panel.active[:, None]
    return counts


def _identity(unit_cluster: np.ndarray, n_clusters: int) -> bool:
    return len(unit_cluster) == n_clusters and bool(np.array_equal(unit_cluster, np.arange(n_clusters)))


def _check_args(n_replicates: int, rng, chunk: int) -> None:
    """Raise ValueError for a non-positive count or chunk, or a missing Generator."""
    if not isinstance(rng, np.random.Generator):
        raise ValueError("rng must be a numpy.random.Generator (np.random.default_rng(seed))")
    if int(n_replicates) < 1 or int(chunk) < 1:
        raise ValueError("n_replicates and chunk must be positive")


def bootstrap(
    panel: Panel,
    n_replicates: int,
    rng: np.random.Generator,
    chunk: int = 256,
) -> BootstrapResult:
    """Refit the fixed effects on ``n_replicates`` (the hub's default: 1,999) stratified cluster resamples.

    Memory grows with ``chunk`` (about chunk x (n_units + 3 n_est^2) doubles per type), not with
    ``n_replicates``. The result depends only on the rng state, not on ``chunk``.
    """
    _check_args(n_replicates, rng, chunk)
    D = np.empty((len(panel.kernels), n_replicates, panel.n_models))
    for start in range(0, n_replicates, chunk):
        stop = min(start + chunk, n_replicates)
        D[:, start:stop] = scores_for_weights(panel, unit_draws(panel, stop - start, rng))
    return BootstrapResult(panel.type_names, D, overall_score(D))
