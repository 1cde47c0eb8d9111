"""Secondary columns (log score, Peer, BSS, accuracy, N), the stability rule and [leaderboard] settings."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.errors import ConfigError
from generator.leaderboard.fb_board import COLUMNS, FBOptions, board_options, fb_board
from generator.leaderboard.fb_rules import provisional_models
from generator.leaderboard.secondary import LOG_EPS, SECONDARY, correct, log_score, secondary_columns
from generator.models import ModelMeta
from generator.scoring.brier import brier
from generator.store.files import load_settings
from generator.timeutil import parse_ts

from helpers import SMALL_HUB, score_rows, write_hub

AS_OF = parse_ts("2026-03-01T00:00:00Z")
OUTCOME = {"d1": 1.0, "d2": 0.0, "m1": 1.0}
FORECASTS = {"a.x": {"d1": 0.8, "d2": 0.3, "m1": 0.6}, "b.y": {"d1": 0.6, "d2": 0.5, "m1": 0.9}, "prescient.naive": {"d1": 0.5, "d2": 0.5}}
MODELS = {
    "a.x": ModelMeta("a.x", "A", "Org A", "llm"),
    "b.y": ModelMeta("b.y", "B", "Org B", "llm"),
    "prescient.naive": ModelMeta("prescient.naive", "Naive", "Prescient", "baseline"),
}


def scores(forecasts=FORECASTS, round_="2026-01-04", imputed=()):
    return score_rows(forecasts, OUTCOME, round_, imputed)


# --- per-forecast rules ---------------------------------------------------------------------------


def test_log_score_values_and_the_clipping_epsilon():
    assert log_score(0.5, 1) == pytest.approx(math.log(2))
    assert log_score(0.8, 1) == pytest.approx(-math.log(0.8))
    assert log_score(0.8, 0) == pytest.approx(-math.log(0.2))
    assert LOG_EPS == 0.001
    assert log_score(0.0, 1) == pytest.approx(-math.log(0.001))  # clipped, finite
    assert log_score(1.0, 1) == pytest.approx(-math.log(0.999))


def test_accuracy_takes_the_forecasts_side_and_counts_one_half_as_wrong():
    assert correct([0.51, 0.49, 0.5, 0.5, 0.9, 0.1], [1, 0, 1, 0, 0, 1]).tolist() == [1, 1, 0, 0, 0, 0]


@settings(max_examples=60, deadline=None)
@given(p=st.floats(0.01, 0.99), q=st.floats(0.0, 1.0))
def test_brier_and_log_score_are_proper(p, q):
    """Under outcome ~ Bernoulli(p), no forecast q has a lower expected score than p itself."""
    for rule in (brier, log_score):
        expected = lambda f: p * rule(f, 1.0) + (1 - p) * rule(f, 0.0)  # noqa: E731
        assert expected(p) <= expected(q) + 1e-12


# --- per-model columns ----------------------------------------------------------------------------


def test_secondary_columns_match_a_hand_computation():
    out = secondary_columns(scores(), naive_model="prescient.naive")
    assert list(out.columns) == SECONDARY and list(out.index) == ["a.x", "b.y", "prescient.naive"]
    # Brier: a.x .04 .09 .16; b.y .16 .25 .01; naive .25 .25 (no m1)
    # field means: d1 .15, d2 .19667, m1 .085
    a = out.loc["a.x"]
    assert a["peer"] == pytest.approx(((0.15 - 0.04) + (0.59 / 3 - 0.09) + (0.085 - 0.16)) / 3)
    assert a["bss"] == pytest.approx(((0.25 - 0.04) + (0.25 - 0.09)) / 2)  # only where the naive answered
    assert a["log_score"] == pytest.approx(-(math.log(0.8) + math.log(0.7) + math.log(0.6)) / 3)
    assert a["accuracy"] == pytest.approx(1.0)
    assert out.loc["b.y", "accuracy"] == pytest.approx(2 / 3)  # 0.5 on d2 is wrong
    assert (a["n_dataset"], a["n_market"]) == (2, 1)
    assert out.loc["prescient.naive", "bss"] == 0 and out.loc["prescient.naive", "accuracy"] == 0


def test_bss_is_missing_without_the_naive_forecaster_and_peer_sums_to_zero_on_a_full_panel():
    full = {m: f for m, f in FORECASTS.items() if m != "prescient.naive"}
    out = secondary_columns(scores(full), naive_model="prescient.naive")
    assert out["bss"].isna().all()
    assert out["peer"].sum() == pytest.approx(0.0, abs=1e-12)


def test_the_board_carries_the_secondary_columns():
    board = fb_board(scores(), MODELS, AS_OF, np.random.default_rng(0), FBOptions(replicates=20)).set_index("model")
    assert sorted(board.reset_index().columns) == sorted(COLUMNS)
    assert board.loc["a.x", "bss"] == pytest.approx(0.185)
    assert board["provisional"].tolist() == [0, 0, 0]


def groupby_secondary(rows, naive_model):
    """The secondary columns as pandas groupbys on the model and unit columns computed them (the code
    integer codes replaced): the reference, digit for digit."""
    unit = rows[["round", "question_id", "resolution_date"]].fillna("").astype(str).agg("|".join, axis=1)
    brier = rows["brier"].astype(float)
    field = brier.groupby(unit).transform("mean")
    naive = brier[rows["model"] == naive_model].groupby(unit).first().reindex(unit).to_numpy()
    per_row = pd.DataFrame(
        {
            "model": rows["model"],
            "log_score": log_score(rows["probability"], rows["outcome"]),
            "peer": field - brier,
            "bss": naive - brier.to_numpy(),
            "accuracy": correct(rows["probability"], rows["outcome"]),
            "n_dataset": (rows["kind"] != "binary").astype(np.int64),
            "n_market": (rows["kind"] == "binary").astype(np.int64),
        }
    )
    grouped = per_row.groupby("model", sort=True)
    out = grouped[["log_score", "peer", "bss", "accuracy"]].mean()
    out[["n_dataset", "n_market"]] = grouped[["n_dataset", "n_market"]].sum()
    return out[SECONDARY]


@pytest.mark.parametrize("seed", range(10))
def test_secondary_columns_equal_the_groupbys_exactly(seed):
    rng = np.random.default_rng(seed)
    models = ["prescient.naive", "a.x", "b.y", "c.z"]
    questions = [f"{'m' if i % 3 == 0 else 'd'}{i}" for i in range(40)]
    forecasts = {m: {q: float(rng.choice([0.5, rng.random()])) for q in questions if rng.random() < 0.8} for m in models}
    outcome = {q: float(rng.integers(0, 2)) for q in questions}
    rows = pd.concat([score_rows(forecasts, outcome, r) for r in ("2026-01-04", "2026-01-18")], ignore_index=True)
    rows = rows.astype(object).sample(frac=1, random_state=seed).reset_index(drop=True)  # the nightly's frames are object
    pd.testing.assert_frame_equal(secondary_columns(rows, "prescient.naive"), groupby_secondary(rows, "prescient.naive"), check_exact=True)


# --- stability rule -------------------------------------------------------------------------------


def test_stability_rule_boundaries_on_resolved_count_and_age():
    rows = scores()  # a.x and b.y forecast 3 units, the naive 2; round 2026-01-04 is 56 days before AS_OF
    at = lambda n, age: provisional_models(rows, AS_OF, n, age).to_dict()  # noqa: E731
    assert at(3, 56) == {"a.x": False, "b.y": False, "prescient.naive": True}
    assert at(4, 56) == {"a.x": True, "b.y": True, "prescient.naive": True}
    assert at(2, 57) == {"a.x": True, "b.y": True, "prescient.naive": True}
    assert at(2, 56) == {"a.x": False, "b.y": False, "prescient.naive": False}
    imputed = scores(imputed={("a.x", "d1")})
    assert provisional_models(imputed, AS_OF, 3, 0)["a.x"]  # imputed rows are not the model's forecasts


def test_provisional_models_are_shown_without_a_rank():
    options = FBOptions(replicates=20, min_resolved=3, min_age_days=50)
    board = fb_board(scores(), MODELS, AS_OF, np.random.default_rng(0), options)
    naive = board.set_index("model").loc["prescient.naive"]
    assert naive["provisional"] == 1 and math.isnan(naive["rank"]) and math.isnan(naive["pct_rank1"])
    assert board["model"].iloc[-1] == "prescient.naive"
    assert sorted(board["rank"].dropna().tolist()) == [1, 2]


# --- [leaderboard] settings -------------------------------------------------------------------------


def test_leaderboard_settings_default_and_feed_the_board_options(tmp_path):
    settings_ = load_settings(write_hub(tmp_path))
    assert settings_.leaderboard.boards == ("tournament", "baseline")
    assert settings_.leaderboard.replicates == 1999
    options = board_options(settings_.scoring, settings_.leaderboard, replicates=None, board="baseline")
    assert (options.board, options.replicates, options.min_resolved, options.min_age_days) == ("baseline", 1999, 5, 20)
    assert options.reference is None and options.market_difficulty == "estimated"


def test_leaderboard_table_is_read(tmp_path):
    text = SMALL_HUB + (
        '\n[leaderboard]\nboards = ["baseline"]\nviews = ["overall", "horizon:30", "source:fred"]\n'
        'replicates = 99\nseed = 7\nreference = "a.x"\nmarket_difficulty = "crowd"\n'
    )
    lb = load_settings(write_hub(tmp_path, text)).leaderboard
    assert (lb.boards, lb.views, lb.replicates, lb.seed, lb.reference, lb.market_difficulty) == (
        ("baseline",),
        ("overall", "horizon:30", "source:fred"),
        99,
        7,
        "a.x",
        "crowd",
    )


def test_every_leaderboard_problem_is_reported_with_its_key(tmp_path):
    text = SMALL_HUB + (
        '\n[leaderboard]\nboards = ["arena"]\nviews = ["overall", "sector:energy"]\n'
        'replicates = 0\nseed = "zero"\nmarket_difficulty = "guess"\ncolour = 1\n'
    )
    with pytest.raises(ConfigError) as info:
        load_settings(write_hub(tmp_path, text))
    found = {(p.code, p.column) for p in info.value.problems}
    assert found == {
        ("bad-value", "leaderboard.boards"),
        ("bad-value", "leaderboard.views"),
        ("bad-value", "leaderboard.replicates"),
        ("wrong-type", "leaderboard.seed"),
        ("bad-value", "leaderboard.market_difficulty"),
        ("unknown-key", "leaderboard.colour"),
    }
    assert "sector:energy" in next(p.message for p in info.value.problems if p.column == "leaderboard.views")


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.floats(0, 1)), min_size=1, max_size=40))
def test_unit_means_by_code_equal_pandas_transform(rows):
    """Dense codes take the groups' means by code; codes with gaps fall back to ``transform``: both
    the same floats as ``groupby(unit).transform("mean")``."""
    from generator.leaderboard.secondary import _unit_means

    unit = np.array([u for u, _ in rows], dtype=np.int64)
    brier = np.array([b for _, b in rows])
    for codes in (pd.factorize(unit)[0], unit):  # dense 0..k-1, and perhaps with gaps
        want = pd.Series(brier).groupby(pd.Index(codes)).transform("mean").to_numpy()
        np.testing.assert_array_equal(_unit_means(brier, codes), want)
