"""The forecast files an import writes: the hub's constant baselines for each round, and each of FB's
forecast sets, as a hub forecast file or (an individual file, or one answering a smaller question
set) kept as FB published it."""

from __future__ import annotations

import functools
from pathlib import Path

import pandas as pd

from ...errors import Problem
from ...forecasters.baselines import at_open
from ...models import DEFAULT_OWN, ModelMeta
from ...scoring.brier import set_name
from ...store.atomic import write_bytes_atomic
from ...store.filewriter import FileWriter, Outcomes
from ...store.hub import Hub
from . import frames
from . import parse as fbp
from . import workers as worker_pool


def hub_baselines(own: str = DEFAULT_OWN) -> tuple[str, ...]:
    """The hub's constant baselines, the same forecasters the nightly run writes for its own rounds, under
    the hub's prefix ``own`` (``[hub] own_prefix``)."""
    return (f"{own}.always-0", f"{own}.always-1", f"{own}.always-0.5")


def _kept_as_published(fset: fbp.Parsed, names: set[str]) -> bool:
    """An individual file, or one answering a set smaller than its round (``names``: the round's
    sets, ``_set_names``), is stored as FB published it (JSON: its members' rows and its
    ``question_set`` travel with it); any other as a CSV forecast file."""
    return bool(fset.header.get("individual")) or set_name(fset.header["question_set"]) in names


def _set_names(sets: pd.DataFrame) -> set[str]:
    """The names of a round's question sets (``schemas.QUESTION_SETS``), none when one set asks the whole round."""
    return set(sets["question_set"].map(set_name))


def _set_problems(fset: fbp.Parsed, names: set[str]) -> list[Problem]:
    declared = set_name(fset.header["question_set"])
    if not names or declared in names:
        return []
    return [
        Problem(
            fset.label,
            None,
            "question_set",
            "unknown-question-set",
            f"question_set {fset.header['question_set']!r} names none of round {fset.due}'s question sets "
            f"({', '.join(sorted(names))}); it is scored on the whole round",
            "warning",
        )
    ]


def write_forecasts(
    hub: Hub,
    rounds: dict[str, pd.DataFrame],
    sets: dict[str, pd.DataFrame],
    fsets: list[fbp.Parsed],
    as_of: str,
    report: Outcomes,
    workers: int = 1,
    made: dict[str, pd.DataFrame] | None = None,
    baselines: dict[tuple[str, str], worker_pool.Prepared] | None = None,
    own: str = DEFAULT_OWN,
) -> list[str]:
    """``made``: the rounds, by due, whose forecast files the parsing workers made (``worker_pool``):
    the ones the import keeps as they were given to the workers; ``baselines``: the baselines' files
    the workers made, by (due, model); ``own``: the hub's ``[hub] own_prefix``, its baselines' team."""
    models: dict[str, ModelMeta] = {}
    units = {due: (q["question_id"].to_numpy(dtype=object), q["resolution_date"].to_numpy(dtype=object)) for due, q in (made or {}).items()}
    names = {due: _set_names(frame) for due, frame in sets.items()}
    layout = hub.layout
    with FileWriter(hub, report, workers) as writer:
        for due, questions in rounds.items():
            if frames.midnight(due) > as_of:
                continue
            for model in hub_baselines(own):
                meta, forecaster = at_open(own)[model]
                kept = (baselines or {}).get((due, model))
                if kept is None or due not in units or not _add_prepared(writer, due, model, kept, units[due], []):
                    writer.add(due, model, forecaster(questions), [])
                models[model] = meta
        allowed: dict[str, dict[tuple[str, str], tuple[str, str]]] = {}  # due -> frames.unit_keys
        for fset in fsets:
            model = frames.model_id(fset)
            models[model] = frames.model_meta(fset)
            if _kept_as_published(fset, names[fset.due]):
                writer.add_published(fset.due, model, Path(fset.path).read_bytes())
                continue
            prepared = fset.prepared
            if isinstance(prepared, worker_pool.Prepared) and fset.due in units:
                _add_prepared(writer, fset.due, model, prepared, units[fset.due], _set_problems(fset, names[fset.due]))
                continue
            if prepared is not None:  # made against a round the import does not keep: parsed again, made here
                fset = worker_pool.parse_one((Path(fset.path), fset.label, "parse_forecast_set"))
            if fset.due not in allowed:
                allowed[fset.due] = frames.unit_keys(rounds[fset.due])
            columns, problems = frames.forecast_columns(fset, allowed[fset.due])
            writer.add(fset.due, model, columns, problems + _set_problems(fset, names[fset.due]))
    for model, meta in sorted(models.items()):
        path = layout.model_meta(model)
        if not path.is_file() and write_bytes_atomic(path, meta.to_yaml()):
            report.written.append(layout.relative(path))
    return sorted(models)


def _add_prepared(writer: FileWriter, due: str, model: str, prepared: worker_pool.Prepared, units: tuple, problems: list[Problem]) -> bool:
    """Hand ``writer`` a file a parsing worker made (staged, or its bytes); ``units``: the round's
    unit columns its rows point into. False when it holds neither (nothing is added)."""
    frame = functools.partial(worker_pool.frame_of, prepared, *units)
    if prepared.staged is not None:
        writer.add_staged(due, model, Path(prepared.staged), prepared.digest, prepared.entry_kept, frame, prepared.problems + problems)
    elif prepared.data is not None:
        writer.add_made(due, model, prepared.data, frame, prepared.problems + problems)
    else:
        return False
    return True
