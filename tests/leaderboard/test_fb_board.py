"""The ForecastBench-style board on a small scores frame computed by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from generator.leaderboard.digest import inputs_digest
from generator.leaderboard.fb_board import (
    COLUMNS,
    FBOptions,
    fb_board,
    is_estimation_model,
)
from generator.leaderboard.panel import sorted_codes
from generator.leaderboard.rows import board_order
from generator.models import ModelMeta
from generator.timeutil import parse_ts

from helpers import score_rows

AS_OF = parse_ts("2026-03-01T00:00:00Z")
OUTCOME = {"d1": 1.0, "d2": 0.0, "m1": 1.0, "m2": 0.0}
FORECASTS = {"a.x": {"d1": 0.8, "d2": 0.3, "m1": 0.6, "m2": 0.1}, "b.y": {"d1": 0.6, "d2": 0.5, "m1": 0.9, "m2": 0.4}, "c.z": {"d1": 0.5, "m1": 0.5}}
MODELS = {
    "a.x": ModelMeta("a.x", "A", "Org A", "llm"),
    "b.y": ModelMeta("b.y", "B", "Org B", "llm", saw_crowd=True),
    "c.z": ModelMeta("c.z", "C", "Org C", "baseline"),
}


def scores(forecasts=FORECASTS, round_="2026-01-04", imputed=()):
    return score_rows(forecasts, OUTCOME, round_, imputed)


def bi(d):
    return 100 * (1 - np.sqrt(d))


def board(frame=None, seed=0, **options):
    return fb_board(scores() if frame is None else frame, MODELS, AS_OF, np.random.default_rng(seed), FBOptions(replicates=40, **options)).set_index(
        "model"
    )


def test_matches_the_hand_computed_fixed_effects():
    # Estimation sample A, B (balanced): b_j = their mean Brier; C (a baseline) covers d1 and m1.
    # dataset: A .065, B .205, C (.25 - .10) + (.10 + .17)/2 = .285
    # market:  A .085, B .085, C (.25 - .085) + .085 = .25
    out = board()
    expected = {"a.x": (0.065, 0.085), "b.y": (0.205, 0.085), "c.z": (0.285, 0.25)}
    for model, (d, m) in expected.items():
        row = out.loc[model]
        assert row["brier_dataset"] == pytest.approx(d, abs=1e-12)
        assert row["brier_market"] == pytest.approx(m, abs=1e-12)
        assert row["overall"] == pytest.approx(bi((d + m) / 2), abs=1e-9)
        assert row["dataset"] == pytest.approx(bi(d), abs=1e-9)
    assert list(out.index) == ["a.x", "b.y", "c.z"] and list(out["rank"]) == [1, 2, 3]
    assert sorted(out.reset_index().columns) == sorted(COLUMNS)
    assert (out["n_dataset"].tolist(), out["n_market"].tolist()) == ([2, 2, 1], [2, 2, 1])
    assert out.loc["a.x", "p_label"] == "—" and out["in_estimation"].tolist() == [1, 1, 0]
    assert (out["overall_ci_low"] <= out["overall_ci_high"]).all()


def test_the_same_seed_gives_the_same_board():
    assert board(seed=7).equals(board(seed=7))
    assert not board(seed=7)["overall_ci_low"].equals(board(seed=8)["overall_ci_low"])


def test_crowd_market_difficulty_fixes_the_market_effects():
    crowd = pd.DataFrame({"round": "2026-01-04", "question_id": ["manifold:m1", "manifold:m2"], "probability": [0.7, 0.2]})
    out = fb_board(scores(), MODELS, AS_OF, np.random.default_rng(0), FBOptions(replicates=10, market_difficulty="crowd"), crowd=crowd).set_index(
        "model"
    )
    # crowd Brier .09 and .04; C: (.25 - .09) + .065; full-coverage models keep their raw Brier
    assert out.loc["c.z", "brier_market"] == pytest.approx(0.225, abs=1e-12)
    assert out.loc["a.x", "brier_market"] == pytest.approx(0.085, abs=1e-12)


def test_round_age_round_size_imputation_and_board_filters():
    late = scores(round_="2026-02-22")
    both = pd.concat([scores(), late], ignore_index=True)
    assert board(both)["n_dataset"].tolist() == [2, 2, 1]  # the 50-day rule drops the late round
    assert board(both, min_round_age_days=None)["n_dataset"].tolist() == [4, 4, 2]
    assert board(both, min_round_age_days=None, min_dataset_rows=3).empty
    skipped = scores(imputed={("b.y", "d1")})
    assert "b.y" not in board(skipped).index and "b.y" in board(skipped, max_imputed_share=None).index
    assert "b.y" not in board(board="baseline").index


def test_the_inputs_digest_changes_whenever_the_board_can_and_only_then():
    options = FBOptions(replicates=10, min_resolved=0, min_age_days=60)
    frame = scores()

    def at(when):
        return parse_ts(when), fb_board(frame, MODELS, parse_ts(when), np.random.default_rng(0), options).drop(columns="rank")

    (t1, b1), (t2, b2), (t3, b3) = at("2026-02-24T00:00:00Z"), at("2026-03-01T00:00:00Z"), at("2026-03-06T00:00:00Z")
    # nothing a board reads moved between t1 and t2: same digest, same board
    assert inputs_digest(frame, t1, options) == inputs_digest(frame, t2, options) and b1.equals(b2)
    # by t3 the round is 60 days old: the same rows, but no model is provisional any more
    assert b2["provisional"].tolist() == [1, 1, 1] and b3["provisional"].tolist() == [0, 0, 0]
    assert inputs_digest(frame, t3, options) != inputs_digest(frame, t2, options)
    moved = frame.assign(brier=frame["brier"].where(frame.index != 0, 0.5))  # one score changed
    assert inputs_digest(moved, t2, options) != inputs_digest(frame, t2, options)
    unresolved = frame.assign(resolved_at=frame["resolved_at"].where(frame.index != 0, "2026-03-03T00:00:00Z"))
    assert inputs_digest(unresolved, t2, options) != inputs_digest(frame, t2, options)  # a row not yet resolved then
    young = pd.concat([frame, scores(round_="2026-02-22")], ignore_index=True)  # a round the 50-day rule leaves off
    rescored = young.assign(brier=young["brier"].where(young["round"] != "2026-02-22", 0.5))
    assert inputs_digest(rescored, t2, options) == inputs_digest(young, t2, options) == inputs_digest(frame, t2, options)


def test_the_estimation_rule_reads_the_metadata():
    assert is_estimation_model("a.x", MODELS["a.x"]) and not is_estimation_model("c.z", MODELS["c.z"])
    assert not is_estimation_model("prescient.crowd-median", ModelMeta("prescient.crowd-median", "M", "P", "team"))
    assert not is_estimation_model("u.v", None)
    alone = scores({"c.z": FORECASTS["a.x"]})  # no model qualifies: everyone enters, raw Brier
    assert board(alone).loc["c.z", "brier_dataset"] == pytest.approx(0.065)


def test_the_imputation_rule_is_never_silent_and_a_hub_toml_list_exempts():
    skipped = scores(imputed={("b.y", "d1")})  # 1 of b.y's 4 units imputed: 25% > 5%
    out = fb_board(skipped, MODELS, AS_OF, np.random.default_rng(0), FBOptions(replicates=10))
    assert "b.y" not in set(out["model"])
    unranked = out.attrs["unranked"]
    assert unranked[["model", "round", "n", "imputed"]].values.tolist() == [["b.y", "2026-01-04", 4, 1]]
    assert unranked.loc[0, "reason"] == "1 of its 4 resolved units imputed (25%, over the 5% limit)"
    exempt = fb_board(skipped, MODELS, AS_OF, np.random.default_rng(0), FBOptions(replicates=10, imputation_exempt=("b",)))
    assert "b.y" in set(exempt["model"]) and exempt.attrs["unranked"].empty  # a team name exempts its models
    assert fb_board(scores(), MODELS, AS_OF, np.random.default_rng(0), FBOptions(replicates=10)).attrs["unranked"].empty


def test_markets_without_a_crowd_value_keep_their_estimated_difficulty_and_are_counted():
    crowd = pd.DataFrame({"round": "2026-01-04", "question_id": ["manifold:m1"], "probability": [0.7], "at": ["due"]})
    out = fb_board(scores(), MODELS, AS_OF, np.random.default_rng(0), FBOptions(replicates=10, market_difficulty="crowd"), crowd=crowd).set_index(
        "model"
    )
    assert out.attrs["crowd_values"] == {"at_due": 1, "at_freeze": 0, "estimated": 1}
    # m1 fixed at the crowd's .09; m2 keeps its estimated effect (A and B's mean Brier, .085)
    assert out.loc["c.z", "brier_market"] == pytest.approx(0.25 - 0.09 + (0.09 + 0.085) / 2, abs=1e-12)
    nothing = fb_board(scores(), MODELS, AS_OF, np.random.default_rng(0), FBOptions(replicates=10, market_difficulty="crowd"))
    assert nothing.attrs["crowd_values"]["estimated"] == 2  # no crowd value at all: the board still stands
    assert nothing.set_index("model").loc["c.z", "brier_market"] == pytest.approx(0.25, abs=1e-12)


def test_the_crowd_value_is_the_latest_observation_at_or_before_the_due_time():
    from generator.leaderboard.crowd import crowd_from_rounds

    rounds = pd.DataFrame(
        {
            "question_id": ["manifold:m1", "manifold:m2", "fred:d1"],
            "kind": ["binary", "binary", "dataset"],
            "due": "2026-01-04T00:00:00Z",
            "freeze_value": [0.3, 0.4, 5.0],
        }
    )
    obs = pd.DataFrame(
        {
            "question_id": ["manifold:m1", "manifold:m1", "manifold:m1"],
            "observed_at": ["2025-12-25T00:00:00Z", "2026-01-03T12:00:00Z", "2026-01-05T00:00:00Z"],
            "recorded_at": ["2025-12-25T00:00:00Z", "2026-01-03T12:00:00Z", "2026-01-05T00:00:00Z"],
            "value": [0.3, 0.55, 0.9],
        }
    )
    out = crowd_from_rounds(rounds, obs).set_index("question_id")
    assert out.loc["manifold:m1", ["probability", "at"]].tolist() == [0.55, "due"]  # not the freeze value, not later
    assert out.loc["manifold:m2", ["probability", "at"]].tolist() == [0.4, "freeze"]  # nothing later known: the freeze value
    assert "fred:d1" not in out.index


def test_a_nightlys_round_frames_are_digested_as_their_concatenation_or_known_by_their_files():
    """The nightly hands its rounds' frames unconcatenated, each known by its score file's (size, sha256):
    the digest then reads which rows step 1 keeps, not the rows; any other token or kept row moves it."""
    options, t = FBOptions(replicates=10, min_resolved=0, min_age_days=60), parse_ts("2026-03-06T00:00:00Z")
    first, second = scores(), scores(round_="2026-01-11")
    frames = [first, second]
    assert inputs_digest(frames, t, options) == inputs_digest(pd.concat(frames, ignore_index=True), t, options)
    parts = [((10, "aa"), len(first)), ((12, "bb"), len(second))]
    known = inputs_digest(frames, t, options, parts)
    assert known == inputs_digest([first.copy(), second.copy()], t, options, parts)
    assert known != inputs_digest(frames, t, options)  # a different kind of key, never mistaken for the other
    assert known != inputs_digest(frames, t, options, [parts[0], ((12, "bc"), len(second))])  # a score file changed
    later = second.assign(resolved_at=second["resolved_at"].where(second.index != 0, "2026-03-08T00:00:00Z"))
    assert known != inputs_digest([first, later], t, options, parts)  # a row step 1 no longer keeps
    # parts that do not describe the frames are not trusted: the rows are hashed
    assert inputs_digest(frames, t, options, parts[:1]) == inputs_digest(frames, t, options)


def test_frames_known_by_their_times_are_digested_by_the_rows_step_1_keeps():
    """With each frame's ``FrameTimes`` (``frame_times``), the digest reads per round of a frame how
    many of its times step 1 keeps: two times give equal digests exactly when the rows' own
    comparisons (the digest without them) do."""
    from generator.leaderboard.frame_times import FrameTimes

    options = FBOptions(replicates=10, min_resolved=0, min_age_days=60)
    first, second = scores(), scores(round_="2026-01-11")
    second = second.assign(resolved_at=second["resolved_at"].where(second.index != 0, "2026-03-08T00:00:00Z"))
    frames, parts = [first, second], [("a", len(first)), ("b", len(second))]
    times = [FrameTimes.of(first), FrameTimes.of(second)]
    stamps = [parse_ts(f"2026-{d}T00:00:00Z") for d in ("01-19", "01-20", "02-24", "03-05", "03-06", "03-07", "03-08", "03-12", "03-13", "03-20")]
    known = [inputs_digest(frames, t, options, parts, times) for t in stamps]
    plain = [inputs_digest(frames, t, options) for t in stamps]
    assert [[a == b for b in known] for a in known] == [[a == b for b in plain] for a in plain]
    assert len(set(known)) > 3  # rows resolving, a round passing the 50-day rule, one passing min_age_days
    assert known[0] != inputs_digest(frames, stamps[0], options, parts)  # a different kind of key
    assert inputs_digest(frames, stamps[0], options, parts, [times[0], None]) == inputs_digest(frames, stamps[0], options, parts)
    assert FrameTimes.of(first.assign(round=pd.Timestamp("2026-01-04"))) is None  # not text: the rows' own comparisons


def test_a_board_without_replicates_has_the_point_estimates_and_ranks_of_one_with_them():
    # replicates=0 (the nightly's history, a round's own board) fits no bootstrap at all
    point = fb_board(scores(), MODELS, AS_OF, np.random.default_rng(0), FBOptions(replicates=0)).set_index("model")
    full = board()
    replicated = [c for c in COLUMNS if "_ci_" in c or c in ("pct_rank1", "rank_low", "rank_high", "p_value", "pct_top5")]
    assert point[replicated].isna().all().all() and full[replicated].notna().any().all()
    pd.testing.assert_frame_equal(
        point.drop(columns=[*replicated, "p_display", "p_label", "p_public"]),
        full.drop(columns=[*replicated, "p_display", "p_label", "p_public"]),
        check_exact=True,
    )


@pytest.mark.parametrize("seed", range(20))
def test_the_board_order_is_pandas_sort_on_rank_score_and_model(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 12))
    rank = rng.choice([1.0, 2.0, 3.0, np.nan], n)  # ties and missing ranks (provisional models)
    score = rng.choice([-5.0, 0.0, -0.0, 12.5, 40.0, np.nan], n)  # ties, signed zeros, missing scores
    frame = pd.DataFrame({"rank": rank, "overall": score, "model": [f"m{i:02d}" for i in range(n)]})
    expected = frame.sort_values(["rank", "overall", "model"], ascending=[True, False, True], na_position="last", kind="mergesort").index.to_numpy()
    assert board_order(rank, score).tolist() == expected.tolist()


@pytest.mark.parametrize("seed", range(10))
def test_sorted_codes_are_numpys_unique_with_its_inverse(seed):
    rng = np.random.default_rng(seed)
    values = rng.choice(["b.y", "a.x", "a.x.2", "", "z", "2026-01-04", "2026-01-18"], int(rng.integers(1, 40))).astype(object)
    names, codes = sorted_codes(values)
    expected_names, expected_codes = np.unique(values, return_inverse=True)
    assert names.tolist() == expected_names.tolist() and codes.tolist() == expected_codes.tolist()


def test_kept_boards_are_taken_again_only_while_nothing_they_read_changed(tmp_path):
    """``hub_boards.KeptBoards``: the nightly's boards, kept from one headline to the next. Each board
    taken again equals the board made afresh; one is made again when a frame holding its rows
    changed, never when only a frame none of its rows lies in (a round too young) did."""
    from generator.leaderboard.hub_boards import KeptBoards, pair_boards
    from generator.store.hub import Hub

    from helpers import SMALL_HUB, write_hub

    settings = Hub.load(write_hub(tmp_path, SMALL_HUB + '\n[leaderboard]\nviews = ["overall", "market"]\n')).settings
    pairs = [(b, v) for v in ("overall", "market") for b in ("tournament", "baseline")]
    old, young = scores(round_="2026-01-04"), scores(round_="2026-02-22")  # as of 2026-03-01, min_age_days 20

    def headline(frames, kept, as_of=AS_OF):
        made = pair_boards(pd.concat(frames, ignore_index=True), MODELS, as_of, settings, pairs, replicates=0, kept=kept)
        fresh = pair_boards(pd.concat(frames, ignore_index=True), MODELS, as_of, settings, pairs, replicates=0)
        for pair in pairs:
            pd.testing.assert_frame_equal(made[pair], fresh[pair], check_exact=True)
        assert kept.made == made
        return made

    kept = KeptBoards([("old", len(old)), ("young", len(young))])
    first = headline([old, young], kept)
    rescored = young.assign(brier=0.5)
    kept.parts = [("old", len(old)), ("young 2", len(rescored))]  # only the young round changed: every board kept
    assert all(a is b for a, b in zip(headline([old, rescored], kept).values(), first.values(), strict=True))
    later = parse_ts("2026-03-20T00:00:00Z")  # the young round is old enough now: its rows join the boards
    again = headline([old, rescored], kept, later)
    assert all(len(again[p]) and again[p] is not first[p] for p in pairs)
    moved = old.assign(brier=old["brier"].where(old["question_id"] != "manifold:m1", 0.0))
    kept.parts = [("old 2", len(moved)), ("young 2", len(rescored))]
    assert all(made is not again[p] for p, made in headline([moved, rescored], kept, later).items())
    kept.parts = None  # no names for the frames: nothing is taken
    assert all(made is not again[p] for p, made in headline([old, rescored], kept, later).items())


def test_the_board_carries_each_units_question_effect():
    # b_j of the estimation sample A, B (balanced) is their mean Brier: d1 (.04 + .16)/2, d2 (.09 + .25)/2,
    # m1 (.16 + .01)/2, m2 (.01 + .16)/2; a crowd board fixes the markets' b at the crowd's Brier (.09, .04)
    out = board()
    effects = out.attrs["difficulty"].frame.set_index("question_id")
    assert out["rank"].attrs["difficulty"] is out.attrs["difficulty"], "copied with every column taken from the board"
    assert list(effects.columns) == ["round", "resolution_date", "kind", "b"]
    assert effects["b"].to_dict() == pytest.approx({"fred:d1": 0.10, "fred:d2": 0.17, "manifold:m1": 0.085, "manifold:m2": 0.085}, abs=1e-12)
    crowd = pd.DataFrame({"round": "2026-01-04", "question_id": ["manifold:m1", "manifold:m2"], "probability": [0.7, 0.2]})
    fixed = (
        fb_board(scores(), MODELS, AS_OF, np.random.default_rng(0), FBOptions(replicates=0, market_difficulty="crowd"), crowd=crowd)
        .attrs["difficulty"]
        .frame.set_index("question_id")["b"]
    )
    assert fixed[["manifold:m1", "manifold:m2"]].tolist() == pytest.approx([0.09, 0.04], abs=1e-12)
    assert list(fb_board(scores().iloc[:0], MODELS, AS_OF, np.random.default_rng(0)).attrs["difficulty"].frame.columns) == [
        "round",
        "question_id",
        "resolution_date",
        "kind",
        "b",
    ]
