"""The fast paths give exactly what the plain code gives: csvio's whole-column check and writer,
and score_round's integer-coded join (checked against the merge it replaced)."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.schemas import FORECASTS, SCORES, Column
from generator.scoring.brier import brier, resolved_units, score_round
from generator.store import atomic, csvio

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
    written = "".join(f"{a},{b}\n" for a, b in zip(*cells))
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


def merge_score_round(round_label, units, forecasts, impute_value):
    """score_round as it was: a cross join of units x models, then a merge on the string keys."""
    unit = ["question_id", "resolution_date"]
    given_rows = pd.concat([f[[*unit, "probability"]].assign(model=m) for m, f in forecasts.items()], ignore_index=True)
    grid = units.merge(pd.DataFrame({"model": sorted(forecasts)}), how="cross")
    scored = grid.merge(given_rows.drop_duplicates(["model", *unit]), on=["model", *unit], how="left")
    scored["imputed"] = scored["probability"].isna().astype("int64")
    scored["probability"] = scored["probability"].fillna(impute_value).astype(float)
    scored["brier"] = brier(scored["probability"], scored["outcome"].astype(float))
    return scored.assign(round=round_label)[list(SCORES.names)]


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 12), st.integers(1, 5), st.integers(0, 2**32 - 1))
def test_score_round_equals_the_merge_it_replaced(n_units, n_models, seed):
    rng = np.random.default_rng(seed)
    ids = [f"src:q{i}" for i in rng.integers(0, 6, n_units)]
    dates = rng.choice(["", "2026-01-01", "2026-02-01"], n_units)
    units = pd.DataFrame(
        {
            "question_id": ids,
            "resolution_date": dates,
            "source": "src",
            "kind": "dataset",
            "category": "",
            "outcome": rng.integers(0, 2, n_units).astype(float),
            "resolved_at": "2026-03-01T00:00:00Z",
            "proxy": np.nan,
        }
    ).drop_duplicates(["question_id", "resolution_date"])
    forecasts = {}
    for m in range(n_models):
        n = int(rng.integers(0, 2 * n_units))
        forecasts[f"t.m{m}"] = pd.DataFrame(
            {  # typed as read_table types them
                "question_id": pd.Series([f"src:q{i}" for i in rng.integers(0, 8, n)], dtype=str),
                "resolution_date": pd.Series(rng.choice(["", "2026-01-01"], n), dtype=str),
                "probability": np.where(rng.random(n) < 0.1, np.nan, rng.random(n)),
                "reasoning": pd.Series([""] * n, dtype=str),
            }
        )
    got = score_round("2026-01-01", units, forecasts, 0.5)
    pd.testing.assert_frame_equal(got, merge_score_round("2026-01-01", units, forecasts, 0.5))


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 14), st.integers(0, 5), st.integers(0, 2**32 - 1))
def test_scoring_a_round_from_its_kept_forecasts_equals_scoring_its_files(n_rows, n_models, seed):
    """``score_forecasts`` of ``round_forecasts(questions, forecasts)`` (what the nightly keeps of a round's
    files) is ``score_round`` of the files, for any resolved subset of the questions: markets whose forecast
    rows carry a date, repeated and unknown units, empty probabilities, duplicate question rows, a unit
    resolved twice, models that declare a question set."""
    from generator.pipeline import memo_store
    from generator.scoring.brier import round_forecasts, score_forecasts
    from generator.store.cache import DiskCache
    from generator.vocabulary import MARKET

    rng = np.random.default_rng(seed)
    ids = [f"src:q{i}" for i in rng.integers(0, 6, n_rows)]
    kinds = [MARKET if q in ("src:q0", "src:q1") else "dataset" for q in ids]
    dates = ["" if k == MARKET and rng.random() < 0.8 else str(rng.choice(["2026-01-01", "2026-02-01"])) for k in kinds]
    questions = pd.DataFrame(
        {
            "question_id": pd.array(ids, dtype=str),
            "resolution_date": pd.array(dates, dtype=str),
            "source": "src",
            "kind": pd.array(kinds, dtype=str),
            "category": "",
        }
    )
    picked = sorted(set(rng.integers(0, n_rows, n_rows).tolist()))
    done = questions.iloc[picked][["question_id", "resolution_date"]].assign(
        status="resolved",
        outcome=rng.integers(0, 2, len(picked)).astype(float),
        resolved_at="2026-03-01T00:00:00Z",
        proxy=np.where(rng.random(len(picked)) < 0.3, 1.0, np.nan),
    )
    if len(done) and rng.random() < 0.2:
        done = pd.concat([done, done.iloc[:1].assign(outcome=1.0 - done["outcome"].iloc[0])], ignore_index=True)  # resolved twice
    units = resolved_units(questions, done)
    forecasts = {}
    for m in range(n_models):
        n = int(rng.integers(0, 2 * n_rows + 1))
        frame = pd.DataFrame(
            {
                "question_id": pd.Series([f"src:q{i}" for i in rng.integers(0, 8, n)], dtype=str),
                "resolution_date": pd.Series(rng.choice(["", "2026-01-01", "2026-02-01"], n), dtype=str),
                "probability": np.where(rng.random(n) < 0.1, np.nan, rng.random(n)),
                "reasoning": pd.Series([""] * n, dtype=str),
            }
        )
        if rng.random() < 0.3:
            frame.attrs["question_set"] = str(rng.choice(["2026-01-01-llm.json", "2026-01-01-human", "other"]))
        forecasts[f"t.m{m}"] = frame
    sets = None
    if rng.random() < 0.5:
        members = questions.iloc[rng.integers(0, n_rows, n_rows)][["question_id", "resolution_date"]]
        sets = members.assign(question_set=rng.choice(["2026-01-01-llm", "2026-01-01-human"], len(members))).drop_duplicates()
    expected = score_round("2026-01-01", units, forecasts, 0.5, sets)
    table = round_forecasts(questions, forecasts)
    pd.testing.assert_frame_equal(score_forecasts("2026-01-01", units, table, 0.5, sets), expected)
    with tempfile.TemporaryDirectory() as folder:  # and as the disk cache gives it back to another command
        memo_store.save_forecasts(DiskCache.open(Path(folder), Path(folder)), "2026-01-01", ("key",), table)
        kept = memo_store.load_forecasts(DiskCache.open(Path(folder), Path(folder)), "2026-01-01", ("key",))
        assert memo_store.load_forecasts(DiskCache.open(Path(folder), Path(folder)), "2026-01-01", ("another",)) is None
    assert kept is not None and kept.models == table.models and kept.declared == table.declared
    assert kept.prob.tobytes() == table.prob.tobytes()
    pd.testing.assert_frame_equal(score_forecasts("2026-01-01", units, kept, 0.5, sets), expected)


# -- ForecastBench import: forecast sets checked by column, files handed to the scoring ------------

from generator.errors import Problem, SchemaError  # noqa: E402
from generator.interop.forecastbench import frames as fb_frames  # noqa: E402
from generator.interop.forecastbench import parse as fb_parse
from generator.store import readers  # noqa: E402
from generator.store.cache import ReadCache  # noqa: E402
from generator.store.fast_forecasts import as_read, forecast_bytes, forecast_file  # noqa: E402
from generator.store.hub import Hub  # noqa: E402

ODD = [
    None,
    True,
    False,
    0,
    1,
    2,
    -1,
    0.0,
    -0.0,
    1.0,
    0.5,
    1.5,
    -0.25,
    float("nan"),
    float("inf"),
    10**400,
    "0.5",
    "",
    " ",
    "x",
    [],
    {},
    "2026-01-01",
    "2026-1-1",
    "٢٠٢٦-٠١-٠١",
    "2026-01-01\n",
    "manifold",
    "fred",
    "acled",
]
ROW_KEYS = ("id", "source", "forecast", "resolution_date", "reasoning")


fb_rows = st.lists(
    st.one_of(
        st.fixed_dictionaries(
            {
                "id": st.sampled_from(["a", "b", "", "c,d"]) | st.sampled_from(ODD),
                "source": st.sampled_from(fb_parse.SOURCES) | st.sampled_from(ODD),
                "forecast": st.floats(0, 1) | st.none() | st.sampled_from(ODD) | st.integers(-2, 2),
            },
            optional={
                "resolution_date": st.sampled_from(["2026-01-01", "2026-02-01"]) | st.none() | st.sampled_from(ODD),
                "reasoning": st.text(max_size=4) | st.none() | st.sampled_from(ODD),
            },
        ),
        st.dictionaries(st.sampled_from(ROW_KEYS), st.sampled_from(ODD), max_size=5),
        st.sampled_from(ODD),
    ),
    max_size=8,
)
good_rows = st.lists(
    st.fixed_dictionaries(
        {
            "id": st.sampled_from(["a", "b", "c", "q1"]),
            "source": st.sampled_from(fb_parse.SOURCES),
            "forecast": st.floats(0, 1) | st.none() | st.sampled_from([0, 1, 0.0, -0.0, 1.0]),
        },
        optional={"resolution_date": st.sampled_from(["2026-01-01", "2026-02-01"]) | st.none(), "reasoning": st.text(max_size=4) | st.none()},
    ),
    max_size=10,
)


def fast_forecasts_rowwise(items: object) -> dict | None:
    """``fb_parse.fast_forecasts`` checked row by row (the reference its column checks are tested against)."""
    if not isinstance(items, list) or not all(type(r) is dict for r in items) or (fields := fb_parse._fields(items)) is None:
        return None
    ids, sources, values, dates, reasons = fields
    if not (
        all(type(i) is str and i for i in ids)
        and all(type(s) is str for s in sources)
        and set(sources) <= set(fb_parse.SOURCES)
        and all(v is None or (type(v) in (int, float) and 0.0 <= v <= 1.0) for v in values)
        and all(d is None or type(d) is str for d in dates)
        and all(d is None or fb_parse._DATE.match(d) for d in set(dates))
    ):
        return None
    keep = [i for i, v in enumerate(values) if v is not None]
    markets = set(fb_parse.MARKET_SOURCES)
    return {
        "question_id": [f"{sources[i]}:{ids[i]}" for i in keep],
        "resolution_date": ["" if sources[i] in markets or dates[i] is None else dates[i] for i in keep],
        "probability": [float(values[i]) for i in keep],
        "reasoning": [reasons[i] if type(reasons[i]) is str else "" for i in keep],
    }


@settings(max_examples=400, deadline=None)
@given(fb_rows | good_rows)
def test_column_checked_forecast_sets_equal_the_row_checks(items):
    got, want = fb_parse.fast_forecasts(items), fast_forecasts_rowwise(items)
    assert got == want
    if got is not None:  # same values, same types (1 and 1.0 compare equal)
        assert [type(p) for p in got["probability"]] == [type(p) for p in want["probability"]]
        assert [repr(p) for p in got["probability"]] == [repr(p) for p in want["probability"]]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from([{}, {"id": "a"}, {fb_parse.MEMBER_KEY: 1}, {fb_parse.MEMBER_KEY: None, "id": "b"}, [], "user_id", None, 3]), max_size=6)
)
def test_the_individual_file_check_equals_the_row_by_row_check(items):
    """A forecasts list is an individual file's when a row is an object with ``user_id``, whatever the other rows are."""
    assert fb_parse._any_member(items) == any(isinstance(r, dict) and fb_parse.MEMBER_KEY in r for r in items)


def _unit_frame(pairs) -> pd.DataFrame:
    return pd.DataFrame({"question_id": pd.Series([q for q, _ in pairs], dtype=str), "resolution_date": pd.Series([d for _, d in pairs], dtype=str)})


def forecast_rows(fset: fb_parse.Parsed, units: pd.DataFrame) -> tuple[pd.DataFrame, list]:
    """``fb_frames.forecast_columns`` done on a DataFrame (the reference it is tested against): the
    forecast set's rows on the round's units (others dropped with one warning)."""
    unit = ["question_id", "resolution_date"]
    frame = pd.DataFrame(fset.rows[0] if fset.rows else {}, columns=[*unit, "probability", "reasoning"])
    dup = frame.duplicated(unit, keep="first")
    allowed = set(zip(units["question_id"], units["resolution_date"]))
    inside = np.fromiter((u in allowed for u in zip(frame["question_id"], frame["resolution_date"])), bool, len(frame))
    problems = []
    if dup.any():
        problems.append(
            Problem(
                fset.label, None, "id", "duplicate-forecast", f"{int(dup.sum())} repeated (id, resolution_date) row(s); the first is kept", "warning"
            )
        )
    if (~inside).any():
        problems.append(
            Problem(
                fset.label,
                None,
                "id",
                "unknown-question",
                f"{int((~inside).sum())} forecast(s) for questions or dates not in round {fset.due} dropped",
                "warning",
            )
        )
    return frame[inside & ~dup.to_numpy()].reset_index(drop=True), problems


forecast_columns_strategy = st.integers(0, 12).flatmap(
    lambda n: st.fixed_dictionaries(
        {
            "question_id": st.lists(
                st.sampled_from(["fred:a", "fred:b", "manifold:c", "x", " ", "", "a,b", 'q"']) | st.text(max_size=3), min_size=n, max_size=n
            ),
            "resolution_date": st.lists(st.sampled_from(["", "2026-01-01", "2026-02-01", "٢٠٢٦-٠١-٠١", "2026-1-1"]), min_size=n, max_size=n),
            "probability": st.lists(st.floats(0, 1) | st.sampled_from([-0.0, 0.1234565, 1e-9, 0.9999995]), min_size=n, max_size=n),
            "reasoning": st.lists(
                st.text(max_size=4) | st.sampled_from(["", "a,b", "x\ny", "\r", "\x00", "\ufeff", " ", "\x85", "\u2028", "#", "nan", "NA"]),
                min_size=n,
                max_size=n,
            ),
        }
    )
)


@pytest.mark.slow  # hundreds of examples, 5-10 s of CPU; `-m slow` runs it
@settings(max_examples=300, deadline=None)
@given(
    forecast_columns_strategy,
    st.lists(
        st.sampled_from([("fred:a", "2026-01-01"), ("fred:a", ""), ("fred:b", "2026-02-01"), ("manifold:c", ""), ("x", ""), (" ", "")]),
        max_size=6,
        unique=True,
    ),
)
def test_forecast_columns_equal_forecast_rows(columns, units):
    fset = fb_parse.Parsed("f.json", due="2026-01-01", rows=[columns])
    frame, problems = forecast_rows(fset, _unit_frame(units))
    got, got_problems = fb_frames.forecast_columns(fset, fb_frames.unit_keys(_unit_frame(units)))
    assert got_problems == problems
    assert {c: got[c] for c in frame.columns} == {c: frame[c].tolist() for c in frame.columns}
    assert _bytes_or_error(lambda: forecast_file(got)[0]) == _bytes_or_error(lambda: forecast_bytes(frame))


@settings(max_examples=300, deadline=None)
@given(forecast_columns_strategy)
def test_forecast_frames_written_by_forecast_bytes_equal_the_plain_writer(columns):
    """``forecast_bytes`` of a forecast frame: the plain writer's bytes (``to_csv_bytes``), or its problems."""
    frame = pd.DataFrame(columns, columns=list(FORECASTS.names))
    plain = _bytes_or_error(lambda: csvio.to_csv_bytes(frame, FORECASTS))
    assert _bytes_or_error(lambda: forecast_bytes(frame)) == plain
    assert _bytes_or_error(lambda: forecast_bytes(frame.assign(extra=1))) == plain
    assert _bytes_or_error(lambda: forecast_bytes(frame.drop(columns="reasoning"))) == _bytes_or_error(
        lambda: csvio.to_csv_bytes(frame.drop(columns="reasoning"), FORECASTS)
    )


def _bytes_or_error(write):
    try:
        return write()
    except SchemaError as exc:
        return exc.problems


@pytest.mark.slow  # hundreds of examples, 5-10 s of CPU; `-m slow` runs it
@settings(max_examples=300, deadline=None)
@given(forecast_columns_strategy)
def test_forecast_file_and_the_frame_handed_to_the_scoring(tmp_path_factory, columns):
    """forecast_file writes the canonical bytes; the frame it hands over is the frame read_table
    reads from them (or read_table raises, and then nothing is handed over)."""
    names = list(FORECASTS.names)
    frame = pd.DataFrame({n: columns[n] for n in names}, columns=names)
    data = _bytes_or_error(lambda: forecast_file(columns)[0])
    assert data == _bytes_or_error(lambda: forecast_bytes(frame))
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


# -- resolution: statements joined with the units' own rounds only ----------------------------------

from generator.scoring import resolve as resolution  # noqa: E402


def merge_all_pick_statement(units, stated):
    """_pick_statement as it was: the units merged with every round's statements."""
    columns = ["recorded_at", "status", "outcome", "resolved_at"]
    own = units.merge(stated[stated["round"] != ""], on=["round", "question_id", "resolution_date"], how="left")[columns]
    general = units.merge(stated[stated["round"] == ""].drop(columns="round"), on=["question_id", "resolution_date"], how="left")[columns]
    later = (general["recorded_at"].fillna("") > own["recorded_at"].fillna("")).to_numpy()
    own.loc[later, columns] = general.loc[later, columns].to_numpy()
    return own


@pytest.mark.slow  # hundreds of examples, 5-10 s of CPU; `-m slow` runs it
@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 10), st.integers(0, 30))
def test_pick_statement_equals_the_merge_with_every_round(seed, n_units, n_stated):
    rng = np.random.default_rng(seed)
    rounds = np.array(["", "2026-01-01", "2026-01-15", "2026-02-01"], dtype=object)
    units = pd.DataFrame(
        {
            "round": pd.Series(rng.choice(rounds[1:], n_units), dtype=str),
            "question_id": pd.Series([f"q{i}" for i in rng.integers(0, 4, n_units)], dtype=str),
            "resolution_date": pd.Series(rng.choice(["", "2026-03-01"], n_units), dtype=str),
        }
    )
    stated = pd.DataFrame(
        {
            "round": pd.Series(rng.choice(rounds, n_stated), dtype=str),
            "question_id": pd.Series([f"q{i}" for i in rng.integers(0, 4, n_stated)], dtype=str),
            "resolution_date": pd.Series(rng.choice(["", "2026-03-01"], n_stated), dtype=str),
            "recorded_at": pd.Series([f"2026-0{m}-01T00:00:00Z" for m in rng.integers(1, 9, n_stated)], dtype=str),
            "status": pd.Series(rng.choice(["open", "resolved", "void"], n_stated), dtype=str),
            "outcome": rng.choice([0.0, 1.0, np.nan], n_stated),
            "resolved_at": pd.Series(rng.choice(["", "2026-02-01T00:00:00Z"], n_stated), dtype=str),
        }
    )
    stated = resolution.latest_statements(stated, "2026-12-31T00:00:00Z")
    pd.testing.assert_frame_equal(resolution._pick_statement(units, stated), merge_all_pick_statement(units, stated), check_exact=True)


# -- import: many files parsed by worker processes, taken in file order ------------------------------


def test_parsing_in_worker_processes_equals_parsing_one_by_one(tmp_path, monkeypatch):
    from generator.interop.forecastbench import importer as forecastbench
    from generator.interop.forecastbench import workers

    datasets, forecasts = tmp_path / "datasets", tmp_path / "forecasts"
    (datasets / "question_sets").mkdir(parents=True)
    (datasets / "resolution_sets").mkdir()
    forecasts.mkdir()
    q = {"id": "m1", "source": "manifold", "question": "Q?", "resolution_dates": "N/A", "freeze_datetime": "2025-12-25T00:00:00+00:00"}
    (datasets / "question_sets" / "2026-01-04-llm.json").write_text(
        json.dumps({"forecast_due_date": "2026-01-04", "question_set": "2026-01-04-llm.json", "questions": [q, {"id": ["a", "b"], "source": "fred"}]})
    )
    (datasets / "resolution_sets" / "2026-01-04_resolution_set.json").write_text(
        json.dumps(
            {
                "forecast_due_date": "2026-01-04",
                "question_set": "x",
                "resolutions": [
                    {"id": "m1", "source": "manifold", "resolution_date": "2026-01-20", "resolved_to": 1.0, "resolved": True},
                    {"id": "m2", "source": "manifold", "resolution_date": "bad", "resolved_to": "x", "resolved": 1},
                ],
            }
        )
    )
    bodies = [b"{not json", b"[]", '{"a": "\u00e9"}'.encode(), b"\xff\xfe", b"[" * 20_000 + b"]" * 20_000]
    rows = [
        {"id": "m1", "source": "manifold", "forecast": 0.25},
        {"id": "m1", "source": "manifold", "forecast": 2},
        {"id": "F1", "source": "fred", "forecast": None, "resolution_date": "2026-01-11"},
        {"id": 3, "source": "nope", "forecast": "x"},
    ]
    for i in range(40):
        header = {"organization": f"Team {i % 3}", "model": f"M{i}", "model_organization": "L", "question_set": "2026-01-04-llm.json"}
        body = bodies[i] if i < len(bodies) else json.dumps({**header, "forecasts": rows[: i % 5] * (1 + i % 2)}).encode()
        (forecasts / f"f{i:02d}.json").write_bytes(body)
    one_by_one = forecastbench.read_inputs(datasets, forecasts)
    monkeypatch.setattr(workers, "_POOL_MIN_FILES", 0)
    pooled = forecastbench.read_inputs(datasets, forecasts)
    assert repr(pooled) == repr(one_by_one)
    assert [len(f.problems) for f in one_by_one.fsets].count(0) > 5 and one_by_one.problems  # both kinds present


# -- import: forecast files made by the parsing workers, against the rounds --------------------------

# bare ids (the fast writer's), one of them read back differently (a BOM: as_read gives no frame), then ids to quote
_HOSTILE = ["m1", "\u00e9\u2713 \u00fc", "x\ufeffy", 'q,"x"', "line\nbreak", "cr\rx", " edge ", "ctl\x01", "a\u2028b"]
_REASONS = [None, "plain", "\u00fc", "", 'a,"b"', "multi\nline\r\n", "ctl\x02", " ", "\ud800", "\ufeff"]


def _hostile_fb(root: Path, questions: list[str]) -> tuple[Path, Path]:
    """FB inputs of one round whose ids and reasonings hold quotes, commas, line ends, control and
    non-ASCII characters; sets with repeated rows, rows outside the round, and an individual file."""
    data, forecasts = root / "fb" / "datasets", root / "forecasts"
    (data / "question_sets").mkdir(parents=True)
    (data / "resolution_sets").mkdir()
    forecasts.mkdir()
    q = [
        {"id": i, "source": "manifold", "question": f"Will {i}?", "freeze_datetime": "2025-12-25T00:00:00+00:00", "resolution_dates": "N/A"}
        for i in questions
    ]
    q.append(
        {
            "id": "F1",
            "source": "fred",
            "question": "F1?",
            "freeze_datetime": "2025-12-25T00:00:00+00:00",
            "resolution_dates": ["2026-01-11", "2026-02-03"],
        }
    )
    (data / "question_sets" / "2026-01-04-llm.json").write_text(
        json.dumps({"forecast_due_date": "2026-01-04", "question_set": "2026-01-04-llm.json", "questions": q})
    )
    (data / "resolution_sets" / "2026-01-04_resolution_set.json").write_text(
        json.dumps(
            {
                "forecast_due_date": "2026-01-04",
                "question_set": "2026-01-04-llm.json",
                "resolutions": [
                    {"id": "m1", "source": "manifold", "resolution_date": "2026-01-20", "resolved_to": 1.0, "resolved": True},
                    {"id": "F1", "source": "fred", "resolution_date": "2026-01-11", "resolved_to": 0.0, "resolved": True},
                ],
            }
        )
    )
    rng = np.random.default_rng(7)
    for k in range(14):
        ids, reasons = (_HOSTILE[:2], _REASONS[:4]) if k % 3 == 1 else (_HOSTILE[:3], _REASONS[:4]) if k % 3 == 2 else (_HOSTILE, _REASONS)
        rows = [
            {
                "id": i,
                "source": "manifold",
                "forecast": float(rng.choice([0.0, 1.0, 0.1234567, 1 / 3, 0.5])),
                "resolution_date": None,
                "reasoning": reasons[(k + j) % len(reasons)],
            }
            for j, i in enumerate(ids)
            if (j + k) % 4 or len(ids) < 4
        ]
        rows += [{"id": "F1", "source": "fred", "forecast": 0.25, "resolution_date": "2026-02-03", "reasoning": "r"}]
        rows += rows[:1] * (k % 5 == 1) + [{"id": "zz", "source": "manifold", "forecast": 0.5}] * (k % 5 == 2)
        if k == 4:
            rows = [{**r, "user_id": f"u{j % 2}"} for j, r in enumerate(rows)]
        (forecasts / f"f{k:02d}.json").write_text(
            json.dumps(
                {"organization": "Team", "model": f"M{k}", "model_organization": "L", "question_set": "2026-01-04-llm.json", "forecasts": rows}
            )
        )
    return root / "fb", forecasts


def _imported(root: Path, data: Path, forecasts: Path):
    from generator.interop.forecastbench.importer import import_forecastbench

    hub = Hub(root, ReadCache())
    report = import_forecastbench(hub, data, forecasts, as_of="2026-08-21T00:00:00Z")
    files = {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file() and ".lock" not in p.name}
    frames = {key[2]: frame for key, (_, frame) in hub.cache.tables.items()}
    return repr(report), files, frames


@pytest.mark.parametrize("frozen", [False, True])
def test_forecast_files_made_by_the_parsing_workers_equal_those_made_one_by_one(tmp_path, monkeypatch, frozen):
    """The pooled import (each file made in a worker against the round) writes the same bytes, says
    the same and hands the scoring the same frames as the one-by-one import; ``frozen``: the round was
    published before with fewer questions, so the workers' round is not the one kept."""
    from generator.interop.forecastbench import workers

    data, forecasts = _hostile_fb(tmp_path / "in", _HOSTILE)
    outcomes = []
    for name, least in (("one", 10**9), ("pooled", 0)):
        monkeypatch.setattr(workers, "_POOL_MIN_FILES", least)
        if frozen:
            monkeypatch.setattr(workers, "_POOL_MIN_FILES", 10**9)
            _imported(tmp_path / name, *_hostile_fb(tmp_path / f"early-{name}", _HOSTILE[:3]))
            monkeypatch.setattr(workers, "_POOL_MIN_FILES", least)
        outcomes.append(_imported(tmp_path / name, data, forecasts))
    (report, files, frames), (report2, files2, frames2) = outcomes
    assert report2 == report and files2 == files
    assert frames2.keys() == frames.keys() and sum("forecasts/" in k for k in frames if k) >= 4
    for key, frame in frames.items():
        pd.testing.assert_frame_equal(frames2[key], frame, check_exact=True)
    assert "forecast-immutable" not in report and ("round-frozen" in report) == frozen


def _two_rounds_fb(root: Path) -> tuple[Path, Path]:
    """``_hostile_fb`` with a second round (due 2026-01-18, the same questions) and five sets for it."""
    data, forecasts = _hostile_fb(root, _HOSTILE)
    for name in ("question_sets/2026-01-04-llm.json", "resolution_sets/2026-01-04_resolution_set.json"):
        body = json.loads((data / "datasets" / name).read_text())
        body.update(forecast_due_date="2026-01-18", question_set="2026-01-18-llm.json")
        (data / "datasets" / name.replace("01-04", "01-18")).write_text(json.dumps(body))
    for path in sorted(forecasts.glob("*.json"))[:5]:
        body = json.loads(path.read_text())
        (forecasts / f"late-{path.name}").write_text(json.dumps({**body, "question_set": "2026-01-18-llm.json"}))
    return data, forecasts


def test_the_after_due_files_written_by_forked_processes_equal_those_written_one_by_one(tmp_path, monkeypatch):
    """The first nightly after an import writes every round's after-due baselines: shared among
    forked processes, the hub's files, the run's report and the disk cache's digests are those of
    one process writing them."""
    from generator.interop.forecastbench.importer import import_forecastbench
    from generator.pipeline import nightly
    from generator.store.cache.disk import DiskCache
    from generator.store.hub import Hub
    from generator.timeutil import parse_ts

    data, forecasts = _two_rounds_fb(tmp_path / "in")
    outcomes = []
    for processes in (1, 2):
        monkeypatch.setattr(nightly, "default_processes", lambda n=processes: n)
        root, folder = tmp_path / f"hub{processes}", tmp_path / f"cache{processes}"
        import_forecastbench(root, data, forecasts, as_of="2026-08-21T00:00:00Z")
        hub = Hub.load(root, ReadCache(disk=DiskCache.open(folder, root)))
        report = nightly.nightly(hub, parse_ts("2026-08-21T00:00:00Z"))
        files = {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file() and ".lock" not in p.name}
        digests = {str(Path(k).relative_to(root)): v[1] for k, v in hub.cache.disk.digests.items()}
        outcomes.append((report.written, repr(report.quarantined), files, digests))
    assert outcomes[1] == outcomes[0]
    assert sum("imputed" in f or "naive" in f for f in outcomes[0][0]) >= 4, outcomes[0][0]


def test_rounds_scored_by_forked_processes_equal_those_scored_one_by_one(tmp_path):
    """``recompute.write_round_scores_in_parallel`` with two processes: the counts, the files written (score files and
    the disk cache's frames) and the digests the cache keeps are those of scoring in one process."""
    from generator.interop.forecastbench.importer import import_forecastbench
    from generator.pipeline.recompute import hub_view, write_round_scores, write_round_scores_in_parallel
    from generator.store.cache.disk import DiskCache
    from generator.store.hub import Hub
    from generator.timeutil import parse_ts

    data, forecasts = _two_rounds_fb(tmp_path / "in")
    outcomes = []
    for processes in (1, 2):
        root, folder = tmp_path / f"hub{processes}", tmp_path / f"cache{processes}"
        hub = Hub(root, ReadCache(disk=DiskCache.open(folder, root)))
        import_forecastbench(hub, data, forecasts, as_of="2026-08-21T00:00:00Z")
        view = hub_view(hub, readers.load_observations(hub), parse_ts("2026-08-21T00:00:00Z"))
        counted = write_round_scores_in_parallel(hub, view, 0.5, processes)
        files = {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}
        digests = {str(Path(k).relative_to(root)): v[1] for k, v in hub.cache.disk.digests.items()}
        outcomes.append((counted, files, digests, len(list((folder / "frames").iterdir())), hub.cache.disk.dirty))
        assert counted[0] == len(write_round_scores(Hub(root), view, 0.5)[0]) and len(readers.round_dues(hub)) == 2
    assert outcomes[1] == outcomes[0] and any("scores" in k for k in outcomes[0][1])


def test_a_worker_makes_the_file_the_import_makes_or_leaves_it_to_the_import():
    """``workers.prepare`` against a round: the bytes of ``forecast_file`` and the frame ``as_read``
    gives (None for a set the worker leaves, an individual one or one of another round)."""
    from generator.interop.forecastbench import workers
    from generator.interop.forecastbench.parse import Parsed

    questions = pd.DataFrame(
        {
            "question_id": pd.array([f"manifold:{i}" for i in _HOSTILE] + ["fred:F1"], dtype=str),
            "resolution_date": pd.array([""] * len(_HOSTILE) + ["2026-01-11"], dtype=str),
        }
    )
    ids = questions["question_id"].to_numpy(dtype=object)
    dates = questions["resolution_date"].to_numpy(dtype=object)
    allowed = fb_frames.unit_keys(questions)
    workers._ROUNDS["2026-01-04"] = workers.RoundUnits.of(questions)
    try:
        for k, reason in enumerate(_REASONS):
            rows = {
                "question_id": [f"manifold:{i}" for i in _HOSTILE[k % 3 :]] + ["fred:F1", "manifold:zz"],
                "resolution_date": [""] * len(_HOSTILE[k % 3 :]) + ["2026-01-11", ""],
                "probability": [0.5 + k / 100] * (len(_HOSTILE[k % 3 :]) + 2),
                "reasoning": [reason or ""] * (len(_HOSTILE[k % 3 :]) + 2),
            }
            fset = Parsed("x.json", "2026-01-04", header={"individual": False}, rows=[rows])
            columns, problems = fb_frames.forecast_columns(fset, allowed)
            data, cells = forecast_file(columns)
            made = workers.prepare(fset)
            assert made is not None and made.data == data and made.problems == problems
            expected = as_read(cells) if cells is not None else None
            got = workers.frame_of(made, ids, dates)
            assert (got is None) == (expected is None)
            if expected is not None:
                pd.testing.assert_frame_equal(got, expected, check_exact=True)
        assert workers.prepare(Parsed("y.json", "2026-01-18", header={}, rows=[rows])) is None
        assert workers.prepare(Parsed("z.json", "2026-01-04", header={"individual": True}, rows=[rows])) is None
    finally:
        workers._ROUNDS.clear()


# Rounds of plain units and sets of clean cells, each example with at most one oddity: a unit
# that is not plain (each check of ``plain_units`` has its own), one odd cell, repeated rows or rows
# outside the round. A fast path's check that let a single odd value through would be caught.
_PLAIN_UNITS = [
    ("fred:a", "2026-01-01"),
    ("fred:a", ""),
    ("fred:b", "2026-02-01"),
    ("manifold:\u00e9", ""),
    ("B", ""),
    ("b", ""),
    ("fred:a\u00e9", ""),
]
_ODD_UNITS = [
    (" ", ""),
    ("", ""),
    ("a,b", ""),
    ('q"', ""),
    ("t\tab", ""),
    ("n\nl", ""),
    ("\ufeffb", ""),
    ("\x85", ""),
    ("\u2028", ""),
    ("fred:a ", ""),
    ("\ud800", ""),
    ("fred:c", "2026-1-1"),
    ("fred:c", "\u0662\u0660\u0662\u0666-01-01"),
    ("fred:c", "2026-01-01\n"),
    ("fred:c", " 2026-01-01"),
]
_ODD_CELLS = [
    ("probability", 1),
    ("probability", float("nan")),
    ("probability", 1.5),
    ("probability", -1e-9),
    ("reasoning", "a,b"),
    ("reasoning", "x\ny"),
    ("reasoning", "\x00"),
    ("reasoning", "\ufeff"),
    ("reasoning", " "),
    ("reasoning", "\ud800"),
    ("reasoning", "\x7f"),
    ("reasoning", None),
]
_OUTSIDE = [("fred:zz", ""), (1, ""), ("fred:a", None), ("fred:a", "2026-03-01")]
_ODDITIES = [None, "repeated", "outside", *(("unit", u) for u in _ODD_UNITS), *(("cell", c) for c in _ODD_CELLS)]  # each its own test


@pytest.mark.parametrize("oddity", _ODDITIES)
@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from(_PLAIN_UNITS), min_size=1, max_size=6, unique=True), st.data())
def test_files_put_in_order_by_the_units_ranks_equal_the_files_sorted_by_their_texts(oddity, units, data):
    """``workers.in_file_order`` (rows ordered by the round's unit ranks, cells checked once per
    unit) makes what ``forecast_columns`` then ``forecast_file`` make, or leaves the set to them:
    the bytes, the problems, the rows' positions, probabilities and reasonings (``prepare``), or
    the writer's refusal of a unit no round holds (a malformed date)."""
    from generator.interop.forecastbench import workers
    from generator.interop.forecastbench.parse import Parsed

    odd_unit = [oddity[1]] if isinstance(oddity, tuple) and oddity[0] == "unit" else []
    questions = pd.DataFrame(
        {
            "question_id": pd.array([u[0] for u in units + odd_unit], dtype=str),
            "resolution_date": pd.array([u[1] for u in units + odd_unit], dtype=str),
        }
    )
    round_units = workers.RoundUnits.of(questions)
    rows = data.draw(st.permutations(units))  # every unit once, in any order; or some of them
    rows = data.draw(st.permutations(rows[: data.draw(st.integers(1, len(rows)))] + odd_unit))
    if oddity == "repeated":
        rows = data.draw(st.permutations(rows + data.draw(st.lists(st.sampled_from(rows), min_size=1, max_size=3))))
    if oddity == "outside":
        rows = data.draw(st.permutations(rows + data.draw(st.lists(st.sampled_from(_OUTSIDE), min_size=1, max_size=2))))
    n = len(rows)
    columns = {
        "question_id": [r[0] for r in rows],
        "resolution_date": [r[1] for r in rows],
        "probability": data.draw(st.lists(st.floats(0, 1) | st.sampled_from([-0.0, 1e-9, 0.9999995]), min_size=n, max_size=n)),
        "reasoning": data.draw(st.lists(st.sampled_from(["", "ok", "\u00fc", "a b"]), min_size=n, max_size=n)),
    }
    if isinstance(oddity, tuple) and oddity[0] == "cell":
        columns[oddity[1][0]][data.draw(st.integers(0, n - 1))] = oddity[1][1]
    fset = Parsed("x.json", "2026-01-04", header={"individual": False}, rows=[columns])
    workers._ROUNDS["2026-01-04"] = round_units
    original = workers.in_file_order
    try:
        fast = _bytes_or_error(lambda: workers.prepare(fset))
        workers.in_file_order = lambda *args: None
        general = _bytes_or_error(lambda: workers.prepare(fset))
    finally:
        workers.in_file_order = original
        workers._ROUNDS.clear()
    assert fast == general


def test_a_well_formed_set_of_plain_units_is_put_in_order_by_the_units_ranks():
    """The set the test above compares most often takes the rank path (it is not always left to the general one)."""
    from generator.interop.forecastbench import workers
    from generator.interop.forecastbench.parse import Parsed

    units = [("fred:b", "2026-02-01"), ("manifold:\u00e9", ""), ("fred:a", "2026-01-01"), ("fred:a", "")]
    round_units = workers.RoundUnits.of(
        pd.DataFrame({"question_id": pd.array([u[0] for u in units], dtype=str), "resolution_date": pd.array([u[1] for u in units], dtype=str)})
    )
    rows = [units[1], units[0], units[3]]
    fset = Parsed(
        "x.json",
        "2026-01-04",
        header={},
        rows=[
            {
                "question_id": [r[0] for r in rows],
                "resolution_date": [r[1] for r in rows],
                "probability": [0.25, 1.0, 0.0],
                "reasoning": ["", "why", ""],
            }
        ],
    )
    data, (positions, values, reasons) = workers.in_file_order(fset, round_units)
    assert (
        data == b"question_id,resolution_date,probability,reasoning\nfred:a,,0.000000,\nfred:b,2026-02-01,1.000000,why\n"
        b"manifold:\xc3\xa9,,0.250000,\n"
    )
    assert positions.tolist() == [3, 0, 1] and values == [0.0, 1.0, 0.25] and reasons == ["", "why", ""]


def test_a_worker_stages_the_file_in_the_hub_and_keeps_the_entry_of_the_frame_it_reads_as(tmp_path):
    """Given the hub, ``workers.prepare`` stages the file beside its place (the bytes the import makes,
    not yet in place) and, with a disk cache, keeps its frame as a cache entry: once the file is in
    place, the cache gives the frame ``as_read`` does. A file the general writer writes (no frame
    from ``as_read``) gets no entry; without a disk cache the frame comes back as rows."""
    from generator.interop.forecastbench import workers
    from generator.interop.forecastbench.parse import Parsed
    from generator.store.cache.disk import DiskCache
    from generator.timeutil import parse_ts

    clean = ["m1", "\u00e9\u2713 \u00fc", "p2", "p3", "p4"]  # ids written as they are (the fast path)
    ids = [*_HOSTILE, *clean[2:]]
    questions = pd.DataFrame(
        {
            "question_id": pd.array([f"manifold:{i}" for i in ids] + ["fred:F1"], dtype=str),
            "resolution_date": pd.array([""] * len(ids) + ["2026-01-11"], dtype=str),
        }
    )
    allowed = fb_frames.unit_keys(questions)
    workers._ROUNDS["2026-01-04"] = workers.RoundUnits.of(questions)
    entries = 0
    try:
        for disk in (True, False):
            root = tmp_path / f"hub-{disk}"
            hub = Hub(root, ReadCache(disk=DiskCache.open(tmp_path / "cache", root) if disk else None))
            workers._HUB[:] = [hub]
            for k, reason in enumerate(_REASONS):
                kept = clean[k % 3 :] if k % 2 == 0 else _HOSTILE[k % 4 :]
                rows = {
                    "question_id": ["fred:F1"] + [f"manifold:{i}" for i in reversed(kept)] + ["manifold:zz"],
                    "resolution_date": ["2026-01-11"] + [""] * len(kept) + [""],
                    "probability": [0.25 + k / 100] * (len(kept) + 2),
                    "reasoning": [reason or "", *["x", reason or ""] * len(kept)][: len(kept) + 2],
                }
                fset = Parsed("x.json", "2026-01-04", header={"organization": "Org", "model": f"m{k}"}, rows=[rows])
                data, cells = forecast_file(fb_frames.forecast_columns(fset, allowed)[0])
                expected = as_read(cells) if cells is not None else None
                made = workers.prepare(fset)
                path = hub.layout.forecast(parse_ts("2026-01-04"), fb_frames.model_id(fset))
                staged = Path(made.staged)
                assert made.data is None and staged.parent == path.parent and staged.name.endswith(".tmp")
                assert staged.read_bytes() == data and made.digest == hashlib.sha256(data).hexdigest() and not path.exists()
                staged.replace(path)
                if made.entry_kept:
                    entries += 1
                    assert disk and expected is not None and made.rows is None
                    pd.testing.assert_frame_equal(hub.cache.disk_frame(path, FORECASTS, hub.layout.relative(path)), expected, check_exact=True)
                else:
                    assert (made.rows is None) == (expected is None) and (expected is None or not disk)
                    got = workers.frame_of(made, questions["question_id"].to_numpy(dtype=object), questions["resolution_date"].to_numpy(dtype=object))
                    assert (got is None) == (expected is None)
                    if expected is not None:
                        pd.testing.assert_frame_equal(got, expected, check_exact=True)
        assert entries >= 2
    finally:
        workers._ROUNDS.clear()
        workers._HUB.clear()


@pytest.mark.parametrize("questions", [_HOSTILE, ["m1", "\u00e9\u2713", "m2"]], ids=["hostile", "plain"])
def test_the_pooled_import_keeps_cache_entries_that_read_as_the_files_do(tmp_path, monkeypatch, questions):
    """An import with a disk cache, its forecast files made by the parsing workers: the next command
    reads each forecast file's frame from the cache (the workers' entries), equal to parsing the file,
    and the files are those of the one-by-one import. In a round of plain ids, the hub's baselines'
    files (made by the workers too) have entries; a hostile id (a control character) leaves them none."""
    from generator.interop.forecastbench import workers
    from generator.interop.forecastbench.importer import import_forecastbench
    from generator.schemas import FORECASTS
    from generator.store.cache.disk import DiskCache
    from generator.store.csvio import read_table

    data, forecasts = _hostile_fb(tmp_path / "in", questions)
    outcomes = []
    for name, least in (("one", 10**9), ("pooled", 0)):
        monkeypatch.setattr(workers, "_POOL_MIN_FILES", least)
        root, folder = tmp_path / name, tmp_path / f"cache-{name}"
        hub = Hub(root, ReadCache(disk=DiskCache.open(folder, root)))
        report = import_forecastbench(hub, data, forecasts, as_of="2026-08-21T00:00:00Z")
        hub.cache.close()
        remembered = {key[2] for key in hub.cache.tables}
        later = Hub(root, ReadCache(disk=DiskCache.open(folder, root)))  # the next command
        kept = {}
        for path in sorted(root.glob("data/forecasts/**/*.csv")):
            label = hub.layout.relative(path)
            frame = later.cache.disk_frame(path, FORECASTS, label)
            if frame is not None:
                pd.testing.assert_frame_equal(frame, read_table(path, FORECASTS, label), check_exact=True)
                kept[label] = label in remembered
        files = {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file() and ".lock" not in p.name}
        outcomes.append((repr(report), files, kept))
    assert outcomes[1][:2] == outcomes[0][:2]
    one, pooled = outcomes[0][2], outcomes[1][2]
    assert pooled.keys() == one.keys() and len(one) >= 4 and all(one.values())
    assert not any(pooled.values())  # the workers' entries, no frame held in memory
    assert sum("prescient.always-" in label for label in pooled) == (0 if questions is _HOSTILE else 3)


# -- FB board: unit codes from per-column codes -----------------------------------------------------

from generator.leaderboard import fb_board  # noqa: E402


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["2026-01-01", "2026-01-15", "x|y"]),
            st.sampled_from(["q1", "q2", "q|1", "", "x"]),
            st.sampled_from(["", "2026-03-01", "2026-04-01"]),
        ),
        max_size=30,
    )
)
def test_unit_codes_equal_the_multiindex_factorize(triples):
    rows = pd.DataFrame({c: pd.Series([t[i] for t in triples], dtype=str) for i, c in enumerate(["round", "question_id", "resolution_date"])})
    keys = pd.MultiIndex.from_frame(rows[["round", "question_id", "resolution_date"]])
    unit, first = fb_board.unit_codes(rows)
    assert np.array_equal(unit, pd.factorize(keys)[0]) and np.array_equal(first, ~keys.duplicated())


# -- resolving a round: resolved_units' dict join, the view's latest rows by neighbours --------------


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 10), st.integers(0, 10))
def test_resolved_units_equal_the_merge_it_replaced(seed, n_questions, n_resolutions):
    """Questions and resolutions with units repeated (the merge's row per pair) and none resolved."""
    rng = np.random.default_rng(seed)
    questions = pd.DataFrame(
        {
            "question_id": pd.Series([f"q{i}" for i in rng.integers(0, 4, n_questions)], dtype=str),
            "resolution_date": pd.Series(rng.choice(["", "2026-03-01"], n_questions), dtype=str),
            "source": "src",
            "kind": pd.Series(rng.choice(["binary", "dataset"], n_questions), dtype=str),
            "category": pd.Series(rng.choice(["", "c"], n_questions), dtype=str),
        }
    )
    resolutions = pd.DataFrame(
        {
            "question_id": pd.Series([f"q{i}" for i in rng.integers(0, 4, n_resolutions)], dtype=str),
            "resolution_date": pd.Series(rng.choice(["", "2026-03-01"], n_resolutions), dtype=str),
            "status": pd.Series(rng.choice(["open", "resolved", "void"], n_resolutions), dtype=str),
            "outcome": rng.choice([0.0, 1.0, np.nan], n_resolutions),
            "resolved_at": pd.Series(rng.choice(["", "2026-02-01T00:00:00Z"], n_resolutions), dtype=str),
        }
    )
    unit = ["question_id", "resolution_date"]
    done = resolutions[resolutions["status"] == "resolved"].reindex(columns=[*unit, "outcome", "resolved_at", "proxy"])
    merged = questions[[*unit, "source", "kind", "category"]].merge(done, on=unit, how="inner")
    pd.testing.assert_frame_equal(resolved_units(questions, resolutions), merged, check_exact=True)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 40))
def test_the_views_latest_rows_equal_drop_duplicates(seed, n_rows):
    """market_states and series_table take the last row of each key in known_by's order, as
    drop_duplicates(keep="last") did: dates observed twice, corrections recorded later, rows out of order."""
    rng = np.random.default_rng(seed)
    obs = pd.DataFrame(
        {
            "question_id": pd.Series([f"q{i}" for i in rng.integers(0, 5, n_rows)], dtype=str),
            "observed_at": pd.Series([f"2026-01-0{d}T00:00:00Z" for d in rng.integers(1, 4, n_rows)], dtype=str),
            "recorded_at": pd.Series([f"2026-01-0{d}T00:00:00Z" for d in rng.integers(1, 6, n_rows)], dtype=str),
            "value": rng.random(n_rows),
            "status": pd.Series(rng.choice(["open", "resolved", "void"], n_rows), dtype=str),
            "outcome": rng.choice([0.0, 1.0, np.nan], n_rows),
        }
    )
    known = resolution.known_by(obs, "2026-01-04T00:00:00Z")
    pd.testing.assert_frame_equal(
        resolution.market_states(known), known.drop_duplicates("question_id", keep="last").set_index("question_id"), check_exact=True
    )
    latest = known.drop_duplicates(["question_id", "observed_at"], keep="last").sort_values("question_id", kind="mergesort")
    table = resolution.series_table(known)
    assert list(table) == sorted(set(latest["question_id"]))
    for q, series in table.items():
        rows = latest[latest["question_id"] == q]
        assert series.dates.tolist() == rows["observed_at"].tolist() and series.values.tolist() == rows["value"].tolist()


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.text(max_size=4) | st.sampled_from(["", "\x1f", "a\x1fb", "\ud800", "\x00"]), max_size=6)
    | st.lists(st.floats(allow_nan=False) | st.sampled_from([-0.0, 1e-300, 0.1]), max_size=6)
    | st.lists(st.integers() | st.floats() | st.none() | st.text(max_size=2), max_size=6)
)
def test_columns_packed_for_the_trip_from_a_worker_come_back_as_they_were(values):
    from generator.interop.forecastbench import workers

    back = workers.unpack(workers.packed(list(values)))
    assert repr(back) == repr(values) and [type(v) for v in back] == [type(v) for v in values]


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
    joined = "".join(",".join(line) + "\n" for line in [FORECASTS.names, *zip(*(c.tolist() for c in cells))]).encode("utf-8")
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
    for data, label, frame in zip(datas, labels, got):
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
