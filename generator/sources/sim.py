"""``sim``: a deterministic offline world of markets and series, the hub's embedded default.

Markets. Each market has a hidden score L that moves as a Gaussian random walk, one step a day,
from its open date to its close date; it resolves YES when L ends above 0. The fair price on day t
is P(L_close > 0 | L_t) = Φ(L_t / √(remaining variance)), a martingale, so the crowd is calibrated;
the published price adds a little logit noise (an imperfect market). A few markets are void.

Series. Each series is a geometric random walk with its own drift and volatility, published daily
with a one-day lag, from 400 days before the world's start.

Everything is a pure function of (seed, index, day), so fetching at any ``as_of`` in any order
gives the same answers, and synthetic forecasters can be given exactly known information.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property
from typing import Any

import numpy as np

from ..timeutil import day_start, days, format_date, parse_ts
from ..vocabulary import DATASET, MARKET
from .base import FetchContext, FetchResult, Observation, Question, payload_hash

CATEGORIES = ("politics", "economics", "science", "technology", "sports", "climate")
SERIES_CATEGORIES = ("economics", "finance", "energy")
HISTORY_DAYS = 400
RECENT_DAYS = 14


def phi(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def logit(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(p / (1 - p))


def expit(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


@dataclass(frozen=True)
class SimMarket:
    index: int
    open_time: datetime
    close_time: datetime
    category: str
    void: bool
    step_sd: float
    path: np.ndarray  # L on each day from open (day 0) to close (last)
    noise: np.ndarray  # logit noise of the published price, per day

    @property
    def id(self) -> str:
        return f"sim:m{self.index:04d}"

    @property
    def outcome(self) -> float:
        return 1.0 if self.path[-1] > 0 else 0.0

    def day(self, when: datetime) -> int:
        return min(max((when - self.open_time).days, 0), len(self.path) - 1)

    def fair_price(self, day: int) -> float:
        remaining = len(self.path) - 1 - day
        if remaining <= 0:
            return self.outcome
        return phi(self.path[day] / (self.step_sd * math.sqrt(remaining)))

    def price(self, day: int) -> float:
        p = self.fair_price(day)
        return round(min(max(expit(logit(p) + self.noise[day]), 0.01), 0.99), 4)


@dataclass(frozen=True)
class SimSeries:
    index: int
    start: datetime
    category: str
    drift: float
    vol: float
    log_values: np.ndarray  # one per day from start

    @property
    def id(self) -> str:
        return f"sim:s{self.index:03d}"

    def value(self, when: datetime) -> float:
        i = min(max((when - self.start).days, 0), len(self.log_values) - 1)
        return round(float(np.exp(self.log_values[i])), 4)


class SimWorld:
    """The whole simulated world for one seed."""

    def __init__(self, seed: int, start: datetime, n_markets: int, n_series: int, span_days: int):
        self.seed, self.start, self.span_days = seed, start, span_days
        self.n_markets, self.n_series = n_markets, n_series

    @cached_property
    def markets(self) -> tuple[SimMarket, ...]:
        return tuple(self._market(i) for i in range(self.n_markets))

    @cached_property
    def series(self) -> tuple[SimSeries, ...]:
        return tuple(self._series(i) for i in range(self.n_series))

    def _market(self, i: int) -> SimMarket:
        rng = np.random.default_rng([self.seed, 1, i])
        open_time = self.start + days(int(rng.integers(-60, self.span_days)))
        length = int(rng.integers(20, 240))
        spread = float(rng.uniform(1.0, 3.0))
        step_sd = spread / math.sqrt(length)
        start = float(rng.normal(0.0, spread * 0.6))
        path = start + np.concatenate([[0.0], np.cumsum(rng.normal(0.0, step_sd, length))])
        return SimMarket(
            i,
            open_time,
            open_time + days(length),
            CATEGORIES[int(rng.integers(len(CATEGORIES)))],
            bool(rng.random() < 0.04),
            step_sd,
            path,
            rng.normal(0.0, 0.12, length + 1),
        )

    def _series(self, i: int) -> SimSeries:
        rng = np.random.default_rng([self.seed, 2, i])
        start = self.start - days(HISTORY_DAYS)
        drift, vol = float(rng.normal(0.0, 0.0015)), float(rng.uniform(0.004, 0.02))
        n = HISTORY_DAYS + self.span_days + 4000
        steps = rng.normal(drift, vol, n)
        log_values = math.log(float(rng.uniform(20, 500))) + np.concatenate([[0.0], np.cumsum(steps)])
        return SimSeries(i, start, SERIES_CATEGORIES[i % len(SERIES_CATEGORIES)], drift, vol, log_values)

    def market(self, question_id: str) -> SimMarket:
        return self.markets[int(question_id.removeprefix("sim:m"))]

    def one_series(self, question_id: str) -> SimSeries:
        return self.series[int(question_id.removeprefix("sim:s"))]


def world_from_options(options: Mapping[str, Any]) -> SimWorld:
    """The world of ``[sources.sim]``'s options. Worlds are immutable and costly to draw: a caller
    that needs one many times (the demo's season) draws it once and hands it to ``SimSource``."""
    return SimWorld(
        int(options.get("seed", 1)),
        parse_ts(str(options.get("start", "2026-01-04T00:00:00Z"))),
        int(options.get("markets", 120)),
        int(options.get("series", 12)),
        int(options.get("span_days", 365)),
    )


class SimSource:
    """The Source adapter over a SimWorld. Needs no network."""

    name = "sim"
    needs_http = False

    def __init__(self, options: Mapping[str, Any], world: SimWorld | None = None):
        self.world = world_from_options(options) if world is None else world

    def fetch(self, ctx: FetchContext) -> FetchResult:
        """Every market open by ``as_of`` but those ``settled`` (a market's state after its close
        never changes, and its question never does: what the world would say of them is recorded),
        and every series."""
        result = FetchResult(source=self.name)
        for market in self.world.markets:
            if market.open_time <= ctx.as_of and market.id not in ctx.settled:
                result.questions.append(market_question(market))
                result.observations.append(market_observation(market, ctx.as_of))
        for series in self.world.series:
            result.questions.append(series_question(series))
            first = ctx.as_of - days(RECENT_DAYS) if series.id in ctx.tracked else series.start
            result.observations += series_observations(series, first, ctx.as_of)
        return result


def market_question(m: SimMarket) -> Question:
    return Question(
        id=m.id,
        source="sim",
        kind=MARKET,
        text=f"Will simulated event #{m.index} ({m.category}) happen by {format_date(m.close_time)}?",
        background="A simulated market from Prescient's offline world; its price follows a noisy random walk.",
        resolution_criteria="Resolves YES if the hidden score ends above zero on the close date; a few markets are void.",
        url="",
        category=m.category,
        open_time=m.open_time,
        close_time=m.close_time,
    )


def market_observation(m: SimMarket, as_of: datetime) -> Observation:
    if as_of < m.close_time:
        value, status, outcome, when = m.price(m.day(as_of)), "open", None, as_of
    elif m.void:
        value, status, outcome, when = m.price(len(m.path) - 2), "void", None, m.close_time
    else:
        value, status, outcome, when = m.outcome, "resolved", m.outcome, m.close_time
    payload = f"{m.id}|{when.isoformat()}|{value}|{status}|{outcome}"
    return Observation(m.id, when, value, status, outcome, payload_hash(payload))


def series_question(s: SimSeries) -> Question:
    return Question(
        id=s.id,
        source="sim",
        kind=DATASET,
        text=f"Will simulated series #{s.index} ({s.category}) be higher on the resolution date than on the forecast due date?",
        background="A simulated daily series (a geometric random walk), published with a one-day lag.",
        resolution_criteria="Compares the series value on each resolution date with its value on the due date.",
        url="",
        category=s.category,
    )


def series_observations(s: SimSeries, first: datetime, as_of: datetime) -> list[Observation]:
    last = day_start(as_of) - days(1)
    current = max(day_start(first), s.start)
    out = []
    while current <= last:
        value = s.value(current)
        out.append(Observation(s.id, current, value, "open", None, payload_hash(f"{s.id}|{current.date()}|{value}")))
        current += days(1)
    return out
