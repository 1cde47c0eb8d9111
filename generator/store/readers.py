"""Load a hub's ledgers and files into typed frames. Every read is checked against its schema."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pandas as pd

from ..models import ModelMeta, load_model
from ..schemas import FORECASTS, HISTORY, OBSERVATIONS, QUESTIONS, ROUND_QUESTIONS, SCORES, Table
from ..timeutil import parse_ts
from .csvio import empty_frame, read_table
from .layout import Layout


def _read_all(layout: Layout, paths: list[Path], table: Table) -> pd.DataFrame:
    frames = [read_table(p, table, layout.relative(p)) for p in paths]
    return pd.concat(frames, ignore_index=True) if frames else empty_frame(table)


def load_bank(layout: Layout) -> pd.DataFrame:
    return _read_all(layout, layout.question_files(), QUESTIONS)


def load_observations(layout: Layout) -> pd.DataFrame:
    return _read_all(layout, layout.observation_files(), OBSERVATIONS)


def load_models(layout: Layout) -> dict[str, ModelMeta]:
    return {p.name.removesuffix(".yml"): load_model(p, layout.relative(p)) for p in layout.model_files()}


def round_dues(layout: Layout) -> list[datetime]:
    return [parse_ts(p.name) for p in layout.round_dirs()]


def load_round(layout: Layout, due: datetime) -> pd.DataFrame:
    path = layout.round_questions(due)
    return read_table(path, ROUND_QUESTIONS, layout.relative(path))


def load_forecasts(layout: Layout, due: datetime) -> dict[str, pd.DataFrame]:
    return {p.name.removesuffix(".csv"): read_table(p, FORECASTS, layout.relative(p))
            for p in layout.forecast_files(due)}


def load_scores(layout: Layout) -> pd.DataFrame:
    return _read_all(layout, sorted((layout.data / "scores").glob("*.csv")), SCORES)


def load_history(layout: Layout) -> pd.DataFrame:
    path = layout.history
    return read_table(path, HISTORY, layout.relative(path)) if path.is_file() else empty_frame(HISTORY)
