"""The crowd's value of each market a round asked, and its Brier: the market difficulty of
ForecastBench's tournament board (``fb_board`` with ``market_difficulty="crowd"``).

The crowd value is the market's probability at the round's due time, i.e. the latest observation
observed at or before it (``CROWD_AT_DUE``), else its freeze value (``CROWD_AT_FREEZE``: a
ForecastBench import knows nothing later). Pure: frames in, frames and arrays out.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..vocabulary import MARKET

CROWD_AT_DUE, CROWD_AT_FREEZE = "due", "freeze"


def crowd_from_rounds(round_questions: pd.DataFrame, observations: pd.DataFrame | None = None) -> pd.DataFrame:
    """(round, question_id, probability, at) of every market of the round question sets: the crowd value
    at the due time, i.e. the latest observation (``schemas.OBSERVATIONS``) observed at or before the
    due time (``at`` = "due"), else the freeze value (``at`` = "freeze"; a ForecastBench import knows
    nothing later). Markets with neither are absent."""
    markets = round_questions[round_questions["kind"] == MARKET]
    out = pd.DataFrame(
        {
            "round": markets["due"].str[:10].to_numpy(),
            "question_id": markets["question_id"].to_numpy(),
            "probability": markets["freeze_value"].astype(float).to_numpy(),
            "at": CROWD_AT_FREEZE,
        }
    )
    if observations is not None and len(observations) and len(out):
        at_due = _value_at(observations, markets["question_id"].to_numpy(), markets["due"].to_numpy())
        known = ~np.isnan(at_due)
        out.loc[known, "probability"], out.loc[known, "at"] = at_due[known], CROWD_AT_DUE
    return out.dropna(subset=["probability"]).drop_duplicates(["round", "question_id"]).reset_index(drop=True)


def _value_at(obs: pd.DataFrame, question_ids: np.ndarray, times: np.ndarray) -> np.ndarray:
    """Per (question id, time): the value of the latest observation observed at or before the time
    (the latest recorded, for a corrected one), NaN when none."""
    seen = obs[obs["value"].notna()]
    wanted = pd.DataFrame({"question_id": question_ids, "t": times, "i": np.arange(len(question_ids))})
    hits = wanted.merge(seen[["question_id", "observed_at", "recorded_at", "value"]], on="question_id", how="inner")
    hits = hits[hits["observed_at"] <= hits["t"]]
    last = hits.sort_values(["i", "observed_at", "recorded_at"], kind="mergesort").drop_duplicates("i", keep="last")
    out = np.full(len(question_ids), np.nan)
    out[last["i"].to_numpy(dtype=np.int64)] = last["value"].to_numpy(dtype=float)
    return out


def crowd_brier(units: pd.DataFrame, crowd: pd.DataFrame | None) -> np.ndarray:
    """Per unit: NaN for dataset units, the crowd's Brier for markets (FB's tournament rule); NaN too
    for a market without a crowd value (``fb_board`` gives it its estimated difficulty)."""
    market = (units["kind"] == MARKET).to_numpy()
    if crowd is None or crowd.empty:
        return np.full(len(units), np.nan)
    lookup = crowd.drop_duplicates(["round", "question_id"]).set_index(["round", "question_id"])["probability"]
    p = lookup.reindex(pd.MultiIndex.from_frame(units[["round", "question_id"]])).to_numpy(dtype=float)
    return np.where(market, (p - units["outcome"].to_numpy(dtype=float)) ** 2, np.nan)


def crowd_counts(units: pd.DataFrame, crowd: pd.DataFrame | None, b_fixed: np.ndarray) -> dict[str, int]:
    """How many market units took the crowd value at the due time, the freeze value, or (none known)
    their estimated difficulty."""
    market = (units["kind"] == MARKET).to_numpy()
    known = market & np.isfinite(b_fixed)
    at = pd.Series(CROWD_AT_FREEZE, index=range(len(units)))
    if crowd is not None and "at" in crowd and len(crowd):
        lookup = crowd.drop_duplicates(["round", "question_id"]).set_index(["round", "question_id"])["at"]
        at = lookup.reindex(pd.MultiIndex.from_frame(units[["round", "question_id"]])).fillna(CROWD_AT_FREEZE).reset_index(drop=True)
    due = known & (at.to_numpy() == CROWD_AT_DUE)
    return {"at_due": int(due.sum()), "at_freeze": int((known & ~due).sum()), "estimated": int((market & ~known).sum())}
