"""The model log (``data/metadata/models.csv``): a model's scoring-relevant metadata as the nightly
runs recorded it, so that a night's boards are fixed by what was known that night.

``kind`` (which board and estimation sample a model is in), ``saw_crowd`` (the baseline board),
``release_date`` and ``knowledge_cutoff`` (the temporal views, and ForecastBench's 365-day rule) and
``ran_by`` (who ran it: the estimation sample) change what a board counts. A model
file may be edited at any time; the nightly appends a row when it finds these fields different from
the model's last row (``record``), and every board as of a night reads them as recorded by then
(``as_of``). A later edit therefore never changes a past night, and ``prescient verify`` recomputes a
past night with the metadata of that night.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime

import pandas as pd

from ..models import ModelMeta
from ..schemas import MODEL_LOG
from ..timeutil import format_ts
from . import ledger
from .csvio import empty_frame
from .hub import Hub

FIELDS = ("kind", "saw_crowd", "release_date", "knowledge_cutoff", "ran_by")
Values = tuple[str, int, str, str, str]


def load_log(hub: Hub) -> pd.DataFrame:
    path = hub.layout.model_log
    return hub.cache.read_table(path, MODEL_LOG, hub.layout.relative(path)) if path.is_file() else empty_frame(MODEL_LOG)


def _values(meta: ModelMeta) -> Values:
    return meta.kind, int(meta.saw_crowd), meta.release_date, meta.knowledge_cutoff, meta.ran_by


def _latest(log: pd.DataFrame, as_of: str | None = None) -> dict[str, Values]:
    """Per model, the values of its last row recorded at or before ``as_of`` (its first row when it has
    none by then; every row when ``as_of`` is None)."""
    if log.empty:
        return {}
    columns = [log[c].to_numpy(dtype=object) for c in ("model", "recorded_at", "kind", "saw_crowd", "release_date", "knowledge_cutoff", "ran_by")]
    rows = sorted(zip(*columns, strict=True), key=lambda row: (row[0], row[1]))  # stable: a model's rows by time, ties in file order
    out: dict[str, Values] = {}
    for model, when, kind, saw, release, cutoff, ran_by in rows:
        if model not in out or as_of is None or when <= as_of:
            out[model] = (str(kind), int(saw), _text(release), _text(cutoff), _text(ran_by))
    return out


def _text(value: object) -> str:
    """A text cell; a missing one (None, NaN or NA, in rows made by ``new_rows``) as ""."""
    return "" if pd.isna(value) else str(value)


def new_rows(log: pd.DataFrame, models: dict[str, ModelMeta], as_of: datetime) -> pd.DataFrame:
    """The rows a run at ``as_of`` appends: each model whose fields differ from its last row. Pure."""
    last = _latest(log)
    changed = [(m, _values(meta)) for m, meta in sorted(models.items()) if last.get(m) != _values(meta)]
    return pd.DataFrame(
        [
            {
                "recorded_at": format_ts(as_of),
                "model": m,
                "kind": v[0],
                "saw_crowd": v[1],
                "release_date": v[2] or None,
                "knowledge_cutoff": v[3] or None,
                "ran_by": v[4] or None,
            }
            for m, v in changed
        ],
        columns=list(MODEL_LOG.names),
    )


def record(hub: Hub, models: dict[str, ModelMeta], as_of: datetime) -> list[str]:
    """Append tonight's changed values; return the file written (or nothing)."""
    layout, rows = hub.layout, new_rows(load_log(hub), models, as_of)
    if rows.empty:
        return []
    ledger.append(layout.model_log, rows, MODEL_LOG, layout.relative(layout.model_log), hub.cache)
    return [layout.relative(layout.model_log)]


def as_of(models: dict[str, ModelMeta], log: pd.DataFrame, when: str) -> dict[str, ModelMeta]:
    """``models`` with their scoring-relevant fields as recorded at ``when`` (ISO UTC); a model the
    log does not know keeps its file's values."""
    known = _latest(log, when)
    out = {}
    for model, meta in models.items():
        values = known.get(model)
        out[model] = (
            meta
            if values is None
            else dataclasses.replace(
                meta, kind=values[0], saw_crowd=bool(values[1]), release_date=values[2], knowledge_cutoff=values[3], ran_by=values[4]
            )
        )
    return out
