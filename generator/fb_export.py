"""``prescient export forecastbench``: a round's question set in ForecastBench question-set JSON.

A round published by the hub (nightly or ``prescient round open``) already has its frozen
``questions.json`` beside ``questions.csv``; the export is those exact bytes. A round without one
(e.g. imported from ForecastBench) is rendered by ``rounds.forecastbench_json`` from its
``questions.csv`` and the question bank as it stood at the round's due time.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pandas as pd

from .errors import ConfigError
from .rounds import forecastbench_json
from .store import readers
from .store.layout import Layout
from .timeutil import format_date, format_ts


def export_forecastbench(root: Path, due: datetime) -> bytes:
    """The FB question-set JSON of the round due at ``due`` in the hub at ``root``."""
    layout = Layout(root)
    if not layout.round_questions(due).is_file():
        known = ", ".join(p.name for p in layout.round_dirs()) or "none"
        raise ConfigError(f"--round {format_date(due)}: no such round in {layout.data / 'rounds'} (rounds: {known})")
    if layout.round_json(due).is_file():
        return layout.round_json(due).read_bytes()
    return forecastbench_json(readers.load_round(layout, due), bank_at(readers.load_bank(layout), format_ts(due)))


def bank_at(bank: pd.DataFrame, when: str) -> pd.DataFrame:
    """The versions recorded by ``when``; a question first recorded later keeps its versions."""
    known = bank["recorded_at"] <= when
    return bank[known | ~bank["id"].isin(bank.loc[known, "id"])]
