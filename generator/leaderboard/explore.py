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
- **Parity**: the date ``x*`` where the trend line reaches a human group's score, ``(H − a) / b``,
  with Fieller's 95% interval: every date ``x`` at which the trend's own 95% confidence band
  (``t · s · sqrt(1/n + (x − x̄)² / Sxx)``) still holds ``H``. It is bounded only when the slope
  differs from zero at that level (``b² > t² · se(b)²``); otherwise the projection has no upper
  bound and is reported as such. A frontier already at or above ``H`` has reached it: the release
  date of the first model there.

The interval is the uncertainty of the fitted line alone: it treats the frontier's points as
independent, exact and linear in time; each point's own bootstrap CI, the selection of the running
best (which biases the points upward), and any bend in progress are not in it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import date, timedelta

import numpy as np
import pandas as pd

MIN_FRONTIER = 3  # points the trend needs: n − 2 ≥ 1 degree of freedom for its standard error
LEVEL = 0.95
LEFT_OUT_KINDS = ("baseline", "human")  # never plotted against a release date
EPOCH = date(1970, 1, 1)
POINT_COLUMNS = ["model", "name", "kind", "release_date", "knowledge_cutoff", "score", "ci_low", "ci_high",
                 "provisional", "frontier"]


@dataclass(frozen=True)
class Trend:
    """``score = intercept + slope · days`` (days since 1970-01-01) over ``n`` frontier points; ``s``
    the residual standard error, ``x_mean`` and ``sxx`` the mean and spread of the days, ``t`` the
    two-sided ``LEVEL`` quantile of Student's t on n − 2 degrees of freedom."""

    n: int
    slope: float
    intercept: float
    s: float
    x_mean: float
    sxx: float
    t: float

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
    first model at or above it), ``projected`` (``date`` with its interval ``low``..``high``; ``high``
    empty when unbounded) or ``none`` (``reason`` says why)."""

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
            left_out.append({"model": r["model"], "name": r["name"],
                             "reason": "no release date" if not released else f"release date {released!r} is not YYYY-MM-DD"})
            continue
        rows.append({"model": r["model"], "name": r["name"], "kind": kind, "release_date": released[:10],
                     "knowledge_cutoff": (meta.knowledge_cutoff if meta else "")[:10], "score": _num(r[score]),
                     "ci_low": _num(r.get(f"{score}_ci_low")), "ci_high": _num(r.get(f"{score}_ci_high")),
                     "provisional": bool(r.get("provisional", 0))})
    points = pd.DataFrame(rows, columns=POINT_COLUMNS[:-1]).sort_values(["release_date", "model"], kind="mergesort")
    points = points.assign(frontier=frontier_mask(points)).reset_index(drop=True)[POINT_COLUMNS]
    on = points[points["frontier"]]
    trend = fit_trend(on["release_date"].map(day_number).to_numpy(dtype=float), on["score"].to_numpy(dtype=float))
    humans = board[board["kind"] == "human"] if "kind" in board else board.iloc[:0]
    parity = [parity_of(h, points, trend, score) for h in humans.to_dict("records") if np.isfinite(_num(h.get(score)))]
    return Explore(points, sorted(left_out, key=lambda x: x["model"]), trend, parity, score)


def _num(value) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return float("nan")


def frontier_mask(points: pd.DataFrame) -> np.ndarray:
    """Per point (sorted by release date): on the state-of-the-art frontier, the running best by release
    date among the non-provisional points (a day's points taken together: only its best, first by
    model id on a tie, can be on it)."""
    out = np.zeros(len(points), bool)
    best = -np.inf
    ranked = points[~points["provisional"].astype(bool)]
    for _, day in ranked.groupby("release_date", sort=True):
        top = day["score"].idxmax()  # the first of tied scores, in the points' (model id) order
        if day.loc[top, "score"] > best:
            out[points.index.get_loc(top)] = True
            best = day.loc[top, "score"]
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
    s = math.sqrt(float((residual ** 2).sum()) / (n - 2))
    from scipy.stats import t as student_t  # scipy.stats imports slowly: only when a trend is fitted

    return Trend(n, slope, intercept, s, x_mean, sxx, float(student_t.ppf((1 + LEVEL) / 2, n - 2)))


def fieller(trend: Trend, target: float) -> tuple[float, float, float]:
    """The day ``x*`` the trend reaches ``target`` and Fieller's ``LEVEL`` interval (low, high) for it; high
    is +inf (and low may be -inf) when the slope is not distinguishable from zero at that level."""
    b, t, s, n = trend.slope, trend.t, trend.s, trend.n
    y_mean = trend.at(trend.x_mean)
    d = y_mean - target
    x_star = trend.x_mean - d / b
    a_q = b * b - (t * s) ** 2 / trend.sxx  # coefficients of the quadratic in u = x - x_mean
    b_q = 2 * d * b
    c_q = d * d - (t * s) ** 2 / n
    if a_q <= 0:
        return x_star, -math.inf, math.inf
    root = math.sqrt(max(b_q * b_q - 4 * a_q * c_q, 0.0))
    u1, u2 = sorted(((-b_q - root) / (2 * a_q), (-b_q + root) / (2 * a_q)))
    return x_star, trend.x_mean + u1, trend.x_mean + u2


def parity_of(human: dict, points: pd.DataFrame, trend: Trend | None, score: str) -> Parity:
    """``Parity`` of one human group's board row with the frontier of ``points``."""
    target = _num(human[score])
    base = dict(model=human["model"], name=human["name"], score=target,
                ci_low=_num(human.get(f"{score}_ci_low")), ci_high=_num(human.get(f"{score}_ci_high")))
    on = points[points["frontier"]]
    there = on[on["score"] >= target]
    if len(there):
        return Parity(**base, status="reached", date=str(there["release_date"].iloc[0]))
    if trend is None:
        return Parity(**base, status="none", reason=f"the state of the art has {len(on)} model(s) with a release "
                                                    f"date; a trend needs at least {MIN_FRONTIER}")
    if trend.slope <= 0:
        return Parity(**base, status="none", reason="the state of the art's trend is not rising")
    x_star, low, high = fieller(trend, target)
    if not day_text(x_star):
        return Parity(**base, status="none", reason="the trend reaches it only past the calendar's last date")
    return Parity(**base, status="projected", date=day_text(x_star),
                  low=day_text(low) if math.isfinite(low) else "", high=day_text(high) if math.isfinite(high) else "",
                  reason="" if math.isfinite(high) else f"the slope is not distinguishable from zero at {LEVEL:.0%}, so the "
                                                        "interval has no upper bound")
