"""The unresolved-market policy: ``ignore`` (default) and the legacy ``market_proxy``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from generator.errors import ConfigError
from generator.pipeline.nightly import nightly
from generator.schemas import RESOLUTIONS, SCORES
from generator.scoring.brier import resolved_units, score_round
from generator.scoring.resolve import ledger_view, resolve_round
from generator.sources.base import Observation
from generator.store import readers
from generator.store.csvio import read_table, to_csv_bytes
from generator.store.files import load_settings
from generator.store.hub import Hub
from generator.store.ingest import observation_frame
from generator.timeutil import parse_ts

from helpers import SMALL_HUB, write_hub

T = parse_ts
AS_OF = "2026-01-20T00:00:00Z"  # the day before: 2026-01-19T00:00:00Z


def obs_frame():
    nights = [
        ("m:open", "2026-01-18T00:00:00Z", 0.6, "open", None),
        ("m:open", "2026-01-19T00:00:00Z", 0.7, "open", None),
        ("m:open", "2026-01-19T12:00:00Z", 0.9, "open", None),  # today's value: not the day before
        ("m:won", "2026-01-18T00:00:00Z", 1.0, "resolved", 1.0),
        ("m:late", "2026-01-19T06:00:00Z", 0.4, "open", None),  # first seen after the day before
        ("s:1", "2026-01-10T00:00:00Z", 5.0, "open", None),
    ]
    return pd.concat([observation_frame([Observation(q, T(at), v, status, out)], T(at)) for q, at, v, status, out in nights], ignore_index=True)


def the_round(due="2026-01-10T00:00:00Z"):
    return pd.DataFrame(
        {
            "question_id": ["m:open", "m:won", "m:late", "s:1"],
            "resolution_date": ["", "", "", "2026-02-10"],
            "source": ["m", "m", "m", "s"],
            "kind": ["binary", "binary", "binary", "dataset"],
            "category": "",
            "due": due,
        }
    )


def by_id(frame):
    return frame.set_index("question_id")


def test_by_default_an_open_market_after_the_due_time_is_not_scored():
    out = by_id(resolve_round(the_round(), ledger_view(obs_frame(), AS_OF)))
    assert out.loc["m:open", "status"] == "open" and "proxy" not in out.columns
    units = resolved_units(the_round(), out.reset_index())
    assert units["question_id"].tolist() == ["m:won"] and units["proxy"].isna().all()


def test_market_proxy_scores_an_open_market_against_its_value_of_the_day_before():
    view = ledger_view(obs_frame(), AS_OF, unresolved="market_proxy")
    out = by_id(resolve_round(the_round(), view))
    assert out.loc["m:open", "status"] == "resolved" and out.loc["m:open", "outcome"] == 0.7  # not today's 0.9
    assert out.loc["m:open", "resolved_at"] == "2026-01-19T00:00:00Z" and out.loc["m:open", "proxy"] == 1
    assert out.loc["m:late", "status"] == "open"  # no value known by the day before
    assert out.loc["s:1", "status"] == "open" and np.isnan(out.loc["s:1", "proxy"])  # dataset units are never proxied
    assert out.loc["m:won", "outcome"] == 1.0 and np.isnan(out.loc["m:won", "proxy"])  # resolved rows unchanged


def test_a_round_not_yet_due_is_never_proxy_scored():
    view = ledger_view(obs_frame(), AS_OF, unresolved="market_proxy")
    out = by_id(resolve_round(the_round(due="2026-01-24T00:00:00Z"), view))
    assert out.loc["m:open", "status"] == "open"


def test_proxy_rows_score_with_the_fractional_outcome_and_round_trip_through_the_scores_csv():
    view = ledger_view(obs_frame(), AS_OF, unresolved="market_proxy")
    units = resolved_units(the_round(), resolve_round(the_round(), view))
    forecasts = {"a.x": pd.DataFrame({"question_id": ["m:open", "m:won"], "resolution_date": ["", ""], "probability": [0.2, 0.8]})}
    scores = score_round("2026-01-10", units, forecasts, 0.5).set_index("question_id")
    assert scores.loc["m:open", "brier"] == pytest.approx((0.2 - 0.7) ** 2) and scores.loc["m:open", "proxy"] == 1
    assert scores.loc["m:won", "brier"] == pytest.approx(0.04) and np.isnan(scores.loc["m:won", "proxy"])
    text = to_csv_bytes(scores.reset_index(), SCORES).decode()
    assert text.splitlines()[0].endswith(",brier,proxy")
    assert [line.rsplit(",", 1)[1] for line in text.splitlines()[1:]] == ["1", ""]


def test_a_stated_open_value_serves_as_the_proxy_only_once_known_by_the_day_before():
    cols = list(RESOLUTIONS.names)
    stated = pd.DataFrame(
        [
            dict(zip(cols, ("2026-01-10", "m:fb", "", "2026-01-15T00:00:00Z", "open", np.nan, "", 0.3, ""), strict=True)),
            dict(zip(cols, ("2026-01-10", "m:fb", "", AS_OF, "open", np.nan, "", 0.8, ""), strict=True)),  # today's: too late
        ],
        columns=cols,
    )
    questions = pd.DataFrame(
        {
            "question_id": ["m:fb"],
            "resolution_date": [""],
            "source": ["polymarket"],
            "kind": ["binary"],
            "category": [""],
            "due": ["2026-01-10T00:00:00Z"],
        }
    )
    out = by_id(resolve_round(questions, ledger_view(obs_frame().iloc[:0], AS_OF, stated, unresolved="market_proxy")))
    assert out.loc["m:fb", "outcome"] == 0.3 and out.loc["m:fb", "resolved_at"] == "2026-01-15T00:00:00Z"


def test_the_policy_is_checked_and_recorded_in_the_methodology_version(tmp_path):
    plain = load_settings(write_hub(tmp_path / "a"))
    assert plain.scoring.unresolved_markets == "ignore" and plain.scoring.methodology_version == "1"
    proxy = load_settings(write_hub(tmp_path / "b", SMALL_HUB.replace("[scoring]", '[scoring]\nunresolved_markets = "market_proxy"')))
    assert proxy.scoring.unresolved_markets == "market_proxy" and proxy.scoring.methodology_version == "1+market_proxy"
    with pytest.raises(ConfigError) as caught:
        load_settings(write_hub(tmp_path / "c", SMALL_HUB.replace("[scoring]", '[scoring]\nunresolved_markets = "proxy"')))
    assert [(p.column, p.code) for p in caught.value.problems] == [("scoring.unresolved_markets", "bad-value")]


def test_a_market_proxy_hub_records_the_policy_with_every_published_number(tmp_path):
    hub = write_hub(tmp_path / "hub", SMALL_HUB.replace("[scoring]", '[scoring]\nunresolved_markets = "market_proxy"'))
    # the last night is past the round due 2026-01-25 by more than min_age_days (20): the board has rows
    for night in ("2026-01-16T00:00:00Z", "2026-01-30T00:00:00Z", "2026-02-10T00:00:00Z", "2026-02-16T00:00:00Z"):
        nightly(hub, T(night))
    hub_files = Hub(hub)
    layout = hub_files.layout
    history = readers.load_history(hub_files)
    assert len(history) and set(history["methodology_version"]) == {"1+market_proxy"}
    scores = read_table(layout.scores(T("2026-02-08T00:00:00Z")), SCORES)
    proxied = scores[scores["proxy"] == 1]
    assert len(proxied) and set(proxied["kind"]) == {"binary"}  # two days after the due time, open markets count
