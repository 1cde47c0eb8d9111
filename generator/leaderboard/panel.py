"""The scored panel: integer-coded forecast rows plus the per-type sufficient statistics.

``build_panel`` validates long arrays (one entry per scored forecast) and precomputes, for every
question type, the dense matrices that make a fixed-effects fit a handful of matrix products:

* ``Y``  (models x units)  1 where the model answered the unit (any model);
* ``Q``  (models x units)  ``Y * (B - m)`` with ``m_j`` the estimation-sample mean Brier of unit j;
* ``X``  (est x units)     1 where an estimation-sample row exists;
* ``R``  (est x units)     ``X * (B - m)``, the right-hand side of the reduced normal equations;
* ``C``  (est x units)     ``X / n_j``, so that ``b_j = m_j - C[:, j] @ a``;
* ``patterns``/``G``       units grouped by their set of estimation-sample answerers, and the
  upper triangle of ``x_p x_p^T / n_p`` per pattern, so the reduced matrix of any weighting is one
  (weights x patterns) @ (patterns x est^2/2) product. ``G`` is None when that table would exceed
  ``PATTERN_TABLE_MAX_BYTES``; it is then rebuilt in blocks from ``patterns`` (patterns x est).
* ``orphans``/``Yo``/``Bo``  under ``orphan_units="average"``: the type's units no estimation-sample
  row answers (their difficulty is not identified), and who answered them with which Brier
  (models x orphans); they are scored as units of average difficulty (``fixed_effects``).

See ``fixed_effects`` for the algebra and the ForecastBench comparison.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd
from scipy import sparse

ORPHAN_POLICIES = ("raise", "drop", "average")
# Above this size the per-pattern table G is not stored but rebuilt block by block for every chunk
# of replicates (same result, bounded memory when nearly every unit has its own pattern).
PATTERN_TABLE_MAX_BYTES = 512 * 2**20
PATTERN_BLOCK_BYTES = 64 * 2**20


@dataclass(frozen=True)
class TypeKernel:
    """Precomputed sufficient statistics of one question type (see the module docstring)."""

    units: np.ndarray
    est_models: np.ndarray
    m: np.ndarray
    Y: np.ndarray
    Q: np.ndarray
    X: np.ndarray
    R: np.ndarray
    C: np.ndarray
    pattern_matrix: sparse.csr_matrix
    patterns: np.ndarray
    G: np.ndarray | None
    fixed: bool
    orphans: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    Yo: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    Bo: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))

    @property
    def n_est(self) -> int:
        """Number of estimation-sample models of this type."""
        return len(self.est_models)


@dataclass(frozen=True)
class Panel:
    """A validated panel of scored forecasts (all arrays are integer codes or floats).

    Row arrays (``model``, ``unit``, ``brier``, ``in_estimation``) have one entry per forecast;
    unit arrays (``unit_type``, ``unit_stratum``, ``unit_cluster``, ``active``) one per unit.
    ``cluster_order``/``slot_start``/``slot_size`` describe the clusters sorted by stratum, which
    is what the bootstrap draws from.
    """

    n_models: int
    n_units: int
    type_names: tuple[str, ...]
    model: np.ndarray
    unit: np.ndarray
    brier: np.ndarray
    in_estimation: np.ndarray
    unit_type: np.ndarray
    unit_stratum: np.ndarray
    unit_cluster: np.ndarray
    active: np.ndarray
    cluster_order: np.ndarray
    slot_start: np.ndarray
    slot_size: np.ndarray
    kernels: tuple[TypeKernel, ...]
    orphan: np.ndarray | None = None  # per unit: no estimation-sample row (``orphan_units="average"``)

    @property
    def n_clusters(self) -> int:
        """Number of resampling clusters."""
        return len(self.cluster_order)


def sorted_codes(values) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(values, return_inverse=True)``: the distinct values sorted, and each value's
    index among them. By hashing, sorting only the distinct values: ``np.unique`` sorts every value,
    and sorting thousands of ids in an object array cost the nightly's boards more than their fit."""
    codes, uniques = pd.factorize(np.asarray(values), use_na_sentinel=False)
    order = np.argsort(uniques, kind="stable")
    position = np.empty(len(order), dtype=np.int64)
    position[order] = np.arange(len(order))
    return np.asarray(uniques)[order], position[codes]


def counted_unique(values: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(values, return_inverse=True)`` for integers in ``[0, size)``: by counting, where
    ``np.unique`` sorts every value (millions of rows a board at three years, for a few thousand keys)."""
    present = np.bincount(values, minlength=size) > 0
    return np.flatnonzero(present), (np.cumsum(present) - 1)[values]


def _codes(name: str, values, size: int | None = None) -> np.ndarray:
    """Return ``values`` as a non-negative int64 array, raising ValueError otherwise."""
    arr = np.asarray(values)
    if arr.ndim != 1 or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"{name} must be a 1-D array of integer codes (use pandas.factorize)")
    if arr.size and arr.min() < 0:
        raise ValueError(f"{name} contains negative codes")
    if size is not None and arr.size != size:
        raise ValueError(f"{name} has {arr.size} entries, expected {size}")
    return arr.astype(np.int64)


def _has_duplicates(key: np.ndarray, n_keys: int) -> bool:
    """True if ``key`` (values < n_keys) repeats: fewer distinct keys than keys. Marked in one byte a
    key when that fits (a count of 8 bytes a key cost the boards ~8 bytes a row at three years), else a sort."""
    if n_keys <= 400_000_000:
        seen = np.zeros(n_keys, dtype=bool)
        seen[key] = True
        return int(np.count_nonzero(seen)) < key.size
    ordered = np.sort(key)
    return bool(np.any(ordered[1:] == ordered[:-1]))


def _check_rows(model, unit, brier, n_units: int) -> None:
    """Validate the row arrays: finite Brier scores, unique (model, unit), every unit answered."""
    if not np.all(np.isfinite(brier)):
        raise ValueError("brier contains NaN or infinite values")
    if unit.size and unit.max() >= n_units:
        raise ValueError("unit codes exceed the length of the per-unit arrays")
    key = model * n_units + unit
    if _has_duplicates(key, (int(model.max(initial=0)) + 1) * n_units):
        raise ValueError("duplicate (model, unit) rows: each model may score a unit once")
    if np.bincount(unit, minlength=n_units).min(initial=1) == 0:
        raise ValueError("some units have no forecast rows")


def _check_fixed(b_fixed: np.ndarray, unit_type: np.ndarray, n_types: int) -> np.ndarray:
    """Return per-type flags of fixed question effects; a type must be all fixed or all free."""
    finite = np.isfinite(b_fixed)
    flags = np.zeros(n_types, dtype=bool)
    for t in range(n_types):
        sel = finite[unit_type == t]
        if sel.any() and not sel.all():
            raise ValueError(f"b_fixed must be given for all units of type {t} or for none")
        flags[t] = sel.size > 0 and sel.all()
    return flags


def orphan_units(unit, in_estimation, n_units: int) -> np.ndarray:
    """Per unit: no estimation-sample row answers it. A free type's orphan has no identified difficulty
    (ForecastBench refuses such a board). A fixed type's (the crowd's market rule) has one, but is
    not a unit of ForecastBench's board either: its rounds hold no forecast set of the estimation
    sample (a partial import's other rounds, answered only by the hub's own baselines). Counting its
    fixed difficulty in the type's average would move every model's score by the difference between
    that average and the one over the board's units (Always 0.5 at 45.4 rather than 50 on a partial
    import), so it is an orphan too: kept at the average difficulty or dropped, like any other."""
    return np.bincount(np.asarray(unit)[np.asarray(in_estimation, bool)], minlength=n_units) == 0


def _active_units(unit, est, n_units: int, orphans: str) -> tuple[np.ndarray, np.ndarray]:
    """Units that stay in the panel, and the orphans among them: raised on, dropped, or kept
    (``"average"``: every unit stays, its orphans scored at the type's average difficulty)."""
    orphan = orphan_units(unit, est, n_units)
    if orphan.any() and orphans == "raise":
        raise ValueError(
            f"{int(orphan.sum())} units have no estimation-sample forecast, so their difficulty "
            "is not identified (ForecastBench raises here); pass orphan_units='drop' to skip them"
        )
    if orphans == "average":
        return np.ones(n_units, bool), orphan
    return ~orphan, np.zeros(n_units, bool)


def _cluster_slots(unit_cluster, unit_stratum, n_units: int):
    """Sort clusters by stratum; return (order, slot_start, slot_size) for the bootstrap draw."""
    n_clusters = int(unit_cluster.max()) + 1 if n_units else 0
    stratum = np.full(n_clusters, -1, dtype=np.int64)
    stratum[unit_cluster] = unit_stratum
    if np.any(stratum[unit_cluster] != unit_stratum) or np.any(stratum < 0):
        raise ValueError("cluster codes must be contiguous and each cluster within one stratum")
    order = np.argsort(stratum, kind="stable")
    sizes = np.bincount(stratum, minlength=int(stratum.max()) + 1)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    return order, starts[stratum[order]], sizes[stratum[order]]


def pattern_table(xp: np.ndarray) -> np.ndarray:
    """Upper triangles (row-major) of x_p x_p^T / n_p for pattern rows xp (patterns x est)."""
    iu, ju = np.triu_indices(xp.shape[1])
    return xp[:, iu] * xp[:, ju] / xp.sum(axis=1, keepdims=True)


def _patterns(X: np.ndarray):
    """Group units by their column of X; return (pattern x unit indicator, patterns, G or None)."""
    n_est, n_units = X.shape
    if n_est == 0 or n_units == 0:
        return sparse.csr_matrix((0, n_units)), np.zeros((0, n_est)), None
    packed = np.packbits(X.T.astype(bool), axis=1)
    _, first, inverse = np.unique(packed, axis=0, return_index=True, return_inverse=True)
    indicator = sparse.csr_matrix((np.ones(n_units), (inverse.ravel(), np.arange(n_units))), shape=(len(first), n_units))
    xp = np.ascontiguousarray(X[:, first].T)
    small = len(first) * n_est * (n_est + 1) * 4 <= PATTERN_TABLE_MAX_BYTES
    return indicator, xp, _stored_table(xp) if small else None


def _stored_table(xp: np.ndarray) -> np.ndarray:
    """``pattern_table(xp)`` filled block by block, so temporaries stay below one block."""
    n_est = xp.shape[1]
    table = np.empty((len(xp), n_est * (n_est + 1) // 2))
    step = max(1, PATTERN_BLOCK_BYTES // (4 * n_est * (n_est + 1)))
    for s in range(0, len(xp), step):
        table[s : s + step] = pattern_table(xp[s : s + step])
    return table


def _kernel(rows, units: np.ndarray, n_models: int, b_fixed: np.ndarray, fixed: bool, orphans: np.ndarray | None = None) -> TypeKernel:
    """Build the TypeKernel of one question type from the rows that fall in ``units`` (identified)
    and in ``orphans`` (kept at average difficulty)."""
    kernel = _identified(rows, units, n_models, b_fixed, fixed)
    if orphans is None or not orphans.size:
        return kernel
    model, unit, brier, _ = rows
    local = np.full(int(unit.max(initial=0)) + 1, -1)
    local[orphans] = np.arange(orphans.size)
    keep = local[unit] >= 0
    Yo = np.zeros((n_models, orphans.size))
    Bo = np.zeros_like(Yo)
    Yo[model[keep], local[unit[keep]]] = 1.0
    Bo[model[keep], local[unit[keep]]] = brier[keep]
    return replace(kernel, orphans=orphans, Yo=Yo, Bo=Bo)


def type_rows(rows, units: np.ndarray, fixed: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The rows (model, unit, brier, in_estimation) that fall in ``units``: each one's column among
    ``units``, its model, its Brier, and whether it enters the estimation (never for a ``fixed`` type)."""
    model, unit, brier, est = rows
    local = np.full(int(unit.max(initial=0)) + 1, -1)
    local[units] = np.arange(units.size)
    keep = local[unit] >= 0
    return local[unit[keep]], model[keep], brier[keep], est[keep] & (not fixed)


def _identified(rows, units: np.ndarray, n_models: int, b_fixed: np.ndarray, fixed: bool) -> TypeKernel:
    """The TypeKernel of the rows that fall in ``units``, the type's identified units.

    With ``B`` the Brier of each answered cell: ``Q = Y * (B - m)``, ``R = X * (B[est_models] - m)``
    and ``C = X / n``, each product made in place (the same floats; a temporary matrix fewer each)."""
    col, mod, val, est = type_rows(rows, units, fixed)
    Y = np.zeros((n_models, units.size))
    B = np.zeros_like(Y)
    cell = mod * units.size + col  # each row's cell, flat: one index for both matrices
    Y.reshape(-1)[cell] = 1.0
    B.reshape(-1)[cell] = val
    est_models = np.empty(0, np.int64) if fixed else counted_unique(mod[est], n_models)[0]
    position = np.zeros(n_models, np.int64)
    position[est_models] = np.arange(est_models.size)
    X = np.zeros((est_models.size, units.size))
    X.reshape(-1)[position[mod[est]] * units.size + col[est]] = 1.0
    Best = B[est_models]
    R = X * Best
    n = X.sum(axis=0)
    m = b_fixed[units] if fixed else R.sum(axis=0) / n
    np.subtract(Best, m, out=R)
    R *= X
    del Best
    indicator, xp, G = _patterns(X)
    C = X / n if est_models.size else X
    Q = B
    Q -= m
    Q *= Y
    return TypeKernel(units, est_models, m, Y, Q, X, R, C, indicator, xp, G, fixed)


def build_panel(
    model,
    unit,
    brier,
    in_estimation,
    unit_type,
    unit_stratum,
    unit_cluster=None,
    b_fixed=None,
    type_names: tuple[str, ...] = ("dataset", "market"),
    orphan_units: str = "raise",
) -> Panel:
    """Validate long arrays of scored forecasts and precompute the fixed-effects kernels.

    Args:
        model, unit: int codes per row (0..n-1); ``brier`` the row's Brier score.
        in_estimation: bool per row; True if the row enters the fixed-effects fit (FB decides this
            per model and per row: see ``fixed_effects``).
        unit_type: int per unit, an index into ``type_names`` (e.g. 0 = dataset, 1 = market).
        unit_stratum: int per unit, the bootstrap stratum (e.g. factorized (round, source)).
        unit_cluster: int per unit, the resampling cluster (default: every unit its own
            cluster, as in FB; pass the question id to resample all horizons of a question).
        b_fixed: float per unit, NaN to estimate; finite values fix the question effect (FB's
            market rule: the crowd forecast's Brier at the due date). All or none per type.
        orphan_units: for units with no estimation row (of a free or a fixed type: ``orphan_units``):
            "raise" (FB), "drop", or "average" (kept, scored as units of the type's average
            difficulty: ``fixed_effects``).
    """
    if orphan_units not in ORPHAN_POLICIES:
        raise ValueError(f"orphan_units must be one of {ORPHAN_POLICIES}")
    model, unit = _codes("model", model), _codes("unit", unit)
    n_rows = model.size
    brier = np.asarray(brier, dtype=float)
    est = np.asarray(in_estimation, dtype=bool)
    if brier.shape != (n_rows,) or est.shape != (n_rows,) or unit.size != n_rows:
        raise ValueError("model, unit, brier and in_estimation must have the same length")
    unit_type = _codes("unit_type", unit_type)
    n_units = unit_type.size
    _check_rows(model, unit, brier, n_units)
    if unit_type.max(initial=0) >= len(type_names):
        raise ValueError("unit_type codes exceed type_names")
    stratum = _codes("unit_stratum", unit_stratum, n_units)
    cluster = np.arange(n_units) if unit_cluster is None else _codes("unit_cluster", unit_cluster, n_units)
    fixed_b = np.full(n_units, np.nan) if b_fixed is None else np.asarray(b_fixed, dtype=float)
    if fixed_b.shape != (n_units,):
        raise ValueError(f"b_fixed must have one value per unit ({n_units})")
    fixed_types = _check_fixed(fixed_b, unit_type, len(type_names))
    active, orphan = _active_units(unit, est, n_units, orphan_units)
    rows = (model, unit, brier, est & active[unit])
    kernels = tuple(
        _kernel(
            rows,
            np.flatnonzero(active & ~orphan & (unit_type == t)),
            int(model.max()) + 1,
            fixed_b,
            bool(fixed_types[t]),
            np.flatnonzero(orphan & (unit_type == t)),
        )
        for t in range(len(type_names))
    )
    order, start, size = _cluster_slots(cluster, stratum, n_units)
    return Panel(
        int(model.max()) + 1,
        n_units,
        tuple(type_names),
        model,
        unit,
        brier,
        est,
        unit_type,
        stratum,
        cluster,
        active,
        order,
        start,
        size,
        kernels,
        orphan,
    )
