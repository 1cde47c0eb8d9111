"""Deterministic CSV bytes and atomic writes, checked against ``schemas.Table`` both ways.

Reading keeps every cell as text first, then converts column by column and reports each bad cell
with file, row (the header is row 1) and column. Writing fixes the column order, sorts rows by the
table's sort key, formats numbers the same way every time, and replaces the file atomically (temp
file in the same folder, fsync, rename) only when its bytes change.
"""

from __future__ import annotations

import csv
import hashlib
import io
import os
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import Problem, SchemaError
from ..schemas import Column, Table

_TS_PATTERN = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$"
_DATE_PATTERN = r"^\d{4}-\d{2}-\d{2}$"


def read_table(path: Path, table: Table, label: str | None = None) -> pd.DataFrame:
    """Read and type-check one CSV. Raises SchemaError listing every problem found.

    Parsed files are cached for the life of the process by (path, inode, mtime, size); writes
    here replace files atomically (a new inode), so a cached frame is never stale.
    """
    key, signature = (str(path), table.name, label), _signature(path)
    cached = _CACHE.get(key)
    if cached is None or cached[0] != signature:
        _CACHE[key] = (signature, _read_checked(path, table, label or str(path)))
    return _CACHE[key][1].copy()


_CACHE: dict[tuple, tuple[tuple, pd.DataFrame]] = {}


def _read_checked(path: Path, table: Table, label: str) -> pd.DataFrame:
    raw = _read_text_frame(path, label)
    problems = check_frame(raw, table, label)
    if any(p.severity == "error" for p in problems):
        raise SchemaError(f"{label}: does not match the {table.name} schema", problems)
    return coerce(raw, table)


def _read_text_frame(path: Path, label: str) -> pd.DataFrame:
    try:
        data = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SchemaError(f"{label}: not UTF-8", [Problem(label, None, None, "not-utf8", str(exc))]) from None
    if not data.strip():
        raise SchemaError(f"{label}: empty file", [Problem(label, 1, None, "empty-file", "the file has no header row")])
    return pd.read_csv(io.StringIO(data), dtype=str, keep_default_na=False, na_filter=False)


def check_frame(raw: pd.DataFrame, table: Table, label: str) -> list[Problem]:
    """Every structural and cell-level problem of a text frame against ``table``."""
    problems = [Problem(label, 1, name, "missing-column", f"required column {name!r} is missing")
                for name in table.names if name not in raw.columns]
    problems += [Problem(label, 1, name, "unknown-column", f"column {name!r} is not in the {table.name} schema")
                 for name in raw.columns if name not in table.names]
    for column in table.columns:
        if column.name in raw.columns:
            problems += _check_column(raw[column.name], column, label)
    if not any(p.code == "missing-column" for p in problems):
        problems += _check_keys(raw, table, label)
    return problems


def _check_column(values: pd.Series, column: Column, label: str) -> list[Problem]:
    text = values.astype(str)
    empty = (text.str.strip() == "").to_numpy()
    invalid = ~empty & ~_valid(text, column).to_numpy(dtype=bool)
    bad = invalid | (empty & (not column.nullable))
    if not bad.any():
        return []
    words = "is not a valid " + _type_words(column)
    return [Problem(label, int(i) + 2, column.name, "bad-value" if invalid[i] else "empty-value",
                    f"{text.iloc[i]!r} {words if invalid[i] else 'is empty'}") for i in np.flatnonzero(bad)[:50]]


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
    dup = raw.duplicated(list(table.key), keep="first")
    return [Problem(label, int(i) + 2, ",".join(table.key), "duplicate-key",
                    "the key (" + ", ".join(f"{k}={raw.iloc[i][k]!r}" for k in table.key) + ") appears twice")
            for i in np.flatnonzero(dup.to_numpy())[:50]]


def coerce(raw: pd.DataFrame, table: Table) -> pd.DataFrame:
    """Typed frame: numbers as float64/int64 (NaN for empty), everything else as str."""
    out = pd.DataFrame(index=raw.index)
    for column in table.columns:
        values = raw[column.name] if column.name in raw.columns else pd.Series("", index=raw.index)
        if column.type in ("float", "prob"):
            out[column.name] = pd.to_numeric(values.replace("", np.nan), errors="coerce").astype(float)
        elif column.type == "int":
            out[column.name] = pd.to_numeric(values, errors="coerce").fillna(0).astype("int64")
        else:
            out[column.name] = values.astype(str)
    return out.reset_index(drop=True)


def empty_frame(table: Table) -> pd.DataFrame:
    return coerce(pd.DataFrame({name: pd.Series(dtype=str) for name in table.names}), table)


def to_csv_bytes(frame: pd.DataFrame, table: Table) -> bytes:
    """The canonical bytes of ``frame``: schema column order, sorted by the table's sort key."""
    text = as_text(frame, table)
    problems = check_frame(text, table, table.path)
    if problems:
        raise SchemaError(f"refusing to write {table.name}: it does not match its schema", problems)
    text = text.sort_values(list(table.sort), kind="mergesort") if _sortable_as_text(table) else \
        text.loc[frame.sort_values(list(table.sort), kind="mergesort").index]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(table.names)
    writer.writerows(text.itertuples(index=False, name=None))
    return buffer.getvalue().encode("utf-8")


def _sortable_as_text(table: Table) -> bool:
    """Text order equals value order when no sort column is numeric."""
    return all(table.column(c).type not in ("float", "prob", "int") for c in table.sort)


def as_text(frame: pd.DataFrame, table: Table) -> pd.DataFrame:
    """Every cell as the exact text it is written as."""
    out = {}
    for column in table.columns:
        if column.name in frame.columns:
            out[column.name] = _format_all(frame[column.name], column.type)
        else:
            out[column.name] = np.full(len(frame), "", dtype=object)
    return pd.DataFrame(out, index=frame.index, columns=list(table.names))


_NUMBER_FORMATS = {"prob": "%.6f", "float": "%.10g", "int": "%d"}


def _format_all(values: pd.Series, type_: str) -> np.ndarray:
    if type_ not in _NUMBER_FORMATS:
        return values.astype(object).where(values.notna(), "").astype(str).to_numpy(dtype=object)
    numbers = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float) + 0.0  # -0.0 becomes 0.0
    missing = np.isnan(numbers)
    text = np.char.mod(_NUMBER_FORMATS[type_], np.where(missing, 0.0, numbers)).astype(object)
    text[missing] = ""
    return text


def write_table(path: Path, frame: pd.DataFrame, table: Table) -> bool:
    """Write ``frame`` canonically; return True when the bytes on disk changed.

    When this process last wrote the very same frame to the file and the file is untouched since,
    serialising again cannot change anything, so it is skipped.
    """
    digest = _frame_digest(frame, table)
    if path.is_file() and _WRITTEN.get(str(path)) == (digest, _signature(path)):
        return False
    changed = write_bytes_atomic(path, to_csv_bytes(frame, table))
    _WRITTEN[str(path)] = (digest, _signature(path))
    return changed


_WRITTEN: dict[str, tuple[str, tuple]] = {}


def _frame_digest(frame: pd.DataFrame, table: Table) -> str:
    present = [c for c in table.names if c in frame.columns]
    rows = pd.util.hash_pandas_object(frame[present], index=False).to_numpy()
    return hashlib.sha256(rows.tobytes() + ",".join(present).encode()).hexdigest()


def _signature(path: Path) -> tuple:
    stat = path.stat()
    return stat.st_ino, stat.st_mtime_ns, stat.st_size


def write_bytes_atomic(path: Path, data: bytes) -> bool:
    """Replace ``path`` with ``data`` atomically; leave it untouched when already identical."""
    if path.is_file() and path.read_bytes() == data:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return True
