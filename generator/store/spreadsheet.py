"""CSV for people (downloads, ``--format csv``): formula injection neutralised.

A spreadsheet runs a cell that starts with one of ``FORMULA_START`` as a formula
(``=HYPERLINK(...)``). The ledgers keep raw text (they are data); only CSV written for people to
open goes through here: the site's downloads (``site.downloads``, ``site.build``) and the CLI's
``--format csv`` (``console``). A rewritten file is quoted as the ledgers are (``csvio.quote_cells``).
"""

from __future__ import annotations

import csv
import io
import re

import numpy as np
import pandas as pd

from .csvio import quote_cells

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?", re.ASCII)
# A cell of a data row starts after a comma or a line end, maybe inside quotes: a file where no such
# start is followed by a formula character has no formula-like cell (the header row is never
# rewritten, so the file's own start need not be looked at; an \A alternative would triple the time).
_CELL_START = re.compile(rb'[,\n]"?[=+\-@\t\r]')


def formula_like(text: str) -> bool:
    """True for text a spreadsheet may run as a formula; a plain number such as -0.5 is not."""
    return text.startswith(FORMULA_START) and not _PLAIN_NUMBER.fullmatch(text)


def spreadsheet_safe_bytes(data: bytes) -> bytes:
    """A CSV file's bytes with formula-like text cells prefixed by a single quote.

    A file with no such cell (or that is not UTF-8 CSV) comes back unchanged, byte for byte; a
    rewritten file is quoted as the ledgers are (``csvio.encode``), with ``\\n`` line ends.
    """
    if not _CELL_START.search(data):  # no cell starts like a formula: skip parsing (most files)
        return data
    try:
        rows = list(csv.reader(io.StringIO(data.decode("utf-8"), newline="")))
    except (UnicodeDecodeError, csv.Error):
        return data
    if not any(formula_like(cell) for row in rows[1:] for cell in row):
        return data
    safe = [rows[0] if rows else []] + [["'" + cell if formula_like(cell) else cell for cell in row] for row in rows[1:]]
    return "".join(",".join(quote_cells(np.array(row, dtype=object), len(row) == 1).tolist()) + "\n" for row in safe).encode("utf-8")


def spreadsheet_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy whose formula-like text cells start with a single quote; numeric columns untouched."""
    out = frame.copy()
    for name in out.columns:
        if out[name].dtype == object or isinstance(out[name].dtype, pd.StringDtype):
            out[name] = out[name].map(lambda v: "'" + v if isinstance(v, str) and formula_like(v) else v)
    return out
