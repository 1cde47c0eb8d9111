"""The legacy ForecastBench ``market_proxy`` policy for markets that have not resolved. Pure.

``[scoring] unresolved_markets`` in ``data/hub.toml`` chooses what happens to an open market of a
round whose due time has passed:

- ``ignore`` (default, current ForecastBench): it is not scored until it resolves;
- ``market_proxy`` (legacy ForecastBench): it is scored against the market's value of the day
  before ``as_of`` — the latest value known at ``as_of − 1 day`` — as a fractional outcome, and the
  score row is flagged ``proxy`` = 1. The value comes from the observation ledger (the latest row
  observed and recorded by then) or from a stated ``open`` resolution with a ``value`` (ForecastBench
  imports) recorded by then, whichever is later. A market with no such value stays unscored.

Resolved and void units are never touched, so the policy only adds rows; a proxy row turns into
an ordinary one the night its market resolves.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..timeutil import days, format_ts, parse_ts
from ..vocabulary import MARKET

IGNORE, MARKET_PROXY = "ignore", "market_proxy"
_PROXY = ["question_id", "value", "at"]


def day_before(as_of: str) -> str:
    return format_ts(parse_ts(as_of) - days(1))


def no_proxies() -> pd.DataFrame:
    return pd.DataFrame({"value": pd.Series(dtype=float), "at": pd.Series(dtype=str)}, index=pd.Index([], name="question_id", dtype=str))


def proxy_values(states: pd.DataFrame, stated: pd.DataFrame | None, before: str) -> pd.DataFrame:
    """Per question id (the index): the latest known market ``value`` and the time ``at`` it refers to.

    ``states``: ``resolve.market_states`` of the observations known at ``before``;
    ``stated``: every stated resolution (only ``open`` ones with a value, recorded by ``before``, count).
    """
    seen = states[states["value"].notna() & (states["observed_at"] <= before)]
    parts = [
        pd.DataFrame(
            {"question_id": seen.index.astype(str), "value": seen["value"].to_numpy(dtype=float), "at": seen["observed_at"].to_numpy(dtype=str)}
        )
    ]
    if stated is not None and "value" in stated.columns:
        said = stated[(stated["status"] == "open") & stated["value"].notna() & (stated["recorded_at"] <= before)]
        parts.insert(
            0,
            pd.DataFrame(
                {"question_id": said["question_id"].astype(str), "value": said["value"].astype(float), "at": said["recorded_at"].astype(str)}
            ),
        )
    both = pd.concat(parts, ignore_index=True)[_PROXY]
    if both.empty:
        return no_proxies()
    latest = both.sort_values(["question_id", "at"], kind="mergesort").drop_duplicates("question_id", keep="last")
    return latest.set_index("question_id")[["value", "at"]]


def apply_proxies(questions: pd.DataFrame, resolved: pd.DataFrame, proxies: pd.DataFrame, as_of: str) -> pd.DataFrame:
    """``resolved`` (from ``resolve_round``) with a ``proxy`` column; every open market of a round due
    before ``as_of`` that has a proxy value becomes ``resolved`` to that value with ``proxy`` = 1."""
    out = resolved.copy()
    out["proxy"] = np.nan
    if out.empty:
        return out
    facts = out[["question_id", "resolution_date"]].merge(
        questions[["question_id", "resolution_date", "kind", "due"]].drop_duplicates(["question_id", "resolution_date"]),
        on=["question_id", "resolution_date"],
        how="left",
    )
    value = out["question_id"].map(proxies["value"]).astype(float).to_numpy()
    hit = (
        (out["status"] == "open").to_numpy() & (facts["kind"] == MARKET).to_numpy() & (facts["due"].astype(str) < as_of).to_numpy() & ~np.isnan(value)
    )
    out.loc[hit, "status"] = "resolved"
    out.loc[hit, "outcome"] = value[hit]
    out.loc[hit, "resolved_at"] = out.loc[hit, "question_id"].map(proxies["at"]).to_numpy()
    out.loc[hit, "proxy"] = 1.0
    out["outcome"] = out["outcome"].astype(float)
    return out
