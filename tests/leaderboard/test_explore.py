"""The Explore view: points by release date, the state-of-the-art frontier, its trend and the parity
date with ForecastBench's bootstrap interval (generator/leaderboard/explore.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from generator.leaderboard.explore import PARITY_ATTR, bootstrap_parity, day_number, day_text, explore, fit_trend, frontier_mask, frontier_rows
from generator.models import ModelMeta


def _board(rows: list[tuple[str, str, float]]) -> pd.DataFrame:
    """A board of (model, kind, overall) rows, CIs ±2."""
    return pd.DataFrame(
        [
            {"model": m, "name": m.upper(), "kind": k, "overall": s, "overall_ci_low": s - 2, "overall_ci_high": s + 2, "provisional": 0}
            for m, k, s in rows
        ]
    )


def _models(board: pd.DataFrame, released: dict[str, str]) -> dict[str, ModelMeta]:
    return {
        r.model: ModelMeta(id=r.model, name=r.name, organization="o", kind=r.kind, release_date=released.get(r.model, "")) for r in board.itertuples()
    }


def test_frontier_is_the_running_best_by_release_date() -> None:
    points = pd.DataFrame(
        {
            "release_date": ["2024-01-01", "2024-02-01", "2024-02-01", "2024-03-01", "2024-04-01"],
            "model": ["a", "b", "c", "d", "e"],
            "score": [60.0, 58.0, 63.0, 62.0, 64.0],
            "provisional": [False, False, False, False, True],
        }
    )
    # b is beaten on its own day by c; d is below c; e is provisional (plotted, never on the frontier)
    assert frontier_mask(points).tolist() == [True, False, True, False, False]


def test_trend_matches_least_squares() -> None:
    days = np.array([0.0, 100.0, 250.0, 400.0, 500.0])
    scores = np.array([50.0, 53.0, 55.5, 60.0, 61.0])
    trend = fit_trend(days, scores)
    slope, intercept, _, _, se = stats.linregress(days, scores)
    assert trend is not None and trend.slope == pytest.approx(slope) and trend.intercept == pytest.approx(intercept)
    assert trend.slope_se == pytest.approx(se)


def _running_best(days: list[float], scores: list[float]) -> list[bool]:
    """The state of the art by its definition, one model at a time: a model is on it when it has the best
    score of its day (the first of equals) and beats every model released on an earlier day."""
    on = []
    for i, (day, score) in enumerate(zip(days, scores, strict=True)):
        same_day = [s for d, s in zip(days, scores, strict=True) if d == day and not np.isnan(s)]
        earlier = [s for d, s in zip(days, scores, strict=True) if d < day and not np.isnan(s)]
        first_best = (
            not np.isnan(score) and score == max(same_day) and all(scores[j] < score for j in range(i) if days[j] == day and not np.isnan(scores[j]))
        )
        on.append(first_best and all(score > s for s in earlier))
    return on


def test_frontier_rows_is_the_running_best_row_by_row() -> None:
    rng = np.random.default_rng(3)
    days = np.sort(rng.integers(0, 8, 12)).astype(float)  # several models a day
    scores = rng.normal(50, 5, (200, 12)).round(0)  # rounded: ties within a day and across days
    scores[5, 3] = np.nan
    scores[7, days == days[0]] = np.nan  # a day with no score at all
    rows = frontier_rows(days, scores)
    for r in range(len(scores)):
        assert rows[r].tolist() == _running_best(days.tolist(), scores[r].tolist())
    assert rows.any(axis=1).all() and not rows.all()


def _line_replicates(slopes: list[float], target: float) -> tuple[np.ndarray, np.ndarray]:
    """Replicates whose three models (days 0, 100, 200) lie on 50 + slope·day exactly, and the human group at
    ``target`` in each: the parity day of a replicate is (target − 50) / slope."""
    days = np.array([0.0, 100.0, 200.0])
    models = np.array([[50 + k * d for d in days] for k in slopes])
    return np.hstack([models, np.full((len(slopes), 1), target)]), days


def test_bootstrap_parity_is_the_quantiles_of_the_replicates_parity_days() -> None:
    """A known answer: 41 replicates whose lines reach 80 on days 1000, 1100, ..., 5000; np.quantile's 2.5%
    and 97.5% of 41 evenly spaced days are days 1100 and 4900. Three more replicates give no date: a falling
    line, one whose line reaches the group before the board's last release on its state of the art (day
    200), and one where the group's score is missing."""
    parity_days = 1000.0 + 100.0 * np.arange(41)
    reps, _ = _line_replicates(list(30.0 / parity_days), 80.0)
    falling = [[60.0, 55.0, 52.0, 80.0]]
    early = [[50.0, 60.0, 70.0, 52.0]]  # the line 50 + 0.1·day reaches 52 on day 20, before day 200
    missing = [[50.0, 51.0, 52.0, np.nan]]
    reps = np.vstack([reps, falling, early, missing])
    names, kinds = ["a", "b", "c", "h"], ["llm", "llm", "llm", "human"]
    released = [day_text(0), day_text(100), day_text(200), ""]
    point = np.array([50.0, 51.0, 52.0, 80.0])
    out = bootstrap_parity(names, kinds, released, [False] * 4, point, reps)
    assert out == {"h": {"low": day_text(1100), "high": day_text(4900), "kept": 41}}


def test_bootstrap_parity_finds_each_replicates_own_state_of_the_art() -> None:
    """In the replicate, model b falls below a: the frontier is a, c, d (days 0, 200, 300), not the board's."""
    names, kinds = ["a", "b", "c", "d", "h", "p"], ["llm", "llm", "llm", "llm", "human", "baseline"]
    released = [day_text(0), day_text(100), day_text(200), day_text(300), "", ""]
    point = np.array([50.0, 52.0, 54.0, 56.0, 70.0, 99.0])
    rep = np.array([[50.0, 49.0, 52.0, 53.0, 60.0, 99.0]])  # a baseline's score is never on the trend
    out = bootstrap_parity(names, kinds, released, [False] * 6, point, rep, level=0.5)
    slope, intercept, *_ = stats.linregress([0.0, 200.0, 300.0], [50.0, 52.0, 53.0])
    assert out["h"]["kept"] == 1 and out["h"]["low"] == out["h"]["high"] == day_text((60.0 - intercept) / slope)
    provisional = bootstrap_parity(names, kinds, released, [False, False, False, True, False, False], point, rep, level=0.5)
    assert provisional["h"]["kept"] == 0 and provisional["h"]["high"] == ""  # two points left: no trend


def test_explore_lists_left_out_models_and_projects_each_human_group() -> None:
    board = _board(
        [
            ("t.a", "llm", 50.0),
            ("t.b", "llm", 53.0),
            ("t.c", "llm", 56.2),
            ("t.d", "llm", 58.9),
            ("t.e", "llm", 45.0),
            ("t.x", "llm", 70.0),
            ("h.supers", "human", 75.0),
            ("h.public", "human", 57.0),
            ("p.naive", "baseline", 52.0),
        ]
    )
    released = {"t.a": "2024-01-01", "t.b": "2024-04-01", "t.c": "2024-07-01", "t.d": "2024-10-01", "t.e": "2024-12-01", "t.x": "soon"}
    out = explore(board, _models(board, released))
    assert out.points["model"].tolist() == ["t.a", "t.b", "t.c", "t.d", "t.e"]
    assert out.points["frontier"].tolist() == [True, True, True, True, False]
    assert out.left_out == [{"model": "t.x", "name": "T.X", "reason": "release date 'soon' is not YYYY-MM-DD"}]
    by_group = {p.model: p for p in out.parity}
    assert by_group["h.public"].status == "reached" and by_group["h.public"].date == "2024-10-01"
    supers = by_group["h.supers"]
    assert supers.status == "projected" and supers.low == supers.high == "" and "no bootstrap replicates" in supers.reason
    expected = (75.0 - out.trend.intercept) / out.trend.slope
    assert day_number(supers.date) == round(expected)
    board.attrs[PARITY_ATTR] = {
        "score": "overall",
        "replicates": 1999,
        "by_model": {"h.supers": {"low": "2025-06-01", "high": "2027-01-01", "kept": 1990}},
    }
    supers = {p.model: p for p in explore(board, _models(board, released)).parity}["h.supers"]
    assert (supers.low, supers.high, supers.kept, supers.replicates) == ("2025-06-01", "2027-01-01", 1990, 1999)
    board.attrs[PARITY_ATTR]["score"] = "market"  # drawn for another score: not this view's interval
    assert {p.model: p for p in explore(board, _models(board, released)).parity}["h.supers"].high == ""


def test_too_few_frontier_points_give_no_projection() -> None:
    board = _board([("t.a", "llm", 50.0), ("t.b", "llm", 53.0), ("h.supers", "human", 75.0)])
    out = explore(board, _models(board, {"t.a": "2024-01-01", "t.b": "2024-04-01"}))
    assert out.trend is None
    assert out.parity[0].status == "none" and "at least 3" in out.parity[0].reason


def test_a_trend_too_slow_for_the_calendar_gives_no_date() -> None:
    board = _board([("t.a", "llm", 50.0), ("t.b", "llm", 50.001), ("t.c", "llm", 50.002), ("h.supers", "human", 99.0)])
    out = explore(board, _models(board, {"t.a": "2024-01-01", "t.b": "2024-04-01", "t.c": "2024-07-01"}))
    assert out.parity[0].status == "none" and "calendar" in out.parity[0].reason


def test_fb_board_carries_the_interval_of_its_own_replicates_and_the_page_shows_it() -> None:
    """End to end through ``fb_board``: six LLMs getting better with their release date and a human group
    above them all, 40 questions; the board keeps each human group's interval (seeded: the same seed, the
    same interval), and ``explore`` puts it beside the projected date."""
    from generator.leaderboard.fb_board import FBOptions, fb_board
    from generator.timeutil import parse_ts

    from helpers import score_rows

    rng = np.random.default_rng(7)
    outcome = {f"{'m' if i % 2 else 'd'}{i}": float(rng.random() < 0.5) for i in range(40)}
    skill = {"t.a": 0.35, "t.b": 0.30, "t.c": 0.26, "t.d": 0.22, "t.e": 0.19, "t.f": 0.16, "h.sup": 0.05}
    forecasts = {
        m: {q: float(np.clip(o + (s if o == 0 else -s) + rng.normal(0, 0.08), 0.01, 0.99)) for q, o in outcome.items()} for m, s in skill.items()
    }
    released = {"t.a": "2024-01-01", "t.b": "2024-03-01", "t.c": "2024-06-01", "t.d": "2024-09-01", "t.e": "2024-12-01", "t.f": "2025-03-01"}
    models = {
        m: ModelMeta(id=m, name=m.upper(), organization="o", kind="human" if m == "h.sup" else "llm", release_date=released.get(m, "")) for m in skill
    }
    scores = score_rows(forecasts, outcome)

    def made(seed: int) -> pd.DataFrame:
        return fb_board(
            scores, models, parse_ts("2026-03-01T00:00:00Z"), np.random.default_rng(seed), FBOptions(replicates=199, min_resolved=0, min_age_days=0)
        )

    board = made(1)
    kept = board.attrs[PARITY_ATTR]
    assert kept["score"] == "overall" and kept["replicates"] == 199 and set(kept["by_model"]) == {"h.sup"}
    interval = kept["by_model"]["h.sup"]
    assert 0 < interval["kept"] <= 199 and interval["low"] < interval["high"]
    assert made(1).attrs[PARITY_ATTR] == kept and made(2).attrs[PARITY_ATTR] != kept
    sup = explore(board, models).parity[0]
    assert sup.status == "projected" and (sup.low, sup.high, sup.kept) == (interval["low"], interval["high"], interval["kept"])
    assert sup.low <= sup.date <= sup.high


def test_a_date_before_the_last_release_on_the_state_of_the_art_is_said_so() -> None:
    """The line of a, b, c (days 0, 100, 200 at 50, 60, 60.9) crosses 60.95 on day ~173, before c's release: the
    date is kept (ForecastBench's point estimate is the line's) and the page says what it means."""
    board = _board([("t.a", "llm", 50.0), ("t.b", "llm", 60.0), ("t.c", "llm", 60.9), ("h.g", "human", 60.95)])
    released = {"t.a": day_text(0), "t.b": day_text(100), "t.c": day_text(200)}
    group = explore(board, _models(board, released)).parity[0]
    assert group.status == "projected" and group.date < day_text(200)
    assert f"before the state of the art's last release ({day_text(200)})" in group.note
    later = explore(
        _board([("t.a", "llm", 50.0), ("t.b", "llm", 53.0), ("t.c", "llm", 56.0), ("h.g", "human", 70.0)]), _models(board, released)
    ).parity[0]
    assert later.status == "projected" and later.note == ""
