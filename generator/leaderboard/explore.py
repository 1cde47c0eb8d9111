"""The Explore view: a board's Brier Index against each model's release date, the state of the art over
time, its linear trend, and the projected date the trend reaches each human group. Pure.

ForecastBench plots its Brier Index against model release date and projects when LLMs reach the
superforecasters; this is that view on any board, with its method stated (Methodology page,
"Explore"):

- **Points**: every model on the board with a release date (``YYYY-MM-DD``) and a finite headline
  score, except baselines and human groups (they have no release date to stand at); a model
  without one is listed in ``left_out`` with the reason.
- **State of the art** (the frontier): walking the ranked models (provisional ones are plotted but
  never on the frontier) by release date, a model is on it when it scores higher than every model
  released before it or on the same day (on one day only that day's best).
- **Trend**: ordinary least squares of the frontier's score on release date (days); its residual
  standard error ``s`` on n − 2 degrees of freedom. Needs at least ``MIN_FRONTIER`` points.
- **Parity**: the date ``x*`` where the trend line reaches a human group's score, ``(H − a) / b``. Its 95%
  interval is ForecastBench's (``bootstrap_parity``, computed by ``fb_board`` from the board's own bootstrap
  replicates and kept in its ``attrs[PARITY_ATTR]``): in each replicate, the state of the art is found again
  from that replicate's scores, its least-squares line fitted and taken to that replicate's score of the
  group; the replicates whose line rises (at least ``MIN_FRONTIER`` points) and reaches the group after the
  board's own state of the art was last released give parity dates, and the interval is their 2.5% and
  97.5% quantiles. A frontier already at or above ``H`` has reached it: the release date of the first model
  there.

The interval carries the resampling of questions (each point's own uncertainty and which models make the
frontier); it still assumes progress keeps to a straight line, and it is conditional on the replicates that
project a date at all (how many of them did is reported with it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import date, timedelta

import numpy as np
import pandas as pd

from .fixed_effects import brier_index

MIN_FRONTIER = 3  # points the trend needs: n − 2 ≥ 1 degree of freedom for its standard error
LEVEL = 0.95
LEFT_OUT_KINDS = ("baseline", "human")  # never plotted against a release date
PARITY_ATTR = "parity_bootstrap"  # a board's attrs: ``bootstrap_parity`` of its ranking score (``fb_board``)
EPOCH = date(1970, 1, 1)
POINT_COLUMNS = ["model", "name", "kind", "release_date", "knowledge_cutoff", "score", "ci_low", "ci_high", "provisional", "frontier"]


@dataclass(frozen=True)
class Trend:
    """``score = intercept + slope · days`` (days since 1970-01-01) over ``n`` frontier points; ``s``
    the residual standard error, ``x_mean`` and ``sxx`` the mean and spread of the days."""

    n: int
    slope: float
    intercept: float
    s: float
    x_mean: float
    sxx: float

    @property
    def slope_se(self) -> float:
        return self.s / math.sqrt(self.sxx)

    def at(self, days: float) -> float:
        return self.intercept + self.slope * days

    def per_year(self) -> float:
        return 365.25 * self.slope


@dataclass(frozen=True)
class Parity:
    """When the state of the art reaches one human group: ``status`` is ``reached`` (``date`` the
    first model at or above it), ``projected`` (``date`` with ForecastBench's bootstrap interval
    ``low``..``high`` from ``kept`` of the board's ``replicates``; both empty, with ``reason``, when no
    replicate gives one) or ``none`` (``reason`` says why)."""

    model: str
    name: str
    score: float
    ci_low: float
    ci_high: float
    status: str
    date: str = ""
    low: str = ""
    high: str = ""
    reason: str = ""
    kept: int = 0
    replicates: int = 0
    note: str = ""  # a projected date on or before the state of the art's last release: said so


@dataclass(frozen=True)
class Explore:
    points: pd.DataFrame  # POINT_COLUMNS, by release date then model
    left_out: list[dict] = field(default_factory=list)  # {"model", "name", "reason"}
    trend: Trend | None = None
    parity: list[Parity] = field(default_factory=list)
    score: str = "overall"


def day_number(text: str) -> int | None:
    """Days since 1970-01-01 of a ``YYYY-MM-DD`` date (the first ten characters), None if not one."""
    try:
        return (date.fromisoformat(str(text)[:10]) - EPOCH).days
    except ValueError:
        return None


def day_text(days: float) -> str:
    """``YYYY-MM-DD`` of a (rounded) day number; empty past the calendar's range."""
    try:
        return (EPOCH + timedelta(days=int(round(days)))).isoformat()
    except (OverflowError, ValueError):
        return ""


def explore(board: pd.DataFrame, models: dict, score: str = "overall") -> Explore:
    """The Explore view of one board (``fb_board.COLUMNS``) ranked by ``score``; ``models``: model id ->
    ``ModelMeta`` (release date, knowledge cutoff)."""
    rows, left_out = [], []
    for r in board.to_dict("records"):
        meta = models.get(r["model"])
        kind = meta.kind if meta else str(r.get("kind", ""))
        if kind in LEFT_OUT_KINDS or not np.isfinite(_num(r.get(score))):
            continue
        released = meta.release_date if meta else ""
        if day_number(released) is None:
            left_out.append(
                {
                    "model": r["model"],
                    "name": r["name"],
                    "reason": "no release date" if not released else f"release date {released!r} is not YYYY-MM-DD",
                }
            )
            continue
        rows.append(
            {
                "model": r["model"],
                "name": r["name"],
                "kind": kind,
                "release_date": released[:10],
                "knowledge_cutoff": (meta.knowledge_cutoff if meta else "")[:10],
                "score": _num(r[score]),
                "ci_low": _num(r.get(f"{score}_ci_low")),
                "ci_high": _num(r.get(f"{score}_ci_high")),
                "provisional": bool(r.get("provisional", 0)),
            }
        )
    points = pd.DataFrame(rows, columns=POINT_COLUMNS[:-1]).sort_values(["release_date", "model"], kind="mergesort")
    points = points.assign(frontier=frontier_mask(points)).reset_index(drop=True)[POINT_COLUMNS]
    on = points[points["frontier"]]
    trend = fit_trend(on["release_date"].map(day_number).to_numpy(dtype=float), on["score"].to_numpy(dtype=float))
    humans = board[board["kind"] == "human"] if "kind" in board else board.iloc[:0]
    kept = board.attrs.get(PARITY_ATTR) or {}
    intervals = kept.get("by_model", {}) if kept.get("score") == score else {}
    parity = [
        parity_of(h, points, trend, score, intervals.get(h["model"]), int(kept.get("replicates", 0)))
        for h in humans.to_dict("records")
        if np.isfinite(_num(h.get(score)))
    ]
    return Explore(points, sorted(left_out, key=lambda x: x["model"]), trend, parity, score)


def _num(value) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return float("nan")


def frontier_mask(points: pd.DataFrame) -> np.ndarray:
    """Per point (sorted by release date, then model id): on the state-of-the-art frontier, the running best
    by release date among the non-provisional points (a day's points taken together: only its best, first
    by model id on a tie, can be on it). ``frontier_rows`` of the one row of scores."""
    out = np.zeros(len(points), bool)
    ranked = np.flatnonzero(~points["provisional"].astype(bool).to_numpy())
    days = points["release_date"].to_numpy(dtype=object)[ranked]
    out[ranked] = frontier_rows(days, points["score"].to_numpy(dtype=float)[ranked][None, :])[0]
    return out


def fit_trend(days: np.ndarray, scores: np.ndarray) -> Trend | None:
    """The least-squares line of ``scores`` on ``days``; None with fewer than ``MIN_FRONTIER`` points
    or no spread in the dates."""
    n = len(days)
    if n < MIN_FRONTIER:
        return None
    x_mean = float(days.mean())
    sxx = float(((days - x_mean) ** 2).sum())
    if sxx <= 0:
        return None
    slope = float(((days - x_mean) * (scores - scores.mean())).sum() / sxx)
    intercept = float(scores.mean() - slope * x_mean)
    residual = scores - (intercept + slope * days)
    s = math.sqrt(float((residual**2).sum()) / (n - 2))
    return Trend(n, slope, intercept, s, x_mean, sxx)


def frontier_rows(days: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """The state of the art in many rows of scores at once: ``days`` (k,) sorted, ``scores`` (rows, k) with the
    models in (release date, model id) order; True where a model is on that row's state of the art (the
    day's best, first on a tie, above every earlier day's). NaN scores are never on it."""
    values = np.where(np.isnan(scores), -np.inf, scores)
    out = np.zeros(values.shape, bool)
    best = np.full(values.shape[0], -np.inf)
    rows = np.arange(values.shape[0])
    starts = np.flatnonzero(np.r_[True, days[1:] != days[:-1]]) if len(days) else np.zeros(0, int)
    stops = [*starts[1:], len(days)] if len(days) else []
    for start, stop in zip(starts, stops, strict=True):
        top = start + values[:, start:stop].argmax(axis=1)
        top_score = values[rows, top]
        hit = top_score > best
        out[rows[hit], top[hit]] = True
        best = np.maximum(best, top_score)
    return out


def bootstrap_parity(names, kinds, released, provisional, point: np.ndarray, replicates: np.ndarray, level: float = LEVEL) -> dict[str, dict]:
    """ForecastBench's interval for each human group's parity date, from a board's bootstrap replicates.

    ``names``, ``kinds``, ``released`` (``YYYY-MM-DD`` or empty), ``provisional``: per model; ``point`` (models,)
    the board's Brier Index and ``replicates`` (n, models) the same score in each bootstrap replicate. The
    models on the trend are the ones ``explore`` plots and does not hold provisional. In each replicate,
    the state of the art is found again from its scores (``frontier_rows``), fitted by least squares on
    release day, and taken to the replicate's own score of the group; a replicate gives a parity day when
    its line has at least ``MIN_FRONTIER`` points and rises, and the day falls after the last release on
    the board's own state of the art. Returns, per human group with a finite score, ``low`` and
    ``high`` (``YYYY-MM-DD``: the ``(1 ∓ level) / 2`` quantiles of those days, empty when none) and
    ``kept`` (how many replicates gave one)."""
    day = [day_number(r) if r else None for r in released]
    humans = [i for i, k in enumerate(kinds) if k == "human" and np.isfinite(point[i])]
    if not humans or replicates.size == 0:
        return {}
    on_trend = sorted(
        (i for i in range(len(names)) if kinds[i] not in LEFT_OUT_KINDS and day[i] is not None and not provisional[i] and np.isfinite(point[i])),
        key=lambda i: (day[i], names[i]),
    )
    x = np.array([day[i] for i in on_trend], dtype=float)
    scores = np.vstack([point[on_trend][None, :], replicates[:, on_trend]])  # row 0: the board itself
    on = frontier_rows(x, scores)
    w = on.astype(float)
    n = w.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        x_mean = (w * x).sum(axis=1) / n
        y = np.where(on, scores, 0.0)
        y_mean = y.sum(axis=1) / n
        dx = w * (x[None, :] - x_mean[:, None])
        sxx = (dx * dx).sum(axis=1)
        slope = (dx * (y - y_mean[:, None])).sum(axis=1) / sxx
        intercept = y_mean - slope * x_mean
    fitted = (n >= MIN_FRONTIER) & (sxx > 0) & (slope > 0)
    last = x[on[0]].max() if on[0].any() else -np.inf
    out = {}
    for h in humans:
        with np.errstate(invalid="ignore", divide="ignore"):
            days = (replicates[:, h] - intercept[1:]) / slope[1:]
        days = days[fitted[1:] & np.isfinite(days) & (days > last)]
        low, high = np.quantile(days, [(1 - level) / 2, (1 + level) / 2]) if days.size else (np.nan, np.nan)
        out[names[h]] = {
            "low": day_text(low) if np.isfinite(low) else "",
            "high": day_text(high) if np.isfinite(high) else "",
            "kept": int(days.size),
        }
    return out


def board_parity(names, models: dict, provisional, point_bi: np.ndarray, boot, score: str) -> dict:
    """What ``fb_board`` keeps in a board's attrs for the Explore page: ``{PARITY_ATTR: ...}`` with
    ``bootstrap_parity`` of its ranking ``score`` (``point_bi``: the Brier Index per score, in the order
    dataset, market, overall; ``boot``: the board's ``BootstrapResult``), the score and the replicate
    count; nothing for a board without replicates."""
    if boot is None:
        return {}
    meta = [models.get(m) for m in names]
    point = point_bi[("dataset", "market", "overall").index(score)]
    by_model = bootstrap_parity(
        list(names),
        [x.kind if x else "" for x in meta],
        [x.release_date if x else "" for x in meta],
        np.asarray(provisional, bool),
        point,
        brier_index(boot.scores(score)),
    )
    return {PARITY_ATTR: {"score": score, "replicates": int(boot.overall.shape[0]), "by_model": by_model}}


def parity_of(human: dict, points: pd.DataFrame, trend: Trend | None, score: str, interval: dict | None = None, replicates: int = 0) -> Parity:
    """``Parity`` of one human group's board row with the frontier of ``points``; ``interval``: the group's
    ``bootstrap_parity`` of ``replicates`` bootstrap replicates (None: the board has none)."""
    target = _num(human[score])
    base = dict(
        model=human["model"], name=human["name"], score=target, ci_low=_num(human.get(f"{score}_ci_low")), ci_high=_num(human.get(f"{score}_ci_high"))
    )
    on = points[points["frontier"]]
    there = on[on["score"] >= target]
    if len(there):
        return Parity(**base, status="reached", date=str(there["release_date"].iloc[0]))
    if trend is None:
        return Parity(
            **base, status="none", reason=f"the state of the art has {len(on)} model(s) with a release date; a trend needs at least {MIN_FRONTIER}"
        )
    if trend.slope <= 0:
        return Parity(**base, status="none", reason="the state of the art's trend is not rising")
    x_star = (target - trend.intercept) / trend.slope
    if not day_text(x_star):
        return Parity(**base, status="none", reason="the trend reaches it only past the calendar's last date")
    last = str(on["release_date"].max())
    note = (
        f"the trend line crosses it on or before the state of the art's last release ({last}), though no forecaster "
        "on it reaches it; the interval counts only the replicates that project a later date"
        if day_text(x_star) <= last
        else ""
    )
    if interval is None or not interval.get("high"):
        reason = (
            "the board has no bootstrap replicates to draw an interval from"
            if interval is None
            else f"none of the board's {replicates:,} bootstrap replicates has a rising trend that reaches it "
            "after the state of the art's last release"
        )
        return Parity(**base, status="projected", date=day_text(x_star), reason=reason, replicates=replicates, note=note)
    return Parity(
        **base,
        status="projected",
        date=day_text(x_star),
        low=interval["low"],
        high=interval["high"],
        kept=int(interval["kept"]),
        replicates=replicates,
        note=note,
    )
