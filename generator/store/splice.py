"""A canonical CSV file rewritten from its old bytes when only some of its rows changed.

A round's score file holds a hundred thousand rows and more; a night that resolves a few markets
changes the rows of those markets alone, yet every round that asked one of them is scored again, and
writing its whole file again (``csvio.write_table``: every cell formatted, checked and joined) was the
largest part of a new-round night at six months. ``spliced`` keeps the old file's lines as bytes, drops
those whose cell in a named column is one of the values given, and puts the new rows' lines (formatted
and checked by ``csvio.canonical_cells``, as any write is) in their sorted places.

It answers only where the bytes themselves show this is sound, and None otherwise (the caller then
writes the whole file): a table whose sort is its key and whose sort columns are its first columns,
all compared as text (``csvio.sortable_as_text``); a file of that table's header and plain lines (no
quote anywhere, so no cell holds a comma or a line end and every line has one comma fewer than cells);
new lines that are plain too; and no new row with the key of a line kept. The caller vouches for the
rest: the file is the canonical bytes of a frame whose rows, less those dropped, are the new frame's
rows, less those added. ``spliced_rows`` is that caller for two frames: it compares the rows kept, as the
text they are written as, before it asks (the nightly's score files, ``pipeline.incremental``).
"""

from __future__ import annotations

from collections.abc import Collection

import numpy as np
import pandas as pd

from ..schemas import Table
from .csvio import canonical_cells, cell_text, encoded, sortable_as_text

_COMMA, _LINE_END, _SEPARATOR = 0x2C, 0x0A, 0x01  # the key's fields joined by a byte below any a plain cell holds


def spliced_rows(
    data: bytes, table: Table, before: pd.DataFrame, gone: np.ndarray, after: pd.DataFrame, new: np.ndarray, columns: tuple[str, ...]
) -> bytes | None:
    """The canonical bytes of ``after`` from the file ``data`` holds, the canonical bytes of ``before``: its
    rows ``gone`` (a mask) replaced by ``after``'s rows ``new``, the lines named by their cells in
    ``columns`` (``spliced``); None when the other rows of the two frames are not written as the same text
    (``same_text``), or where ``spliced`` refuses."""
    if not same_text(table, before, ~gone, after, ~new):
        return None
    named = {
        unit
        for frame, rows in ((before, gone), (after, new))
        for unit in zip(*(cell_text(frame.loc[rows, c], table.column(c).type).tolist() for c in columns), strict=True)
    }
    return spliced(data, table, after[new], columns, named, int(gone.sum()))


def same_text(table: Table, a: pd.DataFrame, in_a: np.ndarray, b: pd.DataFrame, in_b: np.ndarray) -> bool:
    """Whether rows ``in_a`` of one frame of ``table`` and rows ``in_b`` of another, in order, are written as
    the same text: equal values of one dtype are (a number, a date or a text is formatted by its value alone;
    a missing one is empty), and a column whose dtypes differ is compared as the text written
    (``csvio.cell_text``). Compared column by column on the arrays: no frame is copied."""
    if int(in_a.sum()) != int(in_b.sum()):
        return False
    for column in table.columns:
        x, y = a[column.name], b[column.name]
        if x.dtype != y.dtype or x.dtype == object:
            if not np.array_equal(cell_text(x[in_a], column.type), cell_text(y[in_b], column.type)):
                return False
            continue
        u, v = x.to_numpy()[in_a], y.to_numpy()[in_b]
        same = u == v
        if not same.all() and not (same | (pd.isna(u) & pd.isna(v))).all():
            return False
    return True


def spliced(
    data: bytes, table: Table, rows: pd.DataFrame, columns: tuple[str, ...], named: Collection[tuple[str, ...]], dropped: int
) -> bytes | None:
    """The canonical bytes of the file ``data`` holds less the lines whose cells in ``columns`` (next to
    each other in the table) are one of the tuples ``named`` (there must be ``dropped`` such lines),
    plus ``rows`` (any order); None where the bytes cannot be spliced (see the module docstring)."""
    names, sort = table.names, table.sort
    width, k = len(names), len(sort)
    header = (",".join(names) + "\n").encode("utf-8")
    if (
        names[:k] != sort
        or set(sort) != set(table.key)
        or not sortable_as_text(table)
        or width < 2
        or not data.startswith(header)
        or not data.endswith(b"\n")
        or b'"' in data
    ):
        return None
    buf = np.frombuffer(data, dtype=np.uint8)
    ends = np.flatnonzero(buf == _LINE_END)[1:]  # each row's line end (the header's left out)
    commas = np.flatnonzero(buf == _COMMA)[width - 1 :]
    if len(commas) != len(ends) * (width - 1):
        return None
    commas = commas.reshape(len(ends), width - 1)
    starts = np.concatenate(([len(header)], ends[:-1] + 1)).astype(np.int64)
    if len(ends) and ((commas[:, 0] < starts).any() or (commas[:, -1] > ends).any()):
        return None  # the commas are not those of each line (a line with too many and the next too few)
    first, last = names.index(columns[0]), names.index(columns[-1])
    if names[first : last + 1] != columns:
        return None
    gone = np.zeros(len(ends), dtype=bool)
    if named:
        cells = _cells(buf, *_span(starts, commas, ends, first, last), separated=True)
        gone = np.isin(cells, np.array([_joined(t) for t in named], dtype=bytes))
    if int(gone.sum()) != dropped:
        return None
    added = _added(rows, table, k)
    if added is None:
        return None
    lines, new_keys = added
    kept = np.flatnonzero(~gone)
    keys = _cells(buf, *_span(starts[kept], commas[kept], ends[kept], 0, k - 1), separated=True)
    if len(keys) > 1 and not (keys[:-1] < keys[1:]).all():
        return None  # not the sorted lines of a canonical file
    at = np.searchsorted(keys, new_keys)
    inside = at < len(keys)
    if (keys[at[inside]] == new_keys[inside]).any():
        return None  # a new row with the key of a line kept
    return header + b"".join(_pieces(data, starts, ends, kept, at, lines))


def _span(starts: np.ndarray, commas: np.ndarray, ends: np.ndarray, first: int, last: int) -> tuple[np.ndarray, np.ndarray]:
    """Where each line's cells ``first`` to ``last`` (column positions) start and end."""
    return (starts if first == 0 else commas[:, first - 1] + 1), (commas[:, last] if last < commas.shape[1] else ends)


def _cells(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray, separated: bool = False) -> np.ndarray:
    """The bytes of each [start, end) span of ``buf`` as one numpy bytes array (padded with NULs, which
    no plain cell holds); ``separated``: commas within a span read as ``_SEPARATOR``, so that spans of
    several cells compare as their tuples of texts do (UTF-8 bytes sort as the code points they encode)."""
    lengths = ends - starts
    longest = max(int(lengths.max(initial=0)), 1)
    windows = np.lib.stride_tricks.sliding_window_view(np.concatenate((buf, np.zeros(longest, np.uint8))), longest)
    grid = windows[starts]  # a copy: each span's first ``longest`` bytes
    grid[np.arange(longest)[None, :] >= lengths[:, None]] = 0
    if separated:
        grid[grid == _COMMA] = _SEPARATOR
    return grid.view(f"S{longest}").ravel()


def _joined(cells: tuple[str, ...]) -> bytes:
    """Cells' texts as ``_cells(..., separated=True)`` reads them from a line."""
    return chr(_SEPARATOR).join(cells).encode("utf-8")


def _added(rows: pd.DataFrame, table: Table, k: int) -> tuple[list[bytes], np.ndarray] | None:
    """The new rows' lines (line ends included) and keys in sorted order, or None when a line is not plain."""
    if not len(rows):
        return [], np.array([], dtype="S1")
    cells = canonical_cells(rows, table)  # checked against the schema and sorted, as any write is
    data, plain = encoded(table.names, cells)
    if not plain:
        return None
    lines = [line + b"\n" for line in data.split(b"\n")[1:-1]]
    keys = np.array([_joined(key) for key in zip(*(c.tolist() for c in cells[:k]), strict=True)], dtype=bytes)
    if len(keys) > 1 and not (keys[:-1] < keys[1:]).all():
        return None  # equal keys among the new rows (the schema check finds those first) or an order not the bytes'
    return lines, keys


def _pieces(data: bytes, starts: np.ndarray, ends: np.ndarray, kept: np.ndarray, at: np.ndarray, lines: list[bytes]):
    """The rows' bytes in order: runs of the old file's kept lines (one slice each) with the new lines
    before the kept line each is to precede (``at``: its place among the kept lines)."""
    cuts = np.union1d(np.flatnonzero(np.diff(kept) != 1) + 1, at)
    bounds = [0, *cuts[(cuts > 0) & (cuts < len(kept))].tolist(), len(kept)]
    places, i = at.tolist(), 0
    for a, b in zip(bounds[:-1], bounds[1:], strict=True):
        while i < len(places) and places[i] == a:
            yield lines[i]
            i += 1
        if b > a:
            yield data[int(starts[kept[a]]) : int(ends[kept[b - 1]]) + 1]
    yield from lines[i:]
