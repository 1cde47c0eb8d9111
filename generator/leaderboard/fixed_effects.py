"""Difficulty-adjusted Brier score by two-way fixed effects, solved in batches of weightings.

What ForecastBench does (forecastingresearch/forecastbench, src/leaderboard/main.py) and where we
differ:

* Model. Per question type, ``brier_ij = a_i + b_j + u_ij`` by unweighted OLS (pyfixest
  ``feols(brier ~ 1 | question_pk + model_pk)``), fitted separately for dataset and market units.
  A dataset unit is question x horizon (``question_pk`` includes the horizon). In the current code
  markets are *not* regressed: ``b_j`` is the Brier of the "Imputed Forecaster" (the crowd value at
  the due date). We regress both types by default (the Methodology page, site_src/docs/methodology.md);
  ``build_panel(b_fixed=...)`` reproduces FB's market rule (``market_difficulty = "crowd"``).
* Estimation sample. FB keeps only its own, non-tournament models (no external teams, no "with
  freeze values / news / web search" variants), drops Always 0, Always 1, Always 0.5, Random
  Uniform and the Imputed Forecaster, and drops the *rows* of an LLM forecasting more than 365 days
  after its release (humans and the Naive Forecaster stay). Forecasts over the 5% imputed cutoff
  never reach the leaderboard. Here the caller passes ``in_estimation`` per row: the policy lives
  with the caller, the kernel only does algebra.
* Units with no estimation-sample forecast (of a fixed type too: ``panel.orphan_units``): FB raises
  ("Estimated num. of question fixed effects ... not equal to num. of questions"). We raise by
  default; ``orphan_units='drop'`` removes them;
  ``orphan_units='average'`` (the boards' rule) keeps them as units of the type's average difficulty,
  ``b_j = mean_b``: a model's D is then ``(n_id (mean over its identified units of (B - b) + mean_b)
  + sum of its Briers on orphans) / (n_id + n_orphans)``, so its orphans count at their raw Brier
  and a model covering every unit still scores its raw mean Brier. A type with no identified unit
  is scored raw.
* Score. FB averages ``brier_ij - b_j`` over each model's rows, then shifts every column so that
  Always 0.5 scores 0.25. We add the (weighted) mean of ``b_j`` over the type's identified units
  (those an estimation-sample row answers; orphans count at their raw Brier) instead, which is the
  same number whenever Always 0.5 covers those units (FB's does: it answers every unit of FB's board),
  and needs no Always 0.5 row.
  A model covering every unit therefore scores its raw mean Brier. Models outside the estimation
  sample are scored the same way with the estimated ``b_j``.
* Overall = (D_dataset + D_market) / 2 (NaN when a model lacks a type); Brier Index =
  100 (1 - sqrt(D)). FB takes sqrt of a negative D as NaN; we clip D at 0 (index capped at 100).
* Normalisation. ``a``/``b`` are identified only up to one constant per connected component of
  the model-question graph; ``D`` is invariant to it when the panel is connected. Our gauge, per
  component: sum_j w_j b_j = sum_j w_j m_j, with m_j the estimation-sample mean Brier of unit j
  (so ``b`` is on the Brier scale). FB inherits pyfixest's arbitrary choice. If the graph splits,
  D across components depends on the gauge in any implementation; ours is this documented one.
* Bootstrap: see ``bootstrap``; summaries: see ``stats``.

Algebra. With unit weights w_j, n_j estimation answerers of unit j, x_j their indicator and
m_j their mean Brier, eliminating b_j = m_j - x_j.a / n_j leaves the reduced normal equations
``L a = r`` with ``L = diag(X w) - sum_j w_j x_j x_j^T / n_j`` and ``r = R w``. Both are linear in w,
so a whole chunk of bootstrap weightings is a few matrix products and one stacked ``solve``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from .panel import PATTERN_BLOCK_BYTES, Panel, TypeKernel, pattern_table


@dataclass(frozen=True)
class FitResult:
    """Point estimates. Arrays over types are indexed like ``type_names``.

    D: (n_types, n_models) difficulty-adjusted Brier, NaN where a model has no unit of the type.
    overall: (n_models,) mean of D over types, NaN if any type is missing.
    a: (n_types, n_models) model effects, NaN outside the estimation sample (gauge-dependent).
    b: (n_units,) question effects, NaN for dropped units (gauge-dependent, see module doc).
    mean_b: (n_types,) weighted mean of b over the units of each type.
    n: (n_types, n_models) weighted number of units each model answered.
    """

    type_names: tuple[str, ...]
    D: np.ndarray
    overall: np.ndarray
    a: np.ndarray
    b: np.ndarray
    mean_b: np.ndarray
    n: np.ndarray


def brier_index(D):
    """Brier Index 100 (1 - sqrt(D)); D is clipped at 0 so the index never exceeds 100."""
    return 100.0 * (1.0 - np.sqrt(np.clip(D, 0.0, None)))


def overall_score(D: np.ndarray) -> np.ndarray:
    """Mean over the leading (type) axis; NaN where any type is missing (FB: not pooled)."""
    return D.mean(axis=0)


def _symmetric(flat: np.ndarray, n: int) -> np.ndarray:
    """Rebuild (batch, n, n) symmetric matrices from their row-major upper triangles: one gather
    through ``_mirror(n)`` (each cell's place in the triangle), where two scatters into the upper and
    lower triangles cost the bootstrap twice the memory traffic; the same values."""
    return np.take(flat, _mirror(n), axis=1)


@functools.lru_cache(maxsize=8)
def _mirror(n: int) -> np.ndarray:
    """(n, n) index of cell (i, j) among the row-major upper triangle's entries, (i, j) and (j, i) alike."""
    iu, ju = np.triu_indices(n)
    index = np.empty((n, n), dtype=np.intp)
    index[iu, ju] = np.arange(iu.size)
    index[ju, iu] = index[iu, ju]
    return index


def _components(K: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """Same-component indicators of the graphs whose edges are K's nonzeros (batch, n, n): the
    graphs that are not complete (``open_``, a boolean per graph) and their closures, (open, n, n) 0/1
    floats, or None when every graph is complete (a complete graph is its own closure: all ones, so
    nothing is kept for it). Each graph's closure does not depend on the others."""
    edge = K > 0
    diag = np.arange(K.shape[1])
    edge[:, diag, diag] = True
    open_ = ~np.asarray(edge.reshape(len(edge), -1).all(axis=1))
    if not open_.any():
        return open_, None
    return open_, _closure(edge[open_].astype(float))


def _closure(S: np.ndarray) -> np.ndarray:
    """Transitive closure of reflexive 0/1 adjacency matrices (batch, n, n), as 0/1 floats."""
    while True:
        nxt = np.minimum(S @ S, 1.0)
        if np.array_equal(nxt, S):
            return S
        S = nxt


def _cross_products(k: TypeKernel, W: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """K_b = sum_j W[j, b] x_j x_j^T / n_j for every column b, summed over answer patterns; and the
    weights summed by pattern, Wp (batch, patterns)."""
    Wp = (k.pattern_matrix @ W).T
    if k.G is not None:
        return _symmetric(Wp @ k.G, k.n_est), Wp
    step = max(1, PATTERN_BLOCK_BYTES // (4 * k.n_est * (k.n_est + 1)))
    flat = sum(Wp[:, s : s + step] @ pattern_table(k.patterns[s : s + step]) for s in range(0, len(k.patterns), step))
    return _symmetric(flat, k.n_est), Wp


def model_effects(k: TypeKernel, W: np.ndarray, counts: bool = False) -> np.ndarray:
    """Solve the gauge-fixed reduced normal equations; returns a (batch, n_est).

    The system ``L a = r``, with ``L = diag(X w) - K`` (``_cross_products``), is made regular by adding,
    within each connected component c, ``1_c g_c^T`` (which imposes g_c . a = 0, our gauge), g = C w;
    idle models (zero weight) get a_i = 0. ``A`` is made in K's memory, in the order of ``(-K + diag(X w))
    + S g^T``, S the same-component indicator: for a complete graph S is all ones and ``S g^T`` is g in
    every row, added as such (the same floats, without a (batch, n, n) product).

    ``counts``: W holds whole numbers (the bootstrap's draws). ``X w`` is then taken from the weights
    summed by answer pattern (patterns x est, not units x est): sums of whole numbers, exact in any
    order, so the same floats as ``X @ W``."""
    if k.n_est == 0:
        return np.zeros((W.shape[1], 0))
    A, Wp = _cross_products(k, W)
    open_, closures = _components(A)
    np.negative(A, out=A)
    diag = np.arange(k.n_est)
    A[:, diag, diag] += Wp @ k.patterns if counts else (k.X @ W).T
    g = (k.C @ W).T
    if closures is None:
        A += g[:, None, :]
    else:
        A[~open_] += g[~open_, None, :]
        A[open_] += closures * g[open_, None, :]
    A[:, diag, diag] += g == 0
    return np.linalg.solve(A, (k.R @ W).T[..., None])[..., 0]


def type_scores(k: TypeKernel, W: np.ndarray, a: np.ndarray, answered: np.ndarray | None = None):
    """Difficulty-adjusted Brier for every model and weighting column.

    Returns (D (batch, n_models), mean_b (batch,), beta (units, batch)) where
    beta_j = C[:, j] . a so that b_j = m_j - beta_j. ``answered``: ``Y @ W`` when the caller has it.
    """
    beta = k.C.T @ a.T
    wbeta = W * beta
    answered = k.Y @ W if answered is None else answered
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_b = (k.m @ W - wbeta.sum(axis=0)) / W.sum(axis=0)
        D = (k.Q @ W + k.Y @ wbeta) / answered + mean_b
    return D.T, mean_b, beta


def scores_for_weights(panel: Panel, weights: np.ndarray) -> np.ndarray:
    """D (n_types, batch, n_models) for a (n_units, batch) array of unit weights (unit-major, as
    ``bootstrap.unit_draws`` draws them: a type's units are then whole rows, taken without the
    transposing copy a (batch, n_units) array needs). Integer weights (draws) are counts: see
    ``model_effects``."""
    counts = np.issubdtype(weights.dtype, np.integer)
    out = np.full((len(panel.kernels), weights.shape[1], panel.n_models), np.nan)
    for t, k in enumerate(panel.kernels):
        if k.units.size:
            W = np.take(weights, k.units, axis=0).astype(float)
            n_id = k.Y @ W
            out[t] = type_scores(k, W, model_effects(k, W, counts), n_id)[0]
            n_id = n_id.T
        else:
            n_id = np.zeros((weights.shape[1], panel.n_models))
        if k.orphans.size:
            out[t] = with_orphans(k, out[t], n_id, np.take(weights, k.orphans, axis=0).astype(float))
    return out


def with_orphans(k: TypeKernel, D: np.ndarray, n_id: np.ndarray, Wo: np.ndarray) -> np.ndarray:
    """D (batch, models) over the identified units, with the type's orphan units (weights ``Wo``,
    orphans x batch) added at the average difficulty: each model's orphans count at their raw Brier,
    weighted by the share of its units they are (module docstring). ``n_id``: each model's weighted
    number of identified units (batch, models)."""
    n_orphan, brier = (k.Yo @ Wo).T, (k.Bo @ Wo).T
    with np.errstate(invalid="ignore", divide="ignore"):
        return (np.where(n_id > 0, n_id * D, 0.0) + brier) / (n_id + n_orphan)


def _weights(panel: Panel, weights) -> np.ndarray:
    """Validate optional unit weights (default 1); returns a (n_units,) float array."""
    if weights is None:
        return np.ones(panel.n_units)
    w = np.asarray(weights, dtype=float)
    if w.shape != (panel.n_units,) or not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError(f"weights must be {panel.n_units} finite non-negative values")
    return w


def fit(panel: Panel, weights=None) -> FitResult:
    """Fit the two-way fixed effects (weighted by unit ``weights``) and score every model."""
    w = _weights(panel, weights)
    n_t, n_m = len(panel.kernels), panel.n_models
    D, a, n = (np.full((n_t, n_m), np.nan) for _ in range(3))
    b, mean_b = np.full(panel.n_units, np.nan), np.full(n_t, np.nan)
    for t, k in enumerate(panel.kernels):
        if not (k.units.size or k.orphans.size):
            continue
        n[t] = 0.0
        if k.units.size:
            W = w[k.units, None]
            a_t = model_effects(k, W)
            D_t, mean_b[t : t + 1], beta = type_scores(k, W, a_t)
            D[t], a[t, k.est_models], b[k.units] = D_t[0], a_t[0], k.m - beta[:, 0]
            n[t] = (k.Y @ W)[:, 0]
        if k.orphans.size:
            Wo = w[k.orphans, None]
            D[t] = with_orphans(k, D[t][None], n[t][None], Wo)[0]
            b[k.orphans] = mean_b[t]
            n[t] += (k.Yo @ Wo)[:, 0]
    return FitResult(panel.type_names, D, overall_score(D), a, b, mean_b, n)
