"""The batched bootstrap equals explicit refits, is reproducible, and its summaries are right."""

from __future__ import annotations

import hashlib
import warnings

import numpy as np
import pytest

from generator.leaderboard.bootstrap import BootstrapResult, bootstrap, draw_weights
from generator.leaderboard.fixed_effects import FitResult
from generator.leaderboard.panel import build_panel
from generator.leaderboard.stats import (
    format_p,
    one_sided_p,
    p_label,
    pairwise_p,
    pct_rank1,
    pct_top,
    percentile_ci,
    rank_interval,
    rankdata,
    replicate_ranks,
    row_nanquantile,
    summarize,
)
from generator.parallel import one_blas_thread

from helpers import random_panel, reference_fit

TOL = 1e-9


def explicit_resample(args: dict, weights: np.ndarray) -> dict:
    """Rows of the resampled panel: unit j copied weights[j] times, each copy a new unit."""
    new_ids = np.repeat(np.arange(weights.size), weights)
    first = np.concatenate([[0], np.cumsum(weights)[:-1]])
    pick, units = [], []
    for k in range(args["model"].size):
        j = args["unit"][k]
        pick += [k] * weights[j]
        units += list(range(first[j], first[j] + weights[j]))
    pick = np.array(pick, int)
    return dict(
        model=args["model"][pick],
        unit=np.array(units, int),
        brier=args["brier"][pick],
        in_estimation=args["in_estimation"][pick],
        unit_type=args["unit_type"][new_ids],
    )


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fast_replicates_equal_direct_refits_on_resampled_panels(seed):
    args = random_panel(seed, 7, 40, density=0.8)
    panel = build_panel(**args)
    boot = bootstrap(panel, 6, np.random.default_rng(seed))
    weights = draw_weights(panel, 6, np.random.default_rng(seed))
    for r in range(6):
        resampled = explicit_resample(args, weights[r])
        D, _, _ = reference_fit(**resampled)
        np.testing.assert_allclose(boot.D[:, r], D, atol=TOL, equal_nan=True)
        np.testing.assert_allclose(boot.overall[r], D.mean(axis=0), atol=TOL, equal_nan=True)


def test_replicates_where_an_estimation_model_draws_nothing():
    # model 2 (in the estimation sample) answers units 0 and 1 only; some replicates draw neither
    model = np.concatenate([np.repeat([0, 1], 10), [2, 2]])
    unit = np.concatenate([np.tile(np.arange(10), 2), [0, 1]])
    rng = np.random.default_rng(8)
    args = dict(
        model=model,
        unit=unit,
        brier=rng.random(model.size),
        in_estimation=np.ones(22, bool),
        unit_type=np.zeros(10, int),
        unit_stratum=np.repeat([0, 1], 5),
    )
    panel = build_panel(**args, type_names=("dataset",))
    boot = bootstrap(panel, 40, np.random.default_rng(3))
    weights = draw_weights(panel, 40, np.random.default_rng(3))
    idle = weights[:, :2].sum(axis=1) == 0
    assert idle.any() and np.isnan(boot.D[0, idle, 2]).all()
    for r in range(40):
        D = reference_fit(**{k: v for k, v in args.items() if k != "unit_stratum"}, weights=weights[r], n_types=1)[0]
        np.testing.assert_allclose(boot.D[:, r], D, atol=TOL, equal_nan=True)


def test_draws_stay_within_strata_and_keep_clusters_together():
    rng = np.random.default_rng(5)
    n_units = 60
    cluster = np.arange(n_units) // 3
    stratum = cluster // 4
    model = np.repeat(np.arange(3), n_units)
    unit = np.tile(np.arange(n_units), 3)
    panel = build_panel(
        model, unit, rng.random(model.size), np.ones(model.size, bool), np.zeros(n_units, int), stratum, unit_cluster=cluster, type_names=("d",)
    )
    w = draw_weights(panel, 50, rng)
    per_cluster = w[:, ::3]
    np.testing.assert_array_equal(w, np.repeat(per_cluster, 3, axis=1))
    per_stratum = per_cluster.reshape(50, -1, 4).sum(axis=2)
    np.testing.assert_array_equal(per_stratum, 4)


def test_same_seed_same_result_other_seed_differs_and_chunk_does_not_matter():
    panel = build_panel(**random_panel(11, 8, 40))
    a = bootstrap(panel, 20, np.random.default_rng(42), chunk=3)
    again = bootstrap(panel, 20, np.random.default_rng(42), chunk=3)
    b = bootstrap(panel, 20, np.random.default_rng(42), chunk=256)
    c = bootstrap(panel, 20, np.random.default_rng(43))
    np.testing.assert_array_equal(a.D, again.D)
    # the draws do not depend on the chunk; the arithmetic only up to BLAS rounding
    rng = np.random.default_rng(42)
    chunked = np.vstack([draw_weights(panel, n, rng) for n in (3, 3, 14)])
    np.testing.assert_array_equal(chunked, draw_weights(panel, 20, np.random.default_rng(42)))
    np.testing.assert_allclose(a.D, b.D, rtol=0, atol=1e-12)
    assert not np.allclose(np.nan_to_num(a.D), np.nan_to_num(c.D))


def test_blockwise_pattern_table_equals_the_stored_table(monkeypatch):
    args = random_panel(21, 8, 40)
    tabulated = bootstrap(build_panel(**args), 12, np.random.default_rng(1))
    monkeypatch.setattr("generator.leaderboard.panel.PATTERN_TABLE_MAX_BYTES", 0)
    monkeypatch.setattr("generator.leaderboard.fixed_effects.PATTERN_BLOCK_BYTES", 1000)
    panel = build_panel(**args)
    assert all(k.G is None for k in panel.kernels)
    direct = bootstrap(panel, 12, np.random.default_rng(1))
    np.testing.assert_allclose(direct.D, tabulated.D, rtol=0, atol=1e-12)


def test_bootstrap_rejects_bad_arguments():
    panel = build_panel(**random_panel(1))
    with pytest.raises(ValueError, match="Generator"):
        bootstrap(panel, 5, 42)
    with pytest.raises(ValueError, match="positive"):
        bootstrap(panel, 0, np.random.default_rng(0))


# --- statistics on hand-computable cases -------------------------------------------------------


def test_percentile_ci_linear_interpolation():
    reps = np.arange(1.0, 102.0)[:, None]  # 1..101
    low, high = percentile_ci(reps, 0.95)
    assert low[0] == pytest.approx(3.5) and high[0] == pytest.approx(98.5)


def test_one_sided_p_counts_replicates_at_least_as_good_as_reference():
    bi = np.array([[50.0, 60, 40], [55, 50, 40], [60, 55, 70], [50, 65, 45]])
    p = one_sided_p(bi, reference=1)
    assert np.isnan(p[1])
    assert p[0] == pytest.approx(2 / 4) and p[2] == pytest.approx(1 / 4)
    q = one_sided_p(bi, reference=1, alternative="model_better")
    assert q[0] == pytest.approx(2 / 4) and q[2] == pytest.approx(3 / 4)


@pytest.mark.parametrize(
    "p, label, shown",
    [
        (0.0005, "Yes", "<0.001"),
        (0.005, "Yes", "<0.01"),
        (0.05, "Likely", "0.05"),
        (0.0999, "Likely", "0.10"),
        (0.1, "No", "0.10"),
        (0.72, "No", "0.72"),
        (np.nan, "—", "—"),
    ],
)
def test_fb_labels_and_formatting(p, label, shown):
    assert p_label(p) == label and format_p(p) == shown


def test_ranks_pct_rank1_with_ties_and_nan():
    bi = np.array([[3.0, 2, 1], [1, 3, 3], [2, np.nan, 1]])
    ranks = replicate_ranks(bi)
    np.testing.assert_array_equal(ranks[:2], [[1, 2, 3], [3, 1, 1]])
    assert np.isnan(ranks[2, 1]) and ranks[2, 0] == 1 and ranks[2, 2] == 2
    np.testing.assert_allclose(pct_rank1(bi), [200 / 3, 50 / 3, 50 / 3])


def _replicates(rng: np.random.Generator) -> np.ndarray:
    """Replicates with ties, zeros of both signs, models NaN throughout and NaN cells."""
    n, m = int(rng.integers(1, 30)), int(rng.integers(1, 12))
    bi = np.round(rng.normal(size=(n, m)) * rng.choice([1, 100]), int(rng.integers(0, 3)))
    if rng.random() < 0.6:
        bi[:, rng.random(m) < 0.3] = np.nan
    if rng.random() < 0.5:
        bi[rng.random((n, m)) < 0.05] = np.nan
    if rng.random() < 0.2:
        bi[rng.random((n, m)) < 0.3] = -0.0
    return bi


@pytest.mark.parametrize("seed", range(200))
def test_replicate_ranks_and_the_row_quantile_equal_scipy_and_numpy(seed):
    bi = _replicates(np.random.default_rng(seed))
    ranks, wanted = replicate_ranks(bi), rankdata(-bi, axis=1, method="min", nan_policy="omit")
    assert ranks.dtype == wanted.dtype and np.array_equal(ranks, wanted, equal_nan=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a row of NaN only
        quantile = np.nanquantile(bi, 0.95, axis=1)
    assert np.array_equal(row_nanquantile(bi, 0.95), quantile, equal_nan=True)  # by value: a zero's sign compares equal


def test_pct_top_and_rank_interval():
    bi = np.array([[1.0, 2, 3, 4], [4, 3, 2, 1]])
    np.testing.assert_allclose(pct_top(bi, 0.95), [50, 0, 0, 50])
    ranks = np.arange(1.0, 41.0)[:, None]
    low, high = rank_interval(ranks, 0.95)
    assert (low[0], high[0]) == (1.0, 40.0)
    low, high = rank_interval(np.arange(1.0, 101.0)[:, None], 0.9)  # q 4.95 -> 5, q 94.05 -> 96
    assert (low[0], high[0]) == (5.0, 96.0)


def test_pairwise_p():
    bi = np.array([[3.0, 2, 1], [1, 2, 3], [3, 1, 2], [3, 2, 1]])
    p = pairwise_p(bi, np.array([0, 1]))
    assert np.isnan(p[0, 0]) and p[0, 1] == pytest.approx(1 / 4) and p[1, 0] == pytest.approx(3 / 4)


def test_summarize_small_case():
    D = np.array([[0.16, 0.25, 0.09], [0.16, 0.25, np.nan]])
    fitres = FitResult(("dataset", "market"), D, D.mean(axis=0), D, np.zeros(1), np.zeros(2), D)
    reps = np.stack([D + d for d in (-0.01, 0.0, 0.01)], axis=1)
    boot = BootstrapResult(("dataset", "market"), reps, reps.mean(axis=0))
    s = summarize(fitres, boot, reference=1, top_k=2)
    np.testing.assert_allclose(s.brier_index[2, :2], [60.0, 50.0])
    assert np.isnan(s.rank[2]) and list(s.rank[:2]) == [1, 2]
    assert s.p_value[0] == pytest.approx(1.0) and s.p_label[1] == "—"
    np.testing.assert_allclose(s.pct_rank1[:2], [100, 0])
    assert s.ci_low[0, 0] < 60 < s.ci_high[0, 0]
    assert list(s.top_k) == [0, 1] and s.pairwise[1, 0] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="score must be"):
        summarize(fitres, boot, score="pooled")


# --- statistical validity ---------------------------------------------------------------------


def _simulated_coverage(n_sims: int, n_reps: int, seed: int) -> float:
    """Coverage of 95% CIs for D_i = alpha_i + mean difficulty, in an additive unbalanced panel."""
    rng = np.random.default_rng(seed)
    n_models, n_strata, per = 8, 10, 30
    stratum = np.repeat(np.arange(n_strata), per)
    mu = np.linspace(0.1, 0.3, n_strata)
    alpha = np.linspace(-0.05, 0.05, n_models)
    join = np.array([0, 0, 0, 0, 0, 3, 5, 7])
    answered = join[:, None] <= stratum[None, :]
    model, unit = np.nonzero(answered)
    truth = alpha + mu.mean()
    hits = []
    for _ in range(n_sims):
        beta = mu[stratum] + 0.05 * rng.standard_normal(stratum.size)
        brier = alpha[model] + beta[unit] + 0.1 * rng.standard_normal(model.size)
        panel = build_panel(model, unit, brier, np.ones(model.size, bool), np.zeros(stratum.size, int), stratum, type_names=("dataset",))
        boot = bootstrap(panel, n_reps, rng)
        low, high = percentile_ci(boot.D[0])
        hits.append((low <= truth) & (truth <= high))
    return float(np.mean(hits))


@pytest.mark.slow
def test_bootstrap_ci_coverage_is_nominal():
    coverage = _simulated_coverage(n_sims=300, n_reps=399, seed=2026)
    assert 0.92 <= coverage <= 0.98, coverage


# --- the same numbers as before, on one BLAS thread or on every core -------------------------------

# sha256 of a small board's bootstrap statistics (CI bounds of every score, % #1, % top 5%, rank
# interval, p-value against model 0) and of its replicates, each value to 9 significant digits, as main
# computed them before the boards were made on one BLAS thread (57a6db8, BLAS on both cores): a change of
# the draws, of their order or of the arithmetic beyond rounding changes them. Not to the bit: the kernel
# OpenBLAS picks for the processor changes the last bits (measured with OPENBLAS_CORETYPE = Zen, Haswell,
# SkylakeX and Sandybridge: at most 1.7e-15 apart, the same digests to 9 digits; a Xeon picks SkylakeX,
# an EPYC Zen). The replicates' formulation is checked to the bit, in one process, by
# test_replicates_are_the_former_formulations_to_the_bit.
SMALL_BOARD_STATISTICS = "68fd2d3af52a46f65482879e53a9bf5bbbcb59e7ca1e7d553ddbf1157a15a8a2"
SMALL_BOARD_REPLICATES = "71e026d6679dda242569b9e9bb1972285f96a4b9ff7177a61a0c7e35167339c4"


def _to_nine_digits(values: np.ndarray) -> str:
    return hashlib.sha256(" ".join(f"{v:.9g}" for v in values.tolist()).encode()).hexdigest()


@pytest.mark.parametrize("one_thread", [False, True])
def test_a_small_boards_bootstrap_columns_are_what_they_were(one_thread):
    from contextlib import nullcontext

    from generator.leaderboard.fixed_effects import fit
    from generator.parallel import one_blas_thread

    with one_blas_thread() if one_thread else nullcontext():
        panel = build_panel(**random_panel(5, 9, 60), orphan_units="average")
        boot = bootstrap(panel, 200, np.random.default_rng(0))
        s = summarize(fit(panel), boot, reference=0)
    columns = [s.ci_low, s.ci_high, s.pct_rank1, s.pct_top5, s.rank_low, s.rank_high, s.p_value]
    assert np.isfinite(s.ci_low).any() and np.nanmax(s.pct_rank1) > 0  # a board with statistics, not NaN
    assert _to_nine_digits(np.concatenate([np.asarray(c, dtype=np.float64).ravel() for c in columns])) == SMALL_BOARD_STATISTICS
    assert _to_nine_digits(boot.D.ravel()) == SMALL_BOARD_REPLICATES


def _former_replicates(panel, weights: np.ndarray) -> np.ndarray:
    """D (types, batch, models) as 0.12.0 computed it from (batch, units) weights: a (batch, n, n)
    matrix for every step (the mirrored triangle by two scatters, ``L = -K``, ``L + S g^T`` with S a
    float indicator even when all ones), ``X @ W`` over the units, ``Y @ W`` twice."""
    from generator.leaderboard.fixed_effects import _closure, with_orphans

    out = np.full((len(panel.kernels), weights.shape[0], panel.n_models), np.nan)
    for t, k in enumerate(panel.kernels):
        n_id = np.zeros((weights.shape[0], panel.n_models))
        if k.units.size:
            W = np.ascontiguousarray(weights[:, k.units].T, dtype=float)
            a = np.zeros((W.shape[1], 0))
            if k.n_est:
                iu, ju = np.triu_indices(k.n_est)
                flat = (k.pattern_matrix @ W).T @ k.G
                K = np.empty((flat.shape[0], k.n_est, k.n_est))
                K[:, iu, ju] = flat
                K[:, ju, iu] = flat
                diag = np.arange(k.n_est)
                L = -K
                L[:, diag, diag] += (k.X @ W).T
                g = (k.C @ W).T
                S = (K > 0).astype(float)
                S[:, diag, diag] = 1.0
                open_ = ~S.reshape(len(S), -1).all(axis=1)
                if open_.any():
                    S[open_] = _closure(S[open_])
                A = L + S * g[:, None, :]
                A[:, diag, diag] += g == 0
                a = np.linalg.solve(A, (k.R @ W).T[..., None])[..., 0]
            beta = k.C.T @ a.T
            wbeta = W * beta
            with np.errstate(invalid="ignore", divide="ignore"):
                mean_b = (k.m @ W - wbeta.sum(axis=0)) / W.sum(axis=0)
                out[t] = ((k.Q @ W + k.Y @ wbeta) / (k.Y @ W) + mean_b).T
            n_id = (k.Y @ W).T
        if k.orphans.size:
            out[t] = with_orphans(k, out[t], n_id, np.ascontiguousarray(weights[:, k.orphans].T, dtype=float))
    return out


@pytest.mark.parametrize("seed", range(12))
def test_replicates_are_the_former_formulations_to_the_bit(seed):
    """The fused steps (``fixed_effects.model_effects``: A made in K's memory, g added as such on a
    complete graph, X w from the pattern sums; unit-major draws) give every replicate's D to the bit:
    small panels whose draws often split the graph (closures), panels where every model answers every
    unit of a block (few patterns, complete graphs), orphans included."""
    rng = np.random.default_rng(seed)
    if seed % 2:
        args = random_panel(seed, n_models=int(rng.integers(3, 9)), n_units=int(rng.integers(8, 40)))
    else:
        n_models, n_units = 12, 300
        answered = np.repeat(rng.random((n_models, 6)) < 0.8, 50, axis=1)
        answered[0] = True
        model, unit = np.nonzero(answered)
        est = (model < 9) & ~((model == 3) & (unit > 150))
        args = dict(
            model=model,
            unit=unit,
            brier=rng.random(model.size),
            in_estimation=est,
            unit_type=(np.arange(n_units) % 3 == 0).astype(int),
            unit_stratum=np.arange(n_units) // 50,
        )
    panel = build_panel(**args, orphan_units="average")
    with one_blas_thread():  # as the boards are made: the same BLAS calls, the same floats
        boot = bootstrap(panel, 70, np.random.default_rng(seed), chunk=32)
        draws = np.random.default_rng(seed)
        former = np.concatenate([_former_replicates(panel, draw_weights(panel, n, draws)) for n in (32, 32, 6)], axis=1)
    assert boot.D.tobytes() == former.tobytes()
    assert np.isfinite(boot.D).sum() > boot.D.size // 2
