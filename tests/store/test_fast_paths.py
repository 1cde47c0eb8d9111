"""The store's fast paths give exactly what the plain code gives: csvio's whole-column check, writer,
byte parser and read-back, and the forecast files' fast writer and reader (``fast_forecasts``).
The fast paths of the other packages are tested beside them: the Brier in tests/scoring/test_brier.py,
ForecastBench's import in tests/interop/test_fb_fast_paths.py, the forked nightly in
tests/pipeline/test_forked_processes.py."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.errors import SchemaError
from generator.schemas import FORECASTS, Column
from generator.store import atomic, csvio, readers
from generator.store.fast_forecasts import as_read, forecast_bytes, forecast_file
from generator.store.hub import Hub

from helpers import bytes_or_error, forecast_columns_strategy

# Cells chosen to sit on the edges of the fast patterns: signs, spaces, unicode digits, embedded
# separators, overflow, trailing newlines (``$`` matches before one), quotes and commas.
EDGE = [
    "",
    " ",
    "0",
    "1",
    "0.5",
    "1.0",
    "1.5",
    "-0",
    "+0.5",
    " 0.5",
    ".5",
    "5.",
    "1e-07",
    "1e+999",
    "nan",
    "inf",
    "2026-01-01",
    "2026-01-01\n",
    "2026-01-01\n2026-01-02",
    "٢٠٢٦-01-01",
    "2026-01-01T00:00:00Z",
    "2026-13-45T99:99:99Z",
    "12",
    "-12",
    "1" * 30,
    "x",
    "a,b",
    'q"q',
    "dataset",
    "binary",
    "\t",
    "\u2028",
]

COLUMNS = [
    Column("c", t, "", nullable, ("binary", "dataset") if t == "enum" else ())
    for t in ("str", "ts", "date", "float", "prob", "int", "enum")
    for nullable in (False, True)
]


def slow_problems(values: pd.Series, column: Column) -> list:
    """The cell-by-cell check alone (the fast path switched off)."""
    original = csvio._column_clean
    csvio._column_clean = lambda text, col: False
    try:
        return csvio._check_column(values, column, "f.csv")
    finally:
        csvio._column_clean = original


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(EDGE) | st.text(max_size=6), max_size=8), st.sampled_from(COLUMNS))
def test_the_whole_column_check_reports_what_the_cell_check_reports(cells, column):
    values = pd.Series(cells, dtype=str)
    assert csvio._check_column(values, column, "f.csv") == slow_problems(values, column)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(max_size=5) | st.sampled_from(EDGE), min_size=2, max_size=2), st.integers(0, 3))
def test_writer_quotes_like_the_csv_module_and_also_what_it_leaves_bare(row, copies):
    """Same bytes as the csv module unless a cell holds what it leaves bare (CR, a control character,
    U+2028, edge whitespace), and the csv module reads every row back either way."""
    frame = pd.DataFrame([row] * copies, columns=["a", "b"])
    cells = [csvio.quote_cells(frame[c].to_numpy(dtype=object)).tolist() for c in ("a", "b")]
    written = "".join(f"{a},{b}\n" for a, b in zip(*cells, strict=True))
    assert list(csv.reader(io.StringIO(written, newline=""))) == [row] * copies
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(frame.itertuples(index=False, name=None))
    if not any(csvio.needs_quotes(c) and not any(ch in c for ch in ',"\n') for c in row):
        assert written == buffer.getvalue()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(max_size=4) | st.sampled_from(EDGE), min_size=1, max_size=12), st.integers(1, 12), st.booleans())
def test_quoting_each_distinct_text_once_writes_what_the_cell_by_cell_path_writes(texts, copies, lone):
    cells = np.array(texts * copies, dtype=object)
    original = csvio._DISTINCT_FROM
    try:
        csvio._DISTINCT_FROM = 0  # always by distinct text
        by_distinct = csvio.quote_cells(cells, lone).tolist()
        csvio._DISTINCT_FROM = 10**9  # always cell by cell, as before
        by_cell = csvio.quote_cells(cells, lone).tolist()
    finally:
        csvio._DISTINCT_FROM = original
    assert by_distinct == by_cell


def test_the_quick_pass_of_all_bare_misses_no_character_the_close_look_could_find():
    """``_SUSPECT`` must match every character ``_QUOTE_ANY``/``_UNWRITABLE`` match or that makes an edge
    need quotes (whitespace but LF): then a column where it finds none is bare under both, as before."""
    import re

    missed = [
        hex(ord(c))
        for c in map(chr, range(0x110000))
        if (re.fullmatch(r"\s", c) and c != "\n" or csvio._QUOTE_ANY.search(c) or csvio._UNWRITABLE.search(c)) and not csvio._SUSPECT.search(c)
    ]
    assert missed == []
    assert csvio.all_bare(["a", "b1", "2026-01-01"]) and not csvio.all_bare(["a", " b"]) and not csvio.all_bare(["a\u3000"])
    assert csvio.all_bare(["a b", "c"]) and not csvio.all_bare(["x\x00"]) and not csvio.all_bare(["a\nb"])
    assert csvio.writable(np.array(["a\x00", "b"], dtype=object)).tolist() == ["a\ufffd", "b"]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.text(
            alphabet=st.sampled_from(["a", "\u00e9", "\u2713", "\x00", "\ud800", "\udfff", "\ud7ff", "\ue000", "\U0001f600", "\ufffd"]), max_size=5
        ),
        max_size=4,
    )
)
def test_the_text_writable_check_equals_the_unwritable_search(cells):
    """``writable`` keeps a column as it is exactly when ``_UNWRITABLE`` finds nothing in it; else it
    replaces every NUL and lone surrogate."""
    column = np.array(cells + [""], dtype=object)[:-1]
    found = csvio._UNWRITABLE.search("".join(cells)) is not None
    out = csvio.writable(column)
    assert (out is column) == (not found)
    assert out.tolist() == [csvio._UNWRITABLE.sub("\ufffd", c) for c in cells]


def test_to_csv_bytes_sorts_and_formats_as_before():
    frame = pd.DataFrame(
        {
            "question_id": ["b", "a", "a", "c,d"],
            "resolution_date": ["", "2026-01-02", "2026-01-01", ""],
            "probability": [0.25, -0.0, 1.0, 0.1234567],
            "reasoning": ['say "hi"', "", None, "x\ny"],
        }
    )
    assert csvio.to_csv_bytes(frame, FORECASTS) == (
        b"question_id,resolution_date,probability,reasoning\na,2026-01-01,1.000000,\na,2026-01-02,0.000000,\n"
        b'b,,0.250000,"say ""hi"""\n"c,d",,0.123457,"x\ny"\n'
    )
    assert csvio._in_order([np.array(["a", "a", "b"], dtype=object), np.array(["2", "3", "1"], dtype=object)])
    assert not csvio._in_order([np.array(["a", "a", "b"], dtype=object), np.array(["3", "2", "1"], dtype=object)])


def parse_text(data: bytes) -> pd.DataFrame:
    """``parse_bytes`` as it was: the decoded text, its byte-order mark dropped, parsed as text."""
    text = data.decode("utf-8").removeprefix("\ufeff")
    return pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False, na_filter=False)


CSV_PIECES = st.sampled_from([",", '"', '""', "\n", "\r", "\r\n", "\ufeff", "\u2028", "\x00", " ", "\t", "a", "é", "💡", "#"])


@settings(max_examples=400, deadline=None)
@given(st.lists(CSV_PIECES | st.text(max_size=4), max_size=40), st.booleans())
def test_parsing_the_bytes_equals_parsing_the_decoded_text(pieces, bom):
    data = (("\ufeff" if bom else "") + "a,b\n" + "".join(pieces)).encode("utf-8", "surrogatepass")
    try:
        expected = parse_text(data)
    except (UnicodeDecodeError, pd.errors.ParserError) as exc:
        with pytest.raises((type(exc), SchemaError)):
            csvio.parse_bytes(data, "f.csv")
        return
    pd.testing.assert_frame_equal(csvio.parse_bytes(data, "f.csv"), expected)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(*[st.sampled_from(EDGE) | st.text(max_size=3)] * 2), max_size=30), st.integers(0, 2**32 - 1))
def test_ranked_text_order_equals_the_sort_and_the_duplicate_check(pairs, seed):
    """``_text_order``: pandas' stable sort of the key texts, and whether ``_check_keys`` finds nothing."""
    rows = pairs + [pairs[i] for i in np.random.default_rng(seed).integers(0, len(pairs), len(pairs) // 3)] if pairs else []
    text = csvio.as_text(
        pd.DataFrame(rows, columns=["question_id", "resolution_date"], dtype=object).assign(probability=0.5, reasoning=""), FORECASTS
    )
    columns = [text[n].to_numpy(dtype=object) for n in FORECASTS.names]
    ranked = csvio._text_order(columns, FORECASTS)
    if not rows:
        assert ranked is None
        return
    by = pd.DataFrame({"0": columns[0], "1": columns[1]})
    expected = by.sort_values(["0", "1"], kind="mergesort").index.to_numpy()
    assert (np.arange(len(rows)) if ranked[0] is None else ranked[0]).tolist() == expected.tolist()
    assert ranked[1] == (csvio._check_keys(text, FORECASTS, "f.csv") == [])


@settings(max_examples=300, deadline=None)
@given(forecast_columns_strategy)
def test_forecast_frames_written_by_forecast_bytes_equal_the_plain_writer(columns):
    """``forecast_bytes`` of a forecast frame: the plain writer's bytes (``to_csv_bytes``), or its problems."""
    frame = pd.DataFrame(columns, columns=list(FORECASTS.names))
    plain = bytes_or_error(lambda: csvio.to_csv_bytes(frame, FORECASTS))
    assert bytes_or_error(lambda: forecast_bytes(frame)) == plain
    assert bytes_or_error(lambda: forecast_bytes(frame.assign(extra=1))) == plain
    assert bytes_or_error(lambda: forecast_bytes(frame.drop(columns="reasoning"))) == bytes_or_error(
        lambda: csvio.to_csv_bytes(frame.drop(columns="reasoning"), FORECASTS)
    )


@pytest.mark.slow  # hundreds of examples, 5-10 s of CPU; `-m slow` runs it
@settings(max_examples=300, deadline=None)
@given(forecast_columns_strategy)
def test_forecast_file_and_the_frame_handed_to_the_scoring(tmp_path_factory, columns):
    """forecast_file writes the canonical bytes; the frame it hands over is the frame read_table
    reads from them (or read_table raises, and then nothing is handed over)."""
    names = list(FORECASTS.names)
    frame = pd.DataFrame({n: columns[n] for n in names}, columns=names)
    data = bytes_or_error(lambda: forecast_file(columns)[0])
    assert data == bytes_or_error(lambda: forecast_bytes(frame))
    if not isinstance(data, bytes):
        return
    cells = forecast_file(columns)[1]
    files = Hub(tmp_path_factory.mktemp("hub"))
    layout = files.layout
    path = layout.forecast(pd.Timestamp("2026-01-01", tz="UTC").to_pydatetime(), "t.m")
    atomic.write_bytes_atomic(path, data)
    try:
        from_disk = csvio.read_table(path, FORECASTS, layout.relative(path))
    except SchemaError:
        from_disk = None
    handed = as_read(cells) if cells is not None else None
    if handed is None:
        return
    assert from_disk is not None  # as_read hands nothing over for a file the reader rejects
    pd.testing.assert_frame_equal(handed, from_disk, check_exact=True)
    assert list(handed.dtypes) == list(from_disk.dtypes)
    readers.remember_forecasts(files, path, handed)
    read = files.cache.read_table(path, FORECASTS, layout.relative(path))
    assert read is not handed  # a copy, as read_table gives
    pd.testing.assert_frame_equal(read, from_disk, check_exact=True)
    assert readers.load_forecasts(files, pd.Timestamp("2026-01-01", tz="UTC").to_pydatetime())["t.m"] is not handed


def test_forecast_probability_text_reads_back_as_float_reads_it():
    """Every probability text the writer can produce ("%.6f" of [0, 1]) parses as float() parses it
    (``fast_forecasts._prob_table`` takes the values the reader gives from ``float``)."""
    texts = [f"{k / 1e6:.6f}" for k in range(1_000_001)]
    parsed = csvio.coerce(pd.DataFrame({"question_id": "q", "resolution_date": "", "probability": texts, "reasoning": ""}, dtype=str), FORECASTS)[
        "probability"
    ].to_numpy()
    assert np.array_equal(parsed, np.array([float(t) for t in texts]))


# -- write_table: plain bytes pass the read-back without parsing --------------------------------------

_CELL_TEXT = st.text(
    st.sampled_from(
        ["a", "Z", "0", ".", "-", " ", ",", '"', "\n", "\r", "\t", "\x00", "\x1f", "\x85", "\u00e9", "\u2028", "\ufeff", "\ud800", "#", "N", "\u3000"]
    ),
    max_size=4,
) | st.text(st.sampled_from(["a", "Z", "0", ".", "-", " ", "\u00e9", "\ufeff", "#", "N"]), max_size=4)


def test_plain_bytes_refuse_a_quote_and_every_control_byte_but_the_line_feed():
    """Each of the 256 byte values in a cell: the bytes are plain exactly when it is neither a quote
    nor a control character other than the line feed (nor a comma or line feed, which change the
    counts), as the regex it replaced said."""
    unsafe = re.compile(rb'["\x00-\x09\x0b-\x1f\x7f]')
    for b in range(256):
        data = b"a,b\nc,x" + bytes([b]) + b"y\n"
        expected = unsafe.search(data) is None and b not in b",\n"
        assert csvio.plain_bytes(data, 1, 2) is expected, b


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_CELL_TEXT, _CELL_TEXT, _CELL_TEXT, _CELL_TEXT), max_size=8))
def test_plain_bytes_read_back_as_their_cells(rows):
    """Cells joined as they are, whatever they hold (as an encoder that forgot to quote would write
    them): where ``plain_bytes`` says so, the reader gives back exactly the cells, so the write's
    read-back check may compare bytes instead of parsing. ``encoded`` says plain only then; the check
    still parses (and refuses) bytes that differ from the ones meant."""
    cells = [csvio.writable(np.array([r[i] for r in rows], dtype=object)) for i in range(4)]
    joined = "".join(",".join(line) + "\n" for line in [FORECASTS.names, *zip(*(c.tolist() for c in cells), strict=True)]).encode("utf-8")
    if csvio.plain_bytes(joined, len(rows), 4):
        assert csvio.read_back_problems(csvio.parse_bytes(joined, "x"), FORECASTS, cells, "x") == []
    data, plain = csvio.encoded(FORECASTS.names, cells)
    assert data == csvio.encode(FORECASTS.names, cells) and (not plain or data == joined and csvio.plain_bytes(joined, len(rows), 4))
    if plain:
        csvio.read_back_check(FORECASTS, cells, "x", meant=data)(data)
        if rows:
            with pytest.raises(csvio.RoundTripError):
                csvio.read_back_check(FORECASTS, cells, "x", meant=data)(data.replace(b"\n", b"\nq", 1))
    assert not csvio.encoded(("only",), cells[:1])[1]


# --- a round's forecast files read as one (``fast_forecasts.read_together``) ---------------------------------

HEADER = "question_id,resolution_date,probability,reasoning\n"

FORECAST_CELLS = {  # per column: cells that pass, and cells on the checks' edges
    "question_id": ["sim:m1", "sim:m2", "sim:s1", "ü:1", "x", " sim:m1", ""],
    "resolution_date": ["", "", "2026-02-01", "2026-03-01", "2026-13-01", " 2026-02-01"],
    "probability": ["0.5", "0.123456", "0", "1", "1.0", "0.1234567890123456789", ".5", "1.5", "-0", " 0.5", "nan", "x"],
    "reasoning": ["", "because", "ünïcode", " spaced ", "x" * 30],
}

EDGE_FILES = [  # whole files the fast path must leave alone or take exactly as the reader does
    HEADER,  # a header alone
    HEADER + "sim:m1,,0.5,\n" + "sim:m1,,0.25,\n",  # a key twice
    HEADER + "sim:m1,,0.5,\n\nsim:m2,,0.5,\n",  # a blank line
    HEADER + "sim:m1,,0.5,\nsim:m2,,0.5,,\n",  # a line with a cell too many
    HEADER + "sim:m1,,0.5,,\nsim:m2,,0.5,,\n",  # every line with a cell too many: the reader takes an index
    HEADER + "sim:m1,,0.5\n",  # a line with a cell too few
    HEADER + "sim:m1,,0.5,",  # no line end at the end
    HEADER.replace("\n", "\r\n") + "sim:m1,,0.5,\r\n",  # CRLF
    "\ufeff" + HEADER + "sim:m1,,0.5,\n",  # a byte-order mark
    HEADER + 'sim:m1,,0.5,"a, b"\n',  # a quoted cell
    "question_id,probability,resolution_date,reasoning\nsim:m1,0.5,,\n",  # another column order
    "question_id,resolution_date,probability\nsim:m1,,0.5\n",  # a column missing
    HEADER.replace("\n", ",extra\n") + "sim:m1,,0.5,,1\n",  # a column unknown
    "sim:m1,,0.5,\n",  # no header
    "",  # empty
]


def _forecast_file(rng: np.random.Generator, clean: bool) -> str:
    lines = []
    for _ in range(int(rng.integers(0, 12))):
        cells = [FORECAST_CELLS[c][int(rng.integers(0, 4 if clean else len(FORECAST_CELLS[c])))] for c in FORECASTS.names]
        lines.append(",".join(cells) + "\n")
    if clean:  # one forecast per unit
        lines = list(dict.fromkeys(lines))
        seen, kept = set(), []
        for line in lines:
            unit = tuple(line.split(",")[:2])
            if unit not in seen:
                seen.add(unit)
                kept.append(line)
        lines = kept
    return HEADER + "".join(lines)


@pytest.mark.parametrize("seed", range(30))
def test_forecast_files_read_together_are_the_frames_each_file_reads_as(tmp_path, seed):
    """Every frame ``read_together`` gives is, to the last bit and dtype, what ``csvio.read_table`` reads from that
    file alone; every other file is None (left to ``read_table``). Random rounds of files, most of them clean, some
    with cells on the checks' edges (a bad probability, a blank id, an invalid date, a repeated unit), plus files
    the fast path must leave alone (CRLF, a quote, a blank line, a line with a cell too many or too few, another
    header...). The clean files of a round are taken even when another file of it has a bad cell."""
    from generator.store.fast_forecasts import read_together

    rng = np.random.default_rng(seed)
    texts = [_forecast_file(rng, clean=bool(rng.random() < 0.8)) for _ in range(int(rng.integers(2, 14)))]
    texts += [EDGE_FILES[int(i)] for i in rng.choice(len(EDGE_FILES), size=int(rng.integers(0, 4)), replace=False)]
    texts = [texts[int(i)] for i in rng.permutation(len(texts))]
    datas = [t.encode("utf-8") for t in texts]
    if rng.random() < 0.3:
        datas.append(HEADER.encode() + b"sim:m1,,0.5,\xff\n")  # not UTF-8
    labels = [f"data/forecasts/2026-01-04/t{i}.m.csv" for i in range(len(datas))]
    got = read_together(datas, labels)
    clean, taken = 0, 0
    for data, label, frame in zip(datas, labels, got, strict=True):
        path = tmp_path / Path(label).name
        path.write_bytes(data)
        try:
            expected = csvio.read_table(path, FORECASTS, label)
        except csvio.UNREADABLE as exc:
            assert frame is None, (label, exc)
            continue
        clean += 1
        if frame is not None:
            taken += 1
            pd.testing.assert_frame_equal(frame, expected, check_exact=True)
            assert list(frame.dtypes.astype(str)) == csvio.table_dtypes(FORECASTS)
    assert taken, "no file was read together: nothing was compared"
    if clean >= 2 and all(map(_plain, texts)) and len(datas) == len(texts):
        assert taken == clean, "every file that reads cleanly and is plain is taken"


def test_files_whose_lines_hold_a_cell_too_many_are_not_read_together():
    """Alone, a file whose every line has one cell more than its header is read with its first column as the
    index; together with others, the first file's lines would decide that for all of them."""
    from generator.store.fast_forecasts import read_together

    extra = (HEADER + "sim:m1,,0.5,,\nsim:m2,,0.5,,\n").encode()
    clean = (HEADER + "sim:m1,,0.5,\n").encode()
    assert read_together([extra, clean, clean], ["a.csv", "b.csv", "c.csv"])[0] is None
    for frame in read_together([extra, clean, clean], ["a.csv", "b.csv", "c.csv"])[1:]:
        pd.testing.assert_frame_equal(frame, csvio.coerce(csvio.parse_bytes(clean, "b.csv"), FORECASTS), check_exact=True)


def _plain(text: str) -> bool:
    """The files ``read_together`` takes, said again: the one header, a line end at the end, no quote or
    carriage return, three commas a line."""
    return (
        text.startswith(HEADER)
        and text.endswith("\n")
        and not {'"', "\r", "\ufeff"} & set(text)
        and all(line.count(",") == 3 for line in text.splitlines())
    )


def test_a_round_read_together_is_parsed_once_and_quarantines_as_one_by_one(tmp_path, monkeypatch):
    """``readers.load_forecasts`` parses a round's plain files as one: ``csvio.read_table`` runs only for the
    files left to it (a CRLF file, a broken one), the frames are those each file reads as, and an unreadable
    file is quarantined as the one-by-one reading quarantines it."""
    from generator.store import readers
    from generator.store.cache import reads
    from generator.store.hub import Hub
    from generator.timeutil import parse_ts

    root = tmp_path / "hub"
    folder = root / "data" / "forecasts" / "2026-01-04"
    folder.mkdir(parents=True)
    rng = np.random.default_rng(7)
    for i in range(6):
        (folder / f"team-{i}.m.csv").write_text(_forecast_file(rng, clean=True), encoding="utf-8")
    (folder / "team-crlf.m.csv").write_bytes((HEADER + "sim:m1,,0.5,\n").replace("\n", "\r\n").encode())
    (folder / "team-bad.m.csv").write_text(HEADER + "sim:m1,,1.5,\n", encoding="utf-8")
    due = parse_ts("2026-01-04T00:00:00Z")
    parsed, read_table = [], reads.csvio.read_table
    monkeypatch.setattr(reads.csvio, "read_table", lambda path, *a, **k: parsed.append(Path(path).name) or read_table(path, *a, **k))
    together_quarantine: list = []
    together = readers.load_forecasts(Hub(root), due, together_quarantine)
    assert sorted(parsed) == ["team-bad.m.csv", "team-crlf.m.csv"]
    monkeypatch.setattr(reads, "read_together", lambda datas, labels: [None] * len(datas))
    alone_quarantine: list = []
    alone = readers.load_forecasts(Hub(root), due, alone_quarantine)
    assert together_quarantine == alone_quarantine and [p.file for p in alone_quarantine] == ["data/forecasts/2026-01-04/team-bad.m.csv"]
    assert sorted(together) == sorted(alone) and len(alone) == 7
    for model, frame in alone.items():
        pd.testing.assert_frame_equal(together[model], frame, check_exact=True)


def _plain_coerce(raw: pd.DataFrame, table) -> pd.DataFrame:
    """``csvio.coerce`` as it was written first: each column parsed through its own dtype."""
    out = {}
    for column in table.columns:
        values = raw[column.name] if column.name in raw.columns else pd.Series("", index=raw.index)
        if column.type in ("float", "prob") or column.type == "int" and column.nullable:
            out[column.name] = pd.to_numeric(values.replace("", np.nan), errors="coerce").astype(float)
        elif column.type == "int":
            out[column.name] = pd.to_numeric(values, errors="coerce").fillna(0).astype("int64")
        else:
            out[column.name] = values.astype(str)
    return pd.DataFrame({name: values.array for name, values in out.items()}, index=pd.RangeIndex(len(raw)))


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.one_of(
                st.floats(allow_nan=False).map(repr),
                st.floats(allow_nan=False).map(lambda x: f"{x:.10g}"),
                st.sampled_from(["", " ", "x", "1e400", "-0"]),
            ),
            st.one_of(st.integers(-(2**63), 2**63 - 1).map(str), st.sampled_from(["", "9007199254740993", "1.5", "x"])),
        ),
        max_size=30,
    )
)
def test_coerce_parses_numbers_as_each_columns_own_dtype_would(cells):
    """The typed frame of a file's text, an empty or unparsable cell NaN (0 in a whole-number column that
    may not be empty), whole numbers beyond a float's precision kept exact."""
    from generator.schemas import HISTORY

    raw = pd.DataFrame({name: pd.Series([""] * len(cells), dtype="str") for name in HISTORY.names})
    raw["overall"] = pd.Series([c[0] for c in cells], dtype="str")
    raw["n"] = pd.Series([c[1] for c in cells], dtype="str")
    raw["rank"] = pd.Series([c[1] for c in cells], dtype="str")
    pd.testing.assert_frame_equal(csvio.coerce(raw, HISTORY), _plain_coerce(raw, HISTORY), check_exact=True)
    pd.testing.assert_frame_equal(
        csvio.coerce(raw.drop(columns=["view"]), HISTORY), _plain_coerce(raw.drop(columns=["view"]), HISTORY), check_exact=True
    )
