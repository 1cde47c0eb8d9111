"""The Explore view: points by release date, the state-of-the-art frontier, its trend and the parity
date with Fieller's interval (generator/leaderboard/explore.py)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from generator.leaderboard.explore import day_number, explore, fieller, fit_trend, frontier_mask
from generator.models import ModelMeta


def _board(rows: list[tuple[str, str, float]]) -> pd.DataFrame:
    """A board of (model, kind, overall) rows, CIs ±2."""
    return pd.DataFrame([{"model": m, "name": m.upper(), "kind": k, "overall": s, "overall_ci_low": s - 2,
                          "overall_ci_high": s + 2, "provisional": 0} for m, k, s in rows])


def _models(board: pd.DataFrame, released: dict[str, str]) -> dict[str, ModelMeta]:
    return {r.model: ModelMeta(id=r.model, name=r.name, organization="o", kind=r.kind, release_date=released.get(r.model, ""))
            for r in board.itertuples()}


def test_frontier_is_the_running_best_by_release_date() -> None:
    points = pd.DataFrame({"release_date": ["2024-01-01", "2024-02-01", "2024-02-01", "2024-03-01", "2024-04-01"],
                           "model": ["a", "b", "c", "d", "e"], "score": [60.0, 58.0, 63.0, 62.0, 64.0],
                           "provisional": [False, False, False, False, True]})
    # b is beaten on its own day by c; d is below c; e is provisional (plotted, never on the frontier)
    assert frontier_mask(points).tolist() == [True, False, True, False, False]


def test_trend_matches_least_squares_and_parity_its_inverse() -> None:
    days = np.array([0.0, 100.0, 250.0, 400.0, 500.0])
    scores = np.array([50.0, 53.0, 55.5, 60.0, 61.0])
    trend = fit_trend(days, scores)
    slope, intercept, _, _, se = stats.linregress(days, scores)
    assert trend is not None and trend.slope == pytest.approx(slope) and trend.intercept == pytest.approx(intercept)
    assert trend.slope_se == pytest.approx(se)
    x_star, low, high = fieller(trend, 70.0)
    assert x_star == pytest.approx((70.0 - intercept) / slope)
    assert low < x_star < high


def test_fieller_interval_is_where_the_band_holds_the_target() -> None:
    """Brute force: on a fine grid of dates, the trend's 95% band contains the target exactly inside the interval."""
    days = np.array([0.0, 90.0, 200.0, 330.0, 420.0, 600.0])
    scores = np.array([48.0, 52.5, 51.0, 57.0, 58.5, 62.0])
    trend = fit_trend(days, scores)
    assert trend is not None
    target = 66.0
    _, low, high = fieller(trend, target)
    grid = np.linspace(low - 400, high + 400, 20001)
    half = trend.t * trend.s * np.sqrt(1 / trend.n + (grid - trend.x_mean) ** 2 / trend.sxx)
    inside = np.abs(trend.at(grid) - target) <= half
    assert grid[inside].min() == pytest.approx(low, abs=0.2) and grid[inside].max() == pytest.approx(high, abs=0.2)


def test_a_flat_noisy_trend_has_no_upper_bound() -> None:
    trend = fit_trend(np.array([0.0, 100.0, 200.0, 300.0]), np.array([50.0, 60.0, 49.0, 61.0]))
    assert trend is not None and trend.slope > 0
    assert math.isinf(fieller(trend, 80.0)[2])


def test_explore_lists_left_out_models_and_projects_each_human_group() -> None:
    board = _board([("t.a", "llm", 50.0), ("t.b", "llm", 53.0), ("t.c", "llm", 56.2), ("t.d", "llm", 58.9),
                    ("t.e", "llm", 45.0), ("t.x", "llm", 70.0), ("h.supers", "human", 75.0), ("h.public", "human", 57.0),
                    ("p.naive", "baseline", 52.0)])
    released = {"t.a": "2024-01-01", "t.b": "2024-04-01", "t.c": "2024-07-01", "t.d": "2024-10-01", "t.e": "2024-12-01",
                "t.x": "soon"}
    out = explore(board, _models(board, released))
    assert out.points["model"].tolist() == ["t.a", "t.b", "t.c", "t.d", "t.e"]
    assert out.points["frontier"].tolist() == [True, True, True, True, False]
    assert out.left_out == [{"model": "t.x", "name": "T.X", "reason": "release date 'soon' is not YYYY-MM-DD"}]
    by_group = {p.model: p for p in out.parity}
    assert by_group["h.public"].status == "reached" and by_group["h.public"].date == "2024-10-01"
    supers = by_group["h.supers"]
    assert supers.status == "projected" and supers.low < supers.date < supers.high
    expected = (75.0 - out.trend.intercept) / out.trend.slope
    assert day_number(supers.date) == round(expected)


def test_too_few_frontier_points_give_no_projection() -> None:
    board = _board([("t.a", "llm", 50.0), ("t.b", "llm", 53.0), ("h.supers", "human", 75.0)])
    out = explore(board, _models(board, {"t.a": "2024-01-01", "t.b": "2024-04-01"}))
    assert out.trend is None
    assert out.parity[0].status == "none" and "at least 3" in out.parity[0].reason


def test_a_trend_too_slow_for_the_calendar_gives_no_date() -> None:
    board = _board([("t.a", "llm", 50.0), ("t.b", "llm", 50.001), ("t.c", "llm", 50.002), ("h.supers", "human", 99.0)])
    out = explore(board, _models(board, {"t.a": "2024-01-01", "t.b": "2024-04-01", "t.c": "2024-07-01"}))
    assert out.parity[0].status == "none" and "calendar" in out.parity[0].reason
