"""Turn a source's FetchResult into the ledger rows that are actually new. Pure.

- A question row is new when the id is unknown or its content differs from its latest version.
- A market observation is new when its (value, status, outcome) differs from the question's latest
  recorded state, so a quiet night adds no rows and a flip (resolved → open → resolved) adds one
  row per change.
- A series observation is new when the value for that date differs from the latest recorded value
  for the same date (a revision) or the date is new.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime

import numpy as np
import pandas as pd

from ..schemas import OBSERVATIONS, QUESTIONS
from ..sources.base import Observation, Question
from ..timeutil import format_ts
from ..vocabulary import MARKET
from .csvio import as_text, coerce

_STATE = ["value", "status", "outcome"]


def question_frame(questions: Iterable[Question], as_of: datetime) -> pd.DataFrame:
    rows = [{
        "id": q.id, "recorded_at": format_ts(as_of), "source": q.source, "kind": q.kind,
        "text": q.text, "background": q.background, "resolution_criteria": q.resolution_criteria,
        "url": q.url, "category": q.category,
        "open_time": format_ts(q.open_time) if q.open_time else "",
        "close_time": format_ts(q.close_time) if q.close_time else "",
    } for q in questions]
    return _typed(rows, QUESTIONS)


def observation_frame(observations: Iterable[Observation], as_of: datetime) -> pd.DataFrame:
    rows = [{
        "question_id": o.question_id, "observed_at": format_ts(o.observed_at),
        "recorded_at": format_ts(as_of), "value": o.value, "status": o.status,
        "outcome": o.outcome, "payload_sha256": o.payload_sha256,
    } for o in observations]
    return _typed(rows, OBSERVATIONS)


def _typed(rows: list[dict], table) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=list(table.names))
    return coerce(as_text(frame, table), table)


def new_questions(bank: pd.DataFrame, fetched: pd.DataFrame) -> pd.DataFrame:
    """Rows of ``fetched`` whose content is not already the latest version in ``bank``."""
    content = [c for c in QUESTIONS.names if c != "recorded_at"]
    latest = bank.sort_values("recorded_at", kind="mergesort").drop_duplicates("id", keep="last")
    fetched = fetched.drop_duplicates("id", keep="last")
    same = _matches(as_text(fetched, QUESTIONS), as_text(latest, QUESTIONS), content)
    return fetched[~same].reset_index(drop=True)


def new_observations(existing: pd.DataFrame, fetched: pd.DataFrame, kinds: Mapping[str, str]) -> pd.DataFrame:
    """Rows of ``fetched`` that change what the ledger says (see the module docstring)."""
    if fetched.empty:
        return fetched
    is_market = fetched["question_id"].map(lambda q: kinds.get(q) == MARKET).astype(bool)
    ordered = existing.sort_values(["observed_at", "recorded_at"], kind="mergesort")
    market_state = ordered.drop_duplicates("question_id", keep="last")
    same_dates = ordered.merge(fetched[["question_id", "observed_at"]].drop_duplicates(), on=["question_id", "observed_at"])
    series_state = same_dates.drop_duplicates(["question_id", "observed_at"], keep="last")
    fetched_text = as_text(fetched, OBSERVATIONS)
    same_market = _matches(fetched_text, as_text(market_state, OBSERVATIONS), ["question_id", *_STATE])
    same_series = _matches(fetched_text, as_text(series_state, OBSERVATIONS), ["question_id", "observed_at", *_STATE])
    keep = (is_market & ~same_market) | (~is_market & ~same_series)
    keep &= ~fetched.duplicated(["question_id", "observed_at"], keep="last")
    return fetched[keep.to_numpy()].reset_index(drop=True)


def _matches(left: pd.DataFrame, right: pd.DataFrame, columns: list[str]) -> pd.Series:
    """Per row of ``left``: does ``right`` hold a row equal on ``columns``? (compared as written:
    ``as_text`` frames, whose cells are all text, so tuples of cells compare as a join would)"""
    marks = set(zip(*(right[c].tolist() for c in columns)))
    rows = zip(*(left[c].tolist() for c in columns))
    return pd.Series(np.fromiter((row in marks for row in rows), dtype=bool, count=len(left)), index=left.index)
