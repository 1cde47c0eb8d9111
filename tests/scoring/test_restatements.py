"""A source's restated resolution (a new row in ``data/resolutions/``) is a correction on the Changes page."""

from __future__ import annotations

import numpy as np
import pandas as pd

from generator.scoring.corrections import COLUMNS, corrections

OBS = pd.DataFrame({c: pd.Series(dtype=object) for c in ("question_id", "observed_at", "recorded_at", "value", "status", "outcome")})
ROUNDS = {
    "2026-01-25": pd.DataFrame({"question_id": ["fb:q1", "fb:q2"], "resolution_date": ["2026-02-01", "2026-02-01"]}),
    "2026-02-08": pd.DataFrame({"question_id": ["fb:q1"], "resolution_date": ["2026-03-01"]}),
}


def stated(rows: list[tuple]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["round", "question_id", "resolution_date", "recorded_at", "status", "outcome", "value"])


def test_a_resolution_stated_again_otherwise_is_listed_with_old_new_and_rounds():
    rows = stated(
        [
            (np.nan, "fb:q1", "2026-02-01", "2026-02-02T00:00:00Z", "resolved", 1.0, np.nan),
            (np.nan, "fb:q2", "2026-02-01", "2026-02-02T00:00:00Z", "resolved", 0.0, np.nan),
            (np.nan, "fb:q1", "2026-02-01", "2026-02-05T00:00:00Z", "resolved", 0.0, np.nan),  # restated: 1 → 0
            (np.nan, "fb:q2", "2026-02-01", "2026-02-05T00:00:00Z", "resolved", 0.0, np.nan),  # the same again: no correction
            (np.nan, "fb:q1", "2026-03-01", "2026-03-02T00:00:00Z", "void", np.nan, np.nan),  # a first statement
        ]
    )
    found = corrections(OBS, "2026-12-31T00:00:00Z", ROUNDS, rows)
    assert list(found.columns) == COLUMNS
    assert found[["question_id", "observed_at", "recorded_at", "kind", "old_outcome", "new_outcome", "rounds_affected"]].values.tolist() == [
        ["fb:q1", "2026-02-01", "2026-02-05T00:00:00Z", "restatement", 1.0, 0.0, "2026-01-25"]
    ]
    assert corrections(OBS, "2026-02-04T00:00:00Z", ROUNDS, rows).empty, "not yet recorded as of then"


def test_a_restatement_for_one_round_touches_only_that_round():
    rows = stated(
        [
            ("2026-02-08", "fb:q1", "2026-03-01", "2026-03-02T00:00:00Z", "resolved", 1.0, np.nan),
            ("2026-02-08", "fb:q1", "2026-03-01", "2026-03-03T00:00:00Z", "void", np.nan, np.nan),
        ]
    )
    found = corrections(OBS, "2026-12-31T00:00:00Z", ROUNDS, rows)
    assert found[["kind", "old_status", "new_status", "rounds_affected"]].values.tolist() == [["restatement", "resolved", "void", "2026-02-08"]]
