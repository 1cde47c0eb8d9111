"""Ingest (what is new), resolution (what the ledgers say at a time) and the round schedule."""

from __future__ import annotations

import pandas as pd

from generator.config import RoundSettings
from generator.pipeline.sampling import due_dates, rounds_to_open
from generator.scoring.resolve import ledger_view, resolve_round
from generator.sources.base import Observation
from generator.store.ingest import new_observations, observation_frame
from generator.timeutil import parse_ts

T = parse_ts


def frame(obs, as_of):
    return observation_frame(obs, T(as_of))


KINDS = {"m:1": "binary", "s:1": "dataset"}


def test_a_quiet_night_adds_no_market_row_and_a_flip_adds_one_per_change():
    night1 = frame([Observation("m:1", T("2026-01-01"), 0.4)], "2026-01-01")
    quiet = frame([Observation("m:1", T("2026-01-02"), 0.4)], "2026-01-02")
    assert new_observations(night1, quiet, KINDS).empty
    resolved = frame([Observation("m:1", T("2026-01-03"), 1.0, "resolved", 1.0)], "2026-01-03")
    both = pd.concat([night1, resolved], ignore_index=True)
    reopened = frame([Observation("m:1", T("2026-01-04"), 0.6)], "2026-01-04")
    assert len(new_observations(both, reopened, KINDS)) == 1


def test_a_series_revision_is_a_new_row_and_an_unchanged_value_is_not():
    first = frame([Observation("s:1", T("2026-01-01"), 10.0)], "2026-01-02")
    same = frame([Observation("s:1", T("2026-01-01"), 10.0)], "2026-01-03")
    revised = frame([Observation("s:1", T("2026-01-01"), 11.0)], "2026-01-03")
    assert new_observations(first, same, KINDS).empty
    assert new_observations(first, revised, KINDS)["value"].tolist() == [11.0]


def round_frame(rows):
    return pd.DataFrame(rows, columns=["question_id", "resolution_date", "kind", "due"])


def test_markets_resolve_from_the_latest_state_and_early_resolutions_are_void():
    obs = pd.concat(
        [
            frame([Observation("m:1", T("2026-01-05"), 0.7)], "2026-01-05"),
            frame([Observation("m:1", T("2026-02-01"), 1.0, "resolved", 1.0)], "2026-02-02"),
            frame([Observation("m:2", T("2026-01-09"), 0.0, "resolved", 0.0)], "2026-01-09"),
            frame([Observation("m:3", T("2026-01-09"), 0.3, "void")], "2026-02-02"),
        ],
        ignore_index=True,
    )
    rounds = round_frame(
        [("m:1", "", "binary", "2026-01-10T00:00:00Z"), ("m:2", "", "binary", "2026-01-10T00:00:00Z"), ("m:3", "", "binary", "2026-01-10T00:00:00Z")]
    )
    out = resolve_round(rounds, ledger_view(obs, "2026-02-05T00:00:00Z")).set_index("question_id")
    assert out.loc["m:1", "status"] == "resolved" and out.loc["m:1", "outcome"] == 1.0
    assert out.loc["m:2", "status"] == "void"  # resolved before the due date
    assert out.loc["m:3", "status"] == "void"
    earlier = resolve_round(rounds, ledger_view(obs, "2026-01-20T00:00:00Z")).set_index("question_id")
    assert earlier.loc["m:1", "status"] == "open"  # the resolution was not recorded yet


def test_dataset_units_compare_the_resolution_date_value_with_the_due_date_value():
    values = [("2026-01-09", 5.0), ("2026-01-10", 10.0), ("2026-01-16", 9.0), ("2026-01-17", 12.0), ("2026-02-09", 12.0)]
    obs = frame([Observation("s:1", T(d), v) for d, v in values], "2026-02-10")
    rounds = round_frame(
        [
            ("s:1", "2026-01-17", "dataset", "2026-01-10T00:00:00Z"),
            ("s:1", "2026-01-16", "dataset", "2026-01-10T00:00:00Z"),
            ("s:1", "2026-03-01", "dataset", "2026-01-10T00:00:00Z"),
            ("s:1", "2026-01-10", "dataset", "2026-01-10T00:00:00Z"),
        ]
    )
    out = resolve_round(rounds, ledger_view(obs, "2026-02-10T00:00:00Z")).set_index("resolution_date")
    assert out.loc["2026-01-17", "outcome"] == 1.0  # 12 > 10
    assert out.loc["2026-01-16", "outcome"] == 0.0  # 9 < 10
    assert out.loc["2026-03-01", "status"] == "open"  # not reached yet
    assert out.loc["2026-01-10", "status"] == "void"  # resolves on the due date


def test_rounds_fall_every_other_sunday_and_open_ten_days_early():
    rounds = RoundSettings(first_due=T("2026-01-25T00:00:00Z"))
    assert [d.date().isoformat() for d in due_dates(rounds, T("2026-03-01"))] == ["2026-01-25", "2026-02-08", "2026-02-22"]
    assert rounds_to_open(rounds, T("2026-01-14T23:00:00Z"), set()) == []
    assert rounds_to_open(rounds, T("2026-01-15T00:00:00Z"), set()) == [T("2026-01-25T00:00:00Z")]
    assert rounds_to_open(rounds, T("2026-01-20T00:00:00Z"), {"2026-01-25"}) == []
    assert rounds_to_open(rounds, T("2026-01-25T00:00:00Z"), set()) == []  # due: too late to publish
