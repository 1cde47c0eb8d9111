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

from ..sources.base import MARKET
from . import bets as b
from .portfolio import priced


def simulated_positions(round_label: str, model: str, forecasts: pd.DataFrame, questions: pd.DataFrame,
                        due_ts: str) -> pd.DataFrame:
    """The $100 bets a probability forecast implies against the round's freeze values."""
    markets = questions.loc[(questions["kind"] == MARKET) & questions["freeze_value"].notna(), ["question_id", "freeze_value"]]
    given = forecasts.loc[forecasts["probability"].notna(), ["question_id", "probability"]].drop_duplicates("question_id")
    both = given.merge(markets.drop_duplicates("question_id"), on="question_id").sort_values("question_id", kind="mergesort")
    both = both[both["probability"] != both["freeze_value"]].reset_index(drop=True)
    frame = pd.DataFrame({
        "question_id": both["question_id"], "placed_at": due_ts,
        "side": np.where(both["probability"] > both["freeze_value"], b.YES, b.NO),
        "amount": b.SIM_STAKE, "round": round_label, "model": model, "view": "simulated",
        "start": b.SIM_STAKE * len(both), "cash_before": np.nan, "confidence": np.nan,
        "f_yes": both["probability"].astype(float), "yes_price": both["freeze_value"].astype(float)})
    return priced(frame)
