"""Plotly figures as plain dicts. Pure: frames in, figure JSON out.

Figures use ``template="none"`` and leave colours to the site's CSS and script (which re-colours
them on the light/dark switch), so each page carries only its data.

Each figure is the dict ``plotly.graph_objects.Figure(...).to_plotly_json()`` gives for it, built
directly: Plotly's validating objects cost ~25 ms a figure, and a ForecastBench-scale site draws
hundreds. So the dicts follow Plotly's normal form: an axis title is ``{"text": ...}``, a property
set to None or an empty list of shapes is left out, every trace names its ``type``, and
``template="none"`` is ``NONE_TEMPLATE`` (``tests/site/test_site_charts.py`` checks that Plotly turns
each figure into itself).

Plotly reads its text (trace names, category ticks, hover text, titles) as pseudo-HTML: ``<a
href>``, ``<b>``, ``<br>``, ``<span style>`` become SVG elements. Every string that came from a
submitter or a source goes through ``plain`` first, so it is drawn as the characters it holds.
"""

from __future__ import annotations

import json

import pandas as pd

from ..leaderboard.explore import day_number

NONE_TEMPLATE = {"data": {"scatter": [{"type": "scatter"}]}}  # Plotly's template "none", as its JSON holds it
_LAYOUT = dict(
    template=NONE_TEMPLATE,
    margin=dict(l=60, r=20, t=30, b=50),
    hovermode="closest",
    legend=dict(orientation="h", y=-0.15, yanchor="top"),
    autosize=True,
)

# Line colours that stay apart on the light and the dark background. A forecaster's line is solid
# (then long-dashed, dash-dotted once the colours run out), a baseline's dotted (then dashed, long
# dash-dotted): 36 distinct (colour, dash) pairs of each before one repeats.
PALETTE = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#17becf", "#bcbd22", "#d62728")
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
    return plain(text if len(text) <= TICK_CHARS else text[: TICK_CHARS - 1].rstrip() + "…")


def _always_half(axis: str) -> tuple[dict, dict]:
    """The Always 0.5 reference line (Brier Index 50) across a chart, and its label."""
    across = "y" if axis == "x" else "x"
    line = {
        "type": "line",
        "xref": "x" if axis == "x" else "paper",
        "yref": "y" if axis == "y" else "paper",
        f"{axis}0": ALWAYS_HALF,
        f"{axis}1": ALWAYS_HALF,
        f"{across}0": 0,
        f"{across}1": 1,
        "line": REFERENCE_LINE,
        "layer": "below",
    }
    label = {
        "text": "Always 0.5",
        "showarrow": False,
        "font": {"size": 10, "color": REFERENCE_LINE["color"]},
        "xref": line["xref"],
        "yref": line["yref"],
        "x": ALWAYS_HALF if axis == "x" else 0,
        "y": 1 if axis == "x" else ALWAYS_HALF,
        "xanchor": "left",
        "yanchor": "bottom",
    }
    return line, label


Figure = dict  # {"data": [trace, ...], "layout": {...}}: what Plotly's Figure.to_plotly_json() returns


def _figure(traces: list[dict], **layout) -> Figure:
    """A figure of ``traces`` with the shared layout and ``layout``'s own keys (an empty list of
    shapes or annotations left out, as Plotly leaves it out)."""
    own = {k: v for k, v in layout.items() if not (isinstance(v, list) and not v)}
    return {"data": traces, "layout": {**_LAYOUT, **own}}


def _scatter(**props) -> dict:
    """A scatter trace: its properties as given (None ones left out)."""
    return _trace("scatter", props)


def _trace(kind: str, props: dict) -> dict:
    return {"type": kind, **{k: v for k, v in props.items() if v is not None}}


def _axis(title: str | None = None, **props) -> dict:
    """An axis: always ``automargin``, its title as Plotly holds it, None properties left out."""
    out = {"automargin": True, **{k: v for k, v in props.items() if v is not None}}
    if title is not None:
        out["title"] = {"text": title}
    return out


def to_json(figure: Figure) -> str:
    """Compact, deterministic JSON (sorted keys) of a figure."""
    return json.dumps(figure, sort_keys=True, separators=(",", ":"), default=_plain)


def _plain(value):
    return value.tolist() if hasattr(value, "tolist") else str(value)


def plain(text) -> str:
    """``text`` for a Plotly text field, shown as written: ``&``, ``<`` and ``>`` as the entities
    Plotly turns back into characters after it has looked for tags."""
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def board_dots(board: pd.DataFrame, score: str = "overall", top: int = 20) -> Figure:
    """The top ranked forecasters' Brier Index with its 95% CI, best at the top (higher is better)."""
    ranked = board[board[score].notna()].sort_values(["rank", score], ascending=[True, False], na_position="last")
    ordered = ranked.head(top).iloc[::-1]
    dots = _scatter(
        x=ordered[score].round(2).tolist(),
        y=[_tick(n) for n in ordered["name"]],
        mode="markers",
        marker=dict(size=9),
        text=[plain(n) for n in ordered["name"]],
        error_x=dict(
            type="data",
            symmetric=False,
            thickness=1.5,
            width=0,
            array=(ordered[f"{score}_ci_high"] - ordered[score]).round(2).fillna(0).tolist(),
            arrayminus=(ordered[score] - ordered[f"{score}_ci_low"]).round(2).fillna(0).tolist(),
        ),
        customdata=(ordered["n_dataset"] + ordered["n_market"]).tolist(),
        hovertemplate="%{text}<br>Brier Index %{x:.1f}<br>N %{customdata}<extra></extra>",
    )
    line, label = _always_half("x")
    return _figure(
        [dots],
        height=max(240, 28 * len(ordered) + 90),
        shapes=[line],
        annotations=[label],
        xaxis=_axis("Brier Index, 95% CI (higher is better)"),
        yaxis=_axis(),
    )


def history_lines(history: pd.DataFrame, names: dict[str, str], baselines: set[str] | frozenset = frozenset(), score: str = "overall") -> Figure:
    """Each forecaster's Brier Index (the ``score`` column: ``overall``, ``dataset`` or ``market``)
    night by night, best last night first (the legend's order), every line its own colour and dash
    (``line_styles``), and the Always 0.5 line."""
    history = history.sort_values("as_of")
    last = history.groupby("model", sort=True)[score].last()
    order = sorted(last.index, key=lambda m: (m in baselines, -last[m] if pd.notna(last[m]) else float("inf"), m))
    styles = line_styles(order, set(baselines))
    by_model = dict(tuple(history.groupby("model", sort=True)))
    traces = [
        _scatter(
            x=by_model[model]["as_of"].str[:10].tolist(),
            y=by_model[model][score].round(2).tolist(),
            mode="lines",
            name=plain(names.get(model, model)),
            line=dict(styles[model]),
        )
        for model in order
    ]
    line, label = _always_half("y")
    return _figure(traces, height=420, shapes=[line], annotations=[label], xaxis=_axis(), yaxis=_axis("Brier Index (higher is better)"))


def question_history(history: pd.DataFrame, kind: str) -> Figure:
    """A market's probability, or a series' value, over time (what the source reported)."""
    market = kind == "binary"
    trace = _scatter(
        x=history["observed_at"].str[:10].tolist(),
        y=history["value"].round(6).tolist(),
        mode="lines",
        line=dict(shape="hv" if market else "linear"),
        hovertemplate="%{x}<br>%{y}<extra></extra>",
    )
    return _figure(
        [trace], height=300, xaxis=_axis("observed"), yaxis=_axis("probability of YES" if market else "value", range=[0, 1] if market else None)
    )


def reliability(table: pd.DataFrame) -> Figure:
    """Reliability diagram: observed frequency (with its 95% CI) against the mean forecast per bin."""
    traces = [
        _scatter(x=[0, 1], y=[0, 1], mode="lines", name="perfect calibration", line=dict(dash="dot", width=1), hoverinfo="skip"),
        _scatter(
            x=table["forecast"].round(4).tolist(),
            y=table["observed"].round(4).tolist(),
            mode="markers+lines",
            name="observed",
            marker=dict(size=(4 + 14 * (table["n"] / max(int(table["n"].max()), 1)) ** 0.5).round(1).tolist()),
            error_y=dict(
                type="data",
                symmetric=False,
                thickness=1.2,
                width=0,
                array=(table["ci_high"] - table["observed"]).round(4).tolist(),
                arrayminus=(table["observed"] - table["ci_low"]).round(4).tolist(),
            ),
            customdata=table["n"].tolist(),
            hovertemplate="mean forecast %{x:.3f}<br>observed %{y:.3f}<br>N %{customdata}<extra></extra>",
        ),
    ]
    return _figure(traces, height=360, xaxis=_axis("mean forecast in bin", range=[0, 1]), yaxis=_axis("observed frequency (95% CI)", range=[0, 1]))


def arena_curves(curves: pd.DataFrame) -> Figure:
    """A model's Arena P/L summed over its cohorts, one line per view (bets, simulated portfolio). A cohort
    whose positions are all settled is flat from then on, and ``pnl_curves`` ends its curve there (with one
    point at ``as_of``): its last P/L counts at every later mark, not only at ``as_of``."""
    traces = []
    for view, rows in curves.groupby("view", sort=True):
        total = rows.pivot(index="at", columns="cohort", values="pnl").sort_index().ffill().sum(axis=1)
        traces.append(
            _scatter(
                x=[a[:10] for a in total.index],
                y=total.round(2).tolist(),
                mode="lines",
                name=plain(view),
                hovertemplate="%{x}<br>P/L $%{y:,.2f}<extra></extra>",
            )
        )
    return _figure(traces, height=320, xaxis=_axis("mark (00:00 UTC)"), yaxis=_axis("profit / loss, $ (not a proper score)"))


def oracle_months(months: pd.DataFrame) -> Figure:
    """Daily Oracle view over time: accuracy by resolution month, its 5-month moving average, and
    the knowledge cutoff as a vertical line."""
    x = months["month"].astype(str).tolist()
    traces = [
        _trace(
            "bar",
            dict(
                x=x,
                y=months["accuracy"].round(4).tolist(),
                name="accuracy",
                opacity=0.45,
                customdata=months["n"].tolist(),
                hovertemplate="%{x}<br>accuracy %{y:.3f}<br>N %{customdata}<extra></extra>",
            ),
        ),
        _scatter(
            x=x, y=[None if pd.isna(v) else v for v in months["accuracy_ma5"].round(4).tolist()], mode="lines", name="5-month moving average"
        ),  # a month without its average is a gap (null), never NaN: not JSON
    ]
    cutoff = str(months["knowledge_cutoff"].iloc[0]) if len(months) else ""
    shapes = (
        [dict(type="line", xref="x", yref="paper", x0=cutoff[:7], x1=cutoff[:7], y0=0, y1=1, line=dict(dash="dash", width=1))]
        if cutoff[:7] in x
        else []
    )
    return _figure(traces, height=320, shapes=shapes, xaxis=_axis("resolution month", type="category"), yaxis=_axis("accuracy", range=[0, 1]))


def oracle_accuracy_by_month(months: pd.DataFrame, kind: str) -> Figure:
    """Daily Oracle's Figure 3 view for one kind of question (``tf`` or ``mc``): each model's accuracy
    by resolution month (N in the hover), and its knowledge cutoff as a dashed line of its colour.
    ``months``: ``oracle.temporal.temporal_view`` by (model, kind)."""
    rows = months[months["kind"] == kind].sort_values(["model", "month"], kind="mergesort")
    x = sorted(set(rows["month"].astype(str)))
    models = sorted(set(rows["model"].astype(str)))
    styles = line_styles(models, set())
    traces, shapes = [], []
    for model in models:
        own = rows[rows["model"] == model]
        style = styles[model]
        traces.append(
            _scatter(
                x=own["month"].astype(str).tolist(),
                y=own["accuracy"].round(4).tolist(),
                customdata=own["n"].tolist(),
                mode="lines+markers",
                name=plain(model),
                line=dict(color=style["color"], dash=style["dash"], width=2),
                hovertemplate=plain(model) + "<br>%{x}<br>accuracy %{y:.3f}<br>N %{customdata}<extra></extra>",
            )
        )
        cutoff = str(own["knowledge_cutoff"].iloc[0])[:7]
        if cutoff in x:
            shapes.append(
                dict(type="line", xref="x", yref="paper", x0=cutoff, x1=cutoff, y0=0, y1=1, line=dict(color=style["color"], dash="dash", width=1))
            )
    return _figure(
        traces,
        height=340,
        shapes=shapes,
        xaxis=_axis("resolution month", type="category", categoryorder="array", categoryarray=x),
        yaxis=_axis("accuracy", range=[0, 1]),
    )


def explore_scores(points: pd.DataFrame, trend, parity: list, names: dict[str, str] | None = None) -> Figure:
    """The Explore chart (``leaderboard.explore``): each model's Brier Index (95% CI) at its release date,
    the state of the art (the running best) as a line, its linear trend dashed out to the latest
    projected parity date, and each human group's score as a level line with its projected date and
    bootstrap interval. ``parity``: ``explore.Parity`` rows."""
    x = points["release_date"].tolist()
    hover = [
        plain(n) + "<br>released " + plain(r) + (", knowledge cutoff " + plain(c) if c else "")
        for n, r, c in zip(points["name"], points["release_date"], points["knowledge_cutoff"], strict=True)
    ]
    traces = [
        _scatter(
            x=x,
            y=points["score"].round(2).tolist(),
            mode="markers",
            name="model",
            text=hover,
            marker=dict(size=8, symbol=["circle-open" if p else "circle" for p in points["provisional"]]),
            error_y=dict(
                type="data",
                symmetric=False,
                thickness=1,
                width=0,
                array=(points["ci_high"] - points["score"]).round(2).fillna(0).tolist(),
                arrayminus=(points["score"] - points["ci_low"]).round(2).fillna(0).tolist(),
            ),
            hovertemplate="%{text}<br>Brier Index %{y:.1f}<extra></extra>",
        )
    ]
    frontier = points[points["frontier"]]
    if len(frontier):
        traces.append(
            _scatter(
                x=frontier["release_date"].tolist(),
                y=frontier["score"].round(2).tolist(),
                mode="lines+markers",
                name="state of the art",
                line=dict(shape="hv", width=2),
                marker=dict(size=10, symbol="diamond"),
                hoverinfo="skip",
            )
        )
    ends = [d for p in parity for d in (p.date, p.high) if p.status == "projected" and d]
    if trend is not None and len(frontier):
        x0, x1 = str(frontier["release_date"].iloc[0]), max([str(points["release_date"].max()), *ends])
        traces.append(
            _scatter(
                x=[x0, x1],
                y=[round(trend.at(day_number(d)), 2) for d in (x0, x1)],
                mode="lines",
                name=f"trend of the state of the art ({trend.per_year():+.1f} a year)",
                line=dict(dash="dash", width=1.5),
                hoverinfo="skip",
            )
        )
    span = [min([*x, *[p.low for p in parity if p.low]], default=""), max([*x, *ends], default="")]
    for p in parity:
        label = plain(p.name)
        traces.append(
            _scatter(
                x=span,
                y=[round(p.score, 2)] * 2,
                mode="lines",
                name=label,
                line=dict(dash="dot", width=1.5),
                hovertemplate=label + " %{y:.1f}<extra></extra>",
            )
        )
        if p.status == "projected":
            high = p.high or p.date
            traces.append(
                _scatter(
                    x=[p.low or p.date, p.date, high],
                    y=[round(p.score, 2)] * 3,
                    mode="lines+markers",
                    name=f"{label}: parity {p.date}",
                    line=dict(width=4),
                    marker=dict(size=[0, 12, 0], symbol="star"),
                    hovertemplate=f"{label}: projected parity {p.date} (95% {p.low or '?'} to {p.high or 'no upper bound'})<extra></extra>",
                )
            )
    return _figure(traces, height=440, xaxis=_axis("release date", type="date"), yaxis=_axis("Brier Index, 95% CI (higher is better)"))


COHORT_LABELS = 4  # more cohorts than this: their start lines are not labelled (the labels would overlap)


DAY_MS = 86_400_000
PERCENT_SWITCH = "prescient-dollars-percent"  # an updatemenu the site's script (prescient.js) carries out


def _daily_x(days: list[str]) -> dict:
    """A line's dates (YYYY-MM-DD): as its first day and a one-day step (Plotly's ``x0`` and ``dx``, in
    milliseconds on a date axis) when they are consecutive days, as a night after night of marks is;
    else as the list itself."""
    stamps = pd.to_datetime(pd.Series(days), format="%Y-%m-%d")
    if len(days) > 1 and (stamps.diff().iloc[1:] == pd.Timedelta(days=1)).all():
        return {"x0": days[0], "dx": DAY_MS}
    return {"x": days}


def arena_portfolios(curves: pd.DataFrame, names: dict[str, str] | None = None) -> Figure:
    """Every bettor's portfolio value over time on one chart (``arena.portfolio.CURVE`` rows of the
    ``bets`` view), one line per (model, cohort); a range selector, a $/% switch, and each cohort's
    start as a dotted vertical line (labelled up to ``COHORT_LABELS`` cohorts). One legend entry per
    model: clicking it hides all its cohorts.

    The lines are the total value in whole dollars, each with its cohort's starting balance as its
    ``meta``; the switch's buttons (``PERCENT_SWITCH``, Plotly's ``skip`` method) leave the switching
    to the site's script, which draws each line as its return in percent, ``(value / start − 1) ·
    100`` to a tenth, and back: the page carries every value once (Plotly's own ``restyle`` buttons
    would carry every line twice more)."""
    names = names or {}
    own = curves[curves["view"] == "bets"].sort_values(["model", "cohort", "at"], kind="mergesort")
    groups = list(own.groupby(["model", "cohort"], sort=True))
    styles = line_styles(sorted({m for (m, _), _ in groups}), set())
    traces = []
    shown: set[str] = set()
    for (model, cohort), rows in groups:
        label = plain(names.get(model, model))
        start = float(rows["total_value"].iloc[0] - rows["pnl"].iloc[0])
        traces.append(
            _scatter(
                **_daily_x([a[:10] for a in rows["at"]]),
                y=rows["total_value"].round(0).tolist(),
                meta=start,
                mode="lines",
                legendgroup=model,
                name=label if model not in shown else None,
                showlegend=model not in shown,
                line=dict(styles[model], width=2),
                hovertemplate=f"{label} · cohort {plain(cohort)}<br>%{{x}}<br>%{{y:,.1f}}<extra></extra>",
            )
        )
        shown.add(model)
    cohorts = sorted(set(own["cohort"].astype(str)))
    shapes = [
        dict(type="line", xref="x", yref="paper", x0=c, x1=c, y0=0, y1=1, line=dict(dash="dot", width=1, color="#8c8c8c"), layer="below")
        for c in cohorts
    ]
    marks = (
        [
            dict(
                text=f"cohort {plain(c)}",
                showarrow=False,
                xref="x",
                yref="paper",
                x=c,
                y=1,
                xanchor="left",
                yanchor="bottom",
                font=dict(size=10, color="#8c8c8c"),
            )
            for c in cohorts
        ]
        if len(cohorts) <= COHORT_LABELS
        else []
    )
    switch = dict(
        type="buttons",
        direction="right",
        x=0,
        xanchor="left",
        y=1.18,
        yanchor="bottom",
        showactive=True,
        name=PERCENT_SWITCH,
        buttons=[dict(label="$", method="skip", args=[]), dict(label="%", method="skip", args=[])],
    )
    ranges = dict(
        buttons=[
            dict(count=1, label="1m", step="month", stepmode="backward"),
            dict(count=3, label="3m", step="month", stepmode="backward"),
            dict(step="all", label="all"),
        ],
        x=1,
        xanchor="right",
        y=1.18,
        yanchor="bottom",
    )
    return _figure(
        traces,
        height=460,
        shapes=shapes,
        annotations=marks,
        updatemenus=[switch],
        margin=dict(l=60, r=20, t=70, b=50),
        xaxis=_axis("mark (00:00 UTC)", type="date", rangeselector=ranges),
        yaxis=_axis("$ value or % return, as switched (not a proper score)"),
    )
