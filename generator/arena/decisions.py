"""Each Arena decision with its reasoning: every row of every bet file, beside what became of it. Pure.

A decision is one bet-file row (a buy or a sale, ``schemas.BETS``) as the forecaster wrote it, with
its reasoning; what the replay made of a buy (``portfolio.POSITIONS``: the price it was bought at,
the implied P(YES) of its size, its status and what it paid) is joined by (round, model,
question_id, placed_at). A sale's own row has no position (it closes part of an earlier buy).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

DECISIONS = [
    "cohort",
    "round",
    "model",
    "question_id",
    "placed_at",
    "action",
    "side",
    "amount",
    "price",
    "f_yes",
    "status",
    "outcome",
    "payout",
    "reasoning",
]
_KEY = ["round", "model", "question_id", "placed_at"]


def decision_rows(positions: pd.DataFrame, bets: dict[str, dict[str, pd.DataFrame]]) -> pd.DataFrame:
    """``DECISIONS`` of every bet file row; ``bets``: round label (``YYYY-MM-DD``) -> model -> its bet
    file (``readers.load_bets``); ``positions``: the replayed positions (their ``bets`` view is used).
    Rows by model, then placed_at, question_id."""
    frames = [
        frame.assign(round=label, model=model) for label, by_model in sorted(bets.items()) for model, frame in sorted(by_model.items()) if len(frame)
    ]
    if not frames:
        return pd.DataFrame(columns=DECISIONS)
    rows = pd.concat(frames, ignore_index=True)
    rows["action"] = rows["action"].fillna("buy").replace("", "buy")
    own = positions[positions["view"] == "bets"] if len(positions) else pd.DataFrame(columns=[*_KEY, "view"])
    bought = own[own["status"] != "sold"] if len(own) else own
    first = bought.groupby(_KEY, sort=False)[["price", "f_yes", "status", "outcome"]].first() if len(bought) else None
    paid = own.groupby(_KEY, sort=False)["payout"].sum(min_count=1) if len(own) else None
    cohorts = dict(zip(own["round"], own["cohort"], strict=True)) if len(own) else {}
    out = rows.assign(cohort=rows["round"].map(cohorts).fillna(""))
    if first is not None:
        out = out.join(first, on=_KEY).join(paid, on=_KEY)
        sells = (out["action"] == "sell").to_numpy()
        out.loc[sells, ["price", "f_yes", "status", "outcome", "payout"]] = np.nan
    for column in ("price", "f_yes", "outcome", "payout", "status"):
        if column not in out:
            out[column] = np.nan
    out["reasoning"] = out["reasoning"].fillna("").astype(str)
    out["status"] = out["status"].fillna("").astype(str)
    return out.sort_values(["model", "placed_at", "question_id"], kind="mergesort").reset_index(drop=True)[DECISIONS]
