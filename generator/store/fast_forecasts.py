"""Forecast files, fast: the same bytes as the plain writer, and the frame the plain reader would give.

An import writes thousands of forecast files; the plain writer (``csvio.to_csv_bytes``) checks and
formats cell by cell. ``forecast_bytes`` joins the cells directly and gives the same bytes: any cell
the plain writer would quote or change (see ``csvio.all_bare``: a comma, a quote, a control
character, edge whitespace, a lone surrogate...), or a value outside the schema, sends the frame to
the plain writer instead, so the output never differs (tests/store/test_fast_paths.py compares both).
``forecast_file`` does the same from plain column lists and also returns the rows as written, from
which ``as_read`` builds the frame ``csvio.read_table`` would parse from those bytes, so the import
can hand it to the scoring (``ReadCache.remember``) without reading the file back.

Nothing dispatches here behind a caller's back: the writers that want the fast path (the nightly's
hub forecasters, the ForecastBench import and its workers) call it by name. ``memo``: a dict of
probability texts kept by the caller (a command's ``ReadCache.probabilities``, a worker's own).
"""

from __future__ import annotations

import operator
import re
from collections.abc import Sequence
from typing import cast

import numpy as np
import pandas as pd

from ..schemas import FORECASTS
from .csvio import PLAIN_BYTES, UNREADABLE, all_bare, check_frame, coerce, parse_bytes, to_csv_bytes

ProbabilityTexts = dict[float, tuple[str, float]]  # per probability: its "%.6f" text and the value the reader parses from it

_FORECAST_DATE = re.compile(r"^(\d{4}-\d{2}-\d{2})?$")
_FORECAST_HEADER = ",".join(FORECASTS.names) + "\n"


def _plain(values: list) -> bool:
    """Every value a str the plain writer writes as it is (no quotes, nothing replaced)."""
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
    ok = (
        _plain(ids)
        and _plain(dates)
        and _plain(reasons)
        and "" not in ids
        and len(set(zip(ids, dates, strict=True))) == len(ids)
        and all(_FORECAST_DATE.match(d) for d in set(dates))
        and _probabilities_ok(probs)
    )
    return sorted(zip(ids, dates, probs, reasons, strict=True)) if ok else None


_MEMO_LIMIT = 1_000_000


def _prob_table(probs: set[float], memo: ProbabilityTexts) -> ProbabilityTexts:
    """A dict holding every value of ``probs`` (in [0, 1]): per probability, its "%.6f" text and the
    value the reader gives that text, which is ``float``'s (``coerce`` gives every one of the
    1,000,001 such texts the value ``float`` gives: tests/store/test_fast_paths.py). ``memo`` (a
    command's ``ReadCache.probabilities``, bounded) is completed as needed."""
    missing = [p for p in probs if p not in memo]
    if not missing:
        return memo
    texts = [f"{p + 0.0:.6f}" for p in missing]
    found = dict(zip(missing, zip(texts, map(float, texts), strict=True), strict=True))
    if len(memo) + len(found) <= _MEMO_LIMIT:
        memo.update(found)
        return memo
    return {**{p: memo[p] for p in probs if p in memo}, **found}


def _body(rows: list[tuple], memo: ProbabilityTexts) -> tuple[bytes, list[str], list[float]]:
    """The file's bytes, each row's probability text and the value the reader parses from it."""
    texts, values = _prob_texts([r[2] for r in rows], memo)
    body = "".join([f"{a},{b},{c},{d}\n" for (a, b, _, d), c in zip(rows, texts, strict=True)])
    return (_FORECAST_HEADER + body).encode("utf-8"), texts, values


def _prob_texts(probs: list[float], memo: ProbabilityTexts) -> tuple[list[str], list[float]]:
    """Each probability's text and the value the reader parses from it."""
    found = list(map(memo.get, probs))
    # each distinct value not in the memo formatted (and parsed) once
    pairs = cast(list, found) if None not in found else list(map(_prob_table(set(probs), memo).__getitem__, probs))
    return list(map(_TEXT, pairs)), list(map(_VALUE, pairs))


_TEXT, _VALUE = operator.itemgetter(0), operator.itemgetter(1)


def plain_units(ids: list[str], dates: list[str]) -> list[bool]:
    """Per (question_id, resolution_date) unit: whether ``forecast_file`` writes both cells as they are,
    within the schema, and ``as_read`` reads them back (``_fast_rows`` and ``reads_as_written`` on
    the unit alone: both look at each cell by itself). ``ordered_forecast_file`` takes such units."""
    return [
        type(i) is str
        and type(d) is str
        and i.strip() != ""
        and _plain([i])
        and _plain([d])
        and _FORECAST_DATE.match(d) is not None
        and _UNSTABLE.search(i) is None
        for i, d in zip(ids, dates, strict=True)
    ]


def ordered_forecast_file(
    units: list[str], probs: list, reasons: list, memo: ProbabilityTexts | None = None
) -> tuple[bytes, list[str], list[float]] | None:
    """``forecast_file``'s bytes for rows already in file order, each given as its unit's first two
    cells written out (``"question_id,resolution_date,"``, of distinct units ``plain_units`` passes),
    its probability and its reasoning; with the probability texts and the values the reader parses
    from them. None when a probability or a reasoning takes ``forecast_file`` off its fast path or
    ``as_read`` gives no frame for it: the caller then asks ``forecast_file``."""
    if not units or not (_plain(reasons) and _UNSTABLE.search("".join(reasons)) is None and _probabilities_ok(probs)):
        return None
    texts, values = _prob_texts(probs, {} if memo is None else memo)
    body = "".join([f"{u}{c},{d}\n" for u, c, d in zip(units, texts, reasons, strict=True)])
    return (_FORECAST_HEADER + body).encode("utf-8"), texts, values


def forecast_bytes(frame: pd.DataFrame, memo: ProbabilityTexts | None = None) -> bytes:
    """The canonical CSV bytes of a FORECASTS frame: ``to_csv_bytes(frame, FORECASTS)``, fast."""
    if not set(FORECASTS.names) <= set(frame.columns) or frame.columns.has_duplicates:
        return to_csv_bytes(frame, FORECASTS)  # not the four columns (the plain writer says what is off)
    rows = _fast_rows(*forecast_lists(frame).values())
    return to_csv_bytes(frame, FORECASTS) if rows is None else _body(rows, {} if memo is None else memo)[0]


def forecast_lists(frame: pd.DataFrame) -> dict[str, list]:
    """A FORECASTS frame's columns as ``forecast_file`` takes them (plain lists, "" for a missing text)."""
    return {
        "question_id": frame["question_id"].tolist(),
        "resolution_date": frame["resolution_date"].fillna("").tolist(),
        "probability": frame["probability"].tolist(),
        "reasoning": frame["reasoning"].fillna("").tolist(),
    }


def forecast_file(columns: dict[str, list], memo: ProbabilityTexts | None = None) -> tuple[bytes, list[list[str]] | None]:
    """``forecast_bytes`` of the frame of ``columns`` (FORECASTS' four column lists, no missing
    values), and the file's text cells column by column followed by the probabilities as the
    reader parses them (None when the plain writer wrote the file)."""
    names = FORECASTS.names
    rows = _fast_rows(*(columns[n] for n in names))
    if rows is None:
        return forecast_bytes(pd.DataFrame({n: columns[n] for n in names}, columns=list(names)), memo), None
    data, texts, values = _body(rows, {} if memo is None else memo)
    return data, [[r[0] for r in rows], [r[1] for r in rows], texts, [r[3] for r in rows], values]


_UNSTABLE = re.compile(r"[\x00-\x1f\x7f\ufeff]")


def as_read(cells: list[list[str]]) -> pd.DataFrame | None:
    """The frame ``read_table`` returns for a ``forecast_file`` body with these cells, or
    None when it would not be exactly that or would not pass: a cell holds a control character
    (the CSV reader's handling of them is not restated here), or a question_id is blank (the
    reader rejects it). Every other check of the reader holds by construction (header, unique
    keys, dates, "%.6f" probabilities in [0, 1]); the probabilities come parsed by the reader's
    own ``coerce`` (see ``_prob_table``). tests/store/test_fast_paths.py compares with real reads."""
    ids, dates, _, reasons, values = cells
    return forecasts_frame(ids, dates, values, reasons) if reads_as_written(cells) else None


def reads_as_written(cells: list[list[str]]) -> bool:
    """Whether ``as_read`` gives a frame for these cells (see there): no control character in an id
    or a reasoning, no blank id. A parsing worker of the import asks it of the files it makes."""
    ids, reasons = cells[0], cells[3]
    return not (_UNSTABLE.search("".join(ids)) or _UNSTABLE.search("".join(reasons)) or not all(map(str.strip, ids)))


def forecasts_frame(
    ids: Sequence | np.ndarray, dates: Sequence | np.ndarray, values: Sequence | np.ndarray, reasons: Sequence | np.ndarray
) -> pd.DataFrame:
    """The checked and typed FORECASTS frame of these columns (texts and probabilities), as ``read_table`` types it."""
    return pd.DataFrame(
        {
            "question_id": pd.array(ids, dtype=str),
            "resolution_date": pd.array(dates, dtype=str),
            "probability": np.array(values, dtype=float),
            "reasoning": pd.array(reasons, dtype=str),
        },
        index=pd.RangeIndex(len(ids)),
    )


def read_together(datas: Sequence[bytes], labels: Sequence[str]) -> list[pd.DataFrame | None]:
    """The frame ``csvio.read_table`` gives for each forecast file's bytes, many files parsed, checked and typed
    as one CSV (a round's hundred files in about half the time of reading them one by one), or None for a file
    left to ``read_table``.

    Only files that read the same either way go together: their header line is the most common one, their
    bytes are UTF-8 with no quote and no control character but the line ends, each ends with a line end, and
    each line has the header's number of commas (no blank line, no cell the reader could join or split, no line
    read as an index). The reader, the checks and ``coerce`` then see the very cells a file alone gives them: a
    FORECASTS cell is checked and typed by itself (its one number column holds probabilities, never a whole
    number past 2⁵³), and the key is checked file by file. A file with a cell that has a problem is left to
    ``read_table``, which reports it under the file's own name, and the others are taken again without it; no
    frame comes from a parse in which any cell had a problem. tests/store/test_fast_paths.py compares every
    frame with ``read_table``'s."""
    out: list[pd.DataFrame | None] = [None] * len(datas)
    headers = [d[: d.find(b"\n") + 1] for d in datas]
    header = max(set(headers), key=headers.count) if datas else b""
    width = header.count(b",") + 1
    plain = [
        i
        for i, d in enumerate(datas)
        if headers[i] == header and d.endswith(b"\n") and not d.translate(None, PLAIN_BYTES) and _utf8(d) and _lines_of(d[len(header) :], width)
    ]
    if width >= 2:
        _read_plain(datas, labels, plain, header, out)
    return out


def _read_plain(datas: Sequence[bytes], labels: Sequence[str], together: list[int], header: bytes, out: list, tries: int = 3) -> None:
    """``read_together`` of the files ``together`` (plain, one header), into ``out``."""
    if len(together) < 2:
        return
    try:
        raw = parse_bytes(header + b"".join(datas[i][len(header) :] for i in together), labels[together[0]])
    except UNREADABLE:
        return
    stops = np.cumsum([datas[i].count(b"\n") - 1 for i in together])
    if len(raw) != stops[-1]:
        return
    problems = check_frame(raw, FORECASTS, labels[together[0]], keys=False)
    if problems:  # the files of the rows named are left out, and the rest taken again (a problem elsewhere: none is)
        rows = [p.row - 2 if p.row is not None and p.row >= 2 else -1 for p in problems]
        bad = set(np.searchsorted(stops, rows, side="right").tolist())
        if tries and min(rows) >= 0:
            _read_plain(datas, labels, [i for n, i in enumerate(together) if n not in bad], header, out, tries - 1)
        return
    codes, typed = _coerced_by_text(raw)
    starts = np.concatenate([[0], stops[:-1]])
    repeated = _files_repeating_a_key(codes, np.repeat(np.arange(len(together)), stops - starts))
    for n, (i, start, stop) in enumerate(zip(together, starts, stops, strict=True)):
        if n not in repeated:
            out[i] = typed.iloc[start:stop].reset_index(drop=True)


def _utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _lines_of(body: bytes, width: int) -> bool:
    """Every line of ``body`` (which ends with a line end) holds ``width`` - 1 commas."""
    codes = np.frombuffer(body, dtype=np.uint8)
    before = np.searchsorted(np.flatnonzero(codes == 0x2C), np.flatnonzero(codes == 0x0A))  # commas before each line end
    return bool((np.diff(before, prepend=0) == width - 1).all())


def _coerced_by_text(raw: pd.DataFrame) -> tuple[dict[str, np.ndarray], pd.DataFrame]:
    """``coerce(raw, FORECASTS)``, each distinct text of a column typed once (a FORECASTS cell is typed by
    itself: the same value wherever it stands), and each column's codes of its texts."""
    codes, distinct = {}, {}
    for name in FORECASTS.names:
        codes[name], distinct[name] = pd.factorize(raw[name].to_numpy(dtype=object))
    longest = max(len(d) for d in distinct.values())  # padded with empty cells, which no code points at
    texts = pd.DataFrame({n: np.concatenate([d, [""] * (longest - len(d))]).astype(object) for n, d in distinct.items()})
    typed = coerce(texts, FORECASTS)
    return codes, pd.DataFrame({n: typed[n].to_numpy()[codes[n]] for n in FORECASTS.names}, index=pd.RangeIndex(len(raw)))


def _files_repeating_a_key(codes: dict[str, np.ndarray], file: np.ndarray) -> set[int]:
    """The files (their numbers in ``file``, one per row) with a key on two rows."""
    key = np.zeros(len(file), dtype=np.int64)
    for name in FORECASTS.key:
        key = key * (int(codes[name].max(initial=-1)) + 2) + codes[name] + 1
    _, first, count = np.unique(np.stack([file, key]), axis=1, return_index=True, return_counts=True)
    return set(file[first[count > 1]].tolist())
