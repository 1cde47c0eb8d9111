"""ForecastBench parity II on small frames computed by hand: the preliminary board, orphan
units never silent, who ran a model (``ran_by``) and FB's 365-day rule, the missing-crowd rule, and the
board printed in FB's published CSV layout. The real files: tests/test_forecastbench_import.py."""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import pandas as pd
import pytest

from generator.config import LeaderboardSettings, ScoringSettings
from generator.console import empty_board_note
from generator.leaderboard.fb_board import FBOptions, board_options, board_rules, fb_board, is_estimation_model
from generator.leaderboard.fb_layout import FULL_COLUMNS, PRELIMINARY_COLUMNS, fb_layout
from generator.leaderboard.fb_rules import orphan_problem, within_release_window
from generator.models import ModelMeta, check_model
from generator.timeutil import parse_ts

from helpers import score_rows

AS_OF = parse_ts("2026-03-01T00:00:00Z")
OUTCOME = {"d1": 1.0, "d2": 0.0, "d3": 1.0, "m1": 1.0, "m2": 0.0}
MODELS = {
    "a.x": ModelMeta("a.x", "A", "Org A", "llm"),
    "b.y": ModelMeta("b.y", "B", "Org B", "llm"),
    "prescient.always-0": ModelMeta("prescient.always-0", "Always 0", "Prescient", "baseline"),
}
ALWAYS_0 = {q: 0.0 for q in OUTCOME}


def board(forecasts, round_="2026-01-04", models=MODELS, crowd=None, **options):
    frame = score_rows(forecasts, OUTCOME, round_)
    return fb_board(frame, models, AS_OF, np.random.default_rng(0), FBOptions(replicates=20, **options), crowd)


# -- the preliminary board -----------------------------------------------------------------------------


def test_the_preliminary_board_counts_dataset_units_only_has_no_50_day_rule_and_ranks_by_dataset():
    forecasts = {
        "a.x": {"d1": 0.8, "d2": 0.3, "d3": 0.9, "m1": 0.6},
        "b.y": {"d1": 0.6, "d2": 0.5, "d3": 0.5, "m1": 0.9},
        "prescient.always-0": ALWAYS_0,
    }
    young = "2026-02-22"  # a week old: the tournament board waits 50 days, the preliminary one does not
    assert board(forecasts, young).empty
    options = board_options(ScoringSettings(min_resolved=3), LeaderboardSettings(), board="preliminary", replicates=20)
    assert (options.min_round_age_days, options.min_market_questions, options.min_age_days, options.score) == (None, 0, 0, "dataset")
    out = fb_board(score_rows(forecasts, OUTCOME, young), MODELS, AS_OF, np.random.default_rng(0), options).set_index("model")
    assert out["n_market"].eq(0).all() and out["n_dataset"].tolist() == [3, 3, 3]
    assert out.index.tolist() == ["a.x", "b.y", "prescient.always-0"] and out["rank"].tolist() == [1, 2, 3]
    assert np.isnan(out["market"]).all()
    # the board fixes its rules whatever the hub says: no crowd difficulty off the tournament board
    assert board_rules(FBOptions(board="baseline", market_difficulty="crowd")).market_difficulty == "estimated"


def test_the_layout_is_fb_published_csv_header_with_its_rounding_and_ties():
    forecasts = {"a.x": {"d1": 0.8, "d2": 0.3, "d3": 0.9}, "b.y": {"d1": 0.6, "d2": 0.5, "d3": 0.5}, "prescient.always-0": ALWAYS_0}
    out = board(forecasts, board="preliminary", score="dataset", min_round_age_days=None)
    table = fb_layout(out, "preliminary", MODELS)
    assert tuple(table.columns) == PRELIMINARY_COLUMNS and len(FULL_COLUMNS) == 24
    row = table.set_index("Model").loc["Always 0"]
    assert row["Dataset"] == str(round(100 * (1 - np.sqrt(2 / 3)), 1)) and row["N dataset"] == "3"
    assert row["Dataset 95% CI"].startswith("[") and row["Rank"] == "3"
    assert table["Rank"].tolist() == ["1", "2", "3"] and table["Supers > Forecaster?"].iloc[0] == "—"
    assert table["Forecaster > Public?"].tolist() == ["—"] * 3  # no public reference configured
    assert fb_layout(out.iloc[:0], "tournament", MODELS).columns.tolist() == list(FULL_COLUMNS)


# -- orphan units ----------------------------------------------------------------------------------------


PARTIAL = {"a.x": {"d1": 0.8, "m1": 0.6}, "prescient.always-0": ALWAYS_0}  # the only estimation model answers 2 of 5


def test_orphan_units_are_kept_at_raw_brier_counted_per_model_and_named_with_their_rounds():
    out = board(PARTIAL)
    row = out.set_index("model").loc["prescient.always-0"]
    # every unit stays: Always 0 covers all, so it scores its raw mean Brier of each type (FB's number)
    assert (row["n_dataset"], row["n_market"], row["n_orphan"]) == (3, 2, 3)
    assert row["brier_dataset"] == pytest.approx(2 / 3) and row["brier_market"] == pytest.approx(0.5)
    assert out.attrs["orphans"] == {"units": 3, "dataset": 2, "market": 1, "rounds": ["2026-01-04"]}
    assert out.set_index("model").loc["a.x", "n_orphan"] == 0
    warning = orphan_problem(out.attrs["orphans"], "tournament")
    assert (warning.code, warning.severity, warning.column) == ("orphan-units", "warning", "n_orphan")
    assert "3 unit(s) (2 dataset, 1 market) in 1 round(s) (2026-01-04)" in warning.message
    assert "n_orphan" in out.columns and "orphans" not in board(PARTIAL | {"b.y": ALWAYS_0}).attrs


def test_fb_refusal_names_the_count_and_the_rounds_and_the_old_drop_shrinks_the_board():
    with pytest.raises(ValueError, match=r"3 unit\(s\) in 1 round\(s\) \(2026-01-04\) have no estimation-sample forecast"):
        board(PARTIAL, orphan_units="raise")
    dropped = board(PARTIAL, orphan_units="drop").set_index("model")  # what 0.6.4 did, silently
    assert (dropped.loc["prescient.always-0", "n_dataset"], dropped.loc["prescient.always-0", "n_market"]) == (1, 1)


# -- who ran a model and FB's 365-day rule ----------------------------------------------------------------


def test_a_team_submission_never_enters_the_estimation_sample_and_fb_llms_only_within_365_days():
    team = ModelMeta("t.m", "M", "T", "llm", ran_by="team")
    assert not is_estimation_model("t.m", team) and is_estimation_model("a.x", MODELS["a.x"])
    old = ModelMeta("forecastbench.o", "O", "ForecastBench", "llm", release_date="2025-01-10", ran_by="forecastbench")
    names = np.array(["a.x", "forecastbench.o"], dtype=object)
    rounds = np.array(["2026-01-04", "2026-01-04", "2026-01-11"], dtype=object)
    keep = within_release_window(rounds, names, np.array([0, 1, 1]), {"a.x": MODELS["a.x"], "forecastbench.o": old})
    assert keep.tolist() == [True, True, False]  # 2026-01-10 is 365 days after the release: out from then on
    assert check_model("t.m", {"name": "M", "organization": "T", "kind": "llm", "ran_by": "someone"}, "f")[0].column == "ran_by"
    assert ModelMeta("t.m", "M", "T", "llm", ran_by="team").to_yaml().count(b"ran_by: team") == 1
    assert b"ran_by" not in MODELS["a.x"].to_yaml()


# -- the missing-crowd rule --------------------------------------------------------------------------------


def test_a_market_without_the_crowd_value_at_the_due_time_leaves_a_crowd_board_under_missing_crowd_drop():
    forecasts = {"a.x": {"d1": 0.8, "m1": 0.6, "m2": 0.1}, "b.y": {"d1": 0.6, "m1": 0.9, "m2": 0.4}}
    crowd = pd.DataFrame({"round": "2026-01-04", "question_id": ["manifold:m1"], "probability": [0.7], "at": ["due"]})
    kept = board(forecasts, crowd=crowd, market_difficulty="crowd").set_index("model")
    out = board(forecasts, crowd=crowd, market_difficulty="crowd", missing_crowd="drop")
    assert kept.loc["a.x", "n_market"] == 2 and out.set_index("model").loc["a.x", "n_market"] == 1
    assert out.attrs["crowd_values"]["missing_at_due"] == 1


# -- the empty board's note ----------------------------------------------------------------------------------


def test_an_empty_board_says_resolutions_were_recorded_later_and_when_to_ask():
    due = parse_ts("2026-01-04T00:00:00Z")
    resolutions = pd.DataFrame(
        {"round": ["2026-01-04"], "status": ["resolved"], "resolved_at": ["2026-01-20T00:00:00Z"], "recorded_at": ["2026-08-21T00:00:00Z"]}
    )
    note = empty_board_note(due + timedelta(days=60), [due], due, 50, resolutions, market_proxy=True)
    assert "1 resolution(s) of rounds due by 2026-01-14 are in the hub but were recorded after that time" in note
    assert "--as-of 2026-08-22T00:00:00Z" in note
    assert "recorded after" not in empty_board_note(due + timedelta(days=60), [due], due, 50, resolutions.iloc[:0])


def test_the_site_names_the_orphan_units_under_the_board_and_explains_the_preliminary_board():
    from generator.site.render import BOARD_HELP, _panels, environment

    panel = _panels({("tournament", "overall"): board(PARTIAL)})[0]
    html = environment().get_template("_unranked.html.j2").render(p=panel)
    assert "<code>orphan-units</code>" in html and "3 unit(s) (2 dataset, 1 market) in 1 round(s) (2026-01-04)" in html
    assert "dataset questions only" in BOARD_HELP["preliminary"]
    clean = _panels({("tournament", "overall"): board(PARTIAL | {"b.y": ALWAYS_0})})[0]
    assert "orphan" not in environment().get_template("_unranked.html.j2").render(p=clean)


# -- display names ------------------------------------------------------------------------


def test_a_board_shows_each_display_name_once_and_keeps_the_model_ids():
    models = {
        **MODELS,
        "forecastbench.always-0": ModelMeta("forecastbench.always-0", "Always 0", "ForecastBench", "baseline"),
        "c.y": ModelMeta("c.y", "B", "Org C", "llm"),
    }
    forecasts = {
        "a.x": {"d1": 0.8, "m1": 0.6},
        "b.y": {"d1": 0.6, "m1": 0.5},
        "c.y": {"d1": 0.7, "m1": 0.4},
        "prescient.always-0": {"d1": 0.0, "m1": 0.0},
        "forecastbench.always-0": {"d1": 0.0, "m1": 0.0},
    }
    out = board(forecasts, models=models).set_index("model")
    assert out["name"].is_unique
    assert out.loc["prescient.always-0", "name"] == "Always 0 (hub)"  # the hub's own, beside the import's
    assert out.loc["forecastbench.always-0", "name"] == "Always 0"
    assert (out.loc["b.y", "name"], out.loc["c.y", "name"]) == ("B (b.y)", "B (c.y)")  # else by model id
    assert (
        board({"a.x": {"d1": 0.8}, "prescient.always-0": {"d1": 0.0}}).set_index("model").loc["prescient.always-0", "name"] == "Always 0"
    )  # no other row of that name: unchanged
