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
               legend=dict(orientation="h", y=-0.2), autosize=True)


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
        x=ordered[score].round(2).tolist(), y=[plain(n) for n in ordered["name"]], mode="markers",
        marker=dict(size=9),
        error_x=dict(type="data", symmetric=False, thickness=1.5, width=0,
                     array=(ordered[f"{score}_ci_high"] - ordered[score]).round(2).fillna(0).tolist(),
                     arrayminus=(ordered[score] - ordered[f"{score}_ci_low"]).round(2).fillna(0).tolist()),
        customdata=(ordered["n_dataset"] + ordered["n_market"]).tolist(),
        hovertemplate="%{y}<br>Brier Index %{x:.1f}<br>N %{customdata}<extra></extra>",
    ))
    figure.update_layout(**_LAYOUT, height=max(240, 28 * len(ordered) + 90),
                         xaxis=dict(title="Brier Index with 95% CI (higher is better)"), yaxis=dict(automargin=True))
    return figure


def history_lines(history: pd.DataFrame, names: dict[str, str]) -> go.Figure:
    """Each forecaster's overall Brier Index night by night."""
    figure = go.Figure()
    for model, rows in history.sort_values("as_of").groupby("model", sort=True):
        figure.add_trace(go.Scatter(x=rows["as_of"].str[:10].tolist(), y=rows["overall"].round(2).tolist(),
                                    mode="lines", name=plain(names.get(model, model))))
    figure.update_layout(**_LAYOUT, height=380, xaxis=dict(title="night"),
                         yaxis=dict(title="Brier Index (higher is better)"))
    return figure


def question_history(history: pd.DataFrame, kind: str) -> go.Figure:
    """A market's probability, or a series' value, over time (what the source reported)."""
    market = kind == "binary"
    figure = go.Figure(go.Scatter(
        x=history["observed_at"].str[:10].tolist(), y=history["value"].round(6).tolist(),
        mode="lines", line=dict(shape="hv" if market else "linear"),
        hovertemplate="%{x}<br>%{y}<extra></extra>",
    ))
    figure.update_layout(**_LAYOUT, height=300, xaxis=dict(title="observed"),
                         yaxis=dict(title="probability of YES" if market else "value",
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
    figure.update_layout(**_LAYOUT, height=360, xaxis=dict(title="mean forecast in bin", range=[0, 1]),
                         yaxis=dict(title="observed frequency (95% CI)", range=[0, 1]))
    return figure


def arena_curves(curves: pd.DataFrame) -> go.Figure:
    """A model's Arena P/L summed over its cohorts, one line per view (bets, simulated portfolio)."""
    figure = go.Figure()
    for view, rows in curves.groupby("view", sort=True):
        total = rows.groupby("at", sort=True)["pnl"].sum()
        figure.add_trace(go.Scatter(x=[a[:10] for a in total.index], y=total.round(2).tolist(), mode="lines",
                                    name=plain(view), hovertemplate="%{x}<br>P/L $%{y:,.2f}<extra></extra>"))
    figure.update_layout(**_LAYOUT, height=320, xaxis=dict(title="mark (00:00 UTC)"),
                         yaxis=dict(title="profit / loss, $ (not a proper score)"))
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
    figure.update_layout(**_LAYOUT, height=320, shapes=shapes, xaxis=dict(title="resolution month", type="category"),
                         yaxis=dict(title="accuracy", range=[0, 1]))
    return figure
