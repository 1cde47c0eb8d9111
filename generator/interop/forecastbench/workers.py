"""The import's parsing worker processes, and the forecast files they make.

Many files are parsed by two worker processes (``parallel.worker_pool``: forked, they run this package's code as loaded),
results taken in file order, so the outcome is the one of parsing them one by one (``parse_one``).
The forecast sets are parsed by a second pool, forked once the rounds' questions are known
(``pool(n, rounds)``): a worker then also makes each set's CSV forecast file against its round, so
both cores make files. Most sets are rows of distinct, plain units of the round: their rows are put
in file order by the units' ranks, each unit's cells checked once per round (``in_file_order``);
any other set goes through ``frames.forecast_columns``, then ``fast_forecasts.forecast_file``. The workers
also make the files of the hub's constant baselines for the rounds they know (``baseline``).

Given the hub (``pool(n, rounds, hub)``, under the hub lock), a worker also stages the file
beside its place in the hub (``atomic.stage_bytes``: written and fsynced, not yet in place) and, with
a disk cache, keeps the frame ``fast_forecasts.as_read`` would give as the cache entry ``read_table`` decodes
(``cache_entry``, made from the round's units without pandas). The import, once every input is
checked, puts each staged file in place (``atomic.commit_staged``) or removes it: the files' bytes
never cross to the main process, and their writing overlaps the parsing. Without the hub, the bytes
cross back (``Prepared.data``). Either way, what else crosses is small: the warnings, and, when no
entry was kept, the rows as positions among the round's units, the parsed probabilities and the
reasonings, from which ``frame_of`` builds the frame in the main process.

A set made against a round that is not the one the import keeps (a round already published with
other questions), an individual file, or one the worker could not make, comes back as parsed, its
columns packed (``packed``), and the import makes its file itself, as one-by-one parsing does.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
from array import array
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import numpy as np
import pandas as pd

from ...errors import Problem
from ...forecasters.baselines import at_open
from ...models import team_of
from ...parallel import fork_sound, worker_pool
from ...schemas import FORECASTS
from ...store.atomic import stage_bytes
from ...store.cache import disk as diskcache
from ...store.cache.reads import table_entry
from ...store.csvio import table_dtypes
from ...store.fast_forecasts import (
    ProbabilityTexts,
    forecast_file,
    forecast_lists,
    forecasts_frame,
    ordered_forecast_file,
    plain_units,
    reads_as_written,
)
from ...store.hub import Hub
from ...timeutil import parse_ts
from . import frames
from . import parse as fbp

_POOL_MIN_FILES, _POOL_WORKERS = 64, 2

# The rounds' units by due date, set in the parent before a forecast-set pool forks (``pool``):
# the workers' copy of the rounds, never changed after the fork.
_ROUNDS: dict[str, RoundUnits] = {}
# The rounds' questions, for the hub's baselines (``baseline``), and the hub the workers stage
# forecast files in (see the module docstring), if any: both set like ``_ROUNDS``.
_QUESTIONS: dict[str, pd.DataFrame] = {}
_HUB: list[Hub] = []
_MEMO: ProbabilityTexts = {}  # a worker's probability texts (``fast_forecasts._prob_table``): made once per distinct value


@dataclass(frozen=True)
class RoundUnits:
    """A round's (question_id, resolution_date) units: ``frames.unit_keys`` and each one's position."""

    allowed: dict[tuple[str, str], tuple[str, str]]
    position: dict[tuple[str, str], int]
    ids: tuple[list[str], np.ndarray]  # the distinct question ids, and each unit's among them
    dates: tuple[list[str], np.ndarray]  # the same for the resolution dates

    @classmethod
    def of(cls, questions: pd.DataFrame) -> RoundUnits:
        allowed = frames.unit_keys(questions)
        return cls(allowed, {unit: i for i, unit in enumerate(allowed)}, _factorized([u[0] for u in allowed]), _factorized([u[1] for u in allowed]))

    @functools.cached_property
    def written(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per unit: its place in a forecast file's row order, its first two cells as written
        (``"question_id,resolution_date,"``) and whether they are plain (``fast_forecasts.plain_units``).
        Made by a worker when it first makes a file against the round."""
        units = list(self.allowed)
        rank = np.empty(len(units), dtype=np.int64)
        rank[sorted(range(len(units)), key=units.__getitem__)] = np.arange(len(units))
        ids, dates = [u[0] for u in units], [u[1] for u in units]
        cells = np.array([f"{i},{d}," for i, d in units] + [""], dtype=object)[:-1]  # 1-d even when empty
        return rank, cells, np.array(plain_units(ids, dates), dtype=bool)


def _factorized(values: list[str]) -> tuple[list[str], np.ndarray]:
    """The distinct values in order of first appearance, and each value's position among them."""
    codes, distinct = pd.factorize(np.array(values, dtype=object))
    return distinct.tolist(), codes.astype(np.int64, copy=False)


@dataclass
class Prepared:
    """A forecast set's CSV forecast file as a worker made it. ``rows``: the file's rows as int32
    positions among its round's units, None when ``fast_forecasts.as_read`` gives no frame for the file or the
    frame was kept as a cache entry."""

    data: bytes | None
    problems: list[Problem]
    rows: bytes | None
    values: bytes  # float64: each row's probability as the reader parses its text
    reasoning: object  # ``packed``
    staged: str | None = None  # where the file is staged (``atomic.stage_bytes``; ``data`` is then None)
    digest: str = ""  # with ``staged``: the sha256 of the file's bytes
    entry_kept: bool = False  # the file's frame is kept as a disk-cache entry (rows, values, reasoning left empty)


def pooled(n_files: int) -> bool:
    """Whether ``n_files`` are parsed by worker processes: enough of them, where forking is sound
    (``parallel.fork_sound``)."""
    return n_files >= _POOL_MIN_FILES and fork_sound()


def pool(use: bool, rounds: dict[str, pd.DataFrame] | None = None, hub: Hub | None = None):
    """A pool of forked workers (a null context when not ``use``); ``rounds``: the round questions
    the workers make forecast files against; ``hub``: the hub they stage them in, its lock held by
    the caller, who commits or removes every staged file (see the module docstring)."""
    if not use:
        return contextlib.nullcontext()
    _ROUNDS.clear()
    _ROUNDS.update({due: RoundUnits.of(questions) for due, questions in (rounds or {}).items()})
    _QUESTIONS.update(rounds or {})
    _HUB[:] = [hub] if hub is not None else []
    try:
        return worker_pool(_POOL_WORKERS)
    finally:
        _ROUNDS.clear()  # the workers have their copy; the parent keeps none
        _QUESTIONS.clear()
        _HUB.clear()


def parse_one(job: tuple[Path, str, str]) -> fbp.Parsed:
    path, label, parser = job
    body, problems = fbp.load_json(path, label)
    parsed = getattr(fbp, parser)(body, label) if not problems else fbp.Parsed(label, problems=problems)
    parsed.path = str(path)
    return parsed


def parse_packed(job: tuple[Path, str, str]) -> fbp.Parsed:
    """``parse_one`` in a worker process; a forecast set's file made there (``prepare``), or else its
    columns packed (``packed``) for the trip back."""
    parsed = parse_one(job)
    if job[2] != "parse_forecast_set" or len(parsed.rows) != 1 or not isinstance(parsed.rows[0], dict):
        return parsed
    parsed.prepared = prepare(parsed)
    parsed.rows = [] if parsed.prepared is not None else [{name: packed(values) for name, values in parsed.rows[0].items()}]
    return parsed


def baseline(job: tuple[str, str]) -> Prepared | None:
    """The forecast file of the hub's baseline ``model`` (one of ``baselines.at_open``, under its prefix) for the round
    due ``due``, made (and staged) like a set's; None when the import makes it itself: every unit of
    the round once, or nothing."""
    due, model = job
    columns = forecast_lists(at_open(team_of(model))[model][1](_QUESTIONS[due]))
    made = prepare(fbp.Parsed(model, due, rows=[columns]), model)
    return made if made is not None and not made.problems else None


def prepare(fset: fbp.Parsed, model: str | None = None) -> Prepared | None:
    """The CSV forecast file of ``fset`` against its round as the worker knows it (``_ROUNDS``), as
    the import would make it, for ``model`` (by default the set's own); None for a set the import
    makes itself (see the module docstring)."""
    units = _ROUNDS.get(fset.due)
    if units is None or fset.header.get("individual") or any(p.severity == "error" for p in fset.problems):
        return None
    made = in_file_order(fset, units)
    rows: Rows | None
    problems: list[Problem] = []
    if made is not None:
        data, rows = made
    else:
        try:
            columns, problems = frames.forecast_columns(fset, units.allowed)
        except ValueError:
            return None
        data, cells = forecast_file(columns, _MEMO)
        rows = _rows_read(cells, units)
    staged = (
        _staged(_HUB[0], _HUB[0].layout.forecast(parse_ts(fset.due), model or frames.model_id(fset)), data, problems, units, rows) if _HUB else None
    )
    if staged is not None:
        return staged
    if rows is None:
        return Prepared(data, problems, None, b"", None)
    return Prepared(data, problems, rows[0].tobytes(), np.asarray(rows[1], dtype=np.float64).tobytes(), packed(rows[2]))


# A file's rows that ``fast_forecasts.as_read`` reads back: their units' positions in the round (int32), the
# probabilities as the reader parses them, the reasonings, all in file order.
Rows = tuple[np.ndarray, list[float], list[str]]


def _rows_read(cells: list[list] | None, units: RoundUnits) -> Rows | None:
    """The ``Rows`` of a ``fast_forecasts.forecast_file`` file of these cells; None when ``as_read`` gives no frame for it."""
    if cells is None or not reads_as_written(cells):
        return None
    position = units.position
    return np.array([position[unit] for unit in zip(cells[0], cells[1], strict=True)], dtype=np.int32), cells[4], cells[3]


def in_file_order(fset: fbp.Parsed, units: RoundUnits) -> tuple[bytes, Rows] | None:
    """The forecast file of a set whose rows are distinct units of the round, each one plain
    (``fast_forecasts.plain_units``), with plain reasonings: its bytes and ``Rows``, the rows put in file
    order by the units' ranks (``RoundUnits.written``) rather than by sorting their texts. None for
    any other set: ``frames.forecast_columns`` and ``fast_forecasts.forecast_file`` then make the file, and
    say what is off (tests/interop/test_fb_fast_paths.py compares both ways on hostile sets)."""
    columns = fset.rows[0] if len(fset.rows) == 1 and isinstance(fset.rows[0], dict) else None
    if columns is None or set(columns) != set(FORECASTS.names):
        return None
    ids, dates, probs, reasons = (columns[name] for name in FORECASTS.names)
    if not ids or any(len(columns[name]) != len(ids) for name in FORECASTS.names):
        return None
    try:
        found = list(map(units.position.get, zip(ids, dates, strict=True)))
    except TypeError:  # an unhashable cell: not a unit
        return None
    if None in found:
        return None
    rank, cells, plain = units.written
    at = np.array(found, dtype=np.int64)
    if np.bincount(at).max() > 1 or not plain[at].all():
        return None
    order = np.argsort(rank[at])
    at, positions = at[order], order.tolist()
    reasons = [reasons[i] for i in positions]
    made = ordered_forecast_file(cells[at].tolist(), [probs[i] for i in positions], reasons, _MEMO)
    return None if made is None else (made[0], (at.astype(np.int32), made[2], reasons))


def _staged(hub: Hub, path: Path, data: bytes, problems: list[Problem], units: RoundUnits, rows: Rows | None) -> Prepared | None:
    """The file staged beside ``path`` in the hub and, with a disk cache, its frame kept as an entry;
    None when it cannot be staged (the main process then writes it itself, and meets the same error)."""
    try:
        staged = str(stage_bytes(path, data))
    except OSError:
        return None
    digest, label, disk = hashlib.sha256(data).hexdigest(), hub.layout.relative(path), hub.cache.disk
    if rows is None:
        return Prepared(None, problems, None, b"", None, staged, digest)
    name = table_entry(path, FORECASTS, label)
    entry = None if disk is None else cache_entry(disk.entry_name(name), digest, units, rows)
    if entry is not None and disk is not None and disk.save_entry(name, entry):
        return Prepared(None, problems, None, b"", None, staged, digest, entry_kept=True)
    return Prepared(None, problems, rows[0].tobytes(), np.asarray(rows[1], dtype=np.float64).tobytes(), packed(rows[2]), staged, digest)


def cache_entry(name: str, digest: str, units: RoundUnits, rows: Rows) -> bytes | None:
    """The disk-cache entry (``cache.disk.encode_columns``) of the frame ``fast_forecasts.as_read`` gives for a
    file of these ``rows``; None when a text has no UTF-8 form. The unit columns' distinct values
    come from the round's (``RoundUnits``), not found anew."""
    (question_id, resolution_date, probability, reasoning), dtypes = FORECASTS.names, table_dtypes(FORECASTS)
    at, values, reasons = rows
    distinct_reasons, reason_codes = _factorized(reasons)
    columns = [
        diskcache.text_column(question_id, dtypes[0], *_used(units.ids, at)),
        diskcache.text_column(resolution_date, dtypes[1], *_used(units.dates, at)),
        diskcache.plain_column(probability, dtypes[2], np.asarray(values, dtype=np.float64)),
        diskcache.text_column(reasoning, dtypes[3], distinct_reasons, reason_codes),
    ]
    if any(column is None for column in columns):
        return None
    return diskcache.encode_columns(name, digest, len(at), cast(list, columns))


def _used(factorized: tuple[list[str], np.ndarray], rows: np.ndarray) -> tuple[list[str], np.ndarray]:
    """The distinct values of the units at positions ``rows`` (of the round's, ``factorized``), and each row's among them."""
    distinct, codes = np.unique(factorized[1][rows], return_inverse=True)
    values = factorized[0]
    return [values[i] for i in distinct.tolist()], codes.reshape(-1)


def frame_of(prepared: Prepared, ids: np.ndarray, dates: np.ndarray) -> pd.DataFrame | None:
    """The frame ``fast_forecasts.as_read`` gives for the prepared file (None when it gives none); ``ids`` and
    ``dates``: the round's unit columns (object arrays) the worker's positions point into."""
    if prepared.rows is None:
        return None
    rows = np.frombuffer(prepared.rows, dtype=np.int32)
    reasons = cast(list, unpack(prepared.reasoning))
    return forecasts_frame(ids[rows], dates[rows], np.frombuffer(prepared.values, dtype=np.float64), reasons)


# A forecast set's columns cross from a worker process as one string per text column (cells joined
# by a separator none of them holds) and one float64 buffer for the probabilities: a million small
# objects pickled and unpickled one by one cost more than parsing them. Anything else goes as it is.
_JOIN = "\x1f"


def packed(values: list) -> object:
    if values and set(map(type, values)) == {str}:
        joined = _JOIN.join(values)
        if joined.count(_JOIN) == len(values) - 1:
            return ("packed-text", joined)
    if values and set(map(type, values)) == {float}:
        return ("packed-float", array("d", values).tobytes())
    return values


def unpacked(parsed: fbp.Parsed) -> fbp.Parsed:
    """The parsed set as ``parse_one`` made it, its packed columns (``packed``) lists again."""
    if len(parsed.rows) == 1 and isinstance(parsed.rows[0], dict):
        parsed.rows = [{name: unpack(values) for name, values in parsed.rows[0].items()}]
    return parsed


def unpack(values: object) -> object:
    if isinstance(values, tuple) and len(values) == 2 and values[0] == "packed-text":
        return values[1].split(_JOIN)
    if isinstance(values, tuple) and len(values) == 2 and values[0] == "packed-float":
        column = array("d")
        column.frombytes(values[1])
        return column.tolist()
    return values
