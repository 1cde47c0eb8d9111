"""Parse ForecastBench JSON files into plain row dicts, collecting every problem. Pure but for reads.

Formats (``shared/forecastbench/README.md``, FB paper appendix B):
- question set: ``{forecast_due_date, question_set, questions: [{id, source, question, ...,
  freeze_datetime, freeze_datetime_value, resolution_dates}]}``; ``resolution_dates`` is a list
  for dataset questions and ``"N/A"`` for markets;
- resolution set: ``{forecast_due_date, question_set, resolutions: [{id, source, direction,
  resolution_date, resolved_to, resolved}]}``;
- forecast set: ``{organization, model, model_organization, question_set, forecasts: [{id,
  source, forecast, resolution_date, reasoning}]}``.

Every defect becomes a ``Problem`` with a stable code; nothing here raises on bad input.
Rows whose ``id`` is a list (FB's legacy combination questions) are dropped with one
``combination-id`` warning per file.
"""

from __future__ import annotations

import hashlib
import importlib
import itertools
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ...errors import Problem
from ...vocabulary import FORECASTBENCH_DATASET_SOURCES as DATASET_SOURCES
from ...vocabulary import FORECASTBENCH_MARKET_SOURCES as MARKET_SOURCES

SOURCES = MARKET_SOURCES + DATASET_SOURCES
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_MAX_ROW_PROBLEMS = 20
LFS_POINTER = b"version https://git-lfs.github.com/spec/"
# FB's files round-trip through floats: 1.0000000000000002 is 1. Anything further out is refused.
FLOAT_NOISE = 1e-12


@dataclass
class Parsed:
    """What one FB file yielded: its due date, header fields, rows and problems."""

    label: str
    due: str = ""
    path: str = ""  # the file read (forecast sets kept as published are copied from it)
    header: dict = field(default_factory=dict)
    rows: list[dict] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    prepared: object = None  # a forecast set's file, made by a parsing worker (``workers.Prepared``)


def _problem(label: str, code: str, message: str, row: int | None = None, column: str | None = None, severity: str = "error") -> Problem:
    return Problem(label, row, column, code, message, severity)


def load_json(path: Path, label: str) -> tuple[object, list[Problem]]:
    """The parsed JSON of ``path``, or None and a ``bad-json`` problem (orjson when installed: faster,
    same values; the standard library otherwise)."""
    data = path.read_bytes()
    if data.startswith(LFS_POINTER):
        return None, [
            _problem(
                label,
                "lfs-pointer",
                "a Git LFS pointer, not the file: fetch the object (`git lfs pull`, or download it from the repository's web page) and import that",
            )
        ]
    try:
        if _depth_bound(data) <= _ORJSON_MAX_DEPTH:
            return _orjson.loads(data), []
    except (AttributeError, ValueError):  # no orjson, or a file only the standard library accepts (NaN)
        pass
    try:
        return json.loads(data.decode("utf-8")), []
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:  # RecursionError: absurd nesting
        return None, [_problem(label, "bad-json", f"not valid UTF-8 JSON: {exc}")]


# orjson overflows the C stack, killing the process, on ~200,000 nested brackets; deeper files go to
# the standard library, which raises RecursionError instead.
_ORJSON_MAX_DEPTH = 10_000


def _depth_bound(data: bytes) -> int:
    """An upper bound of the JSON nesting depth (brackets inside strings count too)."""
    opening = data.count(b"[") + data.count(b"{")
    if opening <= _ORJSON_MAX_DEPTH:  # no deeper than that, and cheap to count
        return opening
    codes = np.frombuffer(data, dtype=np.uint8)
    step = ((codes == 91) | (codes == 123)).astype(np.int32) - ((codes == 93) | (codes == 125))
    return int(step.cumsum().max(initial=0))


def _optional(name: str) -> Any:
    """The module ``name``, or None where it is not installed (typed Any: mypy then passes with and without it)."""
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


_orjson = _optional("orjson")  # an optional speed-up


def row_sha256(row: dict) -> str:
    """sha256 of a row's canonical JSON (sorted keys, no spaces)."""
    text = json.dumps(row, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _header(body: object, label: str, keys: tuple[str, ...], list_key: str) -> Parsed:
    out = Parsed(label)
    if not isinstance(body, dict):
        out.problems.append(_problem(label, "bad-structure", "the file must hold a JSON object"))
        return out
    missing = [k for k in (*keys, list_key) if k not in body]
    out.problems += [_problem(label, "missing-key", f"required key {k!r} is missing", column=k) for k in missing]
    if list_key in body and not isinstance(body[list_key], list):
        out.problems.append(_problem(label, "bad-structure", f"{list_key!r} must be a list", column=list_key))
    out.header = {k: body.get(k) for k in keys}
    return out


def due_of(parsed: Parsed, value: object, column: str) -> None:
    """Set ``parsed.due`` from a date or a ``<due>-...json`` question-set name, or add a problem."""
    text = value[:10] if isinstance(value, str) else ""
    if _DATE.match(text):
        parsed.due = text
    else:
        parsed.problems.append(_problem(parsed.label, "bad-date", f"{value!r} does not start with a YYYY-MM-DD due date", column=column))


def _row_key_problems(parsed: Parsed, i: int, row: object, keys: tuple[str, ...]) -> bool:
    """Check one row's shape, id and source; return True when the row is usable."""
    label, where = parsed.label, i + 1
    if not isinstance(row, dict):
        parsed.problems.append(_problem(label, "bad-structure", "a row must be a JSON object", row=where))
        return False
    missing = [k for k in keys if k not in row]
    if missing:
        parsed.problems.append(_problem(label, "missing-key", f"row lacks {', '.join(map(repr, missing))}", row=where, column=missing[0]))
        return False
    if isinstance(row["id"], list):
        return False
    if isinstance(row["id"], bool) or not isinstance(row["id"], (str, int)) or str(row["id"]) == "":
        parsed.problems.append(_problem(label, "bad-id", f"id {row['id']!r} is not a string", row=where, column="id"))
        return False
    if row["source"] not in SOURCES:
        parsed.problems.append(
            _problem(label, "unknown-source", f"source {row['source']!r} is not one of {', '.join(SOURCES)}", row=where, column="source")
        )
        return False
    return True


def _rows(parsed: Parsed, items: object, keys: tuple[str, ...], convert) -> None:
    """Convert each usable row with ``convert(parsed, where, row) -> dict | None``."""
    if not isinstance(items, list):
        return
    combos = 0
    for i, row in enumerate(items):
        if isinstance(row, dict) and isinstance(row.get("id"), list):
            combos += 1
        elif _row_key_problems(parsed, i, row, keys):
            converted = convert(parsed, i + 1, row)
            if converted is not None:
                parsed.rows.append(converted)
    if combos:
        parsed.problems.append(
            _problem(
                parsed.label, "combination-id", f"{combos} row(s) with a list id (combination questions) dropped", column="id", severity="warning"
            )
        )
    errors = [p for p in parsed.problems if p.severity == "error"]
    if len(errors) > _MAX_ROW_PROBLEMS:
        parsed.problems = [p for p in parsed.problems if p.severity != "error"] + errors[:_MAX_ROW_PROBLEMS]


def _date_or_problem(parsed: Parsed, where: int, value: object, column: str) -> str | None:
    if isinstance(value, str) and _DATE.match(value):
        return value
    parsed.problems.append(_problem(parsed.label, "bad-date", f"{value!r} is not a YYYY-MM-DD date", row=where, column=column))
    return None


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    try:
        number = float(value)
    except (ValueError, OverflowError):  # OverflowError: an integer too large for a float
        return None
    return number if math.isfinite(number) else None


# -- question sets --------------------------------------------------------------------------------

_Q_KEYS = ("id", "source", "question", "resolution_dates")


def _question(parsed: Parsed, where: int, row: dict) -> dict | None:
    dates = row["resolution_dates"]
    is_market = row["source"] in MARKET_SOURCES
    if not is_market and not (isinstance(dates, list) and all(isinstance(d, str) and _DATE.match(d) for d in dates)):
        parsed.problems.append(
            _problem(
                parsed.label,
                "bad-date",
                "a dataset question's resolution_dates must be a list of YYYY-MM-DD dates",
                row=where,
                column="resolution_dates",
            )
        )
        return None
    text = {
        k: (row.get(k) if isinstance(row.get(k), str) else "")
        for k in (
            "question",
            "background",
            "resolution_criteria",
            "url",
            "freeze_datetime",
            "freeze_datetime_value",
            "market_info_open_datetime",
            "market_info_close_datetime",
        )
    }
    return {**text, "id": str(row["id"]), "source": row["source"], "resolution_dates": [] if is_market else sorted(set(dates))}


def parse_question_set(body: object, label: str) -> Parsed:
    parsed = _header(body, label, ("forecast_due_date", "question_set"), "questions")
    if not parsed.problems and isinstance(body, dict):  # _header found a problem unless body is a dict
        due_of(parsed, parsed.header["forecast_due_date"], "forecast_due_date")
        _rows(parsed, body["questions"], _Q_KEYS, _question)
    return parsed


# -- resolution sets ------------------------------------------------------------------------------

_R_KEYS = ("id", "source", "resolution_date", "resolved_to", "resolved")


def _resolution(parsed: Parsed, where: int, row: dict) -> dict | None:
    date = _date_or_problem(parsed, where, row["resolution_date"], "resolution_date")
    value = _number(row["resolved_to"])
    if not isinstance(row["resolved"], bool):
        parsed.problems.append(_problem(parsed.label, "bad-value", f"resolved {row['resolved']!r} is not true/false", row=where, column="resolved"))
        return None
    if row["resolved_to"] is not None and value is None:
        parsed.problems.append(
            _problem(parsed.label, "bad-outcome", f"resolved_to {row['resolved_to']!r} is not a number", row=where, column="resolved_to")
        )
        return None
    if date is None:
        return None
    return {
        "id": str(row["id"]),
        "source": row["source"],
        "resolution_date": date,
        "resolved_to": value,
        "resolved": row["resolved"],
        "sha": row_sha256(row),
    }


def parse_resolution_set(body: object, label: str) -> Parsed:
    parsed = _header(body, label, ("forecast_due_date", "question_set"), "resolutions")
    if not parsed.problems and isinstance(body, dict):  # _header found a problem unless body is a dict
        due_of(parsed, parsed.header["forecast_due_date"], "forecast_due_date")
        _rows(parsed, body["resolutions"], _R_KEYS, _resolution)
    return parsed


# -- forecast sets --------------------------------------------------------------------------------

_F_KEYS = ("id", "source", "forecast")
FORECAST_HEADER = ("organization", "model", "question_set")
OPTIONAL_HEADER = ("model_organization", "model_release_date", "forecast_variant_key", "model_run_key")
# Spellings FB has published for a header key (its individual human files say ``question-set``).
HEADER_ALIASES = {"question-set": "question_set", "model-organization": "model_organization"}
MEMBER_KEY = "user_id"  # rows of an individual file: one forecaster of a group each


def _forecast(parsed: Parsed, where: int, row: dict) -> dict | None:
    if row["forecast"] is None:
        return None  # FB writes null for "no forecast": imputed at scoring time
    p = _number(row["forecast"])
    if p is not None and -FLOAT_NOISE <= p <= 1.0 + FLOAT_NOISE:
        p = min(max(p, 0.0), 1.0)
    if p is None or not 0.0 <= p <= 1.0:
        parsed.problems.append(
            _problem(parsed.label, "bad-probability", f"forecast {row['forecast']!r} is not a probability in [0, 1]", row=where, column="forecast")
        )
        return None
    date = row.get("resolution_date")
    if row["source"] in MARKET_SOURCES or date is None:
        date = ""
    elif _date_or_problem(parsed, where, date, "resolution_date") is None:
        return None
    reasoning = row.get("reasoning")
    return {
        "question_id": f"{row['source']}:{row['id']}",
        "resolution_date": date,
        "probability": p,
        "reasoning": reasoning if isinstance(reasoning, str) else "",
        "member": _member(row.get(MEMBER_KEY)),
    }


def _member(value: object) -> str:
    return "" if value is None or isinstance(value, bool) else str(value).strip()


def canonical_header(body: object) -> object:
    """``body`` with FB's other spellings of header keys (``question-set``) under their usual names."""
    if not isinstance(body, dict) or not any(k in body for k in HEADER_ALIASES):
        return body
    out = dict(body)
    for alias, key in HEADER_ALIASES.items():
        if alias in out:
            value = out.pop(alias)
            out.setdefault(key, value)
    return out


def parse_forecast_set(body: object, label: str) -> Parsed:
    """Header and rows of a forecast set; ``rows`` holds one dict of columns (see ``fast_forecasts``).

    An individual file (rows carrying ``user_id``: one forecaster each, FB's human files) gets a
    ``member`` column and ``header["individual"] = True``; extra per-row fields are ignored."""
    body = canonical_header(body)
    parsed = _header(body, label, FORECAST_HEADER, "forecasts")
    if not parsed.problems and isinstance(body, dict):  # _header found a problem unless body is a dict
        for key in ("organization", "model"):
            if not isinstance(parsed.header[key], str) or not parsed.header[key].strip():
                parsed.problems.append(_problem(label, "bad-model", f"{key} must be a non-empty string", column=key))
        due_of(parsed, parsed.header["question_set"], "question_set")
        parsed.header.update({k: body.get(k) for k in OPTIONAL_HEADER if isinstance(body.get(k), str)})
        items = _without_imputed(parsed, body["forecasts"])
        individual = isinstance(items, list) and _any_member(items)
        columns = fast_forecasts(items, individual)
        if columns is None:  # something is off: take the row-by-row path, which says what
            _rows(parsed, items, _F_KEYS, _forecast)
            columns = {k: [r[k] for r in parsed.rows] for k in _F_COLUMNS}
            if individual:
                columns["member"] = [r["member"] for r in parsed.rows]
        parsed.header["individual"] = individual
        parsed.rows = [columns]
    return parsed


_F_COLUMNS = ("question_id", "resolution_date", "probability", "reasoning")


def _imputed(row: object) -> bool:
    return isinstance(row, dict) and row.get("imputed") is True


def _without_imputed(parsed: Parsed, items: object) -> object:
    """``items`` without the rows a processed forecast set marks ``"imputed": true``: ForecastBench's
    imputations, not the model's forecasts (the hub imputes a missing forecast itself, and counts it
    for the 5% rule); one ``imputed-forecast`` warning says how many."""
    if not isinstance(items, list) or not any(map(_imputed, items)):
        return items
    kept = [row for row in items if not _imputed(row)]
    parsed.problems.append(
        _problem(
            parsed.label,
            "imputed-forecast",
            f"{len(items) - len(kept)} row(s) marked imputed (ForecastBench's imputations, not the model's forecasts) dropped",
            column="imputed",
            severity="warning",
        )
    )
    return kept


def _any_member(items: list) -> bool:
    """Whether a row of ``items`` is an object with a ``user_id`` (asked in one C-level pass while every row is one)."""
    try:
        return any(map(dict.__contains__, items, itertools.repeat(MEMBER_KEY)))
    except TypeError:  # a row that is not an object
        return any(isinstance(r, dict) and MEMBER_KEY in r for r in items)


def fast_forecasts(items: object, individual: bool = False) -> dict | None:
    """Columns of a well-formed forecasts list in one pass per column, or None if any row is not.

    Well-formed: every row an object with a string id, a known source, a forecast that is null or
    a number in [0, 1], and a YYYY-MM-DD (or null) resolution_date. Null forecasts are skipped.
    The checks run on whole columns (the set of types, one numpy range test over the floats); the
    verdict and the columns are those of the same checks row by row (tests/interop/test_fb_fast_paths.py).
    """
    if not isinstance(items, list) or not set(map(type, items)) <= _DICT or (fields := _fields(items)) is None:
        return None
    ids, sources, values, dates, reasons = fields
    value_types = set(map(type, values))
    if not (
        set(map(type, ids)) <= _STR
        and "" not in ids
        and set(map(type, sources)) <= _STR
        and set(sources) <= _SOURCE_SET
        and value_types <= _VALUE_TYPES
        and _probabilities(values, value_types)
        and set(map(type, dates)) <= _DATE_TYPES
        and all(d is None or _DATE.match(d) for d in set(dates))
    ):
        return None
    members = [_member(r.get(MEMBER_KEY)) for r in items] if individual else None
    if _NONE in value_types:
        keep = [i for i, v in enumerate(values) if v is not None]
        ids, sources, values = [ids[i] for i in keep], [sources[i] for i in keep], [values[i] for i in keep]
        dates, reasons = [dates[i] for i in keep], [reasons[i] for i in keep]
        members = None if members is None else [members[i] for i in keep]
    markets = set(MARKET_SOURCES)
    extra = {} if members is None else {"member": members}
    return extra | {
        "question_id": [f"{s}:{i}" for s, i in zip(sources, ids, strict=True)],
        "resolution_date": ["" if s in markets or d is None else d for s, d in zip(sources, dates, strict=True)],
        "probability": values if value_types <= _FLOAT else [float(v) for v in values],
        "reasoning": [r if type(r) is str else "" for r in reasons],
    }


def _fields(items: list[dict]) -> tuple[list, list, list, list, list] | None:
    """The id, source, forecast, resolution_date and reasoning columns; None if a required key is missing."""
    try:
        ids, sources, values = [r["id"] for r in items], [r["source"] for r in items], [r["forecast"] for r in items]
    except KeyError:
        return None
    return ids, sources, values, [r.get("resolution_date") for r in items], [r.get("reasoning") for r in items]


_DICT, _STR, _FLOAT, _NONE = {dict}, {str}, {float}, type(None)
_SOURCE_SET = set(SOURCES)
_VALUE_TYPES, _DATE_TYPES = {_NONE, int, float}, {_NONE, str}


def _probabilities(values: list, types: set) -> bool:
    """Every int or float of ``values`` lies in [0, 1] (NaN does not); ``types`` is their type set."""
    if float in types:
        floats = np.array([v for v in values if type(v) is float] if types != _FLOAT else values, dtype=float)
        if not bool(((floats >= 0.0) & (floats <= 1.0)).all()):
            return False
    return int not in types or all(0 <= v <= 1 for v in values if type(v) is int)
