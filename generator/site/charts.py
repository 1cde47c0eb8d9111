"""Plotly figures as plain dicts. Pure: frames in, figure JSON out.

Figures use ``template="none"`` and leave colours to the site's CSS and script (which re-colours
them on the light/dark switch), so each page carries only its data.
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


def board_dots(board: pd.DataFrame) -> go.Figure:
    """Headline Brier per forecaster, best at the top (lower is better)."""
    ordered = board.sort_values("rank", ascending=False)
    figure = go.Figure(go.Scatter(
        x=ordered["brier"].round(4).tolist(), y=ordered["name"].tolist(), mode="markers",
        marker=dict(size=10), customdata=ordered["n"].tolist(),
        hovertemplate="%{y}<br>Brier %{x:.4f}<br>N %{customdata}<extra></extra>",
    ))
    figure.update_layout(**_LAYOUT, height=max(240, 40 * len(board) + 80),
                         xaxis=dict(title="Brier score (lower is better)"), yaxis=dict(automargin=True))
    return figure


def history_lines(history: pd.DataFrame, names: dict[str, str]) -> go.Figure:
    """Each forecaster's headline Brier night by night."""
    figure = go.Figure()
    for model, rows in history.sort_values("as_of").groupby("model", sort=True):
        figure.add_trace(go.Scatter(x=rows["as_of"].str[:10].tolist(), y=rows["brier"].round(4).tolist(),
                                    mode="lines", name=names.get(model, model)))
    figure.update_layout(**_LAYOUT, height=380, xaxis=dict(title="night"),
                         yaxis=dict(title="Brier score (lower is better)"))
    return figure
