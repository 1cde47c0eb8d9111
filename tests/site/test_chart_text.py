"""Names in Plotly figures are plain text: Plotly would draw ``<a>``, ``<b>``, ``<br>`` and
``<span style>`` in trace names, category ticks and hover text as SVG elements."""

from __future__ import annotations

import json

import pandas as pd

from generator.site import charts

HOSTILE = '<a href="javascript:alert(1)">x</a><b>y</b><br><span style="font-size:99px">z</span> & &lt;'
SHOWN = (
    '&lt;a href="javascript:alert(1)"&gt;x&lt;/a&gt;&lt;b&gt;y&lt;/b&gt;&lt;br&gt;&lt;span style="font-size:99px"&gt;z&lt;/span&gt; &amp; &amp;lt;'
)


def test_plain_escapes_what_plotly_reads_as_markup_and_nothing_else():
    assert charts.plain(HOSTILE) == SHOWN
    assert charts.plain("GPT-4o (2024-08-06) 'mini' \"x\" é") == "GPT-4o (2024-08-06) 'mini' \"x\" é"


def test_board_dots_and_history_lines_carry_names_as_plain_text():
    board = pd.DataFrame(
        {
            "model": ["evil.x", "ok.y"],
            "name": [HOSTILE, "Fine"],
            "rank": [1, 2],
            "overall": [70.0, 60.0],
            "overall_ci_low": [65.0, 55.0],
            "overall_ci_high": [75.0, 65.0],
            "n_dataset": [3, 3],
            "n_market": [4, 4],
        }
    )
    dots = json.loads(charts.to_json(charts.board_dots(board)))
    assert dots["data"][0]["text"] == ["Fine", SHOWN]  # the hover text: the whole name
    assert dots["data"][0]["y"] == ["Fine", charts.plain(HOSTILE[: charts.TICK_CHARS - 1].rstrip() + "…")]  # the tick: cut
    history = pd.DataFrame({"as_of": ["2026-01-02T00:00:00Z"] * 2, "model": ["evil.x", "ok.y"], "overall": [70.0, 60.0]})
    lines = json.loads(charts.to_json(charts.history_lines(history, {"evil.x": HOSTILE})))
    assert [t["name"] for t in lines["data"]] == [SHOWN, "ok.y"]
    for figure in (dots, lines):
        text = json.dumps([{k: t.get(k) for k in ("name", "y", "text")} for t in figure["data"]])
        assert "<" not in text and ">" not in text


def test_history_lines_keep_thirteen_and_more_lines_apart_and_mark_always_half():
    models = [f"t.m{i:02d}" for i in range(16)] + ["hub.always-0.5", "hub.naive"]
    history = pd.DataFrame({"as_of": "2026-03-01T00:00:00Z", "model": models, "overall": [60.0 + i for i in range(len(models))]})
    figure = json.loads(charts.to_json(charts.history_lines(history, {}, {"hub.always-0.5", "hub.naive"})))
    styles = [(t["line"]["color"], t["line"]["dash"]) for t in figure["data"]]
    assert len(set(styles)) == len(models), "two lines look alike"
    assert [t["name"] for t in figure["data"]][:2] == ["t.m15", "t.m14"] and figure["data"][-1]["name"] in models[-2:]
    assert [t["line"]["dash"] for t in figure["data"][-2:]] == ["dash", "dash"], "baselines last, dashed after the 12 first"
    assert {t["line"]["dash"] for t in figure["data"][:12]} == {"solid"}
    assert [s["y0"] for s in figure["layout"]["shapes"]] == [50.0]
    assert figure["layout"]["annotations"][0]["text"] == "Always 0.5"


def test_the_board_dot_plot_marks_always_half_on_its_brier_index_axis():
    board = pd.DataFrame(
        {
            "model": ["a.x"],
            "name": ["A"],
            "rank": [1],
            "overall": [70.0],
            "overall_ci_low": [65.0],
            "overall_ci_high": [75.0],
            "n_dataset": [3],
            "n_market": [4],
        }
    )
    figure = json.loads(charts.to_json(charts.board_dots(board)))
    assert [(s["x0"], s["x1"], s["yref"]) for s in figure["layout"]["shapes"]] == [(50.0, 50.0, "paper")]
