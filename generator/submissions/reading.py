"""The hub's own reader, run by the validator on the rows it parsed.

``store.readers`` reads a submitted CSV with ``csvio.read_table``: every cell is checked by
``csvio.check_frame`` and converted by ``csvio.coerce``. The validator runs those same two functions
on its parsed rows, so a file it accepts is one the nightly and ``build`` read, with the same values
(tests/submissions/test_validate_fuzz.py holds both sides to it). Its own checks word the problems; a cell the
reader refuses that they let through is still reported, as ``unreadable-cell``.
"""

from __future__ import annotations

import pandas as pd

from ..codes import problem
from ..errors import Problem, SchemaError
from ..schemas import Table
from ..store.csvio import UNREADABLE, check_frame, coerce, parse_bytes, why_unreadable
from ..store.forecast_file import Parsed, member_keyed


def hub_file(data: bytes, label: str, table: Table, what: str) -> pd.DataFrame:
    """A file the hub published (a round's questions and question sets, an oracle set's questions),
    every cell as text (``csvio.parse_bytes``), checked against ``table``. One that cannot be read or
    breaks its schema is the hub's fault, not the submitter's: SchemaError (``what`` names it)."""
    try:
        frame = parse_bytes(data, label)
    except UNREADABLE as exc:
        raise SchemaError(f"{label}: {what} cannot be read: {why_unreadable(exc)}") from None
    problems = [p for p in check_frame(frame, table, label) if p.severity == "error"]
    if problems:
        raise SchemaError(f"{label}: {what} does not match its schema", problems)
    return frame


def text_frame(parsed: Parsed) -> pd.DataFrame:
    """The parsed rows as the reader's text frame (one column per distinct header name)."""
    names = list(dict.fromkeys(parsed.columns))
    return pd.DataFrame([[row.cells.get(n, "") for n in names] for row in parsed.rows], columns=names, dtype=object)


def reader_problems(parsed: Parsed, table: Table) -> list[Problem]:
    """What the reader refuses in the parsed rows, at the submitter's row numbers and column names."""
    numbers = [row.number for row in parsed.rows]
    return [
        problem(
            "unreadable-cell",
            parsed.label,
            numbers[p.row - 2] if p.row and p.row >= 2 else p.row,
            parsed.col(p.column) if p.column else None,
            f"the hub's reader refuses it: {p.message}",
        )
        for p in check_frame(member_keyed(text_frame(parsed), parsed), table, parsed.label)
        if p.severity == "error"
    ]


def reader_values(parsed: Parsed, table: Table, column: str) -> list[float]:
    """A numeric column as the reader converts it (NaN where it cannot), one value per parsed row."""
    raw = text_frame(parsed)
    cells = raw[[column]] if column in raw.columns else raw.iloc[:, :0]
    return coerce(cells, table)[column].tolist()


def has_errors(problems: list[Problem]) -> bool:
    return any(p.severity == "error" for p in problems)
