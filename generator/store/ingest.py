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
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np
import pandas as pd

from ..schemas import OBSERVATIONS, QUESTIONS
from ..sources.base import Observation, Question
from ..timeutil import format_ts
from ..vocabulary import MARKET
from .csvio import as_text, coerce

_STATE = ["value", "status", "outcome"]
_CONTENT = [c for c in QUESTIONS.names if c != "recorded_at"]


def question_frame(questions: Iterable[Question], as_of: datetime) -> pd.DataFrame:
    recorded = format_ts(as_of)  # once, not per row
    rows = [
        {
            "id": q.id,
            "recorded_at": recorded,
            "source": q.source,
            "kind": q.kind,
            "text": q.text,
            "background": q.background,
            "resolution_criteria": q.resolution_criteria,
            "url": q.url,
            "category": q.category,
            "open_time": format_ts(q.open_time) if q.open_time else "",
            "close_time": format_ts(q.close_time) if q.close_time else "",
        }
        for q in questions
    ]
    return _typed(rows, QUESTIONS)


def observation_frame(observations: Iterable[Observation], as_of: datetime) -> pd.DataFrame:
    recorded = format_ts(as_of)  # once, not per row
    rows = [
        {
            "question_id": o.question_id,
            "observed_at": format_ts(o.observed_at),
            "recorded_at": recorded,
            "value": o.value,
            "status": o.status,
            "outcome": o.outcome,
            "payload_sha256": o.payload_sha256,
        }
        for o in observations
    ]
    return _typed(rows, OBSERVATIONS)


def _typed(rows: list[dict], table) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=list(table.names))
    return coerce(as_text(frame, table), table)


def new_questions(bank: pd.DataFrame, fetched: pd.DataFrame, latest: dict[str, tuple[str, tuple[str, ...]]] | None = None) -> pd.DataFrame:
    """Rows of ``fetched`` whose content is not already the latest version in ``bank``; ``latest``:
    ``latest_contents(bank)`` when the caller keeps it."""
    latest = latest_contents(bank) if latest is None else latest
    fetched = fetched.drop_duplicates("id", keep="last")
    text = as_text(fetched, QUESTIONS)
    same = [(q in latest and latest[q][1] == content) for q, content in zip(text["id"].tolist(), _rows(text, _CONTENT), strict=True)]
    return fetched[~np.array(same, dtype=bool)].reset_index(drop=True)


def latest_contents(bank: pd.DataFrame, latest: dict | None = None) -> dict[str, tuple[str, tuple[str, ...]]]:
    """Per question id, (recorded_at, content) of its latest version, as written text: ``latest``
    (what this returned for the rows before ``bank``'s, if any) brought up to date with ``bank``'s rows."""
    latest = {} if latest is None else latest
    text = as_text(bank, QUESTIONS)
    for q, recorded, content in zip(text["id"].tolist(), text["recorded_at"].tolist(), _rows(text, _CONTENT), strict=True):
        _take_latest(latest, q, recorded, content)
    return latest


def new_observations(existing: pd.DataFrame, fetched: pd.DataFrame, kinds: Mapping[str, str]) -> pd.DataFrame:
    """Rows of ``fetched`` that change what the ledger ``existing`` says (see the module docstring)."""
    return ObservationState.of(existing).new_rows(fetched, kinds)


@dataclass
class ObservationState:
    """What an observation ledger says, as written text (``as_text``), to compare fetched rows with.

    ``market``: per question, its latest row (largest (observed_at, recorded_at)) as
    ((observed_at, recorded_at), (value, status, outcome)); ``series``: per (question, observed_at),
    the latest recorded row as (recorded_at, (value, status, outcome)); ``recorded``: the latest
    recorded_at. Rows are taken in ledger order and a later row wins a tie, as a stable sort's last
    row does. The nightly builds it once and then ``add``s what it appends, instead of sorting the
    whole ledger every night (``pipeline.fetch.fetch_stage``)."""

    market: dict[str, tuple[tuple[str, str], tuple[str, ...]]] = field(default_factory=dict)
    series: dict[tuple[str, str], tuple[str, tuple[str, ...]]] = field(default_factory=dict)
    recorded: str = ""
    closed_at: dict[str, str] = field(default_factory=dict)  # per question: observed_at of its first resolved or void row
    # what it was built from, per ledger file (relative path → ``readers.LedgerMark``): kept between
    # commands with it (``pipeline.memo_store.load_observation_state``); not part of what it says
    files: dict = field(default_factory=dict, compare=False)

    @classmethod
    def of(cls, observations: pd.DataFrame) -> ObservationState:
        state = cls()
        state.add(observations)
        return state

    def add(self, observations: pd.DataFrame) -> None:
        """Take in rows appended to the ledger (typed, as read)."""
        text = as_text(observations, OBSERVATIONS)
        columns = (text[c].tolist() for c in ("question_id", "observed_at", "recorded_at"))
        for (question, observed, recorded), state in zip(zip(*columns, strict=True), _rows(text, _STATE), strict=True):
            _take_latest(self.market, question, (observed, recorded), state)
            _take_latest(self.series, (question, observed), recorded, state)
            self.recorded = max(self.recorded, recorded)
            if state[1] in ("resolved", "void"):
                self.closed_at.setdefault(question, observed)

    def closed(self, questions: Iterable[str]) -> set[str]:
        """The ``questions`` whose latest row is resolved or void."""
        return {q for q in questions if q in self.market and self.market[q][1][1] in ("resolved", "void")}

    def reread(self, closed: Iterable[str], since: str, cap: int, night: int) -> set[str]:
        """Of the ``closed`` questions, those to fetch again tonight: the ones whose first resolved or void
        row is dated (observed_at) at or after ``since`` (the re-read window: a market the source resolves
        again is not read for longer), at most ``cap`` of them, taken in turn:
        sorted by id, a slice of ``cap`` that moves on by ``cap`` each ``night`` (a day number), so every
        one is read again within ceil(n / cap) nights, whatever else changes (no state is kept)."""
        window = sorted(q for q in closed if self.closed_at.get(q, "") >= since and q in self.closed_at)
        if len(window) <= cap:
            return set(window)
        start = (night * cap) % len(window)
        return set((window + window)[start : start + cap])

    def new_rows(self, fetched: pd.DataFrame, kinds: Mapping[str, str]) -> pd.DataFrame:
        """Rows of ``fetched`` that change what the ledger says (see the module docstring): a market
        row whose state differs from its question's latest, a series row whose state differs from
        its date's latest; of two fetched rows of one question and date, the last."""
        if fetched.empty:
            return fetched
        text = as_text(fetched, OBSERVATIONS)
        rows = _rows(text, ["question_id", "observed_at", *_STATE])
        keep = np.zeros(len(rows), dtype=bool)
        seen: set[tuple[str, str]] = set()
        for i in range(len(rows) - 1, -1, -1):  # backwards: a later row of the same question and date wins
            question, observed, *state = rows[i]
            if (question, observed) in seen:
                continue
            seen.add((question, observed))
            latest = self.market.get(question) if kinds.get(question) == MARKET else self.series.get((question, observed))
            keep[i] = latest is None or latest[1] != tuple(state)
        return fetched[keep].reset_index(drop=True)


def _rows(text: pd.DataFrame, columns: list[str]) -> list[tuple[str, ...]]:
    """The cells of ``columns``, row by row (``as_text`` frames: tuples of text compare as a join would)."""
    return list(zip(*(text[c].tolist() for c in columns), strict=True))


def _take_latest(latest: dict, key, order, value) -> None:
    """Keep ``(order, value)`` as ``key``'s latest unless it holds a larger order: taken row by row
    in ledger order, a later row wins a tie, as a stable sort's last row does."""
    known = latest.get(key)
    if known is None or order >= known[0]:
        latest[key] = (order, value)
