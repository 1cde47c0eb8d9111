"""Leaderboard views: which SCORES rows a board is computed on. Pure.

A view is named by a string:

- ``overall``: every row;
- ``market`` / ``dataset``: one kind of question;
- ``resolved-only``: rows scored against a final resolution. Rows scored against a market proxy
  (the ``market_proxy`` policy scores an open market against the previous day's value) are
  dropped: a row whose ``resolved_at`` is empty, or whose ``proxy`` column (when present) is 1;
- ``source:<name>``, ``category:<name>``: one source or one topic category;
- ``horizon:<days>``: dataset rows whose resolution date is ``<days>`` days after the round's due
  date (markets have no horizon and never enter a horizon view).

The board for a view is ``fb_board`` on ``view_rows(scores, view)``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..vocabulary import DATASET, MARKET, parse_view


def horizon_days(scores: pd.DataFrame) -> pd.Series:
    """Days from the round's due date to the resolution date; NA for markets (no horizon)."""
    days = (_each_date(scores["resolution_date"], lambda u: u) - _each_date(scores["round"], lambda u: u.astype(str).str[:10])).dt.days
    return days.where(scores["kind"] == DATASET).astype("Int64")


def _each_date(values: pd.Series, text) -> pd.Series:
    """``pd.to_datetime(text(values), errors="coerce")``, each distinct value converted once: a model's rows
    share a few rounds and dates (the site's model pages take a horizon per model, ~30,000 rows each at
    ForecastBench scale). The distinct values keep their order of first appearance (NaN among them), so
    pandas infers the same format from the same first value."""
    codes, uniques = pd.factorize(values, use_na_sentinel=False)
    dates = pd.to_datetime(text(pd.Series(uniques, dtype=values.dtype)), errors="coerce")
    return pd.Series(dates.to_numpy().take(codes), index=values.index)


def is_proxy(scores: pd.DataFrame) -> pd.Series:
    """Rows scored against something other than a final resolution (see the module docstring)."""
    empty = _blank(scores["resolved_at"])
    if "proxy" in scores:
        empty |= pd.to_numeric(scores["proxy"], errors="coerce").fillna(0).astype(int) == 1
    return empty


def _blank(values: pd.Series) -> pd.Series:
    """Cells missing or of blank text. An object column's distinct cells are looked at once each (a
    night's rows share a few times; stripping every row's text cost the resolved-only view more
    than its selection); other columns as their text."""
    if values.dtype != object:
        return values.isna() | (values.astype(str).str.strip() == "")
    codes, distinct = pd.factorize(values)  # missing cells (None, NaN): code -1
    blank = np.array([str(v).strip() == "" for v in distinct] + [True], dtype=bool)
    return pd.Series(blank[codes], index=values.index, name=values.name)


def view_mask(scores: pd.DataFrame, view: str) -> pd.Series:
    """Boolean row mask of ``view`` over ``scores``."""
    kind, arg = parse_view(view)
    if kind == "overall":
        return pd.Series(True, index=scores.index)
    if kind in ("market", "dataset"):
        return scores["kind"] == (MARKET if kind == "market" else DATASET)
    if kind == "resolved-only":
        return ~is_proxy(scores)
    if kind == "horizon":
        return (horizon_days(scores) == int(arg)).fillna(False).astype(bool)
    return scores[kind].fillna("").astype(str) == arg


def view_rows(scores: pd.DataFrame, view: str) -> pd.DataFrame:
    """The SCORES rows of ``view``, in their original order, with a fresh index."""
    return scores[view_mask(scores, view)].reset_index(drop=True)
