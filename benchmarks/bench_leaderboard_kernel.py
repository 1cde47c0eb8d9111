"""Benchmark of the leaderboard kernel: fit + 1,999 bootstrap replicates + summary at full scale.

Synthetic panel: 14 rounds x 2,100 scored units (1,900 dataset = 95 questions x 4 horizons x 5
sources, 200 market = 50 x 4 sources), 110 forecasters of which about 100 are active per round
(90 from the first round, 20 joining later), 5 forecasters skipping 2% of units, baselines and
external teams outside the estimation sample; strata = (round, source), clusters = question.

Run from the repository root: ``python -m benchmarks.bench_leaderboard_kernel [--replicates 1999]
[--repeats 3] [--naive 3]``.
Prints a Markdown block for benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import statistics
import time
from pathlib import Path

import numpy as np
from scipy import sparse
from scipy.sparse.linalg import lsqr

from generator.leaderboard.bootstrap import bootstrap, draw_weights
from generator.leaderboard.fixed_effects import fit
from generator.leaderboard.panel import build_panel
from generator.leaderboard.stats import summarize
from generator.vocabulary import REPLICATES

ROUNDS, N_MODELS, LATE_JOINERS, SKIPPERS = 14, 110, 20, 5
DATASET = dict(sources=5, questions=95, horizons=4)
MARKET = dict(sources=4, questions=50)
BASELINES = ("Always 0.5", "Always 0", "Always 1", "Naive", "Imputed")
N_EXTERNAL = 15
DATE = "2026-11-22"


def _units():
    """Per-unit arrays: type (0 dataset, 1 market), stratum, cluster (question)."""
    rows = []
    for r in range(ROUNDS):
        for s in range(DATASET["sources"]):
            for q in range(DATASET["questions"]):
                rows += [(0, (r, s), (r, s, q))] * DATASET["horizons"]
        for s in range(MARKET["sources"]):
            rows += [(1, (r, 10 + s), (r, 10 + s, q)) for q in range(MARKET["questions"])]
    kind = np.array([t for t, _, _ in rows])
    stratum = np.unique([st for _, st, _ in rows], axis=0, return_inverse=True)[1].ravel()
    cluster = np.unique([c for _, _, c in rows], axis=0, return_inverse=True)[1].ravel()
    rnd = np.array([st[0] for _, st, _ in rows])
    return kind, stratum, cluster, rnd


def synthetic_panel(seed: int = 0, skippers: int = SKIPPERS):
    """Build the full-scale panel arrays (model, unit, brier, in_estimation, unit arrays)."""
    rng = np.random.default_rng(seed)
    kind, stratum, cluster, rnd = _units()
    n_units = kind.size
    join = np.zeros(N_MODELS, int)
    join[-LATE_JOINERS:] = rng.integers(1, ROUNDS, LATE_JOINERS)
    answered = join[:, None] <= rnd[None, :]
    who = rng.choice(np.arange(len(BASELINES), N_MODELS), skippers, replace=False)
    answered[who] &= rng.random((skippers, n_units)) > 0.02
    truth = rng.beta(0.7, 0.7, n_units)
    outcome = (rng.random(n_units) < truth).astype(float)
    skill = rng.uniform(0.3, 1.5, N_MODELS)
    logit = np.log(truth / (1 - truth))
    fc = 1 / (1 + np.exp(-(logit[None, :] + skill[:, None] * rng.standard_normal(answered.shape))))
    fc[:3] = np.array([0.5, 0.0, 1.0])[:, None]
    model, unit = np.nonzero(answered)
    brier = (fc[model, unit] - outcome[unit]) ** 2
    est = model >= len(BASELINES) + N_EXTERNAL
    est |= model == BASELINES.index("Naive")
    return (model, unit, brier, est, kind, stratum, cluster)


def naive_replicate(arrays, weights: np.ndarray) -> np.ndarray:
    """The naive way: duplicate the drawn units' rows, refit each type by sparse LSQR."""
    model, unit, brier, est, kind, _, _ = arrays
    reps = weights[unit]
    m, u, b, e = (np.repeat(x, reps) for x in (model, unit, brier, est))
    copy = np.concatenate([np.arange(k) for k in reps]) if reps.size else reps
    new_unit = np.unique(np.stack([u, copy]), axis=1, return_inverse=True)[1].ravel()
    D = np.full((2, int(model.max()) + 1), np.nan)
    for t in (0, 1):
        sel = kind[u] == t
        D[t] = _lsqr_scores(m[sel], np.unique(new_unit[sel], return_inverse=True)[1], b[sel], e[sel])
    return D


def _lsqr_scores(m, u, b, e) -> np.ndarray:
    """Sparse LSQR fit of one type; returns D per model (NaN if absent)."""
    ems, em = np.unique(m[e], return_inverse=True)
    n_u, rows = int(u.max()) + 1, np.flatnonzero(e)
    design = sparse.csr_matrix(
        (np.ones(2 * rows.size), (np.tile(np.arange(rows.size), 2), np.concatenate([em, ems.size + u[rows]]))), shape=(rows.size, ems.size + n_u)
    )
    bj = lsqr(design, b[rows], atol=1e-12, btol=1e-12, iter_lim=20000)[0][ems.size :]
    n_models = int(m.max()) + 1
    num = np.bincount(m, b - bj[u], minlength=n_models)
    den = np.bincount(m, minlength=n_models)
    with np.errstate(invalid="ignore"):
        return num / den + bj.mean()


def run_once(panel, replicates: int, seed: int):
    """Fit + bootstrap + summary; returns (seconds, fit, boot)."""
    t0 = time.perf_counter()
    f = fit(panel)
    boot = bootstrap(panel, replicates, np.random.default_rng(seed))
    summarize(f, boot, reference=3, top_k=20)
    return time.perf_counter() - t0, f, boot


def main() -> None:
    """Run the benchmark and print a Markdown block."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--replicates", type=int, default=REPLICATES)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--naive", type=int, default=3)
    ap.add_argument("--stress", action="store_true", help="every non-baseline model skips 2%%")
    args = ap.parse_args()
    arrays = synthetic_panel(skippers=N_MODELS - len(BASELINES) if args.stress else SKIPPERS)
    t0 = time.perf_counter()
    panel = build_panel(*arrays[:4], arrays[4], arrays[5], unit_cluster=arrays[6])
    t_build = time.perf_counter() - t0
    times = [run_once(panel, args.replicates, seed)[0] for seed in range(args.repeats)]
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    load = os.getloadavg()
    _, f, boot = run_once(panel, 8, 123)
    w = draw_weights(panel, args.naive, np.random.default_rng(123))
    t0 = time.perf_counter()
    naive = [naive_replicate(arrays, w[r]) for r in range(args.naive)]
    t_naive = (time.perf_counter() - t0) / args.naive
    err = max(np.nanmax(np.abs(naive[r] - boot.D[:, r])) for r in range(args.naive))
    cpu = next((ln.split(":", 1)[1].strip() for ln in Path("/proc/cpuinfo").read_text().splitlines() if "model name" in ln), "?")
    pattern_counts = [k.pattern_matrix.shape[0] for k in panel.kernels]
    med = statistics.median(times)
    stress = "STRESS (every non-baseline model skips 2% of units): " if args.stress else ""
    print(f"""## Leaderboard kernel

Date {DATE}. Machine: {os.cpu_count()} cores ({cpu}), Python {platform.python_version()},
numpy {np.__version__}, OPENBLAS_NUM_THREADS={os.environ.get("OPENBLAS_NUM_THREADS", "unset")},
load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (1/5/15 min) at the end of the timed runs.
Command: `python -m benchmarks.bench_leaderboard_kernel`.

Synthetic panel: {stress}{arrays[0].size:,} forecast rows, {panel.n_units:,} units (14 rounds x 2,100),
{panel.n_models} forecasters (~100 active per round), {[k.n_est for k in panel.kernels]} estimation-sample
models (dataset, market), {pattern_counts} answer patterns, {panel.n_clusters:,} clusters.

| step | result |
|---|---|
| build_panel (once) | {t_build:.1f} s |
| fit + {args.replicates:,} replicates + summary, median of {args.repeats} | **{med:.1f} s** (runs: {", ".join(f"{t:.1f}" for t in times)}) |
| peak RSS (whole process, after the timed runs) | **{rss:,.0f} MB** |
| naive replicate (duplicate rows + sparse LSQR per type) | {t_naive:.1f} s per replicate |
| naive x {args.replicates:,} (extrapolated) / fast | {t_naive * args.replicates:,.0f} s / {med:.1f} s = **{t_naive * args.replicates / med:,.0f}x** |
| max abs difference naive vs fast D ({args.naive} replicates) | {err:.1e} (LSQR tolerance) |
""")


if __name__ == "__main__":
    main()
