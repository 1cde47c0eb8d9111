"""``prescient export forecastbench``: a round's question set in ForecastBench question-set JSON.

A round published by the hub (nightly or ``prescient round open``) already has its frozen
``questions.json`` beside ``questions.csv``; the export is those exact bytes. A round without one
(e.g. imported from ForecastBench) is rendered by ``forecastbench_json`` from its
``questions.csv`` and the question bank as it stood at the round's due time. Frozen values are
written in full (``repr``): exporting a round and importing the export gives the same round.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pandas as pd

from ...errors import ConfigError
from ...scoring.resolve import latest_questions
from ...store import files, readers
from ...store.hub import Hub
from ...timeutil import format_date, format_ts
from ...vocabulary import DATASET, MARKET


def export_forecastbench(root: Path, due: datetime) -> bytes:
    """The FB question-set JSON of the round due at ``due`` in the hub at ``root``."""
    hub = Hub(root)
    layout = hub.layout
    if not layout.round_questions(due).is_file():
        known = ", ".join(p.name for p in layout.round_dirs()) or "none"
        raise ConfigError(f"--round {format_date(due)}: no such round in {layout.data / 'rounds'} (rounds: {known})")
    if layout.round_json(due).is_file():
        return files.read_bytes(layout.round_json(due))
    return forecastbench_json(readers.load_round(hub, due), bank_at(readers.load_bank(hub), format_ts(due)))


def bank_at(bank: pd.DataFrame, when: str) -> pd.DataFrame:
    """The versions recorded by ``when``; a question first recorded later keeps its versions."""
    known = bank["recorded_at"] <= when
    return bank[known | ~bank["id"].isin(bank.loc[known, "id"])]


def forecastbench_json(round_questions: pd.DataFrame, bank: pd.DataFrame) -> bytes:
    """The round in ForecastBench question-set format (every value a string)."""
    latest = latest_questions(bank).set_index("id")
    due = round_questions["due"].iloc[0] if len(round_questions) else ""
    items = [_fb_item(qid, group, latest.loc[qid]) for qid, group in round_questions.groupby("question_id", sort=True)]
    body = {"forecast_due_date": due[:10], "question_set": f"{due[:10]}-prescient.json", "questions": items}
    return (json.dumps(body, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _fb_item(qid: str, rows: pd.DataFrame, q: pd.Series) -> dict:
    first = rows.iloc[0]
    value = first["freeze_value"]
    return {
        "id": qid.split(":", 1)[1],
        "source": first["source"],
        "question": q["text"],
        "resolution_criteria": q["resolution_criteria"],
        "background": q["background"],
        "url": q["url"],
        "freeze_datetime": first["freeze_time"],
        "freeze_datetime_value": "" if pd.isna(value) else repr(float(value)),
        "freeze_datetime_value_explanation": "market probability" if first["kind"] == MARKET else "series value",
        "source_intro": "",
        "market_info_open_datetime": q["open_time"] or "N/A",
        "market_info_close_datetime": q["close_time"] or "N/A",
        "market_info_resolution_criteria": q["resolution_criteria"] if first["kind"] == MARKET else "N/A",
        "resolution_dates": sorted(rows["resolution_date"]) if first["kind"] == DATASET else "N/A",
    }
