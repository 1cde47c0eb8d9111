"""The append-only rule of a ledger's two versions: every record of the old one is still in the new one.

Both versions are parsed as the store parses them (``records``) and compared as records: each old
record must still be there, unchanged (a record whose key is still there with other values was
edited, ``ledger-row-rewritten``; one whose key is gone was deleted, ``ledger-row-deleted``); order is
not compared, because ``store.ledger.append`` may re-sort a file. Its header may not change
(``ledger-header-changed``) except by the table's late columns added at its end. A version that does
not parse is a warning (``ledger-unreadable``), and its lines are compared instead. A new version that
is the old one followed by more records (``appended``) is not parsed at all. ``audit.git`` applies the
rule to every commit that changed a ledger.
"""

from __future__ import annotations

from collections import Counter

import pandas as pd

from ..errors import Problem
from ..schemas import Table
from ..store.csvio import UNREADABLE, parse_bytes, why_unreadable
from .changes import FileChange


def ledger_rewrites(c: FileChange, table: Table, old: bytes, new: bytes) -> list[Problem]:
    """What one commit's new version of a ledger lost of its old version."""
    if appended(old, new):
        return []
    try:
        (old_columns, old_rows), (new_columns, new_rows) = records(old), records(new)
    except ValueError as exc:
        return [
            Problem(
                c.path,
                None,
                None,
                "ledger-unreadable",
                f"{c.where}: a version does not parse as CSV ({_first_line(exc)}); its lines were compared instead",
                "warning",
            ),
            *_lines_lost(c, old, new),
        ]
    problems = []
    if old_columns != new_columns and not _late_columns_added(table, old_columns, new_columns):
        problems.append(
            Problem(
                c.path, 1, None, "ledger-header-changed", f"{c.where} changed the header from {','.join(old_columns)!r} to {','.join(new_columns)!r}"
            )
        )
    return problems + _records_lost(c, table, old_columns, old_rows, new_columns, new_rows)


def _late_columns_added(table: Table, old: tuple[str, ...], new: tuple[str, ...]) -> bool:
    """The new header is the old one followed by some of the table's late columns (its rows keep
    their old cells, which the record comparison checks on the columns both versions name)."""
    return bool(old) and new[: len(old)] == old and all(name in table.late for name in new[len(old) :])


def appended(old: bytes, new: bytes) -> bool:
    """True when ``new`` is ``old`` followed by more bytes, and ``old`` ends at a record boundary
    (a line end outside quotes), so every record of ``old`` parses the same in ``new``."""
    return new.startswith(old) and (not old or old.endswith(b"\n") and old.count(b'"') % 2 == 0)


def records(data: bytes) -> tuple[tuple[str, ...], list[tuple[str, ...]]]:
    """(header, rows as tuples of cell text) of a CSV version, parsed as ``store.csvio`` reads a
    ledger (``csvio.parse_bytes``: every cell kept as text, nothing read as missing). ValueError when
    it does not parse."""
    if not data.strip():
        return (), []
    try:
        frame = parse_bytes(data, "")
    except UNREADABLE as exc:
        raise ValueError(why_unreadable(exc)) from None
    if not isinstance(frame.index, pd.RangeIndex):  # more cells than header names in every row
        raise ValueError("rows have more cells than the header names")
    # the rows as tuples, built column by column (a fifth of itertuples' time on text columns)
    return tuple(str(c) for c in frame.columns), list(zip(*(frame.iloc[:, i].tolist() for i in range(frame.shape[1])), strict=True))


def _records_lost(
    c: FileChange, table: Table, old_columns: tuple[str, ...], old_rows: list[tuple], new_columns: tuple[str, ...], new_rows: list[tuple]
) -> list[Problem]:
    """Old records missing from the new version, keyed by the table's key. Under a changed header
    of the same width the records are compared cell by cell in order; otherwise on the columns both
    versions name."""
    if len(old_columns) == len(new_columns):
        pick_old = pick_new = list(range(len(old_columns)))
    else:
        common = [name for name in old_columns if name in new_columns]
        pick_old, pick_new = [old_columns.index(n) for n in common], [new_columns.index(n) for n in common]
    before = [tuple(row[i] for i in pick_old) for row in old_rows]
    after = [tuple(row[i] for i in pick_new) for row in new_rows]
    missing = Counter(before) - Counter(after)
    if not missing:
        return []
    key = [pick_old.index(old_columns.index(k)) for k in table.key if k in old_columns and old_columns.index(k) in pick_old] or list(
        range(len(pick_old))
    )
    keys_after = {tuple(row[i] for i in key) for row in after}
    edited: list[tuple[int, tuple]] = []
    deleted: list[tuple[int, tuple]] = []
    for row, values in enumerate(before, start=2):  # the header is row 1
        if missing.get(values):
            missing[values] -= 1
            (edited if tuple(values[i] for i in key) in keys_after else deleted).append((row, values))
    names = [old_columns[i] for i in pick_old]
    problems = []
    for found, code, verb in ((edited, "ledger-row-rewritten", "edited"), (deleted, "ledger-row-deleted", "deleted")):
        if found:
            row, values = found[0]
            what = ", ".join(f"{names[i]}={values[i]!r}" for i in key)[:160]
            problems.append(Problem(c.path, row, None, code, f"{c.where} {verb} {len(found)} existing row(s); the first is ({what})"))
    return problems


def _lines_lost(c: FileChange, old: bytes, new: bytes) -> list[Problem]:
    old_lines, new_lines = old.split(b"\n"), new.split(b"\n")
    missing = Counter(line for line in old_lines if line) - Counter(new_lines)
    if not missing:
        return []
    row = next(i for i, line in enumerate(old_lines) if missing.get(line))
    text = old_lines[row].decode("utf-8", "replace")[:120]
    return [
        Problem(
            c.path,
            row + 1,
            None,
            "ledger-row-rewritten",
            f"{c.where} edited or deleted {sum(missing.values())} existing line(s); the first is {text!r}",
        )
    ]


def _first_line(exc: Exception) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0][:160]
