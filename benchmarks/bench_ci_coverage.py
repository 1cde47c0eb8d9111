"""Benchmark: do the board's 95% bootstrap CIs cover the true difficulty-adjusted score 95% of the time?

The target: on simulated forecasters of known skill, the 95% CIs cover the true
difficulty-adjusted score 92-98% of the time. Each simulated panel:

* strata = (round, source): ``rounds`` x ``sources`` for each question type (dataset, market),
  ``per_stratum`` questions in each; stratum s has its own mean difficulty mu_s ~ U(0.12, 0.30),
  and question j in it has difficulty b_j = mu_s + N(0, tau^2);
* forecaster i has a known skill a_i (spread evenly over [-0.06, 0.06]); its "Brier" on question
  j is a_i + b_j + N(0, sigma^2). Not clipped to [0, 1]: a clip would bias the mean and blur the
  truth, and the kernel's algebra does not need the range (every true D is >= 0.06, so the Brier
  Index stays a monotone map of D);
* some forecasters skip a share of questions at random, and one forecaster is outside the
  estimation sample (scored with the estimated difficulties, as external teams are).

The estimand: the board's D for a type is the model's mean of (Brier - difficulty) plus the mean
difficulty of the type's questions; over the population of questions of these strata (each
stratum weighted by its share of questions, as the stratified bootstrap holds them) that is
``a_i + mean_s(mu_s)``, known exactly here. Overall = (D_dataset + D_market) / 2 with the same
truth averaged. The kernel (``panel.build_panel``, ``fixed_effects.fit``, ``bootstrap.bootstrap``
with strata (round, source), ``stats.summarize``) gives the percentile CIs on the Brier Index
scale; the truth is compared on that scale too.

Run from the repository root: ``python -m benchmarks.bench_ci_coverage [--panels 2000]``.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

import numpy as np

from generator.leaderboard.bootstrap import bootstrap
from generator.leaderboard.fixed_effects import brier_index, fit
from generator.leaderboard.panel import build_panel
from generator.leaderboard.stats import summarize

SCORES = ("dataset", "market", "overall")


@dataclass(frozen=True)
class Design:
    """One simulated panel's shape and noise."""

    rounds: int = 4
    sources: int = 3
    per_stratum: int = 20
    forecasters: int = 8
    skippers: int = 3  # forecasters that skip ``skip_share`` of the questions at random
    skip_share: float = 0.2
    tau: float = 0.06  # spread of difficulty within a stratum
    sigma: float = 0.10  # forecaster-question noise


def simulate_panel(design: Design, rng: np.random.Generator):
    """One panel: (build_panel arguments, true D per (score, forecaster))."""
    n_strata = design.rounds * design.sources
    n_types = 2
    mu = rng.uniform(0.12, 0.30, size=(n_types, n_strata))
    n_units = n_types * n_strata * design.per_stratum
    unit_type = np.repeat(np.arange(n_types), n_strata * design.per_stratum)
    stratum = np.repeat(np.arange(n_types * n_strata), design.per_stratum)
    b = mu.ravel()[stratum] + rng.normal(0.0, design.tau, n_units)
    skill = np.linspace(-0.06, 0.06, design.forecasters)
    brier = skill[:, None] + b[None, :] + rng.normal(0.0, design.sigma, (design.forecasters, n_units))
    answered = np.ones((design.forecasters, n_units), dtype=bool)
    skippers = np.arange(design.forecasters - design.skippers, design.forecasters)
    answered[skippers] = rng.random((design.skippers, n_units)) >= design.skip_share
    model, unit = np.nonzero(answered)
    in_estimation = model != design.forecasters - 1  # the last forecaster is outside the sample
    truth = skill[None, :] + mu.mean(axis=1)[:, None]  # (types, forecasters)
    truth = np.vstack([truth, truth.mean(axis=0, keepdims=True)])
    args = (model, unit, brier[model, unit], in_estimation, unit_type, stratum)
    return args, truth


def panel_coverage(design: Design, replicates: int, rng: np.random.Generator) -> np.ndarray:
    """(scores, forecasters) booleans: did the 95% CI (Brier Index scale) cover the truth?"""
    args, truth = simulate_panel(design, rng)
    panel = build_panel(*args, type_names=SCORES[:2])
    summary = summarize(fit(panel), bootstrap(panel, replicates, rng))
    target = brier_index(truth)
    return (summary.ci_low <= target) & (target <= summary.ci_high)


def coverage(n_panels: int, replicates: int, seed: int, design: Design = Design()) -> np.ndarray:
    """Per panel, per score, per forecaster coverage flags: (panels, scores, forecasters)."""
    rng = np.random.default_rng(seed)
    return np.stack([panel_coverage(design, replicates, rng) for _ in range(n_panels)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--panels", type=int, default=2000)
    parser.add_argument("--replicates", type=int, default=999)
    parser.add_argument("--seed", type=int, default=20261122)
    args = parser.parse_args()
    design = Design()
    start = time.perf_counter()
    flags = coverage(args.panels, args.replicates, args.seed, design)
    took = time.perf_counter() - start
    per_panel = flags.mean(axis=2)  # (panels, scores): averages of correlated flags, see the test
    print(f"{args.panels} panels x {design.forecasters} forecasters, {args.replicates} replicates, seed {args.seed}: {took:.1f} s\n")
    print("| score | coverage (all forecasters) | ± 2 s.e. (panel means) | full coverage | skippers | outside sample |")
    print("|---|---|---|---|---|---|")
    full = slice(0, design.forecasters - design.skippers)
    skip = slice(design.forecasters - design.skippers, design.forecasters - 1)
    for s, name in enumerate(SCORES):
        se = per_panel[:, s].std(ddof=1) / np.sqrt(args.panels)
        print(
            f"| {name} | {flags[:, s].mean():.3f} | {2 * se:.3f} | {flags[:, s, full].mean():.3f} | "
            f"{flags[:, s, skip].mean():.3f} | {flags[:, s, -1].mean():.3f} |"
        )


if __name__ == "__main__":
    main()
