"""Load a hub's ledgers and files into typed frames. Every read is checked against its schema."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pandas as pd

from ..errors import Problem, SchemaError
from ..models import ModelMeta, load_model
from ..submissions.parse import parse_forecast
from ..schemas import FORECASTS, HISTORY, OBSERVATIONS, QUESTIONS, RESOLUTIONS, ROUND_QUESTIONS, SCORES, Table
from ..schemas import ORACLE_FORECASTS, ORACLE_QUESTIONS
from ..timeutil import parse_ts
from . import csvio
from .csvio import check_frame, coerce, empty_frame, read_table
from .layout import Layout


def _read_all(layout: Layout, paths: list[Path], table: Table) -> pd.DataFrame:
    frames = [read_table(p, table, layout.relative(p)) for p in paths]
    return pd.concat(frames, ignore_index=True) if frames else empty_frame(table)


def load_bank(layout: Layout) -> pd.DataFrame:
    return _read_all(layout, layout.question_files(), QUESTIONS)


def load_observations(layout: Layout) -> pd.DataFrame:
    return _read_all(layout, layout.observation_files(), OBSERVATIONS)


def resolution_files(layout: Layout) -> list[Path]:
    """The stated-resolutions ledgers, ``data/resolutions/<source>.csv``."""
    return sorted((layout.data / "resolutions").glob("*.csv"))


def load_resolutions(layout: Layout) -> pd.DataFrame:
    """Every stated resolution (see ``schemas.RESOLUTIONS``); empty when the hub has none."""
    return _read_all(layout, resolution_files(layout), RESOLUTIONS)


def load_models(layout: Layout) -> dict[str, ModelMeta]:
    return {p.name.removesuffix(".yml"): load_model(p, layout.relative(p)) for p in layout.model_files()}


def round_dues(layout: Layout) -> list[datetime]:
    return [parse_ts(p.name) for p in layout.round_dirs()]


def load_round(layout: Layout, due: datetime) -> pd.DataFrame:
    path = layout.round_questions(due)
    return read_table(path, ROUND_QUESTIONS, layout.relative(path))


def load_forecasts(layout: Layout, due: datetime) -> dict[str, pd.DataFrame]:
    """Every forecast file of a round, by model. A model with both a CSV and a JSON file is an error."""
    out: dict[str, pd.DataFrame] = {}
    for path in layout.forecast_files(due):
        model = path.stem
        if model in out:
            label = layout.relative(path)
            raise SchemaError(f"{label}: {model} has two forecast files for this round",
                              [Problem(label, None, None, "duplicate-submission", "keep either the .csv or the .json file")])
        out[model] = _forecast_frame(layout, path)
    return out


def remember_forecasts(layout: Layout, path: Path, frame: pd.DataFrame) -> None:
    """Tell ``load_forecasts`` what the CSV file at ``path`` holds: ``frame`` must be exactly the
    frame ``csvio.read_table`` returns for the file's current bytes (checked and typed). It is kept
    in read_table's cache under the file's current signature, so the next read gives it without
    parsing; any later change of the file (a new inode, mtime or size) makes read_table read it
    again. The import calls it for the forecast files it has just written
    (``importers.fastcsv.as_read``; tests/test_fast_paths.py compares with reads from disk)."""
    csvio._CACHE[(str(path), FORECASTS.name, layout.relative(path))] = (csvio._signature(path), frame)


def _forecast_frame(layout: Layout, path: Path) -> pd.DataFrame:
    label = layout.relative(path)
    if path.suffix == ".csv":
        return read_table(path, FORECASTS, label)
    parsed = parse_forecast(path.read_bytes(), label, "json")  # the validator's own JSON reader
    errors = [p for p in parsed.problems if p.severity == "error"]
    raw = pd.DataFrame([row.cells for row in parsed.rows], columns=list(FORECASTS.names), dtype=str)
    errors += [p for p in check_frame(raw, FORECASTS, label) if p.severity == "error"]
    if errors:
        raise SchemaError(f"{label}: does not match the forecasts schema", errors)
    return coerce(raw, FORECASTS)


def load_bets(layout: Layout, due: datetime) -> dict[str, pd.DataFrame]:
    """A round's bet files (``schemas.BETS``, the Arena cohort), by model; empty when there are none."""
    from ..schemas import BETS

    return {p.stem: read_table(p, BETS, layout.relative(p)) for p in layout.bet_files(due)}


def load_scores(layout: Layout) -> pd.DataFrame:
    return _read_all(layout, sorted((layout.data / "scores").glob("*.csv")), SCORES)


def load_history(layout: Layout) -> pd.DataFrame:
    path = layout.history
    return read_table(path, HISTORY, layout.relative(path)) if path.is_file() else empty_frame(HISTORY)


def load_oracle_questions(layout: Layout, qset: str) -> pd.DataFrame:
    """Every recorded version of an oracle set's questions (``schemas.ORACLE_QUESTIONS``); empty if none."""
    path = layout.oracle_questions(qset)
    return read_table(path, ORACLE_QUESTIONS, layout.relative(path)) if path.is_file() else empty_frame(ORACLE_QUESTIONS)


def load_oracle_forecasts(layout: Layout, qset: str) -> dict[str, pd.DataFrame]:
    """An oracle set's forecast files, by model (``schemas.ORACLE_FORECASTS``)."""
    return {p.stem: read_table(p, ORACLE_FORECASTS, layout.relative(p)) for p in layout.oracle_forecast_files(qset)}
