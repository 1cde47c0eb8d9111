"""Canonical forecast-file bytes, fast: the same bytes as ``csvio.to_csv_bytes(frame, FORECASTS)``.

An import writes thousands of forecast files; the general writer checks and formats cell by cell.
Here the cells are joined directly. Any cell the general writer would quote or change (see
``csvio.all_bare``: a comma, a quote, a control character, edge whitespace, a lone surrogate...),
or a value outside the schema, sends the frame to the general writer instead, so the output never
differs (tests compare both).

``forecast_file`` does the same from plain column lists and also returns the rows as written, from
which ``as_read`` builds the text frame ``read_table`` would parse from those bytes, so the import
can hand it to the scoring without reading the file back (tests/test_fast_paths.py).
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ..schemas import FORECASTS
from .csvio import all_bare, coerce, to_csv_bytes

_DATE = re.compile(r"^(\d{4}-\d{2}-\d{2})?$")
_HEADER = ",".join(FORECASTS.names) + "\n"


def _plain(values: list) -> bool:
    """Every value a str the general writer writes as it is (no quotes, nothing replaced)."""
    return set(map(type, values)) <= _STR and all_bare(values)


_STR = {str}


def _probabilities_ok(probs: list) -> bool:
    """Every value a float (not NaN) in [0, 1]."""
    if not set(map(type, probs)) <= {float}:
        return False
    values = np.array(probs, dtype=float)
    return bool(((values >= 0.0) & (values <= 1.0)).all())


def _fast_rows(ids: list, dates: list, probs: list, reasons: list) -> list[tuple] | None:
    """The rows in file order when the cells need no quoting and fit the schema; None otherwise.
    (Rows are sorted as plain tuples: the (id, date) pairs are unique, so only they decide.)"""
    ok = (_plain(ids) and _plain(dates) and _plain(reasons) and "" not in ids and len(set(zip(ids, dates))) == len(ids)
          and all(_DATE.match(d) for d in set(dates)) and _probabilities_ok(probs))
    return sorted(zip(ids, dates, probs, reasons)) if ok else None


_MEMO_LIMIT = 1_000_000
# Per probability seen (shared by every file, bounded): its "%.6f" text, and the value csvio's
# reader gives that text (``coerce``, which converts cell by cell, run once per distinct text).
_PROB: dict[float, tuple[str, float]] = {}


def _prob_table(probs: set[float]) -> dict[float, tuple[str, float]]:
    """A dict holding every value of ``probs``: the shared table, completed as needed."""
    missing = [p for p in probs if p not in _PROB]
    if not missing:
        return _PROB
    texts = [f"{p + 0.0:.6f}" for p in missing]
    raw = pd.DataFrame({n: pd.Series(texts if n == "probability" else [""] * len(texts), dtype=str) for n in FORECASTS.names})
    found = dict(zip(missing, zip(texts, coerce(raw, FORECASTS)["probability"].tolist())))
    if len(_PROB) + len(found) <= _MEMO_LIMIT:
        _PROB.update(found)
        return _PROB
    return {**{p: _PROB[p] for p in probs if p in _PROB}, **found}


def _body(rows: list[tuple]) -> tuple[bytes, list[str], list[float]]:
    """The file's bytes, each row's probability text and the value the reader parses from it."""
    table = _prob_table({r[2] for r in rows})  # each distinct value formatted (and parsed) once
    pairs = [table[r[2]] for r in rows]
    texts, values = [p[0] for p in pairs], [p[1] for p in pairs]
    body = "".join([f"{a},{b},{c},{d}\n" for (a, b, _, d), c in zip(rows, texts)])
    return (_HEADER + body).encode("utf-8"), texts, values


def forecast_bytes(frame: pd.DataFrame) -> bytes:
    """The canonical CSV bytes of a FORECASTS frame."""
    ids, dates = frame["question_id"].tolist(), frame["resolution_date"].fillna("").tolist()
    reasons, probs = frame["reasoning"].fillna("").tolist(), frame["probability"].tolist()
    rows = _fast_rows(ids, dates, probs, reasons)
    return to_csv_bytes(frame, FORECASTS) if rows is None else _body(rows)[0]


def forecast_file(columns: dict[str, list]) -> tuple[bytes, list[list[str]] | None]:
    """``forecast_bytes`` of the frame of ``columns`` (FORECASTS' four column lists, no missing
    values), and the file's text cells column by column followed by the probabilities as the
    reader parses them (None when the general writer wrote the file)."""
    names = FORECASTS.names
    rows = _fast_rows(*(columns[n] for n in names))
    if rows is None:
        return forecast_bytes(pd.DataFrame({n: columns[n] for n in names}, columns=list(names))), None
    data, texts, values = _body(rows)
    return data, [[r[0] for r in rows], [r[1] for r in rows], texts, [r[3] for r in rows], values]


_UNSTABLE = re.compile(r"[\x00-\x1f\x7f\ufeff]")


def as_read(cells: list[list[str]]) -> pd.DataFrame | None:
    """The frame ``csvio.read_table`` returns for a ``forecast_file`` body with these cells, or
    None when it would not be exactly that or would not pass: a cell holds a control character
    (the CSV reader's handling of them is not restated here), or a question_id is blank (the
    reader rejects it). Every other check of the reader holds by construction (header, unique
    keys, dates, "%.6f" probabilities in [0, 1]); the probabilities come parsed by the reader's
    own ``coerce`` (see ``_prob_table``). tests/test_fast_paths.py compares with real reads."""
    ids, dates, _, reasons, values = cells
    if _UNSTABLE.search("".join(ids)) or _UNSTABLE.search("".join(reasons)) or not all(map(str.strip, ids)):
        return None
    return pd.DataFrame({"question_id": pd.array(ids, dtype=str), "resolution_date": pd.array(dates, dtype=str),
                         "probability": np.array(values, dtype=float), "reasoning": pd.array(reasons, dtype=str)}, index=pd.RangeIndex(len(ids)))
