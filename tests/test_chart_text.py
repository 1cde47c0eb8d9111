"""Names in Plotly figures are plain text: Plotly would draw ``<a>``, ``<b>``, ``<br>`` and
``<span style>`` in trace names, category ticks and hover text as SVG elements."""

from __future__ import annotations

import json

import pandas as pd

from generator.site import charts

HOSTILE = '<a href="javascript:alert(1)">x</a><b>y</b><br><span style="font-size:99px">z</span> & &lt;'
SHOWN = ('&lt;a href="javascript:alert(1)"&gt;x&lt;/a&gt;&lt;b&gt;y&lt;/b&gt;&lt;br&gt;'
         '&lt;span style="font-size:99px"&gt;z&lt;/span&gt; &amp; &amp;lt;')


def test_plain_escapes_what_plotly_reads_as_markup_and_nothing_else():
    assert charts.plain(HOSTILE) == SHOWN
    assert charts.plain("GPT-4o (2024-08-06) 'mini' \"x\" é") == "GPT-4o (2024-08-06) 'mini' \"x\" é"


def test_board_dots_and_history_lines_carry_names_as_plain_text():
    board = pd.DataFrame({"model": ["evil.x", "ok.y"], "name": [HOSTILE, "Fine"], "rank": [1, 2],
                          "overall": [70.0, 60.0], "overall_ci_low": [65.0, 55.0], "overall_ci_high": [75.0, 65.0],
                          "n_dataset": [3, 3], "n_market": [4, 4]})
    dots = json.loads(charts.to_json(charts.board_dots(board)))
    assert dots["data"][0]["y"] == ["Fine", SHOWN]
    history = pd.DataFrame({"as_of": ["2026-01-02T00:00:00Z"] * 2, "model": ["evil.x", "ok.y"], "overall": [70.0, 60.0]})
    lines = json.loads(charts.to_json(charts.history_lines(history, {"evil.x": HOSTILE})))
    assert [t["name"] for t in lines["data"]] == [SHOWN, "ok.y"]
    for figure in (dots, lines):
        text = json.dumps([{k: t.get(k) for k in ("name", "y", "text")} for t in figure["data"]])
        assert "<" not in text and ">" not in text
