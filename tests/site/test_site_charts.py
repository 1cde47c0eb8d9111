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
    return pd.DataFrame(
        {
            "model": ["a.x", "b.y", "c.z"],
            "name": ["A", HOSTILE, "a very long model name, cut in ticks"],
            "rank": [1, 2, 2],
            "overall": [70.25, 61.0, np.nan],
            "overall_ci_low": [65.0, np.nan, 50.0],
            "overall_ci_high": [75.5, 66.0, 60.0],
            "n_dataset": [3, 0, 5],
            "n_market": [4, 2, 0],
        }
    )


def _history() -> pd.DataFrame:
    models = [f"m{i:02d}.x" for i in range(40)]  # more than the palette's colours
    nights = ["2026-01-02T00:00:00Z", "2026-01-01T00:00:00Z"]
    return pd.DataFrame(
        {
            "as_of": [n for n in nights for _ in models],
            "model": models * 2,
            "overall": [50 + (i * 7 % 13) - (0.5 if n else 0) for n in (0, 1) for i in range(40)],
        }
    )


FIGURES = {
    "board_dots": lambda: charts.board_dots(_board()),
    "history_lines": lambda: charts.history_lines(_history(), {"m00.x": HOSTILE}, {"m01.x", "m05.x"}),
    "question_history_market": lambda: charts.question_history(
        pd.DataFrame({"observed_at": ["2026-01-01T00:00:00Z", "2026-01-03T12:00:00Z"], "value": [0.4, np.nan]}), "binary"
    ),
    "question_history_series": lambda: charts.question_history(
        pd.DataFrame({"observed_at": ["2026-01-01T00:00:00Z"], "value": [1234.5678912]}), "numeric"
    ),
    "reliability": lambda: charts.reliability(
        pd.DataFrame({"forecast": [0.05, 0.5], "observed": [0.0, 0.4], "n": [1, 30], "ci_low": [0.0, 0.1], "ci_high": [0.8, 0.7]})
    ),
    "arena_curves": lambda: charts.arena_curves(
        pd.DataFrame(
            {
                "cohort": ["2026-01-01", "2026-01-02", "2026-01-01"],
                "view": ["bets", "bets", "simulated"],
                "at": ["2026-01-02T00:00:00Z"] * 3,
                "pnl": [1.0, -2.5, 3.25],
            }
        )
    ),
    "oracle_months_cutoff": lambda: charts.oracle_months(
        pd.DataFrame(
            {
                "month": ["2025-12", "2026-01"],
                "accuracy": [0.5, 0.25],
                "accuracy_ma5": [0.5, np.nan],
                "n": [3, 4],
                "knowledge_cutoff": ["2025-12-01"] * 2,
            }
        )
    ),
    "oracle_months_no_cutoff": lambda: charts.oracle_months(
        pd.DataFrame({"month": ["2026-01"], "accuracy": [0.5], "accuracy_ma5": [0.5], "n": [3], "knowledge_cutoff": ["2024-01-01"]})
    ),
    "oracle_accuracy_by_month": lambda: charts.oracle_accuracy_by_month(
        pd.DataFrame(
            {
                "model": ["prescient.m-closed-book", "prescient.m-closed-book", HOSTILE, "x.y"],
                "kind": ["tf", "tf", "tf", "mc"],
                "month": ["2025-12", "2026-01", "2026-01", "2026-01"],
                "accuracy": [0.5, 0.75, 0.25, 1.0],
                "n": [2, 4, 4, 1],
                "knowledge_cutoff": ["2025-12-31", "2025-12-31", "", ""],
            }
        ),
        "tf",
    ),
    "explore_scores": lambda: _explore_figure(),
    "arena_portfolios": lambda: charts.arena_portfolios(_curves(), {"a.x": HOSTILE}),
}


def _explore_figure():
    from generator.leaderboard.explore import explore
    from generator.models import ModelMeta

    board = pd.DataFrame(
        {
            "model": ["a.x", "b.y", "c.z", "h.s", "h.p"],
            "name": ["A", HOSTILE, "C", "Supers", "Public"],
            "kind": ["llm", "llm", "llm", "human", "human"],
            "overall": [50.0, 55.0, 60.0, 75.0, 52.0],
            "overall_ci_low": [48.0, 53.0, np.nan, 73.0, 50.0],
            "overall_ci_high": [52.0, 57.0, 62.0, 77.0, 54.0],
            "provisional": [0, 0, 0, 0, 0],
        }
    )
    dates = {"a.x": "2024-01-01", "b.y": "2024-06-01", "c.z": "2025-01-01"}
    models = {
        m: ModelMeta(id=m, name=m, organization="", kind=k, release_date=dates.get(m, ""), knowledge_cutoff=HOSTILE)
        for m, k in zip(board["model"], board["kind"], strict=True)
    }
    out = explore(board, models)
    return charts.explore_scores(out.points, out.trend, out.parity)


def _curves() -> pd.DataFrame:
    at = ["2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z"]
    return pd.DataFrame(
        {
            "cohort": ["2026-01-01"] * 4 + ["2026-01-15"] * 2,
            "model": ["a.x"] * 2 + ["b.y"] * 2 + ["a.x"] * 2,
            "view": ["bets"] * 6,
            "at": at * 3,
            "total_value": [10_000.0, 10_250.5, 9_900.0, 9_800.0, 10_000.0, 10_100.0],
            "pnl": [0.0, 250.5, -100.0, -200.0, 0.0, 100.0],
            "return_pct": [0.0, 2.505, -1.0, -2.0, 0.0, 1.0],
        }
    )


def test_the_explore_chart_draws_points_frontier_trend_and_each_human_group() -> None:
    names = [t.get("name") for t in _explore_figure()["data"]]
    assert names[:2] == ["model", "state of the art"] and names[2].startswith("trend of the state of the art")
    assert "Supers" in names and "Public" in names and any(str(n).startswith("Supers: parity") for n in names)
    assert all("<b>" not in json.dumps(t) for t in _explore_figure()["data"])  # the hostile name and cutoff drawn as text


def test_the_arena_chart_lists_the_dates_of_a_line_with_a_night_missing() -> None:
    curves = _curves().drop(index=1)
    curves = pd.concat([curves, curves.iloc[[0]].assign(at="2026-01-05T00:00:00Z", total_value=10_300.0)])
    lines = {tuple(t.get("x", ())): t.get("x0") for t in charts.arena_portfolios(curves)["data"]}
    assert lines[("2026-01-02", "2026-01-05")] is None and lines[()] == "2026-01-02"


def test_the_arena_chart_switches_dollars_and_percent_and_marks_each_cohort() -> None:
    figure = charts.arena_portfolios(_curves())
    menu = figure["layout"]["updatemenus"][0]
    assert menu["name"] == charts.PERCENT_SWITCH and [(b["label"], b["method"]) for b in menu["buttons"]] == [("$", "skip"), ("%", "skip")]
    assert [t["y"] for t in figure["data"]] == [[10_000.0, 10_250.0], [10_000.0, 10_100.0], [9_900.0, 9_800.0]]  # once, in dollars
    assert [t["meta"] for t in figure["data"]] == [10_000.0, 10_000.0, 10_000.0]  # each line's start: the script's % switch
    assert [(t["x0"], t["dx"]) for t in figure["data"]] == [("2026-01-02", 86_400_000)] * 3  # nights in a row: no list of dates
    assert "x" not in figure["data"][0]
    assert [t.get("showlegend") for t in figure["data"]] == [True, False, True]  # one legend entry a model
    assert [s["x0"] for s in figure["layout"]["shapes"] if s["xref"] == "x"] == ["2026-01-01", "2026-01-15"]
    assert [b["label"] for b in figure["layout"]["xaxis"]["rangeselector"]["buttons"]] == ["1m", "3m", "all"]


def test_every_chart_needs_only_what_the_sites_plotly_bundle_registers():
    """The vendored bundle (generator/site/assets/) registers the scatter and bar traces and a list
    of components (plotly-build/entry.js); a chart with another trace type, or a layout part whose
    component is left out, would draw nothing or draw it wrong in the reader's browser."""
    import re
    from importlib import resources

    from generator.site.render import PLOTLY_TRACES, plotly_js

    entry = resources.files("generator.site").joinpath("assets/plotly-build/entry.js").read_text(encoding="utf-8")
    registered = set(re.findall(r"require\('plotly\.js/src/(?:traces|components)/(\w+)'\)", entry))
    assert set(PLOTLY_TRACES) <= registered
    parts = {
        "annotations": "annotations",
        "shapes": "shapes",
        "updatemenus": "updatemenus",
        "rangeselector": "rangeselector",
        "error_x": "errorbars",
        "error_y": "errorbars",
        "sliders": "sliders",
        "images": "images",
        "rangeslider": "rangeslider",
        "colorbar": "colorbar",
        "grid": "grid",
    }

    def used(node) -> set[str]:
        if isinstance(node, dict):
            return {parts[k] for k in node if k in parts} | {c for v in node.values() for c in used(v)}
        return {c for v in node for c in used(v)} if isinstance(node, list) else set()

    for name, make in FIGURES.items():
        figure = json.loads(charts.to_json(make()))
        assert {t["type"] for t in figure["data"]} <= set(PLOTLY_TRACES), name
        assert used(figure) <= registered, (name, used(figure) - registered)
    bundle = plotly_js()
    assert bundle.startswith(b"/*! plotly.js 4.1.1 ") and 500_000 < len(bundle) < 1_200_000


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
    old = go.Figure(
        go.Scatter(x=["2026-01-01"], y=[1234.567891], mode="lines", line=dict(shape="linear"), hovertemplate="%{x}<br>%{y}<extra></extra>")
    )
    old.update_layout(
        **{**charts._LAYOUT, "template": "none"},
        height=300,
        xaxis=dict(automargin=True, title="observed"),
        yaxis=dict(automargin=True, title="value", range=None),
    )
    assert series == charts.to_json(old.to_plotly_json())
    assert '"shapes"' not in charts.to_json(FIGURES["oracle_months_no_cutoff"]())


def test_a_settled_cohorts_pl_stays_in_the_models_total_after_its_curve_ends() -> None:
    """``pnl_curves`` ends a settled cohort's curve after its last settlement (and adds ``as_of``): the model
    page's total must carry that cohort's last P/L over the nights between, not drop it."""
    days = [f"2026-01-0{d}T00:00:00Z" for d in range(1, 7)]
    curves = pd.DataFrame(
        {
            "cohort": ["2026-01-01"] * 4 + ["2026-01-02"] * 5,
            "view": "simulated",
            "at": [*days[:3], days[5], *days[1:]],
            "pnl": [10.0, 20.0, 30.0, 30.0, 1.0, 2.0, 3.0, 4.0, 5.0],
        }
    )
    figure = charts.arena_curves(curves)
    (line,) = figure["data"]
    assert list(line["x"]) == [d[:10] for d in days]
    assert list(line["y"]) == [10.0, 21.0, 32.0, 33.0, 34.0, 35.0]
