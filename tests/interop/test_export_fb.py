"""`prescient export forecastbench`: the published questions.json bytes, and a round trip through
the ForecastBench importer's own parser."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from generator.interop.forecastbench.export import export_forecastbench
from generator.interop.forecastbench.importer import import_forecastbench
from generator.interop.forecastbench.parse import parse_question_set
from generator.pipeline.nightly import nightly
from generator.store import readers
from generator.store.hub import Hub
from generator.store.layout import Layout
from generator.timeutil import parse_ts

from helpers import ROOT, run_cli

pytestmark = pytest.mark.e2e

DUE = parse_ts("2026-01-25T00:00:00Z")
FB_SETS = ROOT.parent / "shared" / "forecastbench" / "datasets" / "question_sets"


def test_the_export_is_the_published_question_set_byte_for_byte(sim_hub: Path, tmp_path: Path):
    nightly(sim_hub, parse_ts("2026-01-16T00:00:00Z"))  # publishes the round due 2026-01-25
    published = Layout(sim_hub).round_json(DUE).read_bytes()
    shown = run_cli("export", "forecastbench", "--round", "2026-01-25", "--hub", str(sim_hub))
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.encode("utf-8") == published
    out = tmp_path / "set.json"
    written = run_cli("export", "forecastbench", "--round", "2026-01-25T00:00:00Z", "--out", str(out), "--hub", str(sim_hub))
    assert written.returncode == 0 and out.read_bytes() == published
    Layout(sim_hub).round_json(DUE).unlink()  # a round without its JSON is rendered from the CSV and the bank
    assert export_forecastbench(sim_hub, DUE) == published


def test_an_unknown_round_is_a_configuration_error_naming_the_rounds(sim_hub: Path):
    nightly(sim_hub, parse_ts("2026-01-16T00:00:00Z"))
    result = run_cli("export", "forecastbench", "--round", "2026-02-01", "--hub", str(sim_hub))
    assert result.returncode == 2 and "no such round" in result.stderr and "2026-01-25" in result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""


QSET = {
    "forecast_due_date": "2026-01-04",
    "question_set": "2026-01-04-llm.json",
    "questions": [
        {
            "id": "m1",
            "source": "manifold",
            "question": "Will m1?",
            "resolution_criteria": "Per the market.",
            "background": "bg",
            "url": "https://manifold.markets/m1",
            "freeze_datetime": "2025-12-25T00:00:00+00:00",
            "freeze_datetime_value": "0.3",
            "freeze_datetime_value_explanation": "",
            "source_intro": "",
            "market_info_open_datetime": "N/A",
            "market_info_close_datetime": "2026-06-01T00:00:00+00:00",
            "market_info_resolution_criteria": "N/A",
            "resolution_dates": "N/A",
        },
        {
            "id": "F1",
            "source": "fred",
            "question": "Will F1 rise?",
            "resolution_criteria": "",
            "background": "",
            "url": "",
            "freeze_datetime": "2025-12-25T00:00:00+00:00",
            "freeze_datetime_value": "1.5",
            "freeze_datetime_value_explanation": "",
            "source_intro": "",
            "market_info_open_datetime": "N/A",
            "market_info_close_datetime": "N/A",
            "market_info_resolution_criteria": "N/A",
            "resolution_dates": ["2026-01-11", "2026-02-03"],
        },
    ],
}


def test_an_exported_round_reads_back_through_the_forecastbench_parser(tmp_path: Path):
    sets = tmp_path / "fb" / "datasets" / "question_sets"
    sets.mkdir(parents=True)
    (sets / "2026-01-04-llm.json").write_text(json.dumps(QSET))
    hub = tmp_path / "hub"
    import_forecastbench(hub, tmp_path / "fb", as_of="2026-01-10T00:00:00Z")
    data = export_forecastbench(hub, parse_ts("2026-01-04"))
    parsed = parse_question_set(json.loads(data), "export.json")
    assert parsed.problems == [] and parsed.due == "2026-01-04"
    back = {(f"{r['source']}:{r['id']}", tuple(r["resolution_dates"])): r for r in parsed.rows}
    the_round = readers.load_round(Hub(hub), parse_ts("2026-01-04"))
    asked = the_round.groupby("question_id")["resolution_date"].apply(lambda d: tuple(sorted(x for x in d if x)))
    assert set(back) == set(asked.items())
    market = back[("manifold:m1", ())]
    assert (market["question"], market["freeze_datetime_value"], market["url"]) == ("Will m1?", "0.3", "https://manifold.markets/m1")
    assert back[("fred:F1", ("2026-01-11", "2026-02-03"))]["freeze_datetime_value"] == "1.5"


def _round_trip(sets: list[Path], tmp_path: Path) -> tuple[Hub, Hub]:
    """Import the question sets into one hub, export each of its rounds, import those into a second."""
    first, second = tmp_path / "a" / "datasets" / "question_sets", tmp_path / "b" / "datasets" / "question_sets"
    first.mkdir(parents=True)
    second.mkdir(parents=True)
    for path in sets:
        (first / path.name).symlink_to(path)
    import_forecastbench(tmp_path / "hub1", tmp_path / "a", as_of="2026-08-21T00:00:00Z")
    one = Hub(tmp_path / "hub1")
    for due in readers.round_dues(one):
        (second / f"{due:%Y-%m-%d}-llm.json").write_bytes(export_forecastbench(tmp_path / "hub1", due))
    import_forecastbench(tmp_path / "hub2", tmp_path / "b", as_of="2026-08-21T00:00:00Z")
    return one, Hub(tmp_path / "hub2")


def test_a_frozen_value_keeps_every_digit_through_export_and_import(tmp_path: Path):
    # 0.6.4 wrote 6 significant digits (87594.74 -> 87594.7): a team forecasting from the export
    # forecast a different question
    body = json.loads(json.dumps(QSET))
    body["questions"][1]["freeze_datetime_value"] = "87594.74"
    body["questions"][0]["freeze_datetime_value"] = "0.979920031255855"
    (tmp_path / "set.json").write_text(json.dumps(body))
    one, two = _round_trip([tmp_path / "set.json"], tmp_path)
    due = parse_ts("2026-01-04")
    values = readers.load_round(two, due).set_index("question_id")["freeze_value"]
    assert values["fred:F1"].iloc[0] == 87594.74 and values["manifold:m1"] == pytest.approx(0.979920031255855, abs=1e-10)
    assert readers.load_round(one, due).equals(readers.load_round(two, due))


@pytest.mark.skipif(not FB_SETS.is_dir(), reason=f"real ForecastBench files not found at {FB_SETS.parent.parent}")
def test_every_real_round_round_trips_through_export_and_import(tmp_path: Path):
    one, two = _round_trip(sorted(FB_SETS.glob("*-llm.json")), tmp_path)
    dues = readers.round_dues(one)
    assert len(dues) == 22 and readers.round_dues(two) == dues
    for due in dues:  # every question, resolution date, frozen value and time of the round
        assert readers.load_round(one, due).equals(readers.load_round(two, due)), due
    assert readers.load_bank(one).equals(readers.load_bank(two))  # every text field, as of every round
