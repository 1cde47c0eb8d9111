"""Per-forecast scores for one round. Pure.

Every resolved unit of the round (a market, or a dataset question × resolution date) is scored
for every forecaster that submitted a file. A unit the forecaster skipped is imputed at the
configured value (0.5, as ForecastBench does since 2025-09) and flagged ``imputed``.
Void and unresolved units are not scored.
"""

from __future__ import annotations

import pandas as pd

from ..schemas import SCORES

_UNIT = ["question_id", "resolution_date"]


def brier(probability, outcome):
    """(p − o)²: 0 is perfect, 0.25 is a coin flip, 1 is certain and wrong."""
    return (probability - outcome) ** 2


def resolved_units(questions: pd.DataFrame, resolutions: pd.DataFrame) -> pd.DataFrame:
    done = resolutions[resolutions["status"] == "resolved"]
    units = questions[[*_UNIT, "source", "kind", "category"]].merge(done, on=_UNIT, how="inner")
    return units[[*_UNIT, "source", "kind", "category", "outcome", "resolved_at"]]


def score_round(round_label: str, units: pd.DataFrame, forecasts: dict[str, pd.DataFrame],
                impute_value: float) -> pd.DataFrame:
    """One row per (model, resolved unit) of the round due on ``round_label``, in the SCORES schema."""
    if not forecasts or units.empty:
        return pd.DataFrame(columns=list(SCORES.names))
    given = pd.concat([f[[*_UNIT, "probability"]].assign(model=m) for m, f in forecasts.items()], ignore_index=True)
    grid = units.merge(pd.DataFrame({"model": sorted(forecasts)}), how="cross")
    scored = grid.merge(given.drop_duplicates(["model", *_UNIT]), on=["model", *_UNIT], how="left")
    scored["imputed"] = scored["probability"].isna().astype("int64")
    scored["probability"] = scored["probability"].fillna(impute_value).astype(float)
    scored["brier"] = brier(scored["probability"], scored["outcome"].astype(float))
    return scored.assign(round=round_label)[list(SCORES.names)]
