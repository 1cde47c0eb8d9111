"""The demo's secondary views: Arena bets and a Daily Oracle-style question set, made by the
synthetic forecasters. Pure: frames in, frames out (``pipeline/demo.py`` validates and writes them).

**Bets** (``BETTORS``): when a round opens, each bettor compares its own forecast p with the
round's freeze value q (the market price at the freeze time) on every market question and bets at
the freeze time on the side its forecast favours, YES when p > q and NO when p < q, staking
``BET_SCALE`` × |p − q| × $10,000, never more than 25% of the cash left (the bets are replayed in
(placed_at, question_id) order as the validator does), in whole cents. Edges under ``MIN_EDGE`` and
stakes under ``MIN_STAKE`` are skipped. No randomness: the bets follow from the forecast files.

**Oracle** (``ORACLE_SET``): ``ORACLE_PER_MONTH`` questions a month resolving over ``ORACLE_MONTHS``
(60% true/false, the rest 4-option multiple choice), generated from the sim seed. Each forecaster
gets a private signal per question: the right answer with probability k ("knowledge"), otherwise an
option drawn uniformly. Then:

- ``demo.calibrated``: k = 0.7 every month; forecasts the signal's posterior (k + (1 − k)/K on the
  signal, (1 − k)/K on each other option), so it is calibrated;
- ``demo.noisy``: the same kind of signal, its log-probabilities plus N(0, 2.5²) noise per option;
- ``demo.overconfident``: k = 0.9 up to its knowledge cutoff (``OVERCONFIDENT_CUTOFF``, in its
  model metadata), then k falls by a factor ``KNOW_DECAY`` every month after it, while it keeps
  putting ``SHARP`` on its signal: its accuracy declines after the cutoff.
Seeds: the questions from (sim seed, 'oracle'); each model's signals from (sim seed, crc32(model)).
"""

from __future__ import annotations

import zlib

import numpy as np
import pandas as pd

from ..arena.bets import NO, START_CASH, YES, max_bet, over_limit
from ..vocabulary import MARKET

BETTORS = ("demo.calibrated", "demo.noisy")
BET_SCALE = 0.2  # stake = BET_SCALE × edge × START_CASH (capped at 25% of the cash left)
MIN_EDGE = 0.03
MIN_STAKE = 1.0
BET_COLUMNS = ["question_id", "placed_at", "side", "amount", "reasoning"]

ORACLE_SET = "demo-oracle"
ORACLE_MONTHS = tuple(f"{y}-{m:02d}" for y in (2024, 2025) for m in range(1, 13))
ORACLE_PER_MONTH = 10
OVERCONFIDENT_CUTOFF = "2025-06-30"
KNOW_DECAY, SHARP, ORACLE_NOISE_SD = 0.75, 0.95, 2.5
CATEGORIES = ("Economics & Business", "Politics & Governance", "Science & Technology", "Sports", "World")
TEAMS = ("Harbor", "Valley", "Ridge", "North")
IMPORT_COLUMNS = ["id", "question", "choice_a", "choice_b", "choice_c", "choice_d", "answer", "resolution_date", "category", "url"]
PROBS = ["prob_a", "prob_b", "prob_c", "prob_d"]


# -- Arena bets -----------------------------------------------------------------------------------


def synthetic_bets(questions: pd.DataFrame, forecasts: pd.DataFrame) -> pd.DataFrame:
    """One bettor's bets on one round (``schemas.BETS`` columns; empty when it sees no edge)."""
    is_market = (questions["kind"] == MARKET) & questions["freeze_value"].notna()
    markets = questions.loc[is_market, ["question_id", "freeze_value", "freeze_time"]].drop_duplicates("question_id")
    given = forecasts.loc[forecasts["probability"].notna(), ["question_id", "probability"]]
    both = markets.merge(given.drop_duplicates("question_id"), on="question_id")
    both = both.sort_values(["freeze_time", "question_id"], kind="mergesort")  # the validator's replay order
    rows, cash = [], START_CASH
    columns = ["question_id", "freeze_value", "freeze_time", "probability"]
    for qid, q, placed, p in both[columns].itertuples(index=False):
        edge = float(p) - float(q)
        if abs(edge) < MIN_EDGE or not 0.0 < float(q) < 1.0:
            continue
        amount = _cents(min(BET_SCALE * abs(edge) * START_CASH, max_bet(cash)))
        while amount > 0 and over_limit(amount, cash):  # rounding may not push a bet over the limit
            amount = _cents(amount - 0.01)
        if amount < MIN_STAKE:
            continue
        rows.append((qid, placed, YES if edge > 0 else NO, amount, f"forecast {float(p):.3f} vs price {float(q):.3f}"))
        cash -= amount
    return pd.DataFrame(rows, columns=BET_COLUMNS)


def _cents(amount: float) -> float:
    """Down to whole cents, as the value the written text reads back as."""
    return float(f"{np.floor(amount * 100.0 + 1e-9) / 100.0:.2f}")


# -- Daily Oracle-style questions -----------------------------------------------------------------


def oracle_question_file(seed: int) -> pd.DataFrame:
    """The demo oracle set in the import format of ``prescient import oracle`` (CSV columns)."""
    rng = np.random.default_rng([seed, zlib.crc32(b"oracle")])
    rows: list[list[str]] = []
    for month in ORACLE_MONTHS:
        for j in range(ORACLE_PER_MONTH):
            category = CATEGORIES[int(rng.integers(len(CATEGORIES)))]
            day = int(rng.integers(1, 29))
            date = f"{month}-{day:02d}"
            qid = f"demo-{month}-{j:02d}"
            if rng.random() < 0.6:
                text = f"(Synthetic) Will demo indicator {len(rows) + 1} ({category}) be higher on {date} than a month earlier?"
                answer = "True" if rng.random() < 0.5 else "False"
                rows.append([qid, text, "", "", "", "", answer, date, category, ""])
            else:
                text = f"(Synthetic) Which demo team will lead the {category} table on {date}?"
                answer = "ABCD"[int(rng.integers(4))]
                rows.append([qid, text, *TEAMS, answer, date, category, ""])
    return pd.DataFrame(rows, columns=IMPORT_COLUMNS)


def _months_after(month: str, cutoff: str) -> int:
    return (int(month[:4]) * 12 + int(month[5:7])) - (int(cutoff[:4]) * 12 + int(cutoff[5:7]))


def _calibrated(k: float, n: int, signal: int) -> np.ndarray:
    probs = np.full(n, (1.0 - k) / n)
    probs[signal] += k
    return probs


def _sharp(k: float, n: int, signal: int) -> np.ndarray:
    probs = np.full(n, (1.0 - SHARP) / (n - 1))
    probs[signal] = SHARP
    return probs


def _noisy(k: float, n: int, signal: int, rng: np.random.Generator) -> np.ndarray:
    logits = np.log(_calibrated(k, n, signal)) + rng.normal(0.0, ORACLE_NOISE_SD, n)
    return np.exp(logits - logits.max())


ORACLE_RULES = {
    "demo.calibrated": (lambda month: 0.7, lambda k, n, s, rng: _calibrated(k, n, s)),
    "demo.noisy": (lambda month: 0.7, _noisy),
    "demo.overconfident": (
        lambda month: 0.9 * KNOW_DECAY ** max(_months_after(month, OVERCONFIDENT_CUTOFF), 0),
        lambda k, n, s, rng: _sharp(k, n, s),
    ),
}


def oracle_forecasts(questions: pd.DataFrame, seed: int) -> dict[str, pd.DataFrame]:
    """Every synthetic forecaster's oracle forecast file (``schemas.ORACLE_FORECASTS`` columns) for
    ``questions`` (the set's current versions, ``schemas.ORACLE_QUESTIONS`` columns)."""
    ordered = questions.sort_values("id", kind="mergesort")
    return {model: _forecast_file(ordered, model, know, rule, seed) for model, (know, rule) in ORACLE_RULES.items()}


def _forecast_file(questions: pd.DataFrame, model: str, know, rule, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng([seed, zlib.crc32(model.encode())])
    rows = []
    for qid, kind, answer, date in questions[["id", "kind", "answer", "resolution_date"]].itertuples(index=False):
        n = 2 if kind == "tf" else 4
        k = know(date[:7])
        truth = "ABCD".index(answer)
        signal = truth if rng.random() < k else int(rng.integers(n))
        probs = _rounded(rule(k, n, signal, rng))
        rows.append([qid, *probs, *([np.nan] * (4 - n)), ""])
    return pd.DataFrame(rows, columns=["question_id", *PROBS, "reasoning"])


def _rounded(probs: np.ndarray) -> list[float]:
    """Probabilities summing to 1, each at least 0.001, in 4 decimals (the top one takes the remainder)."""
    p = np.clip(probs / probs.sum(), 0.001, None)
    p = np.round(p / p.sum(), 4)
    top = int(np.argmax(p))
    p[top] = round(1.0 - (p.sum() - p[top]), 4)
    return [float(x) for x in p]
