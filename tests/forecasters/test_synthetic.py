"""The synthetic forecasters' skill is known by construction: check the designed order on a large
sample drawn straight from the sim world (no pipeline), so the demo's self-check rests on it."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from generator.forecasters.synthetic import NOISE_SD, ORDER, STRETCH, informed, prior
from generator.sources.sim import SimWorld, expit, logit
from generator.timeutil import days, format_date, parse_ts


def sample(world: SimWorld, rounds: int = 12):
    rows = []
    for k in range(rounds):
        due = parse_ts("2026-01-25T00:00:00Z") + days(14 * k)
        for m in world.markets:
            if m.open_time <= due - days(10) and m.close_time > due + days(1) and not m.void:
                row = SimpleNamespace(kind="binary", question_id=m.id, resolution_date="", freeze_value=m.price(m.day(due - days(10))))
                rows.append((informed(world, row, due), prior(world, row, due), m.outcome, 0))
        for s in world.series:
            for h in (7, 30, 90):
                row = SimpleNamespace(kind="dataset", question_id=s.id, resolution_date=format_date(due + days(h)))
                outcome = float(s.value(due + days(h)) > s.value(due))
                rows.append((informed(world, row, due), prior(world, row, due), outcome, 1))
    return np.array(rows)


def expected_briers(rows: np.ndarray, seed: int = 0) -> dict[str, float]:
    calibrated, crowd, outcome, is_dataset = rows.T
    noise = np.random.default_rng(seed).normal(0.0, NOISE_SD, len(rows))
    forecasts = {
        "demo.calibrated": calibrated,
        "demo.overconfident": np.array([expit(STRETCH * logit(p)) for p in calibrated]),
        "demo.market-copier": crowd,
        "demo.noisy": np.array([expit(logit(p) + e) for p, e in zip(calibrated, noise, strict=True)]),
        "prescient.always-0.5": np.full(len(rows), 0.5),
    }
    out = {}
    for name, p in forecasts.items():
        brier = (np.clip(p, 0.001, 0.999) - outcome) ** 2
        out[name] = (brier[is_dataset == 1].mean() + brier[is_dataset == 0].mean()) / 2
    return out


def test_expected_scores_follow_the_designed_order_with_clear_gaps():
    scores = expected_briers(sample(SimWorld(11, parse_ts("2026-01-04T00:00:00Z"), 1500, 150, 300)))
    ranked = sorted(scores, key=scores.get)
    assert tuple(ranked) == ORDER
    gaps = np.diff([scores[m] for m in ORDER])
    assert gaps.min() > 0.01, scores
    assert abs(scores["prescient.always-0.5"] - 0.25) < 1e-12


def test_the_crowd_is_calibrated_and_the_informed_forecast_is_sharper():
    rows = sample(SimWorld(5, parse_ts("2026-01-04T00:00:00Z"), 1500, 10, 300), rounds=8)
    markets = rows[rows[:, 3] == 0]
    for column in (0, 1):  # informed, crowd: both calibrated within sampling error
        p, o = markets[:, column], markets[:, 2]
        for lo, hi in ((0.0, 0.2), (0.4, 0.6), (0.8, 1.0)):
            chosen = (p >= lo) & (p < hi)
            assert abs(o[chosen].mean() - p[chosen].mean()) < 0.06


def test_the_sim_leaves_out_the_markets_the_ledger_has_settled():
    """``FetchContext.settled``: a sim market's state after its close never changes, so one the
    ledger records as resolved or void is not reported again; everything else is as before."""
    from generator.sources.base import FetchContext
    from generator.sources.sim import SimSource

    world = SimWorld(7, parse_ts("2026-01-04T00:00:00Z"), 80, 2, 120)
    as_of = parse_ts("2026-03-01T00:00:00Z")
    closed = [m.id for m in world.markets if m.close_time <= as_of][:3]
    assert closed
    source = SimSource({}, world)
    every, fewer = (source.fetch(FetchContext(as_of, {}, settled=frozenset(s))) for s in ((), closed))
    assert [q for q in every.questions if q.id not in closed] == fewer.questions
    assert [o for o in every.observations if o.question_id not in closed] == fewer.observations
    assert {q.id for q in every.questions} >= set(closed)
