"""The fixed-effects kernel equals a direct dense least-squares fit, and rescales like FB."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from generator.leaderboard.fixed_effects import brier_index, fit
from generator.leaderboard.panel import build_panel, type_rows

from helpers import random_panel, reference_fit

TOL = 1e-9


def connected(model, unit, in_estimation, unit_type, t, weights=None) -> bool:
    """True if the estimation-sample model-unit graph of type t is connected."""
    w = np.ones(unit_type.size) if weights is None else weights
    rows = np.flatnonzero(in_estimation & (unit_type[unit] == t) & (w[unit] > 0))
    n_m = model.max() + 1
    g = coo_matrix((np.ones(rows.size), (model[rows], n_m + unit[rows])), shape=(n_m + unit_type.size,) * 2)
    nodes = np.unique(np.concatenate([model[rows], n_m + unit[rows]]))
    labels = connected_components(g, directed=False)[1]
    return np.unique(labels[nodes]).size <= 1


def duplicated(args: dict, weights: np.ndarray) -> dict:
    """The panel with every unit copied ``weights[j]`` times as distinct units."""
    copies = [np.flatnonzero(np.repeat(np.arange(weights.size), weights) == j) for j in range(weights.size)]
    new_ids = np.repeat(np.arange(weights.size), weights)
    rows = [(k, c) for k in range(args["model"].size) for c in copies[args["unit"][k]]]
    pick = np.array([k for k, _ in rows])
    return dict(
        model=args["model"][pick],
        unit=np.array([c for _, c in rows]),
        brier=args["brier"][pick],
        in_estimation=args["in_estimation"][pick],
        unit_type=args["unit_type"][new_ids],
        unit_stratum=args["unit_stratum"][new_ids],
    )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(seed=st.integers(0, 10_000), n_models=st.integers(3, 9), n_units=st.integers(8, 40))
def test_fit_equals_dense_lstsq(seed, n_models, n_units):
    args = random_panel(seed, n_models, n_units)
    f = fit(build_panel(**args))
    D, fitted, _ = reference_fit(**{k: v for k, v in args.items() if k != "unit_stratum"})
    est = args["in_estimation"]
    a = f.a[args["unit_type"][args["unit"]], args["model"]]
    np.testing.assert_allclose((a + f.b[args["unit"]])[est], fitted[est], atol=TOL)
    for t in (0, 1):
        if connected(args["model"], args["unit"], est, args["unit_type"], t):
            np.testing.assert_allclose(f.D[t], D[t], atol=TOL, equal_nan=True)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_integer_weights_equal_duplicated_rows(seed):
    args = random_panel(seed, 6, 25)
    w = np.random.default_rng(seed).integers(0, 4, args["unit_type"].size)
    assume(all(connected(args["model"], args["unit"], args["in_estimation"], args["unit_type"], t, w) for t in (0, 1)))
    assume(all((w[args["unit_type"] == t] > 0).any() for t in (0, 1)))
    weighted = fit(build_panel(**args), weights=w)
    dup = fit(build_panel(**duplicated(args, w)))
    np.testing.assert_allclose(weighted.D, dup.D, atol=TOL, equal_nan=True)
    ref = reference_fit(**{k: v for k, v in args.items() if k != "unit_stratum"}, weights=w)[0]
    np.testing.assert_allclose(weighted.D, ref, atol=TOL, equal_nan=True)


def test_single_model_unit_gets_its_own_effect():
    # unit 2 is answered by model 0 only: b_2 = B_02 - a_0, and model 0's D is its mean Brier
    model, unit = np.array([0, 1, 0, 1, 0]), np.array([0, 0, 1, 1, 2])
    brier = np.array([0.1, 0.3, 0.2, 0.6, 0.9])
    args = dict(model=model, unit=unit, brier=brier, in_estimation=np.ones(5, bool), unit_type=np.zeros(3, int), unit_stratum=np.zeros(3, int))
    f = fit(build_panel(**args, type_names=("dataset",)))
    assert f.D[0, 0] == pytest.approx(brier[[0, 2, 4]].mean(), abs=TOL)
    assert f.a[0, 0] + f.b[2] == pytest.approx(0.9, abs=TOL)
    D, _, _ = reference_fit(model, unit, brier, np.ones(5, bool), np.zeros(3, int), n_types=1)
    np.testing.assert_allclose(f.D, D, atol=TOL)


def test_disconnected_panel_is_a_least_squares_fit_with_the_documented_gauge():
    # two blocks {models 0,1 x units 0,1} and {models 2,3 x units 2,3} share nothing
    model, unit = np.array([0, 0, 1, 1, 2, 2, 3, 3]), np.array([0, 1, 0, 1, 2, 3, 2, 3])
    brier = np.array([0.1, 0.4, 0.2, 0.7, 0.3, 0.05, 0.5, 0.2])
    est = np.ones(8, bool)
    f = fit(build_panel(model, unit, brier, est, np.zeros(4, int), np.zeros(4, int), type_names=("dataset",)))
    _, fitted, _ = reference_fit(model, unit, brier, est, np.zeros(4, int), n_types=1)
    np.testing.assert_allclose(f.a[0, model] + f.b[unit], fitted, atol=TOL)
    m = np.array([0.15, 0.55, 0.4, 0.125])  # estimation-sample mean Brier per unit
    assert f.b[:2].sum() == pytest.approx(m[:2].sum(), abs=TOL)
    assert f.b[2:].sum() == pytest.approx(m[2:].sum(), abs=TOL)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n_units=st.integers(4, 30))
def test_rescaling_full_coverage_gets_raw_mean_and_always_half_gets_quarter(seed, n_units):
    args = random_panel(seed, 6, n_units)
    n_m = args["model"].max() + 1
    full, half = np.arange(n_units), np.arange(n_units)
    rng = np.random.default_rng(seed + 1)
    full_brier = rng.random(n_units)
    args["model"] = np.concatenate([args["model"], np.full(n_units, n_m), np.full(n_units, n_m + 1)])
    args["unit"] = np.concatenate([args["unit"], full, half])
    args["brier"] = np.concatenate([args["brier"], full_brier, np.full(n_units, 0.25)])
    args["in_estimation"] = np.concatenate([args["in_estimation"], [True] * n_units, [False] * n_units])
    f = fit(build_panel(**args))
    for t in (0, 1):
        sel = args["unit_type"] == t
        if sel.any():
            assert f.D[t, n_m] == pytest.approx(full_brier[sel].mean(), abs=TOL)
            assert f.D[t, n_m + 1] == pytest.approx(0.25, abs=TOL)
    assert brier_index(f.D[:, n_m + 1][np.isfinite(f.D[:, n_m + 1])]) == pytest.approx(50.0)


def test_fixed_market_effects_follow_fb_market_rule():
    args = random_panel(3, 6, 30)
    b_fixed = np.where(args["unit_type"] == 1, np.linspace(0.05, 0.4, 30), np.nan)
    f = fit(build_panel(**args, b_fixed=b_fixed))
    mkt = args["unit_type"][args["unit"]] == 1
    for i in np.unique(args["model"][mkt]):
        r = mkt & (args["model"] == i)
        expected = (args["brier"][r] - b_fixed[args["unit"][r]]).mean() + b_fixed[args["unit_type"] == 1].mean()
        assert f.D[1, i] == pytest.approx(expected, abs=TOL)
    np.testing.assert_allclose(f.b[args["unit_type"] == 1], b_fixed[args["unit_type"] == 1])


def test_overall_is_mean_of_types_and_nan_when_a_type_is_missing():
    model, unit = np.array([0, 0, 1, 1, 2]), np.array([0, 1, 0, 1, 0])
    args = dict(
        model=model,
        unit=unit,
        brier=np.array([0.1, 0.3, 0.2, 0.5, 0.4]),
        in_estimation=np.ones(5, bool),
        unit_type=np.array([0, 1]),
        unit_stratum=np.array([0, 1]),
    )
    f = fit(build_panel(**args))
    np.testing.assert_allclose(f.overall[:2], f.D[:, :2].mean(axis=0))
    assert np.isnan(f.overall[2]) and np.isfinite(f.D[0, 2])


def test_brier_index_values():
    np.testing.assert_allclose(brier_index(np.array([0.25, 0.0, 1.0, 0.16, -0.01])), [50.0, 100.0, 0.0, 60.0, 100.0])


def test_orphan_units_raise_or_drop():
    args = dict(
        model=np.array([0, 1, 1]),
        unit=np.array([0, 0, 1]),
        brier=np.array([0.1, 0.2, 0.3]),
        in_estimation=np.array([True, False, False]),
        unit_type=np.array([0, 0]),
        unit_stratum=np.array([0, 0]),
    )
    with pytest.raises(ValueError, match="no estimation-sample forecast"):
        build_panel(**args)
    f = fit(build_panel(**args, orphan_units="drop"))
    assert np.isnan(f.b[1]) and f.D[0, 1] == pytest.approx(0.2 - 0.1 + 0.1)


@pytest.mark.parametrize(
    "change, message",
    [
        (dict(model=np.array([0, 0]), unit=np.array([1, 1])), "duplicate"),
        (dict(brier=np.array([0.1, np.nan])), "NaN"),
        (dict(model=np.array([0.0, 1.0])), "integer codes"),
        (dict(unit_type=np.array([0, 5])), "type_names"),
        (dict(b_fixed=np.array([0.2, np.nan])), "all units of type"),
        (dict(unit_stratum=np.array([0])), "expected 2"),
    ],
)
def test_build_panel_rejects_bad_input(change, message):
    args = dict(
        model=np.array([0, 1]),
        unit=np.array([0, 1]),
        brier=np.array([0.1, 0.2]),
        in_estimation=np.array([True, True]),
        unit_type=np.array([0, 0]),
        unit_stratum=np.array([0, 0]),
    )
    with pytest.raises(ValueError, match=message):
        build_panel(**{**args, **change})


def test_fit_rejects_bad_weights():
    panel = build_panel(**random_panel(1))
    with pytest.raises(ValueError, match="weights"):
        fit(panel, weights=-np.ones(panel.n_units))


def test_weights_that_split_the_graph_still_give_a_least_squares_fit():
    # unit 2 is the only bridge between {0, 1} and {2, 3}; weight 0 on it splits the graph
    model = np.array([0, 0, 1, 1, 1, 2, 2, 2, 3, 3])
    unit = np.array([0, 1, 0, 1, 2, 2, 3, 4, 3, 4])
    brier = np.random.default_rng(4).random(10)
    w = np.array([1.0, 2.0, 0.0, 1.0, 3.0])
    est, kinds = np.ones(10, bool), np.zeros(5, int)
    f = fit(build_panel(model, unit, brier, est, kinds, kinds, type_names=("dataset",)), weights=w)
    _, fitted, _ = reference_fit(model, unit, brier, est, kinds, weights=w, n_types=1)
    live = w[unit] > 0
    np.testing.assert_allclose((f.a[0, model] + f.b[unit])[live], fitted[live], atol=TOL)
    m = np.array([brier[unit == j].mean() for j in range(5)])  # mean Brier per unit
    assert w[:2] @ f.b[:2] == pytest.approx(w[:2] @ m[:2], abs=TOL)
    assert w[3:] @ f.b[3:] == pytest.approx(w[3:] @ m[3:], abs=TOL)


def _dense_kernel_matrices(model, unit, brier, est, units, n_models, b_fixed, fixed):
    """The kernel's matrices as the module docstring defines them, by dense products (the kernel
    before it wrote them in place): ``Y``, ``Q = Y * (B - m)``, ``X``, ``R = X * (B[est] - m)``, ``C = X / n``."""
    col, mod, val, est = type_rows((model, unit, brier, est), units, fixed)
    Y = np.zeros((n_models, units.size))
    B = np.zeros_like(Y)
    Y[mod, col] = 1.0
    B[mod, col] = val
    est_models = np.empty(0, np.int64) if fixed else np.unique(mod[est])
    X = np.zeros((est_models.size, units.size))
    X[np.searchsorted(est_models, mod[est]), col[est]] = 1.0
    m = b_fixed[units] if fixed else (X * B[est_models]).sum(axis=0) / X.sum(axis=0)
    C = X / X.sum(axis=0) if est_models.size else X
    return {"est_models": est_models, "m": m, "Y": Y, "Q": Y * (B - m), "X": X, "R": X * (B[est_models] - m), "C": C}


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.booleans(), st.booleans())
def test_the_kernel_matrices_are_the_dense_products_to_the_bit(seed, fixed_markets, negative):
    """Every cell of every kernel matrix is the float the dense products give, the sign of a zero
    included (a -0.0 where ``m`` > 0 and the cell is empty): the in-place kernel changes no digit of a board."""
    args = random_panel(seed, n_models=9, n_units=50)
    rng = np.random.default_rng(seed)
    if negative:  # a panel's Briers are not checked for sign; nor is any zero's sign lost
        args["brier"] = args["brier"] - 0.5
    args["brier"][rng.random(args["brier"].size) < 0.1] = 0.0
    args["in_estimation"] = args["in_estimation"] & (rng.random(args["model"].size) < 0.8)  # estimation models' other rows
    b_fixed = np.where(args["unit_type"] == 1, rng.random(args["unit_type"].size), np.nan) if fixed_markets else None
    panel = build_panel(**args, b_fixed=b_fixed, orphan_units="average")
    for t, k in enumerate(panel.kernels):
        rows = (panel.model, panel.unit, panel.brier, panel.in_estimation & panel.active[panel.unit])
        want = _dense_kernel_matrices(*rows, k.units, panel.n_models, np.full(panel.n_units, np.nan) if b_fixed is None else b_fixed, k.fixed)
        for name, value in want.items():
            got = getattr(k, name)
            assert got.shape == value.shape and np.array_equal(got, value, equal_nan=True), (t, name)
            assert np.array_equal(np.signbit(got), np.signbit(value)), (t, name)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 30), max_size=25))
def test_repeated_keys_are_found_by_marking_and_by_sorting_alike(keys):
    from generator.leaderboard.panel import _has_duplicates

    key = np.array(keys, dtype=np.int64)
    repeated = np.unique(key).size < key.size
    assert _has_duplicates(key, 31) == repeated  # marked, one byte a key
    assert _has_duplicates(key, 400_000_001) == repeated  # too many keys to mark: sorted
