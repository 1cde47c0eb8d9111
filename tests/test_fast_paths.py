"""The fast paths give exactly what the plain code gives: csvio's whole-column check and writer,
and score_round's integer-coded join (checked against the merge it replaced)."""

from __future__ import annotations

import csv
import io

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.schemas import FORECASTS, SCORES, Column
from generator.scoring.brier import brier, score_round
from generator.store import csvio

# Cells chosen to sit on the edges of the fast patterns: signs, spaces, unicode digits, embedded
# separators, overflow, trailing newlines (``$`` matches before one), quotes and commas.
EDGE = ["", " ", "0", "1", "0.5", "1.0", "1.5", "-0", "+0.5", " 0.5", ".5", "5.", "1e-07", "1e+999", "nan", "inf",
        "2026-01-01", "2026-01-01\n", "2026-01-01\n2026-01-02", "٢٠٢٦-01-01", "2026-01-01T00:00:00Z",
        "2026-13-45T99:99:99Z", "12", "-12", "1" * 30, "x", "a,b", 'q"q', "dataset", "binary", "\t", "\u2028"]
COLUMNS = [Column("c", t, "", nullable, ("binary", "dataset") if t == "enum" else ())
           for t in ("str", "ts", "date", "float", "prob", "int", "enum") for nullable in (False, True)]


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
def test_writer_quotes_like_the_csv_module(row, copies):
    frame = pd.DataFrame([row] * copies, columns=["a", "b"])
    cells = [csvio._quoted(frame[c].to_numpy(dtype=object)).tolist() for c in ("a", "b")]
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(frame.itertuples(index=False, name=None))
    assert "".join(f"{a},{b}\n" for a, b in zip(*cells)) == buffer.getvalue()


def test_to_csv_bytes_sorts_and_formats_as_before():
    frame = pd.DataFrame({"question_id": ["b", "a", "a", "c,d"], "resolution_date": ["", "2026-01-02", "2026-01-01", ""],
                          "probability": [0.25, -0.0, 1.0, 0.1234567], "reasoning": ['say "hi"', "", None, "x\ny"]})
    assert csvio.to_csv_bytes(frame, FORECASTS) == (
        b'question_id,resolution_date,probability,reasoning\na,2026-01-01,1.000000,\na,2026-01-02,0.000000,\n'
        b'b,,0.250000,"say ""hi"""\n"c,d",,0.123457,"x\ny"\n')
    assert csvio._in_order([np.array(["a", "a", "b"], dtype=object), np.array(["2", "3", "1"], dtype=object)])
    assert not csvio._in_order([np.array(["a", "a", "b"], dtype=object), np.array(["3", "2", "1"], dtype=object)])


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
    units = pd.DataFrame({"question_id": ids, "resolution_date": dates, "source": "src", "kind": "dataset",
                          "category": "", "outcome": rng.integers(0, 2, n_units).astype(float),
                          "resolved_at": "2026-03-01T00:00:00Z", "proxy": np.nan}).drop_duplicates(["question_id", "resolution_date"])
    forecasts = {}
    for m in range(n_models):
        n = int(rng.integers(0, 2 * n_units))
        forecasts[f"t.m{m}"] = pd.DataFrame({  # typed as read_table types them
            "question_id": pd.Series([f"src:q{i}" for i in rng.integers(0, 8, n)], dtype=str),
            "resolution_date": pd.Series(rng.choice(["", "2026-01-01"], n), dtype=str),
            "probability": np.where(rng.random(n) < 0.1, np.nan, rng.random(n)), "reasoning": pd.Series([""] * n, dtype=str)})
    got = score_round("2026-01-01", units, forecasts, 0.5)
    pd.testing.assert_frame_equal(got, merge_score_round("2026-01-01", units, forecasts, 0.5))
