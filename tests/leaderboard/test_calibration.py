"""Reliability tables (fixed and equal-count bins, Wilson CIs) and the Murphy decomposition."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.leaderboard.calibration import (
    MURPHY_COLUMNS,
    STRATEGIES,
    TABLE_COLUMNS,
    bin_index,
    murphy,
    reliability_table,
    wilson_interval,
)


def calibration_by_model(rows: pd.DataFrame, bins: int = 10) -> pd.DataFrame:
    """Reliability tables of every model under both strategies: model, strategy, ``TABLE_COLUMNS``."""
    parts = [
        reliability_table(g["probability"], g["outcome"], bins, s).assign(model=m, strategy=s)
        for m, g in rows.groupby("model", sort=True)
        for s in STRATEGIES
    ]
    if not parts:
        return pd.DataFrame(columns=["model", "strategy", *TABLE_COLUMNS])
    return pd.concat(parts, ignore_index=True)[["model", "strategy", *TABLE_COLUMNS]]


def murphy_by_model(rows: pd.DataFrame, bins: int = 10, strategy: str = "fixed") -> pd.DataFrame:
    """``MURPHY_COLUMNS`` per model (the index, sorted)."""
    records = {m: murphy(g["probability"], g["outcome"], bins, strategy).__dict__ for m, g in rows.groupby("model", sort=True)}
    return pd.DataFrame.from_dict(records, orient="index", columns=MURPHY_COLUMNS).rename_axis("model")


P = [0.05, 0.15, 0.15, 0.72, 0.78, 1.0]
O = [0, 0, 1, 1, 0, 1]


def test_fixed_bins_use_the_mean_forecast_as_the_bin_centre():
    table = reliability_table(P, O, bins=10, strategy="fixed")
    assert list(table.columns) == TABLE_COLUMNS
    assert table["bin"].tolist() == [0, 1, 7, 9]  # 1.0 falls in the last bin; empty bins are left out
    assert table["n"].tolist() == [1, 2, 2, 1]
    assert table["forecast"].tolist() == pytest.approx([0.05, 0.15, 0.75, 1.0])  # not the midpoints
    assert table["observed"].tolist() == pytest.approx([0, 0.5, 0.5, 1])
    assert table[["edge_low", "edge_high"]].iloc[2].tolist() == pytest.approx([0.7, 0.8])


def test_equal_count_bins_keep_ties_together():
    assert bin_index(P, bins=3, strategy="quantile").tolist() == [0, 0, 0, 1, 2, 2]
    assert bin_index([0.2] * 6, bins=3, strategy="quantile").tolist() == [0] * 6
    table = reliability_table(P, O, bins=3, strategy="quantile")
    assert table["n"].tolist() == [3, 1, 2]
    assert table["edge_low"].tolist() == pytest.approx([0.05, 0.72, 0.78])
    with pytest.raises(ValueError, match="strategy"):
        bin_index(P, strategy="uniform")


def test_wilson_interval_known_values():
    low, high = wilson_interval(5, 10)
    assert (float(low), float(high)) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    low, high = wilson_interval(0, 4)
    assert float(low) == 0 and float(high) == pytest.approx(0.4899, abs=1e-4)


def test_murphy_terms_on_a_hand_computed_example():
    # Two bins with a single forecast value each: the within-bin remainder is zero.
    p, o = [0.2, 0.2, 0.8, 0.8], [0, 1, 1, 1]
    m = murphy(p, o)
    # o-bar .75; bin 0.2: freq .5, bin 0.8: freq 1
    assert m.reliability == pytest.approx((2 * 0.3**2 + 2 * 0.2**2) / 4)
    assert m.resolution == pytest.approx((2 * 0.25**2 + 2 * 0.25**2) / 4)
    assert m.uncertainty == pytest.approx(0.75 * 0.25)
    assert m.within_bin == pytest.approx(0.0)
    assert m.brier == pytest.approx((0.04 + 0.64 + 0.04 + 0.04) / 4)
    assert m.remainder == pytest.approx(0.0, abs=1e-15)


forecasts = st.lists(st.tuples(st.floats(0.0, 1.0), st.integers(0, 1)), min_size=1, max_size=60)


@settings(max_examples=80, deadline=None)
@given(pairs=forecasts, bins=st.integers(1, 12), strategy=st.sampled_from(["fixed", "quantile"]))
def test_murphy_identity_reproduces_the_mean_brier(pairs, bins, strategy):
    p, o = map(np.array, zip(*pairs, strict=True))
    m = murphy(p, o, bins, strategy)
    assert m.brier == pytest.approx(np.mean((p - o) ** 2), abs=1e-12)
    assert m.reliability - m.resolution + m.uncertainty + m.within_bin == pytest.approx(m.brier, abs=1e-12)
    assert m.reliability >= 0 and m.resolution >= 0 and 0 <= m.uncertainty <= 0.25


@settings(max_examples=40, deadline=None)
@given(pairs=forecasts)
def test_table_counts_add_up_and_intervals_hold_the_observed_frequency(pairs):
    p, o = map(np.array, zip(*pairs, strict=True))
    for strategy in ("fixed", "quantile"):
        table = reliability_table(p, o, 10, strategy)
        assert table["n"].sum() == len(p)
        assert ((table["ci_low"] <= table["observed"] + 1e-12) & (table["observed"] <= table["ci_high"] + 1e-12)).all()
        assert ((table["forecast"] >= table["edge_low"] - 1e-12) & (table["forecast"] <= table["edge_high"] + 1e-12)).all()


def test_per_model_tables():
    rows = pd.DataFrame({"model": ["b", "b", "a", "a"], "probability": [0.2, 0.8, 0.3, 0.3], "outcome": [0.0, 1.0, 1.0, 0.0]})
    tables = calibration_by_model(rows)
    assert sorted(set(zip(tables["model"], tables["strategy"], strict=True))) == [
        ("a", "fixed"),
        ("a", "quantile"),
        ("b", "fixed"),
        ("b", "quantile"),
    ]
    decomposition = murphy_by_model(rows)
    assert list(decomposition.index) == ["a", "b"]
    assert decomposition.loc["a", "brier"] == pytest.approx((0.49 + 0.09) / 2)
    assert decomposition.loc["b", "reliability"] == pytest.approx(0.04)
    assert math.isnan(murphy([], []).brier)
