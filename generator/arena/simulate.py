"""The simulated portfolio of a probability forecast (Prophet Arena's "averaged return" idea). Pure.

Stake rule: on every market question of the round with a freeze value q (the market price at the
due time) and a forecast p, stake a fixed ``SIM_STAKE`` ($100) at the due time on the side the
forecast favours over the market: YES at price q when p > q, NO at price 1 − q when p < q, no bet
when p = q. The cohort starts with $100 × the number of bets, so its return % is the average
return per dollar staked. f_YES is the forecast p itself; dataset questions are not bet on.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..vocabulary import MARKET
from . import bets as b
from .portfolio import priced


def simulated_positions(round_label: str, by_model: dict[str, pd.DataFrame], questions: pd.DataFrame, due_ts: str) -> pd.DataFrame:
    """The $100 bets each model's probability forecasts imply against the round's freeze values:
    models in ``by_model``'s order, each model's bets by question id."""
    markets = questions.loc[(questions["kind"] == MARKET) & questions["freeze_value"].notna(), ["question_id", "freeze_value"]]
    given = _given(by_model).drop_duplicates(["model", "question_id"])
    both = given.merge(markets.drop_duplicates("question_id"), on="question_id")
    both = both[both["probability"] != both["freeze_value"]]
    both = both.sort_values(["_order", "question_id"], kind="mergesort").reset_index(drop=True)
    frame = pd.DataFrame(
        {
            "question_id": both["question_id"],
            "placed_at": due_ts,
            "side": np.where(both["probability"] > both["freeze_value"], b.YES, b.NO),
            "amount": b.SIM_STAKE,
            "cohort": round_label,
            "round": round_label,
            "model": both["model"],
            "view": "simulated",
            "start": b.SIM_STAKE * both.groupby("model")["model"].transform("size"),
            "cash_before": np.nan,
            "confidence": np.nan,
            "f_yes": both["probability"].astype(float),
            "yes_price": both["freeze_value"].astype(float),
        }
    )
    return priced(frame)


def _given(by_model: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Every model's forecasts with a probability (question_id, probability, model and the model's
    place in ``by_model``, ``_order``), models in that order: one frame built from the columns'
    arrays, not a frame per model (a ForecastBench round has a hundred)."""
    frames = list(by_model.values())
    probability = np.concatenate([f["probability"].to_numpy(dtype=float) for f in frames]) if frames else np.zeros(0)
    sizes = [len(f) for f in frames]
    given = pd.DataFrame(
        {
            "question_id": pd.concat([f["question_id"] for f in frames], ignore_index=True) if frames else pd.Series([], dtype=object),
            "probability": probability,
            "model": np.repeat(np.array(list(by_model), dtype=object), sizes),
            "_order": np.repeat(np.arange(len(frames)), sizes),
        }
    )
    return given[given["probability"] == given["probability"]].reset_index(drop=True)  # NaN (no probability) left out
