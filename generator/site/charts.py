"""Plotly figures as plain dicts. Pure: frames in, figure JSON out.

Figures use ``template="none"`` and leave colours to the site's CSS and script (which re-colours
them on the light/dark switch), so each page carries only its data.

Plotly reads its text (trace names, category ticks, hover text, titles) as pseudo-HTML: ``<a
href>``, ``<b>``, ``<br>``, ``<span style>`` become SVG elements. Every string that came from a
submitter or a source goes through ``plain`` first, so it is drawn as the characters it holds.
"""

from __future__ import annotations

import json

import pandas as pd
import plotly.graph_objects as go

_LAYOUT = dict(template="none", margin=dict(l=60, r=20, t=30, b=50), hovermode="closest",
               legend=dict(orientation="h", y=-0.15, yanchor="top"), autosize=True)

# Line colours that stay apart on the light and the dark background. A forecaster's line is solid
# (then long-dashed, dash-dotted once the colours run out), a baseline's dotted (then dashed, long
# dash-dotted): 36 distinct (colour, dash) pairs of each before one repeats.
PALETTE = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
           "#b07aa1", "#ff9da7", "#9c755f", "#17becf", "#bcbd22", "#d62728")
DASHES = ("solid", "longdash", "dashdot")
BASELINE_DASHES = ("dot", "dash", "longdashdot")
ALWAYS_HALF = 50.0  # the Brier Index of always answering 0.5
REFERENCE_LINE = dict(color="#8c8c8c", width=1, dash="dash")
TICK_CHARS = 24  # longer names are cut in axis ticks (the hover text keeps them whole)


def line_styles(models: list[str], baselines: set[str]) -> dict[str, dict]:
    """A distinct (colour, dash) per model, colours in the order given; baselines thinner and dotted."""
    styles = {}
    for i, model in enumerate(models):
        base = model in baselines
        dash = (BASELINE_DASHES if base else DASHES)[(i // len(PALETTE)) % len(DASHES)]
        styles[model] = dict(color=PALETTE[i % len(PALETTE)], dash=dash, width=1.5 if base else 2.5)
    return styles


def _tick(name) -> str:
    text = str(name)
    return plain(text if len(text) <= TICK_CHARS else text[:TICK_CHARS - 1].rstrip() + "…")


def _always_half(axis: str) -> tuple[dict, dict]:
    """The Always 0.5 reference line (Brier Index 50) across a chart, and its label."""
    across = "y" if axis == "x" else "x"
    line = {"type": "line", "xref": "x" if axis == "x" else "paper", "yref": "y" if axis == "y" else "paper",
            f"{axis}0": ALWAYS_HALF, f"{axis}1": ALWAYS_HALF, f"{across}0": 0, f"{across}1": 1,
            "line": REFERENCE_LINE, "layer": "below"}
    label = {"text": "Always 0.5", "showarrow": False, "font": {"size": 10, "color": REFERENCE_LINE["color"]},
             "xref": line["xref"], "yref": line["yref"], "x": ALWAYS_HALF if axis == "x" else 0,
             "y": 1 if axis == "x" else ALWAYS_HALF, "xanchor": "left", "yanchor": "bottom"}
    return line, label


def to_json(figure: go.Figure) -> str:
    """Compact, deterministic JSON (sorted keys) of a figure."""
    return json.dumps(figure.to_plotly_json(), sort_keys=True, separators=(",", ":"), default=_plain)


def _plain(value):
    return value.tolist() if hasattr(value, "tolist") else str(value)


def plain(text) -> str:
    """``text`` for a Plotly text field, shown as written: ``&``, ``<`` and ``>`` as the entities
    Plotly turns back into characters after it has looked for tags."""
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def board_dots(board: pd.DataFrame, score: str = "overall", top: int = 20) -> go.Figure:
    """The top ranked forecasters' Brier Index with its 95% CI, best at the top (higher is better)."""
    ranked = board[board[score].notna()].sort_values(["rank", score], ascending=[True, False], na_position="last")
    ordered = ranked.head(top).iloc[::-1]
    figure = go.Figure(go.Scatter(
        x=ordered[score].round(2).tolist(), y=[_tick(n) for n in ordered["name"]], mode="markers",
        marker=dict(size=9), text=[plain(n) for n in ordered["name"]],
        error_x=dict(type="data", symmetric=False, thickness=1.5, width=0,
                     array=(ordered[f"{score}_ci_high"] - ordered[score]).round(2).fillna(0).tolist(),
                     arrayminus=(ordered[score] - ordered[f"{score}_ci_low"]).round(2).fillna(0).tolist()),
        customdata=(ordered["n_dataset"] + ordered["n_market"]).tolist(),
        hovertemplate="%{text}<br>Brier Index %{x:.1f}<br>N %{customdata}<extra></extra>",
    ))
    line, label = _always_half("x")
    figure.update_layout(**_LAYOUT, height=max(240, 28 * len(ordered) + 90), shapes=[line], annotations=[label],
                         xaxis=dict(title="Brier Index, 95% CI (higher is better)", automargin=True),
                         yaxis=dict(automargin=True))
    return figure


def history_lines(history: pd.DataFrame, names: dict[str, str], baselines: set[str] | frozenset = frozenset(),
                  score: str = "overall") -> go.Figure:
    """Each forecaster's Brier Index (the ``score`` column: ``overall``, ``dataset`` or ``market``)
    night by night, best last night first (the legend's order), every line its own colour and dash
    (``line_styles``), and the Always 0.5 line."""
    history = history.sort_values("as_of")
    last = history.groupby("model", sort=True)[score].last()
    order = sorted(last.index, key=lambda m: (m in baselines, -last[m] if pd.notna(last[m]) else float("inf"), m))
    styles = line_styles(order, set(baselines))
    by_model = dict(tuple(history.groupby("model", sort=True)))
    figure = go.Figure()
    for model in order:
        rows = by_model[model]
        figure.add_trace(go.Scatter(x=rows["as_of"].str[:10].tolist(), y=rows[score].round(2).tolist(),
                                    mode="lines", name=plain(names.get(model, model)), line=styles[model]))
    line, label = _always_half("y")
    figure.update_layout(**_LAYOUT, height=420, shapes=[line], annotations=[label],
                         xaxis=dict(automargin=True),
                         yaxis=dict(title="Brier Index (higher is better)", automargin=True))
    return figure


def question_history(history: pd.DataFrame, kind: str) -> go.Figure:
    """A market's probability, or a series' value, over time (what the source reported)."""
    market = kind == "binary"
    figure = go.Figure(go.Scatter(
        x=history["observed_at"].str[:10].tolist(), y=history["value"].round(6).tolist(),
        mode="lines", line=dict(shape="hv" if market else "linear"),
        hovertemplate="%{x}<br>%{y}<extra></extra>",
    ))
    figure.update_layout(**_LAYOUT, height=300, xaxis=dict(automargin=True, title="observed"),
                         yaxis=dict(automargin=True, title="probability of YES" if market else "value",
                                    range=[0, 1] if market else None))
    return figure


def reliability(table: pd.DataFrame) -> go.Figure:
    """Reliability diagram: observed frequency (with its 95% CI) against the mean forecast per bin."""
    figure = go.Figure([
        go.Scatter(x=[0, 1], y=[0, 1], mode="lines", name="perfect calibration", line=dict(dash="dot", width=1),
                   hoverinfo="skip"),
        go.Scatter(
            x=table["forecast"].round(4).tolist(), y=table["observed"].round(4).tolist(), mode="markers+lines",
            name="observed", marker=dict(size=(4 + 14 * (table["n"] / max(int(table["n"].max()), 1)) ** 0.5).round(1).tolist()),
            error_y=dict(type="data", symmetric=False, thickness=1.2, width=0,
                         array=(table["ci_high"] - table["observed"]).round(4).tolist(),
                         arrayminus=(table["observed"] - table["ci_low"]).round(4).tolist()),
            customdata=table["n"].tolist(),
            hovertemplate="mean forecast %{x:.3f}<br>observed %{y:.3f}<br>N %{customdata}<extra></extra>"),
    ])
    figure.update_layout(**_LAYOUT, height=360, xaxis=dict(automargin=True, title="mean forecast in bin", range=[0, 1]),
                         yaxis=dict(automargin=True, title="observed frequency (95% CI)", range=[0, 1]))
    return figure


def arena_curves(curves: pd.DataFrame) -> go.Figure:
    """A model's Arena P/L summed over its cohorts, one line per view (bets, simulated portfolio)."""
    figure = go.Figure()
    for view, rows in curves.groupby("view", sort=True):
        total = rows.groupby("at", sort=True)["pnl"].sum()
        figure.add_trace(go.Scatter(x=[a[:10] for a in total.index], y=total.round(2).tolist(), mode="lines",
                                    name=plain(view), hovertemplate="%{x}<br>P/L $%{y:,.2f}<extra></extra>"))
    figure.update_layout(**_LAYOUT, height=320, xaxis=dict(automargin=True, title="mark (00:00 UTC)"),
                         yaxis=dict(automargin=True, title="profit / loss, $ (not a proper score)"))
    return figure


def oracle_months(months: pd.DataFrame) -> go.Figure:
    """Daily Oracle view over time: accuracy by resolution month, its 5-month moving average, and
    the knowledge cutoff as a vertical line."""
    x = months["month"].astype(str).tolist()
    figure = go.Figure([
        go.Bar(x=x, y=months["accuracy"].round(4).tolist(), name="accuracy", opacity=0.45,
               customdata=months["n"].tolist(), hovertemplate="%{x}<br>accuracy %{y:.3f}<br>N %{customdata}<extra></extra>"),
        go.Scatter(x=x, y=months["accuracy_ma5"].round(4).tolist(), mode="lines", name="5-month moving average"),
    ])
    cutoff = str(months["knowledge_cutoff"].iloc[0]) if len(months) else ""
    shapes = [dict(type="line", xref="x", yref="paper", x0=cutoff[:7], x1=cutoff[:7], y0=0, y1=1,
                   line=dict(dash="dash", width=1))] if cutoff[:7] in x else []
    figure.update_layout(**_LAYOUT, height=320, shapes=shapes, xaxis=dict(automargin=True, title="resolution month", type="category"),
                         yaxis=dict(automargin=True, title="accuracy", range=[0, 1]))
    return figure
