"""The pure pieces behind the Rounds page, question summaries and download links (no browser):
round states from as_of, the forecasts' distribution per unit, chart time marks, raw URLs, and
a demo hub whose hub.toml names its repository (downloads then link there; the site holds none)."""

from __future__ import annotations

import math
import re
import shutil
from datetime import timedelta
from pathlib import Path

import pandas as pd
import pytest

from generator.pipeline.demo import SEASON_END
from generator.site.downloads import raw_url
from generator.site.payloads import forecast_payload, rounds_from
from generator.site.rounds import OPEN, RESOLVING, SCORED, closes_in, round_status
from generator.site.summaries import outcome_text, resolution_text, time_marks, unit_summary
from generator.timeutil import parse_ts
from generator.vocabulary import DATASET, MARKET

DUE = "2026-07-26T00:00:00Z"


def _units(*statuses: str) -> pd.DataFrame:
    return pd.DataFrame({"status": list(statuses)})


def test_a_round_is_open_until_its_due_time_then_resolving_then_scored() -> None:
    due = parse_ts(DUE)
    assert round_status(DUE, _units("open", "open"), due - timedelta(days=5, hours=3)).label == "open · closes in 5 d"
    assert round_status(DUE, _units("open"), due - timedelta(hours=14, minutes=59)).label == "open · closes in 14 h"
    assert round_status(DUE, _units("open"), due - timedelta(seconds=30)).label == "open · closes in 1 min"
    at_due = round_status(DUE, _units("resolved", "void", "open"), due)
    assert at_due.state == RESOLVING and at_due.label == "closed, resolving (1 of 2 resolved)"
    assert (at_due.units, at_due.resolved, at_due.void) == (3, 1, 1)
    done = round_status(DUE, _units("resolved", "void"), due + timedelta(days=400))
    assert done.state == SCORED and done.label == "scored"
    # a round resolved early in a clock's sense is still open before its due time: as_of decides
    assert round_status(DUE, _units("resolved"), due - timedelta(days=1)).state == OPEN


def test_closes_in_rounds_down() -> None:
    due = parse_ts(DUE)
    assert [closes_in(due, due - d) for d in (timedelta(days=1), timedelta(hours=23, minutes=59), timedelta(minutes=59))] == ["1 d", "23 h", "59 min"]


def _forecasts() -> pd.DataFrame:
    rows = [  # round, model, resolution_date, probability, outcome, brier, reasoning
        ("2026-01-25", "b.two", "2026-02-01", 0.9, 1.0, 0.01, ""),
        ("2026-01-25", "a.one", "2026-02-01", 0.2, 1.0, 0.64, ""),
        ("2026-01-25", "c.three", "2026-02-01", 0.6, 1.0, 0.16, ""),
        ("2026-01-25", "a.one", "2026-02-24", 0.3, math.nan, math.nan, ""),
        ("2026-01-25", "b.two", "2026-02-24", 0.5, math.nan, math.nan, ""),
        ("2026-02-08", "a.one", "2026-02-15", 0.4, 0.0, 0.16, "why"),
        ("2026-02-08", "b.two", "2026-02-15", 0.4, 0.0, 0.16, ""),
    ]
    return pd.DataFrame(rows, columns=["round", "model", "resolution_date", "probability", "outcome", "brier", "reasoning"])


def test_unit_summary_gives_the_distribution_and_the_best_and_worst_forecast_per_unit() -> None:
    models = ["a.one", "b.two", "c.three"]
    summary = unit_summary(forecast_payload(_forecasts(), models), models)
    assert [(s["round"], s["resolution_date"], s["outcome"], s["n"]) for s in summary] == [
        ("2026-01-25", "2026-02-01", 1, 3),
        ("2026-01-25", "2026-02-24", None, 2),
        ("2026-02-08", "2026-02-15", 0, 2),
    ]
    first, waiting, tie = summary
    assert (first["min"], first["median"], first["max"]) == (0.2, 0.6, 0.9)
    assert first["mean"] == pytest.approx(1.7 / 3)
    assert first["best"] == ("b.two", 0.9, pytest.approx(0.01)) and first["worst"] == ("a.one", 0.2, pytest.approx(0.64))
    assert waiting["median"] == pytest.approx(0.4) and waiting["best"] is None and waiting["worst"] is None
    assert tie["best"][0] == "a.one" and tie["worst"][0] == "b.two", "ties broken by model id"
    assert unit_summary(forecast_payload(_forecasts().iloc[:0]), models) == []


def test_a_question_pages_latest_rounds_are_the_payload_of_those_rounds_forecasts_alone() -> None:
    """``rounds_from`` cuts a payload to its latest rounds (what a question page ships): the
    same payload as one made from those rounds' forecasts only, reasoning rows renumbered."""
    models = ["a.one", "b.two", "c.three", "d.four"]
    later = pd.DataFrame(
        [
            ("2026-02-22", "d.four", "2026-03-01", 0.7, math.nan, math.nan, "late"),
            ("2026-02-22", "a.one", "2026-03-01", 0.1, math.nan, math.nan, ""),
            ("2026-02-22", "c.three", "2026-03-08", 0.35, math.nan, math.nan, "because"),
        ],
        columns=_forecasts().columns,
    )
    rows = pd.concat([_forecasts(), later], ignore_index=True)
    whole = forecast_payload(rows, models)
    assert whole["rounds"] == ["2026-01-25", "2026-02-08", "2026-02-22"] and len(whole["why"]) == 3
    for first in ("2026-01-25", "2026-02-01", "2026-02-08", "2026-02-22", "2026-03-01"):
        kept = rows[rows["round"] >= first]
        assert rounds_from(whole, first) == forecast_payload(kept, models), first
    cut = rounds_from(whole, "2026-02-22")
    assert cut["rounds"] == ["2026-02-22"] and len(cut["p"]) == 3
    assert sorted(text for _, text in cut["why"]) == ["because", "late"]
    assert rounds_from(whole, "2026-09-01") == {"rounds": [], "units": [], "p": [], "why": []}


def test_time_marks_are_each_rounds_freeze_and_due_and_each_resolution_once() -> None:
    units = pd.DataFrame(
        {
            "round": ["2026-01-25", "2026-01-25", "2026-02-08"],
            "resolution_date": ["", "", ""],
            "due": ["2026-01-25T00:00:00Z", "2026-01-25T00:00:00Z", "2026-02-08T00:00:00Z"],
            "freeze_time": ["2026-01-15T00:00:00Z", "2026-01-15T00:00:00Z", "2026-01-29T00:00:00Z"],
            "status": ["resolved", "resolved", "open"],
            "resolved_at": ["2026-03-01T12:00:00Z", "2026-03-01T12:00:00Z", ""],
        }
    )
    assert time_marks(units) == [
        ["freeze", "2026-01-15"],
        ["due", "2026-01-25"],
        ["freeze", "2026-01-29"],
        ["due", "2026-02-08"],
        ["resolved", "2026-03-01"],
    ]


def test_outcome_and_resolution_texts_skip_missing_values_as_dropna_does() -> None:
    nan = float("nan")
    market = pd.DataFrame(
        {
            "status": [None, "open", "resolved", "resolved"],
            "outcome": [nan, nan, 0.0, 1.0],
            "resolved_at": [nan, nan, "2026-03-01T12:00:00Z", "2026-04-01T00:00:00Z"],
            "final_value": [nan, 0.25, nan, nan],
            "resolution_date": ["", "", "", ""],
        }
    )
    assert outcome_text(MARKET, market) == "resolved NO on 2026-03-01", "the first resolved unit"
    assert resolution_text(MARKET, market) == "2026-03-01"
    waiting = market.assign(status=[None, "open", "open", "void"])
    assert outcome_text(MARKET, waiting) == "open: not resolved yet; latest market value 0.250", "the last known value"
    assert outcome_text(MARKET, waiting.assign(final_value=nan)) == "open: not resolved yet"
    assert outcome_text(MARKET, waiting.assign(status="void")).startswith("void")
    assert outcome_text(MARKET, waiting.assign(status=None)) == "not known yet"
    assert resolution_text(MARKET, waiting) == resolution_text(MARKET, market[["resolution_date"]]) == "when the market resolves"
    dataset = pd.DataFrame(
        {"status": ["resolved", "resolved", None, "void"], "outcome": [1.0, 0.0, nan, nan], "resolution_date": ["2026-03-01", nan, "", "2026-02-01"]}
    )
    assert outcome_text(DATASET, dataset) == "2 of 4 resolution dates resolved (1 higher, 1 not higher); 1 still to come"
    assert resolution_text(DATASET, dataset) == "2026-02-01, 2026-03-01"


def test_raw_urls_point_at_the_repositorys_own_files() -> None:
    path = "data/forecasts/2026-01-25/acme.bot.csv"
    expected = "https://raw.githubusercontent.com/acme/hub/HEAD/data/forecasts/2026-01-25/acme.bot.csv"
    for repo in ("https://github.com/acme/hub", "https://github.com/acme/hub/", "https://github.com/acme/hub.git"):
        assert raw_url(repo, path) == expected
    assert raw_url("https://gitlab.example.org/group/sub/hub", "data/a b.csv") == "https://gitlab.example.org/group/sub/hub/raw/HEAD/data/a%20b.csv"


def test_with_a_repo_url_downloads_link_to_the_repository_and_the_site_copies_none(demo_hub: Path, tmp_path: Path) -> None:
    from generator.site.build import gather
    from generator.site.render import GENERATED, render_site

    hub = tmp_path / "hub"
    shutil.copytree(demo_hub / "data", hub / "data")
    toml = hub / "data" / "hub.toml"
    text = toml.read_text(encoding="utf-8")
    assert 'repo_url = ""' in text
    toml.write_text(text.replace('repo_url = ""', 'repo_url = "https://github.com/acme/hub"'), encoding="utf-8")
    files = render_site(gather(hub, SEASON_END))
    assert not [p for p in files if p.startswith(f"{GENERATED}/downloads/")], "no copies of the repository's files"
    raw = "https://raw.githubusercontent.com/acme/hub/HEAD/data/"
    due = "2026-07-12"
    round_page = files[f"{GENERATED}/rounds/{due}.md"].decode()
    assert f'href="{raw}rounds/{due}/questions.csv" download' in round_page
    assert f'href="{raw}rounds/{due}/questions.json" download' in round_page
    linked = set(re.findall(rf'href="{re.escape(raw)}(forecasts/{due}/[^"]+)"', round_page))
    assert linked == {f"forecasts/{due}/{p.name}" for p in (hub / "data/forecasts" / due).iterdir()}
    model_page = files[f"{GENERATED}/models/demo.calibrated.md"].decode()
    assert f'href="{raw}forecasts/{due}/demo.calibrated.csv" download' in model_page
    open_now = files[f"{GENERATED}/open-now.md"].decode()
    assert f'href="{raw}rounds/2026-07-26/questions.csv"' in open_now
    assert "downloads/" not in round_page + model_page + open_now
