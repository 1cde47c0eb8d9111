"""Round schedule and question-set sampling. Pure: frames in, frames out.

A round is due at ``first_due + k × cadence_days`` (00:00 UTC). Its question set is frozen and
published ``open_days_before_due`` days earlier, from what the ledgers knew then.
Sampling is stratified: questions are shuffled within each (source, category) stratum with a
generator seeded by the due date, then taken from the strata in turn, so every stratum is
represented before any is represented twice.
"""

from __future__ import annotations

from datetime import datetime
from itertools import chain, zip_longest

import numpy as np
import pandas as pd

from ..config import RoundSettings
from ..schemas import ROUND_QUESTIONS
from ..scoring.resolve import known_by, latest_questions, market_states, values_at
from ..timeutil import days, format_date, format_ts
from ..vocabulary import DATASET, MARKET


def due_dates(rounds: RoundSettings, until: datetime) -> list[datetime]:
    if rounds.cadence_days < 1:  # hub.toml's check refuses it; never a loop that does not end
        raise ValueError(f"cadence_days = {rounds.cadence_days}: rounds must be at least a day apart")
    out, due = [], rounds.first_due
    while due <= until:
        out.append(due)
        due += days(rounds.cadence_days)
    return out


def next_round(rounds: RoundSettings, as_of: datetime) -> tuple[datetime, datetime]:
    """(due, freeze time) of the first round due after ``as_of``."""
    due = rounds.first_due
    if due <= as_of:
        due += days(rounds.cadence_days * ((as_of - due) // days(rounds.cadence_days) + 1))
    return due, due - days(rounds.open_days_before_due)


def rounds_to_open(rounds: RoundSettings, as_of: datetime, existing: set[str]) -> list[datetime]:
    """Rounds whose publication time has come, that are not due yet and not written yet."""
    window = days(rounds.open_days_before_due)
    return [due for due in due_dates(rounds, as_of + window) if due - window <= as_of < due and format_date(due) not in existing]


LATE_LEAD = days(1)  # a round frozen after its freeze time leaves forecasters at least this long before its due time


def freeze_round(bank: pd.DataFrame, obs: pd.DataFrame, due: datetime, rounds: RoundSettings, as_of: datetime) -> tuple[datetime, pd.DataFrame]:
    """(freeze time, question set) of the round due at ``due``, opened by a run at ``as_of``: frozen at
    its freeze time, from what the ledgers knew then; when nothing was eligible then (a hub whose first
    fetch came after it, or a source that was down), frozen at ``as_of`` instead, as long as
    ``LATE_LEAD`` is left before the due time. The question set's ``freeze_time`` says which."""
    freeze = due - days(rounds.open_days_before_due)
    questions = sample_round(bank, obs, due, freeze, rounds, as_of)
    if questions.empty and freeze < as_of and as_of + LATE_LEAD <= due:
        freeze = as_of
        questions = sample_round(bank, obs, due, freeze, rounds, as_of)
    return freeze, questions


def waiting_note(rounds: RoundSettings, due: datetime, as_of: datetime) -> str:
    """Why the round due at ``due`` did not open at ``as_of`` (nothing was eligible), and when one will."""
    if as_of + LATE_LEAD <= due:
        return (
            f"round {format_date(due)}: not opened, no eligible question yet; each nightly until "
            f"{format_ts(due - LATE_LEAD)} tries again (the round is then frozen when it opens)"
        )
    following, freeze = next_round(rounds, due)
    return (
        f"round {format_date(due)}: not opened, no eligible question before its due time; the next round is due "
        f"{format_ts(following)} and opens at the first nightly from {format_ts(freeze)} that has eligible questions"
    )


def sample_round(
    bank: pd.DataFrame, obs: pd.DataFrame, due: datetime, freeze: datetime, rounds: RoundSettings, recorded_by: datetime
) -> pd.DataFrame:
    """The frozen question set of the round due at ``due`` (see the module docstring)."""
    known = known_by(obs, format_ts(recorded_by))
    eligible = _eligible(latest_questions(bank), known, due, freeze)
    seed = int(due.strftime("%Y%m%d"))
    markets = _stratified(eligible[eligible["kind"] == MARKET], rounds.market_questions, seed)
    series = _stratified(eligible[eligible["kind"] == DATASET], rounds.dataset_questions, seed + 1)
    frame = pd.concat([_market_rows(markets), _series_rows(series, due, rounds.horizons)], ignore_index=True)
    frame["due"], frame["freeze_time"] = format_ts(due), format_ts(freeze)
    frame["freeze_value"] = values_at(known, frame["question_id"], format_ts(freeze))
    return frame[list(ROUND_QUESTIONS.names)].sort_values(list(ROUND_QUESTIONS.sort)).reset_index(drop=True)


def _eligible(latest: pd.DataFrame, known: pd.DataFrame, due: datetime, freeze: datetime) -> pd.DataFrame:
    frozen = known[known["observed_at"] <= format_ts(freeze)]
    states = market_states(frozen)
    is_open = latest["id"].map(states["status"]).eq("open")
    closes_later = latest["close_time"] > format_ts(due + days(1))
    has_values = latest["id"].isin(frozen["question_id"])
    market_ok = (latest["kind"] == MARKET) & is_open & closes_later
    return latest[market_ok | ((latest["kind"] == DATASET) & has_values)]


def _stratified(frame: pd.DataFrame, n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    groups = [g.sort_values("id").iloc[rng.permutation(len(g))] for _, g in frame.groupby(["source", "category"], sort=True)]
    rows = [r for r in chain.from_iterable(zip_longest(*(g.itertuples(index=False) for g in groups))) if r]
    return pd.DataFrame(rows[:n], columns=frame.columns)


def _market_rows(markets: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "question_id": markets["id"],
            "resolution_date": "",
            "source": markets["source"],
            "kind": MARKET,
            "category": markets["category"],
            "text": markets["text"],
            "url": markets["url"],
        }
    )


def _series_rows(series: pd.DataFrame, due: datetime, horizons: tuple[int, ...]) -> pd.DataFrame:
    rows = [
        {
            "question_id": s.id,
            "resolution_date": format_date(due + days(h)),
            "source": s.source,
            "kind": DATASET,
            "category": s.category,
            "text": s.text,
            "url": s.url,
        }
        for s in series.itertuples(index=False)
        for h in horizons
    ]
    return pd.DataFrame(rows, columns=["question_id", "resolution_date", "source", "kind", "category", "text", "url"])
