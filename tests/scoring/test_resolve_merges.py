"""Resolving rounds fast (``scoring.resolve``): the statements joined with each unit's own round only,
and the view's latest rows by neighbours, each equal to the plain merge or drop_duplicates it replaced."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.scoring import resolve as resolution


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
