"""The Brier score and a round's scoring (``scoring.brier``): known values, and the integer-coded
join of ``score_round``, ``resolved_units``' dict join and ``score_forecasts`` of the forecasts the
nightly keeps, each checked against the plain merge it replaced."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.schemas import SCORES
from generator.scoring.brier import brier, resolved_units, score_round


def test_the_brier_score_is_the_squared_error_of_the_probability():
    got = brier(pd.Series([0.0, 1.0, 0.7, 0.7, 0.5, 0.25]), pd.Series([0.0, 0.0, 1.0, 0.0, 1.0, 0.5]))
    assert np.allclose(got, [0.0, 1.0, 0.09, 0.49, 0.25, 0.0625], rtol=0, atol=1e-15)


def test_a_round_is_scored_on_every_unit_for_every_model_with_the_imputed_value_where_none_was_given():
    units = pd.DataFrame(
        {
            "question_id": ["src:a", "src:b"],
            "resolution_date": ["", "2026-02-01"],
            "source": "src",
            "kind": ["binary", "dataset"],
            "category": "",
            "outcome": [1.0, 0.0],
            "resolved_at": "2026-03-01T00:00:00Z",
            "proxy": np.nan,
        }
    )
    forecasts = {
        "t.m": pd.DataFrame({"question_id": ["src:a"], "resolution_date": [""], "probability": [0.8], "reasoning": [""]}),
        "t.n": pd.DataFrame({"question_id": ["src:b", "src:zz"], "resolution_date": ["2026-02-01", ""], "probability": [0.1, 0.9], "reasoning": ""}),
    }
    got = score_round("2026-01-04", units, forecasts, 0.5)
    assert list(got.columns) == list(SCORES.names)
    rows = got[["model", "question_id", "probability", "imputed", "brier"]].to_records(index=False).tolist()
    expected = [("t.m", "src:a", 0.8, 0, 0.04), ("t.m", "src:b", 0.5, 1, 0.25), ("t.n", "src:a", 0.5, 1, 0.25), ("t.n", "src:b", 0.1, 0, 0.01)]
    assert [r[:4] for r in sorted(rows)] == [e[:4] for e in expected]
    assert np.allclose([r[4] for r in sorted(rows)], [e[4] for e in expected], rtol=0, atol=1e-12)
    assert set(got["round"]) == {"2026-01-04"}


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
