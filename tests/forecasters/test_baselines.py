"""The hub's own forecasters: exact values on small hand-made rounds."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from generator.forecasters.baselines import AtDeadline, after_due, at_open
from generator.scoring.resolve import ledger_view
from generator.sources.base import Observation
from generator.store.ingest import observation_frame
from generator.timeutil import parse_ts

T = parse_ts
DUE = "2026-01-25T00:00:00Z"
QUESTIONS = pd.DataFrame(
    {
        "question_id": ["m:1", "s:1", "s:1"],
        "resolution_date": ["", "2026-02-01", "2026-02-24"],
        "kind": ["binary", "dataset", "dataset"],
        "due": DUE,
    }
)


def view():
    obs = pd.concat(
        [
            observation_frame([Observation("m:1", T("2026-01-23T12:00:00Z"), 0.30)], T("2026-01-23T12:00:00Z")),
            observation_frame([Observation("m:1", T("2026-01-24T12:00:00Z"), 0.40)], T("2026-01-24T12:00:00Z")),
            observation_frame([Observation("m:1", T("2026-01-26T12:00:00Z"), 0.90)], T("2026-01-26T12:00:00Z")),
            observation_frame(
                [Observation("s:1", T(d), v) for d, v in (("2026-01-22", 5.0), ("2026-01-23", 7.0), ("2026-01-24", 6.0))], T("2026-01-25")
            ),
        ],
        ignore_index=True,
    )
    return ledger_view(obs, "2026-01-27T00:00:00Z")


def run(model: str, submitted=None) -> list[float]:
    ctx = AtDeadline(view(), T(DUE), submitted or {})
    return after_due()[model][1](QUESTIONS, ctx)["probability"].tolist()


def test_constants_and_a_random_baseline_that_is_the_same_on_every_rerun():
    assert at_open()["prescient.always-0"][1](QUESTIONS)["probability"].tolist() == [0.0, 0.0, 0.0]
    first = at_open()["prescient.random-uniform"][1](QUESTIONS)["probability"].tolist()
    assert first == at_open()["prescient.random-uniform"][1](QUESTIONS.copy())["probability"].tolist()
    assert all(0.0 <= p <= 1.0 for p in first) and len(set(first)) == 3


def test_imputed_is_the_crowd_at_the_due_time_and_one_half_on_datasets():
    assert run("prescient.imputed") == [0.40, 0.5, 0.5]  # the 0.90 came after the deadline


def test_naive_is_the_day_before_on_markets_and_the_last_direction_on_series():
    assert run("prescient.naive") == [0.30, 0.0, 0.0]  # the series last fell (7 → 6)


def test_crowd_aggregates_pool_the_submitted_forecasts_unit_by_unit():
    def file(*ps):
        return pd.DataFrame(
            {"question_id": QUESTIONS["question_id"], "resolution_date": QUESTIONS["resolution_date"], "probability": ps, "reasoning": ""}
        )

    submitted = {
        "a.x": file(0.2, 0.5, 0.9),
        "b.y": file(0.8, 0.5, 0.9),
        "c.z": file(0.5, 0.5, 0.9).iloc[:2],
        "prescient.always-1": file(1.0, 1.0, 1.0),
    }  # the hub's own files are not the crowd
    assert run("prescient.crowd-median", submitted) == [0.5, 0.5, 0.9]
    geometric = run("prescient.crowd-geometric-mean", submitted)[0]
    assert geometric == pytest.approx(round((0.2 * 0.8 * 0.5) ** (1 / 3), 6))
    log_odds = run("prescient.crowd-log-odds-mean", submitted)[0]
    assert log_odds == pytest.approx(0.5, abs=1e-6)  # logit(0.2) + logit(0.8) + logit(0.5) = 0
    assert run("prescient.crowd-median", {}) == []  # a crowd of nobody forecasts nothing
    assert not math.isnan(run("prescient.crowd-median", submitted)[2])


def test_crowd_aggregates_need_crowd_min_forecasters_per_unit():
    def file(*ps):
        return pd.DataFrame(
            {"question_id": QUESTIONS["question_id"], "resolution_date": QUESTIONS["resolution_date"], "probability": ps, "reasoning": ""}
        )

    one = {"a.x": file(0.2, 0.5, 0.9)}
    assert run("prescient.crowd-median", one) == []  # one forecaster is not a crowd (default minimum 2)
    two = {"a.x": file(0.2, 0.5, 0.9), "b.y": file(0.4, 0.5, 0.9).iloc[:1]}
    ctx = AtDeadline(view(), T(DUE), two, min_forecasters=2)
    out = after_due()["prescient.crowd-median"][1](QUESTIONS, ctx)
    assert out["question_id"].tolist() == ["m:1"] and out["probability"].tolist() == [pytest.approx(0.3)]
    ctx = AtDeadline(view(), T(DUE), one, min_forecasters=1)
    assert after_due()["prescient.crowd-median"][1](QUESTIONS, ctx)["probability"].tolist() == [0.2, 0.5, 0.9]


def test_crowd_aggregates_equal_pandas_groupby_to_the_last_bit():
    """The aggregates run over each unit's slice of one sorted array (31,000 units a night at FB
    scale) and must give exactly what pandas' groupby gives: the same values in the same order,
    a missing probability skipped as Series.mean/median skip it, a unit with a missing key dropped."""
    import numpy as np

    from generator.forecasters.baselines import _geometric_mean, _mean_log_odds, _median, _units

    def geometric(p):
        return float(np.exp(np.log(p.clip(1e-6, 1.0)).mean()))

    def log_odds(p):
        q = p.clip(1e-6, 1 - 1e-6)
        return float(1.0 / (1.0 + np.exp(-np.log(q / (1 - q)).mean())))

    rng = np.random.default_rng(7)
    for trial in range(60):
        n = int(rng.integers(1, 300))
        probability = rng.random(n) if trial % 3 else rng.choice([0.0, 1.0, 0.5, 1e-9], n)
        pooled = pd.DataFrame(
            {
                "question_id": rng.choice(list("abcdefg"), n),
                "resolution_date": rng.choice(["", "2026-02-01", None], n, p=[0.45, 0.45, 0.1]),
                "probability": np.where(rng.random(n) < 0.05 * (trial % 2), np.nan, probability),
            }
        )
        units, groups = _units(pooled)
        grouped = pooled.groupby(["question_id", "resolution_date"], sort=False)["probability"]
        assert units.equals(grouped.size().index) and np.diff(groups.bounds).tolist() == grouped.size().tolist()
        for ours, reference in ((_median, lambda p: float(p.median())), (_geometric_mean, geometric), (_mean_log_odds, log_odds)):
            assert np.array_equal(groups.apply(ours), grouped.agg(reference).to_numpy(dtype=float), equal_nan=True)
        assert np.array_equal(groups.medians(), groups.apply(_median), equal_nan=True)  # the one-sort medians, bit for bit
        whole = _units(pooled.dropna(subset=["probability"]))[1]  # no missing value: the sorted path itself
        assert np.array_equal(whole.medians(), whole.apply(_median))
