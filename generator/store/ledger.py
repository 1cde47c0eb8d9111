"""The append-only ledger: new rows are added, existing rows are never changed.

``merge`` is pure and idempotent: merging the same rows twice equals merging them once. A new row
whose key already exists with different values is a conflict, reported with the existing row's
position, and nothing is written.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import LedgerError, Problem, SchemaError
from ..schemas import Table
from . import csvio
from .atomic import append_bytes_atomic, write_bytes_atomic
from .cache import ReadCache, Slot, signatures
from .csvio import as_text, cell_text, check_frame, coerce, empty_frame, parse_bytes
from .git import GitTree

LAST_KEY: Slot[tuple[str, ...] | None] = Slot("ledger's last key")  # .of((table, path)): ``last_key``


def merge(existing: pd.DataFrame, new: pd.DataFrame, table: Table, label: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Return (all rows, the rows actually added). Raise LedgerError on a key conflict."""
    added, _ = _added(existing, new, table, label, _text_last(existing, table))
    return pd.concat([existing, added], ignore_index=True), added


def _added(existing: pd.DataFrame, new: pd.DataFrame, table: Table, label: str, last: tuple[str, ...] | None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The rows of ``new`` that ``merge`` adds to ``existing``, whose largest sort key is ``last``
    (``_text_last``), and the same rows as written text (``as_text``, so the caller need not convert
    them again). When the key and the sort key are the same columns and every new row sorts after
    ``last``, no existing row can share a new row's key, so the ledger is not joined at all."""
    key = list(table.key)
    text = as_text(new, table).reset_index(drop=True)
    new_text = text.iloc[_first_of_each(text)]  # drop_duplicates(), without hashing a small frame in pandas
    problems = _self_conflicts(new_text, key, label)
    if last is not None and set(key) == set(table.sort) and len(new_text) and _text_key(new_text, table, min) > last:
        if problems:
            raise LedgerError(f"{label}: refusing to rewrite history ({len(problems)} conflicting row(s))", problems)
        return _at(new, new_text.index), new_text.reset_index(drop=True)
    # Only the key columns of the rows that share the first key column's value with a new row are
    # joined (the rows they find are then taken whole), so a long ledger is neither copied nor joined
    # whole to find the few rows tonight's keys may touch (a night run again finds all of them).
    positions = _sharing_first_key(existing, new_text, table)
    candidates = existing[key].iloc[positions].reset_index(drop=True)
    candidates.insert(0, "_pos", positions)
    found = candidates.merge(new_text[key].drop_duplicates(), on=key)
    overlap = existing.iloc[found["_pos"].to_numpy()]
    old_text = as_text(overlap, table).set_index(found["_pos"].to_numpy())
    joined = new_text.merge(old_text.reset_index(names="_row"), on=key, how="left", suffixes=("", "_old"))
    clash = joined["_row"].notna()
    for _, row in joined[clash].iterrows():
        changed = [c for c in table.names if c not in key and row[c] != row[f"{c}_old"]]
        if changed:
            problems.append(_conflict(label, int(row["_row"]) + 2, changed, row, key))
    if problems:
        raise LedgerError(f"{label}: refusing to rewrite history ({len(problems)} conflicting row(s))", problems)
    kept = new_text.index[~clash.to_numpy()]
    return _at(new, kept), new_text.loc[kept].reset_index(drop=True)


def _sharing_first_key(existing: pd.DataFrame, new_text: pd.DataFrame, table: Table) -> np.ndarray:
    """The positions of the rows of ``existing`` whose first key column holds a value of a new row
    (as text, ``as_text``), in order: every row that can share a whole key with one. Every row when
    that column is not text (its cells then differ from their text)."""
    first = table.key[0]
    if table.column(first).type not in ("str", "ts", "date", "enum"):
        return np.arange(len(existing))
    return np.flatnonzero(existing[first].isin(pd.unique(new_text[first].to_numpy(dtype=object))).to_numpy(dtype=bool))


def _at(frame: pd.DataFrame, positions: pd.Index) -> pd.DataFrame:
    """The rows of ``frame`` at ``positions``, numbered from 0."""
    return frame.iloc[positions.to_numpy()].reset_index(drop=True)


def _first_of_each(text: pd.DataFrame) -> list[int]:
    """The position of the first of each distinct row of a text frame (``as_text``: every cell a
    str, so tuples of cells are equal exactly when ``drop_duplicates`` finds the rows equal)."""
    first: dict[tuple, int] = {}
    for i, row in enumerate(zip(*(text[c].tolist() for c in text.columns), strict=True)):
        first.setdefault(row, i)
    return list(first.values())


def _self_conflicts(new_text: pd.DataFrame, key: list[str], label: str) -> list[Problem]:
    """A problem for the first of the rows (distinct, as text) that share a key with another, if any."""
    keys = list(zip(*(new_text[k].tolist() for k in key), strict=True))
    shared = Counter(keys)
    return [
        Problem(label, None, ",".join(key), "ledger-conflict", "the new rows hold two different versions of key " + _key_words(new_text.loc[i], key))
        for i, k in zip(new_text.index, keys, strict=True)
        if shared[k] > 1
    ][:1]


def _conflict(label: str, row: int, changed: list[str], values: pd.Series, key: list[str]) -> Problem:
    detail = "; ".join(f"{c}: {values[c + '_old']!r} → {values[c]!r}" for c in changed)
    return Problem(label, row, changed[0], "ledger-conflict", f"key {_key_words(values, key)} already recorded with other values ({detail})")


def _key_words(values: pd.Series, key: list[str]) -> str:
    return "(" + ", ".join(f"{k}={values[k]!r}" for k in key) + ")"


def load_at(repo: Path, commit: str, folder: str, table: Table) -> pd.DataFrame:
    """Every ``*.csv`` of ``folder`` as stored in ``commit`` of the git repository at ``repo``, checked
    against ``table`` (read through git plumbing, so a ledger can be read from another commit than the
    checkout's)."""
    tree, frames = GitTree(repo, commit), []
    for name in (n for n in tree.names(folder) if n.endswith(".csv")):
        label = f"{folder}/{name}"
        raw = parse_bytes(tree.read(label), label)
        problems = check_frame(raw, table, label)
        if problems:
            raise SchemaError(f"{label} (in {commit[:12]}): {len(problems)} problem(s)", problems)
        frames.append(coerce(raw, table))
    return pd.concat(frames, ignore_index=True) if frames else empty_frame(table)


def append(path: Path, new: pd.DataFrame, table: Table, label: str, cache: ReadCache | None = None) -> pd.DataFrame:
    """Append ``new`` to the ledger file at ``path``; return the rows added (possibly none).
    ``cache``: the command's (``Hub.cache``), to read and write the file through.

    When every added row sorts after the file's last row (the usual case: the sort key starts with
    the recording time) the file's bytes are kept and the new rows' bytes follow them
    (``append_rows``); otherwise the whole file is rewritten in canonical order. Either way the
    write is atomic. No row to add (a night before any score has no history row): nothing is read.
    """
    if new.empty:
        return new.reset_index(drop=True)
    existing = _read(path, table, label, cache) if path.is_file() else empty_frame(table)
    last = _kept_last(path, existing, table, cache)
    added, text = _added(existing, new, table, label, last)
    if len(added) and last is not None and _header(path) == table.names and _text_key(text, table, min) > last:
        appended = append_rows(path, added, table, label, len(existing), text)
        if cache is not None and appended is not None:  # the file as read_table would now read it, unparsed
            cache.remember(path, table, label, pd.concat([existing, appended], ignore_index=True))
            _keep_last(path, table, cache, _text_key(text, table, max))  # every added row sorts after ``last``
    elif len(added):
        rows = pd.concat([existing, added], ignore_index=True)
        if cache is not None:
            cache.write_table(path, rows, table, label)
        else:
            csvio.write_table(path, rows, table, label)
    return added


def _read(path: Path, table: Table, label: str, cache: ReadCache | None) -> pd.DataFrame:
    return cache.read_table(path, table, label) if cache is not None else csvio.read_table(path, table, label)


def append_rows(path: Path, rows: pd.DataFrame, table: Table, label: str, existing: int, text: pd.DataFrame | None = None) -> pd.DataFrame | None:
    """Add ``rows`` after the ``existing`` rows of the file at ``path``, its bytes kept as they are
    (a last line missing its line end gets one), checked by reading the file back.

    When the file's header is the schema's own, only the new lines are written, after the file's
    bytes (``append_bytes_atomic``), and only they are read back and parsed (under that header): a
    long ledger is neither rewritten nor parsed again to add a night's rows. It then returns the
    new rows as ``read_table`` reads them (checked and typed), so a caller can keep the whole file's
    frame without reading it; otherwise it rewrites the file and reads it back whole, as every
    rewrite does, and returns None. ``text``: ``as_text(rows, table)`` when the caller has it already."""
    cells = csvio.canonical_cells(rows, table, text)
    header, body = csvio.encode(table.names, cells).split(b"\n", 1)
    first, last = _first_line_and_last_byte(path)
    if first != header:
        old = path.read_bytes()
        prefix = old + (b"\n" if old and not old.endswith(b"\n") else b"")
        write_bytes_atomic(path, prefix + body, check=csvio.read_back_check(table, cells, label, existing))
        return None
    tail = (b"\n" if last != b"\n" else b"") + body
    parsed: list[pd.DataFrame] = []

    def check(data: bytes) -> None:
        read = csvio.parse_bytes(header + b"\n" + data[len(tail) - len(body) :], label)
        problems = [] if data == tail else [Problem(label, None, None, "write-read-back", "the rows appended did not read back as written")]
        problems = problems or csvio.read_back_problems(read, table, cells, label, offset=existing)
        if problems:
            raise csvio.RoundTripError(f"{label}: the written file would not read back as written; it was not changed", problems)
        parsed.append(read)

    append_bytes_atomic(path, tail, check=check)
    return csvio.coerce(parsed[0], table) if parsed else None


def _first_line_and_last_byte(path: Path) -> tuple[bytes, bytes]:
    """The file's first line (without its LF) and its last byte, without reading the rest."""
    with path.open("rb") as handle:
        first = handle.readline()
        if not first:
            return b"", b""
        handle.seek(-1, os.SEEK_END)
        return first.removesuffix(b"\n"), handle.read(1)


def _kept_last(path: Path, existing: pd.DataFrame, table: Table, cache: ReadCache | None) -> tuple[str, ...] | None:
    """``_text_last(existing)`` for the ledger at ``path`` as read (``existing``). The command's
    cache keeps it while the file is unchanged (``ReadCache.kept``), as ``read_table`` keeps the
    frame, so a long ledger is not scanned again for each night's rows."""
    if cache is None or not path.is_file():
        return _text_last(existing, table)
    return cache.kept(LAST_KEY.of((table.name, str(path))), signatures([path]), lambda: _text_last(existing, table))


def last_key(path: Path, table: Table, label: str, cache: ReadCache) -> tuple[str, ...] | None:
    """The largest sort key of the ledger file at ``path``, as written text (``_text_last``: None
    when it has no row or text order is not its sort order). Kept in the command's cache while the
    file is unchanged, and by ``append`` for what it appends, so a run's check of the ledgers'
    latest time (``readers.latest_recorded``) scans no long ledger again night after night."""
    return cache.kept(LAST_KEY.of((table.name, str(path))), signatures([path]), lambda: _text_last(cache.read_table(path, table, label), table))


def _keep_last(path: Path, table: Table, cache: ReadCache | None, last: tuple[str, ...] | None) -> None:
    if cache is not None:
        cache.keep(LAST_KEY.of((table.name, str(path))), signatures([path]), last)


def _text_last(existing: pd.DataFrame, table: Table) -> tuple[str, ...] | None:
    """The largest sort key of the rows as written text, when text order is the sort order (every
    sort column is text, a time or a date); None when there are no rows or it is not."""
    if existing.empty or not all(table.column(c).type in ("str", "ts", "date", "enum") for c in table.sort):
        return None
    return _last_key([_column_text(existing, table, c) for c in table.sort], max)


def _header(path: Path) -> tuple[str, ...]:
    """The column names on the file's first line (a ledger's header is never quoted); () when absent."""
    if not path.is_file():
        return ()
    with path.open("rb") as f:
        return tuple(f.readline().rstrip(b"\r\n").decode("utf-8", "replace").split(","))


def _text_key(text: pd.DataFrame, table: Table, pick) -> tuple[str, ...]:
    """``_last_key`` of rows already written as text (``as_text``)."""
    return _last_key([text[c].to_numpy(dtype=object) for c in table.sort], pick)


def _last_key(keys: list[np.ndarray], pick) -> tuple[str, ...]:
    """The smallest (``pick=min``) or largest (``max``) sort key of the rows whose sort columns, as
    written text, are ``keys``: the first or last row in canonical order. One pass per column, no
    sorting, so a long ledger costs a scan, not a sort."""
    rows = np.arange(len(keys[0]))
    for column in keys:
        text = column[rows]
        rows = rows[text == pick(text.tolist())]
    return tuple(column[rows[0]] for column in keys)


def _column_text(frame: pd.DataFrame, table: Table, column: str) -> np.ndarray:
    """A column's cells as written; a late column (``Table.late``) the frame lacks is empty."""
    if column not in frame:
        return np.full(len(frame), "", dtype=object)
    return cell_text(frame[column], table.column(column).type)
