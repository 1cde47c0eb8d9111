"""``fb_board.unit_codes``: a board's (round, question, resolution date) units coded from per-column
codes, equal to factorizing the MultiIndex of the three columns."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.leaderboard import fb_board


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
