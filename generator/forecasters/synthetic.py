"""Synthetic forecasters of known skill over the ``sim`` world, for the demo and self-checks.

Each one sees a known amount of information, so the order of their expected Brier scores is known
in advance. Over a large simulated sample (3,000 markets, 300 series, 20 rounds; see
``tests/forecasters/test_synthetic.py``) the expected headline Brier scores are about:

1. ``calibrated`` (0.126): the exact probability given the world up to 7 days past the due date;
2. ``overconfident`` (0.144): the calibrated forecast with its log-odds stretched 3×;
3. ``market-copier`` (0.169): the crowd at the freeze time on markets, the drift-only prior on series;
4. ``noisy`` (0.209): the calibrated forecast plus N(0, 2.5²) noise on the log-odds;
5. ``always-0.5`` (0.250): 0.5 everywhere (the hub's own baseline, not a synthetic model).

Besides them, ``demo.superforecasters`` stands for a human comparison group (kind ``human``, like
ForecastBench's superforecaster median): the exact probability given the world up to
``HUMAN_LOOKAHEAD_DAYS`` past the due date, so it scores above every synthetic model. The synthetic
models carry release dates (``RELEASED``) in the order of their skill, so the demo's Explore page shows
the Brier Index against release date, the state of the art's trend and when it reaches the human group.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import datetime

import numpy as np
import pandas as pd

from ..models import DEFAULT_OWN, ModelMeta
from ..sources.sim import SimWorld, expit, logit, phi
from ..timeutil import parse_ts
from ..vocabulary import MARKET
from .baselines import forecast_frame
from .synthetic_views import OVERCONFIDENT_CUTOFF

LOOKAHEAD_DAYS = 7
HUMAN_LOOKAHEAD_DAYS = 14  # the simulated human group sees further ahead than any synthetic model
HUMAN_GROUP = "demo.superforecasters"
STRETCH, NOISE_SD = 3.0, 2.5
TEAM_LOGIN = "demo-teams"  # the synthetic models' maintainer: the demo's pull requests are theirs
# the demo's hub keeps the default own prefix
ORDER = ("demo.calibrated", "demo.overconfident", "demo.market-copier", "demo.noisy", f"{DEFAULT_OWN}.always-0.5")


def informed(world: SimWorld, row, due: datetime, lookahead: int = LOOKAHEAD_DAYS) -> float:
    """P(YES) given the world up to due + ``lookahead`` days (the calibrated forecaster's view: 7)."""
    if row.kind == MARKET:
        market = world.market(row.question_id)
        return market.fair_price(market.day(due) + lookahead)
    series = world.one_series(row.question_id)
    horizon = (parse_ts(row.resolution_date) - due).days
    seen = min(lookahead, horizon - 1)
    start = (due - series.start).days
    gain = series.log_values[start + seen] - series.log_values[start]
    rest = horizon - seen
    return phi((gain + series.drift * rest) / (series.vol * math.sqrt(rest)))


def prior(world: SimWorld, row, due: datetime) -> float:
    """The crowd's freeze value on markets; the drift-only probability on series."""
    if row.kind == MARKET:
        return float(row.freeze_value)
    series = world.one_series(row.question_id)
    horizon = (parse_ts(row.resolution_date) - due).days
    return phi(series.drift * horizon / (series.vol * math.sqrt(horizon)))


def _clip(p: float) -> float:
    return round(min(max(p, 0.001), 0.999), 4)


def _run(world: SimWorld, questions: pd.DataFrame, rule: Callable) -> pd.DataFrame:
    due = parse_ts(questions["due"].iloc[0])
    rng = np.random.default_rng([world.seed, int(due.strftime("%Y%m%d"))])
    probs = [_clip(rule(world, row, due, rng)) for row in questions.itertuples(index=False)]
    return forecast_frame(questions, probs)


RULES: dict[str, Callable] = {
    "demo.calibrated": lambda w, r, d, rng: informed(w, r, d),
    "demo.market-copier": lambda w, r, d, rng: prior(w, r, d),
    "demo.overconfident": lambda w, r, d, rng: expit(STRETCH * logit(informed(w, r, d))),
    "demo.noisy": lambda w, r, d, rng: expit(logit(informed(w, r, d)) + rng.normal(0.0, NOISE_SD)),
    HUMAN_GROUP: lambda w, r, d, rng: informed(w, r, d, HUMAN_LOOKAHEAD_DAYS),
}

DESCRIPTIONS = {
    "demo.calibrated": (
        "Calibrated",
        (
            "Exact probability given the simulated world up to 7 days past the due date. "
            "Bets where its forecast differs from the market price; answers the demo "
            "oracle set with calibrated probabilities."
        ),
    ),
    "demo.market-copier": ("Market copier", "Copies the crowd at the freeze time; drift-only prior on series."),
    "demo.overconfident": (
        "Overconfident",
        (
            "The calibrated forecast with log-odds stretched 3x. On the demo "
            "oracle set it knows less and less after its knowledge cutoff, and "
            "says so just as confidently."
        ),
    ),
    "demo.noisy": (
        "Noisy",
        (
            "The calibrated forecast plus Gaussian noise (sd 2.5) on the log-odds. Bets where its "
            "forecast differs from the market price; noisy on the demo oracle set too."
        ),
    ),
    HUMAN_GROUP: (
        "Sim superforecasters",
        (
            "A stand-in for a human comparison group such as ForecastBench's superforecaster median: the exact "
            "probability given the simulated world up to 14 days past the due date. Not a person: the demo's "
            "human group, so Explore can show when the state of the art is projected to reach it."
        ),
    ),
}


CUTOFFS = {"demo.overconfident": OVERCONFIDENT_CUTOFF}  # only the oracle view uses it
# release dates in the order of skill (the overconfident model's after its knowledge cutoff): Explore's
# state of the art rises through all four; the human group has none (groups are never plotted by date)
RELEASED = {"demo.noisy": "2024-11-15", "demo.market-copier": "2025-04-01", "demo.overconfident": "2025-09-15", "demo.calibrated": "2025-12-01"}


def synthetic_models() -> dict[str, ModelMeta]:
    return {
        mid: ModelMeta(
            id=mid,
            name=name,
            organization="Prescient demo",
            kind="human" if mid == HUMAN_GROUP else "synthetic",
            method=method,
            saw_crowd=mid == "demo.market-copier",
            maintainers=(TEAM_LOGIN,),
            knowledge_cutoff=CUTOFFS.get(mid, ""),
            release_date=RELEASED.get(mid, ""),
        )
        for mid, (name, method) in DESCRIPTIONS.items()
    }


def synthetic_forecasts(world: SimWorld, questions: pd.DataFrame) -> dict[str, pd.DataFrame]:
    return {mid: _run(world, questions, rule) for mid, rule in RULES.items()}
