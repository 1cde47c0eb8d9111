"""The CSV format: a checked read, a canonical write and the read-back that proves it, against
``schemas.Table`` both ways. The plain reference: nothing here caches or dispatches elsewhere.

Reading keeps every cell as text first (``parse_bytes``), then checks it (``check_frame``) and
converts it column by column (``coerce``), reporting each bad cell with file, row (the header is
row 1) and column; a column whose distinct values all match a strict pattern in one regex pass is
known clean without the cell-by-cell check (same verdict, see ``_column_clean``). Writing fixes the
column order, sorts rows by the table's sort key and formats numbers the same way every time
(``to_csv_bytes``); ``write_table`` replaces the file through ``atomic.write_bytes_atomic`` only
when its bytes change, after parsing them back with the reader and comparing them with the rows
meant (``RoundTripError``, code ``write-read-back``, when they differ: the old file stays).

Any text can be written and read back. A cell is wrapped in double quotes (its quotes doubled) when
it holds a comma, a quote, CR or LF, any other control character, U+2028 or U+2029, or starts or
ends with whitespace; every other cell is written bare. Two things cannot be stored as sent and become
U+FFFD (the replacement character) in every text cell, wherever the text came from: a lone surrogate
(a JSON payload may carry ``"\\ud800"``; it has no UTF-8 encoding) and NUL (git would treat the file as
binary). ``ingest`` builds the fetched rows through ``as_text``, so a source's text is cleaned the moment it enters the hub.

Around it: ``atomic`` (how a file is replaced or grown), ``fast_forecasts`` (forecast files, the same bytes
fast), ``spreadsheet`` (CSV for people), ``ledger.append_rows`` (a ledger grown in place), ``cache`` (each file read once).
"""

from __future__ import annotations

import functools
import io
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import LedgerError, Problem, SchemaError
from ..schemas import Column, Table
from .atomic import write_bytes_atomic


class RoundTripError(LedgerError):
    """Bytes about to replace a ledger do not read back as the rows meant; nothing is replaced."""


_TS_PATTERN = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$"
_DATE_PATTERN = r"^\d{4}-\d{2}-\d{2}$"


def read_table(path: Path, table: Table, label: str | None = None) -> pd.DataFrame:
    """Read and type-check one CSV. Raises SchemaError listing every problem found. (A command reads
    through its cache, ``store.cache.ReadCache.read_table``, which calls this once per file.)"""
    return _read_checked(path, table, label or str(path))


@functools.cache
def table_dtypes(table: Table) -> list[str]:
    """The dtypes ``coerce`` gives ``table``'s columns, as text."""
    return [str(t) for t in empty_frame(table).dtypes]


def _read_checked(path: Path, table: Table, label: str) -> pd.DataFrame:
    raw = _read_text_frame(path, label)
    problems = check_frame(raw, table, label)
    if any(p.severity == "error" for p in problems):
        raise SchemaError(f"{label}: does not match the {table.name} schema", problems)
    return coerce(raw, table)


def _read_text_frame(path: Path, label: str) -> pd.DataFrame:
    return parse_bytes(path.read_bytes(), label)


def parse_bytes(data: bytes, label: str) -> pd.DataFrame:
    """Every cell of CSV bytes as text, exactly as ``read_table`` parses a file."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SchemaError(f"{label}: not UTF-8", [Problem(label, None, None, "not-utf8", str(exc))]) from None
    bom = text.startswith("\ufeff")  # a spreadsheet's byte-order mark (the validator warns: utf8-bom)
    if not text[bom:].strip():
        raise SchemaError(f"{label}: empty file", [Problem(label, 1, None, "empty-file", "the file has no header row")])
    # the bytes themselves, known to be UTF-8: the parser reads text as its UTF-8 bytes anyway (in a
    # third less time; tests/store/test_fast_paths.py compares with parsing the decoded text)
    return pd.read_csv(io.BytesIO(data[3:] if bom else data), dtype=str, keep_default_na=False, na_filter=False, encoding="utf-8")


UNREADABLE = (SchemaError, pd.errors.ParserError, pd.errors.EmptyDataError)  # what parse_bytes raises on bytes it cannot read


def why_unreadable(exc: Exception) -> str:
    """Why ``parse_bytes`` could not read some bytes, in words: its problem's message (the decoder's
    own, for bytes that are not UTF-8), else the parser's."""
    return exc.problems[0].message if isinstance(exc, SchemaError) and exc.problems else str(exc)


def check_frame(raw: pd.DataFrame, table: Table, label: str, keys: bool = True) -> list[Problem]:
    """Every structural and cell-level problem of a text frame against ``table``; ``keys=False``
    when the caller knows the key unique (the duplicate-key check is then skipped)."""
    problems = [
        Problem(label, 1, name, "missing-column", f"required column {name!r} is missing")
        for name in table.names
        if name not in raw.columns and name not in table.late
    ]
    problems += [
        Problem(label, 1, name, "unknown-column", f"column {name!r} is not in the {table.name} schema")
        for name in raw.columns
        if name not in table.names
    ]
    for column in table.columns:
        if column.name in raw.columns:
            problems += _check_column(raw[column.name], column, label)
    if keys and not any(p.code == "missing-column" for p in problems):
        problems += _check_keys(raw, table, label)
    return problems


def _check_column(values: pd.Series, column: Column, label: str) -> list[Problem]:
    text = values.astype(str)
    if _column_clean(text, column):
        return []
    empty = (text.str.strip() == "").to_numpy()
    invalid = ~empty & ~_valid(text, column).to_numpy(dtype=bool)
    bad = invalid | (empty & (not column.nullable))
    if not bad.any():
        return []
    words = "is not a valid " + _type_words(column)
    return [
        Problem(
            label, int(i) + 2, column.name, "bad-value" if invalid[i] else "empty-value", f"{text.iloc[i]!r} {words if invalid[i] else 'is empty'}"
        )
        for i in np.flatnonzero(bad)[:50]
    ]


# Whole-column fast path. Each pattern accepts a subset of what the cell-by-cell check accepts
# (ASCII digits only, no signs or spaces, bounded lengths so every number is finite), so a column
# that matches is certainly clean; anything else goes through the cell-by-cell check, which alone
# words the problems. ``_SEP`` cannot occur in a matching cell, and the separator count is checked,
# so a cell holding the separator cannot pass as two cells.
_SEP = "\n"
_FAST_CELL = {
    "ts": r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z",
    "date": r"[0-9]{4}-[0-9]{2}-[0-9]{2}",
    "int": r"-?[0-9]{1,18}",
    "prob": r"0(?:\.[0-9]{1,20})?|1(?:\.0{1,20})?",
    "float": r"-?[0-9]{1,15}(?:\.[0-9]{1,20})?(?:e[-+][0-9]{2})?",
}
_FAST_COLUMN = {  # (type, nullable) -> one regex over the whole joined column
    (type_, nullable): re.compile(f"(?:{cell}){'?' * nullable}(?:{_SEP}(?:{cell}){'?' * nullable})*")
    for type_, cell in _FAST_CELL.items()
    for nullable in (False, True)
}


def _column_clean(text: pd.Series, column: Column) -> bool:
    """True when every cell of ``text`` is certainly valid for ``column`` (False: not known)."""
    if column.type == "str" and column.nullable:
        return True  # any text, empty or not
    # validity is per value: check each value once (a dict keeps them in order of first appearance,
    # as pd.unique does, without its factorising, the larger part of reading a small file)
    cells = list(dict.fromkeys(text.to_numpy(dtype=object).tolist()))
    try:  # a cell that is not a str (a missing value) raises TypeError: the slow path decides
        if column.type == "str":
            return all(map(str.strip, cells))
        if column.type == "enum":
            return set(cells) <= set(column.choices) and all(map(str.strip, column.choices))
        pattern = _FAST_COLUMN.get((column.type, column.nullable))
        if pattern is None or not len(cells):
            return pattern is not None
        joined = _SEP.join(cells)
    except TypeError:
        return False
    return joined.count(_SEP) == len(cells) - 1 and pattern.fullmatch(joined) is not None


def _valid(text: pd.Series, column: Column) -> pd.Series:
    if column.type == "str":
        return pd.Series(True, index=text.index)
    if column.type == "ts":
        return text.str.match(_TS_PATTERN)
    if column.type == "date":
        return text.str.match(_DATE_PATTERN)
    if column.type == "enum":
        return text.isin(column.choices)
    if column.type in ("float", "prob", "int"):
        numbers = pd.to_numeric(text, errors="coerce")
        ok = numbers.notna() & np.isfinite(numbers.astype(float))
        if column.type == "prob":
            ok &= (numbers >= 0) & (numbers <= 1)
        if column.type == "int":
            ok &= text.str.match(r"^-?\d+$")
        return ok
    return pd.Series(True, index=text.index)


def _type_words(column: Column) -> str:
    return {
        "ts": "UTC timestamp (YYYY-MM-DDTHH:MM:SSZ)",
        "date": "date (YYYY-MM-DD)",
        "enum": "value (one of " + ", ".join(column.choices) + ")",
        "float": "finite number",
        "prob": "probability (a number from 0 to 1)",
        "int": "whole number",
    }.get(column.type, "value")


def _check_keys(raw: pd.DataFrame, table: Table, label: str) -> list[Problem]:
    key = [k for k in table.key if k in raw.columns]  # a late key column a file lacks is empty on every row
    if _unique_text_keys(raw, key):
        return []
    dup = raw.duplicated(key, keep="first")
    return [
        Problem(
            label,
            int(i) + 2,
            ",".join(table.key),
            "duplicate-key",
            "the key (" + ", ".join(f"{k}={raw.iloc[i][k]!r}" for k in key) + ") appears twice",
        )
        for i in np.flatnonzero(dup.to_numpy())[:50]
    ]


def _unique_text_keys(raw: pd.DataFrame, key: list[str]) -> bool:
    """True when every row's key is certainly distinct (False: not known, ``duplicated`` decides):
    key columns of text only, no missing value, and as many distinct keys as rows (a set of tuples
    costs a fraction of ``duplicated``'s factorising for the thousands of small files a build reads)."""
    if not key:
        return False
    columns = [raw[k].to_numpy(dtype=object).tolist() for k in key]
    if any(set(map(type, values)) != {str} for values in columns):
        return False
    return len(set(zip(*columns, strict=True))) == len(raw)


def coerce(raw: pd.DataFrame, table: Table) -> pd.DataFrame:
    """Typed frame: numbers as float64/int64 (NaN for empty), everything else as str. Numbers are parsed
    from the cells as an object array, not through the text dtype: the same values in half the time."""
    out: dict[str, Any] = {}  # column arrays, positional, made into one frame at the end (no per-column inserts)
    for column in table.columns:
        values = raw[column.name] if column.name in raw.columns else pd.Series([""] * len(raw), index=raw.index, dtype=object)
        numbers = pd.to_numeric(values.to_numpy(dtype=object), errors="coerce") if column.type in ("float", "prob", "int") else None
        if numbers is None:
            out[column.name] = values.astype(str).array
        elif column.type != "int" or column.nullable:
            out[column.name] = numbers.astype(float)
        else:  # an empty cell 0 (NaN from ``to_numeric``); out of range as pandas casts it
            with np.errstate(invalid="ignore"):
                out[column.name] = numbers.astype("int64") if numbers.dtype.kind in "iu" else np.nan_to_num(numbers, nan=0.0).astype("int64")
    return pd.DataFrame(out, index=pd.RangeIndex(len(raw)))


def empty_frame(table: Table) -> pd.DataFrame:
    """A frame of ``table``'s columns and types with no row (a copy: the caller may add to it)."""
    return _empty(table).copy()


@functools.cache
def _empty(table: Table) -> pd.DataFrame:
    return coerce(pd.DataFrame({name: pd.Series(dtype=str) for name in table.names}), table)


def to_csv_bytes(frame: pd.DataFrame, table: Table) -> bytes:
    """The canonical bytes of ``frame``: schema column order, sorted by the table's sort key (the
    plain writer; ``fast_forecasts.forecast_bytes`` gives a forecast file's, the same bytes, fast)."""
    return encode(table.names, canonical_cells(frame, table))


def canonical_cells(frame: pd.DataFrame, table: Table, text: pd.DataFrame | None = None) -> list[np.ndarray]:
    """The text of every cell as written, column by column in schema order, rows in file order.
    ``text``: ``as_text(frame, table)`` when the caller has it already."""
    text = as_text(frame, table) if text is None else text
    columns = [text[name].to_numpy(dtype=object) for name in table.names]
    ranked = _text_order(columns, table)
    problems = check_frame(text, table, table.path, keys=ranked is None or not ranked[1])
    if problems:
        raise SchemaError(f"refusing to write {table.name}: it does not match its schema", problems)
    order = _row_order(frame, columns, table) if ranked is None else ranked[0]
    return columns if order is None else [c[order] for c in columns]


def _text_order(columns: list[np.ndarray], table: Table) -> tuple[np.ndarray | None, bool] | None:
    """For a table whose rows sort by their text and whose key is its sort columns: the positions
    of the rows in sort order (None when they already are in it; ``_row_order``'s order, as a stable
    sort of the same tuples) and whether the key is unique (equal keys are then neighbours: with no
    equal neighbours, ``_check_keys`` finds nothing). Each column is ranked by its distinct texts
    (factorized, then those few sorted) and the ranks sorted together; None for other tables."""
    if not sortable_as_text(table) or set(table.sort) != set(table.key) or not len(columns[0]):
        return None
    ranks = [_text_ranks(columns[table.names.index(c)]) for c in table.sort]
    order = np.lexsort(ranks[::-1])  # stable; the last key is the primary one
    same = np.ones(len(order) - 1, dtype=bool)
    for r in ranks:
        same &= r[order[:-1]] == r[order[1:]]
    in_place = bool((order == np.arange(len(order))).all())
    return None if in_place else order, not same.any()


def _text_ranks(cells: np.ndarray) -> np.ndarray:
    """Each cell's rank among the column's distinct texts (str order)."""
    codes, distinct = pd.factorize(cells)
    rank = np.empty(len(distinct), dtype=np.int64)
    rank[np.argsort(np.asarray(distinct, dtype=object), kind="stable")] = np.arange(len(distinct))
    return rank[codes]


def encode(names: tuple[str, ...], columns: list[np.ndarray]) -> bytes:
    """CSV bytes: a header row, then one line per row, ``\\n`` line ends, cells quoted as needed."""
    return encoded(names, columns)[0]


def encoded(names: tuple[str, ...], columns: list[np.ndarray]) -> tuple[bytes, bool]:
    """``encode``'s bytes, and whether they are plain (``plain_bytes``) with every cell, the
    header's too, written as it is: such bytes read back as exactly these cells (``read_back_check``)."""
    lone = len(columns) == 1  # a lone empty cell would be a blank line, which readers skip
    written = [quote_cells(c, lone) for c in columns]
    header = np.array(names, dtype=object)
    head = quote_cells(header, lone)
    lines = map(",".join, zip(*(c.tolist() for c in written), strict=True))
    data = "\n".join([",".join(head), *lines, ""]).encode("utf-8")
    as_is = head is header and all(w is c for w, c in zip(written, columns, strict=True))
    return data, as_is and plain_bytes(data, len(columns[0]) if columns else 0, len(names))


# Every byte but a quote and the control characters other than the line feed: deleting them all
# from plain bytes leaves nothing (``bytes.translate`` runs several times faster than a regex here).
PLAIN_BYTES = bytes(b for b in range(256) if not (b == 0x22 or b < 0x20 and b != 0x0A or b == 0x7F))


def plain_bytes(data: bytes, rows: int, width: int) -> bool:
    """True when CSV bytes of a header and ``rows`` rows of ``width`` (two or more) cells, each cell's
    text joined as it is by commas and line ends, are split by the reader exactly there: they hold
    no quote and no control character but the line ends, and exactly as many commas and line ends as
    the joins put in. Checked on the bytes, not on how the cells were judged (``needs_quotes``), so
    it holds even if that judgement is wrong (tests/store/test_fast_paths.py compares with the reader)."""
    return width >= 2 and data.count(b"\n") == rows + 1 and data.count(b",") == (rows + 1) * (width - 1) and not data.translate(None, PLAIN_BYTES)


# A cell needing quotes (see the module docstring). ``_QUOTE_ANY`` finds whether any cell of a
# column joined with "\n" may need them: the line feed is left out of its class, and the edge
# whitespace is sought at line starts and ends, so it must be paired with a count of the "\n"s.
_QUOTE_CELL = re.compile(r'[,"\x00-\x1f\x7f-\x9f\u2028\u2029]|\A\s|\s\Z')
_QUOTE_ANY = re.compile(r'[,"\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029]|^[^\S\n]|[^\S\n]$', re.MULTILINE)


def needs_quotes(text: str) -> bool:
    return _QUOTE_CELL.search(text) is not None


def all_bare(cells: list[str]) -> bool:
    """True when every cell (a str) is written as it is: no quotes, nothing replaced. One pass for
    a character that could make a cell need either (``_SUSPECT``) answers for most columns; only a
    column holding one is looked at closely."""
    joined = "\n".join(cells)
    if joined.count("\n") != len(cells) - 1:
        return False
    return _SUSPECT.search(joined) is None or not _QUOTE_ANY.search(joined) and not _UNWRITABLE.search(joined)


def quote_cells(cells: np.ndarray, lone: bool = False) -> np.ndarray:
    """Cells as written: wrapped in quotes, their quotes doubled, when they need it. Each distinct
    text is looked at once (a long column repeats its ids, dates and numbers)."""
    values = cells.tolist()
    distinct = list(set(values)) if len(values) > _DISTINCT_FROM else values
    if not values or (all_bare(distinct) and not (lone and "" in distinct)):
        return cells
    written = {v: f'"{v.replace(chr(34), chr(34) * 2)}"' if needs_quotes(v) or (lone and not v) else v for v in distinct}
    return np.array([written[v] for v in values], dtype=object)


_DISTINCT_FROM = 64  # shorter columns are looked at cell by cell (building the set costs more)


def _row_order(frame: pd.DataFrame, columns: list[np.ndarray], table: Table) -> np.ndarray | None:
    """Positions of the rows in sort order (stable), or None when they already are in it."""
    if sortable_as_text(table):
        keys = [columns[table.names.index(c)] for c in table.sort]
        if _in_order(keys):
            return None
        by = pd.DataFrame({str(i): k for i, k in enumerate(keys)})
    else:
        by = frame[list(table.sort)]
        by.columns = [str(i) for i in range(len(table.sort))]
    return by.reset_index(drop=True).sort_values(list(by.columns), kind="mergesort").index.to_numpy()


def _in_order(keys: list[np.ndarray]) -> bool:
    """Rows (tuples of ``keys``, compared as text) are non-decreasing; stable sorting keeps them."""
    if len(keys[0]) < 2:
        return True
    before, tied = np.zeros(len(keys[0]) - 1, dtype=bool), np.ones(len(keys[0]) - 1, dtype=bool)
    for k in keys:
        before |= tied & (k[:-1] < k[1:])
        tied &= k[:-1] == k[1:]
    return bool(np.all(before | tied))


def sortable_as_text(table: Table) -> bool:
    """Text order equals value order when no sort column is numeric."""
    return all(table.column(c).type not in ("float", "prob", "int") for c in table.sort)


def as_text(frame: pd.DataFrame, table: Table) -> pd.DataFrame:
    """Every cell as the exact text it is written as."""
    out = {}
    for column in table.columns:
        if column.name in frame.columns:
            out[column.name] = cell_text(frame[column.name], column.type)
        else:
            out[column.name] = np.full(len(frame), "", dtype=object)
    return pd.DataFrame(out, index=frame.index, columns=list(table.names))


_NUMBER_FORMATS = {"prob": "%.6f", "float": "%.10g", "int": "%d"}


def cell_text(values: pd.Series, type_: str) -> np.ndarray:
    """The text of each value of a column of type ``type_``, exactly as written."""
    if type_ not in _NUMBER_FORMATS:
        if isinstance(values.dtype, pd.StringDtype) and not values.hasnans:  # text already: no conversion
            return writable(values.to_numpy(dtype=object))
        if values.dtype == object and all(type(v) is str for v in values.tolist()):  # text in a plain column (rows built in Python)
            return writable(values.to_numpy(dtype=object).copy())
        return writable(values.astype(object).where(values.notna(), "").astype(str).to_numpy(dtype=object))
    numbers = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float) + 0.0  # -0.0 becomes 0.0
    codes, distinct = pd.factorize(numbers)  # each distinct value formatted once; NaN is code -1
    fmt = _NUMBER_FORMATS[type_]
    return np.array([fmt % x for x in distinct.tolist()] + [""], dtype=object)[codes]


# Text with no UTF-8 file form (a lone surrogate) or that would make git call the file binary (NUL).
_UNWRITABLE = re.compile("[\x00\ud800-\udfff]")
# Every character ``_QUOTE_ANY`` or ``_UNWRITABLE`` can match: those classes, and the whitespace
# (other than the line feed) that makes a cell's edge need quotes. A column with none is bare.
_SUSPECT = re.compile(
    '[,"\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff'
    + "".join(re.escape(c) for c in map(chr, range(0x3001)) if c != "\n" and c.isspace())
    + "]"
)


def _encodes(text: str) -> bool:
    """Whether ``text`` has a UTF-8 form: it holds no lone surrogate (several times faster than
    ``_UNWRITABLE`` searching a long non-ASCII text; tests/store/test_fast_paths.py compares them)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def writable(cells: np.ndarray) -> np.ndarray:
    """Text cells with every lone surrogate and NUL replaced by U+FFFD (see the module docstring)."""
    joined = "".join(cells.tolist()) if len(cells) else ""
    if "\x00" not in joined and (joined.isascii() or _encodes(joined)):  # ASCII text has no surrogate
        return cells
    return np.array([_UNWRITABLE.sub("\ufffd", v) for v in cells.tolist()], dtype=object)


def write_table(path: Path, frame: pd.DataFrame, table: Table, label: str | None = None) -> bool:
    """Write ``frame`` canonically, checked by reading the bytes back (``read_back_check``); return
    True when the bytes on disk changed. (``ReadCache.write_table`` skips writing a frame again.)"""
    cells = canonical_cells(frame, table)
    data, plain = encoded(table.names, cells)
    check = read_back_check(table, cells, label or str(path), meant=data if plain else None)
    return write_bytes_atomic(path, data, check=check)


def read_back_check(table: Table, cells: list[np.ndarray], label: str, before: int = 0, meant: bytes | None = None):
    """A check for ``write_bytes_atomic``: the bytes parse to ``before`` rows then exactly ``cells``.
    ``meant``: plain bytes of these cells (``encoded``), known to parse to them; bytes read back
    equal to them pass without parsing."""

    def check(data: bytes) -> None:
        if meant is not None and data == meant:
            return
        problems = read_back_problems(parse_bytes(data, label), table, cells, label, before)
        if problems:
            raise RoundTripError(f"{label}: the written file would not read back as written; it was not replaced", problems)

    return check


def read_back_problems(parsed: pd.DataFrame, table: Table, cells: list[np.ndarray], label: str, before: int = 0, offset: int = 0) -> list[Problem]:
    """How ``parsed`` differs from a header of ``table.names``, ``before`` rows, then ``cells``.
    ``offset``: rows of the file that precede ``parsed``'s first one (for the row numbers)."""
    if tuple(parsed.columns) != table.names or len(parsed) != before + (len(cells[0]) if cells else 0):
        return [
            Problem(
                label,
                None,
                None,
                "write-read-back",
                f"read back {len(parsed)} rows of {len(parsed.columns)} columns, meant {before + len(cells[0])} rows of {len(table.names)}",
            )
        ]
    for name, meant in zip(table.names, cells, strict=True):
        got = parsed[name].to_numpy(dtype=object)[before:]
        for i in np.flatnonzero(got != meant)[:1]:
            return [Problem(label, offset + before + int(i) + 2, name, "write-read-back", f"read back {got[i]!r}, meant {meant[i]!r}")]
    return []
