"""The chart dicts are built without Plotly's objects (``site.charts``), so they must be exactly what
Plotly's ``Figure(...).to_plotly_json()`` makes of them: its normal form (axis titles as
``{"text": ...}``, no None properties, no empty shape lists, its "none" template), on representative
data: hostile names, missing values, more models than colours, an oracle cutoff on and off the axis."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from generator.site import charts

HOSTILE = '<b>x</b> & "y"'


def _board() -> pd.DataFrame:
    return pd.DataFrame({"model": ["a.x", "b.y", "c.z"], "name": ["A", HOSTILE, "a very long model name, cut in ticks"],
                         "rank": [1, 2, 2], "overall": [70.25, 61.0, np.nan], "overall_ci_low": [65.0, np.nan, 50.0],
                         "overall_ci_high": [75.5, 66.0, 60.0], "n_dataset": [3, 0, 5], "n_market": [4, 2, 0]})


def _history() -> pd.DataFrame:
    models = [f"m{i:02d}.x" for i in range(40)]  # more than the palette's colours
    nights = ["2026-01-02T00:00:00Z", "2026-01-01T00:00:00Z"]
    return pd.DataFrame({"as_of": [n for n in nights for _ in models], "model": models * 2,
                         "overall": [50 + (i * 7 % 13) - (0.5 if n else 0) for n in (0, 1) for i in range(40)]})


FIGURES = {
    "board_dots": lambda: charts.board_dots(_board()),
    "history_lines": lambda: charts.history_lines(_history(), {"m00.x": HOSTILE}, {"m01.x", "m05.x"}),
    "question_history_market": lambda: charts.question_history(
        pd.DataFrame({"observed_at": ["2026-01-01T00:00:00Z", "2026-01-03T12:00:00Z"], "value": [0.4, np.nan]}), "binary"),
    "question_history_series": lambda: charts.question_history(
        pd.DataFrame({"observed_at": ["2026-01-01T00:00:00Z"], "value": [1234.5678912]}), "numeric"),
    "reliability": lambda: charts.reliability(pd.DataFrame(
        {"forecast": [0.05, 0.5], "observed": [0.0, 0.4], "n": [1, 30], "ci_low": [0.0, 0.1], "ci_high": [0.8, 0.7]})),
    "arena_curves": lambda: charts.arena_curves(pd.DataFrame(
        {"view": ["bets", "bets", "simulated"], "at": ["2026-01-02T00:00:00Z"] * 3, "pnl": [1.0, -2.5, 3.25]})),
    "oracle_months_cutoff": lambda: charts.oracle_months(pd.DataFrame(
        {"month": ["2025-12", "2026-01"], "accuracy": [0.5, 0.25], "accuracy_ma5": [0.5, np.nan], "n": [3, 4],
         "knowledge_cutoff": ["2025-12-01"] * 2})),
    "oracle_months_no_cutoff": lambda: charts.oracle_months(pd.DataFrame(
        {"month": ["2026-01"], "accuracy": [0.5], "accuracy_ma5": [0.5], "n": [3], "knowledge_cutoff": ["2024-01-01"]})),
    "oracle_accuracy_by_month": lambda: charts.oracle_accuracy_by_month(pd.DataFrame(
        {"model": ["prescient.m-closed-book", "prescient.m-closed-book", HOSTILE, "x.y"], "kind": ["tf", "tf", "tf", "mc"],
         "month": ["2025-12", "2026-01", "2026-01", "2026-01"], "accuracy": [0.5, 0.75, 0.25, 1.0], "n": [2, 4, 4, 1],
         "knowledge_cutoff": ["2025-12-31", "2025-12-31", "", ""]}), "tf"),
}


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_each_chart_is_in_plotlys_normal_form(name):
    figure = FIGURES[name]()
    assert charts.to_json(go.Figure(figure).to_plotly_json()) == charts.to_json(figure)


def test_a_month_without_its_moving_average_is_a_gap_not_nan():
    """Months apart by more than the window (two oracle sets years apart) leave averages undefined:
    they must be JSON nulls, since the browser's JSON.parse refuses NaN and draws no chart."""
    figure = charts.to_json(FIGURES["oracle_months_cutoff"]())
    assert "NaN" not in figure and json.loads(figure)["data"][1]["y"] == [0.5, None]


def test_the_template_is_plotlys_none():
    assert go.Figure(layout=dict(template="none")).to_plotly_json()["layout"]["template"] == charts.NONE_TEMPLATE


def test_a_property_set_to_none_and_empty_shapes_are_left_out_as_plotly_leaves_them_out():
    series = charts.to_json(FIGURES["question_history_series"]())
    old = go.Figure(go.Scatter(x=["2026-01-01"], y=[1234.567891], mode="lines", line=dict(shape="linear"),
                               hovertemplate="%{x}<br>%{y}<extra></extra>"))
    old.update_layout(**{**charts._LAYOUT, "template": "none"}, height=300,
                      xaxis=dict(automargin=True, title="observed"),
                      yaxis=dict(automargin=True, title="value", range=None))
    assert series == charts.to_json(old.to_plotly_json())
    assert '"shapes"' not in charts.to_json(FIGURES["oracle_months_no_cutoff"]())
