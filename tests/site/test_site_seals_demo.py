"""The demo's built site shows what a hub can show: every sealed team forecast's attested time
on its round page beside the model's name, each model's seals on its page, Explore's chart, trend and
parity projection from the synthetic models' release dates and a human group, each board's CSV and JSON
linked from the Leaderboard, and an /api/ index page. The HTML is read as built, no browser."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pandas as pd

from generator.forecasters.synthetic import synthetic_models

from helpers import built_site


def _row(page: str, model: str, kind: str, due: str) -> str:
    found = re.search(rf'<tr class="prescient-seal" data-model="{re.escape(model)}" data-kind="{kind}" data-due="{due}">(.*?)</tr>', page, re.S)
    return found.group(1) if found else ""


def test_every_sealed_team_forecast_has_its_attested_time_beside_its_name_on_its_round_page(demo_hub: Path) -> None:
    seals = pd.read_csv(demo_hub / "data/seals/2026.csv", dtype=str, keep_default_na=False)
    models = synthetic_models()
    teams = seals[seals["model"].isin(list(models)) & (seals["status"] == "sealed")]
    assert len(teams) >= 13 * len(models) and set(teams["evidence"]) == {"receipt"}
    site = built_site(demo_hub)
    for due, rows in teams.groupby("due"):
        page = (site / "generated/rounds" / due / "index.html").read_text(encoding="utf-8")
        for seal in rows.itertuples():
            row = _row(page, seal.model, seal.kind, due)
            assert html.escape(models[seal.model].name) in row and f"<code>{seal.model}</code>" in row, (due, seal.model)
            assert f'<time datetime="{seal.attested_at}">{seal.attested_at}</time>' in row, (due, seal.model)
            assert seal.blob in row and f">{seal.run_id}<" in row and f'data-value="{seal.versions}"' in row
    model_page = (site / "generated/models/demo.calibrated/index.html").read_text(encoding="utf-8")
    mine = teams[teams["model"] == "demo.calibrated"]
    assert all(s.attested_at in _row(model_page, s.model, s.kind, s.due) for s in mine.itertuples())
    assert "data/seals/" in (site / "submit/index.html").read_text(encoding="utf-8")


def test_explore_shows_the_release_date_chart_its_trend_and_the_parity_projection(demo_hub: Path) -> None:
    page = (built_site(demo_hub) / "generated/explore/index.html").read_text(encoding="utf-8")
    assert "no forecaster has a release date" not in page.lower()
    assert 'class="prescient-chart"' in page and "prescient-frontier" in page
    assert "Sim superforecasters" in page and "projected" in page.lower()


def test_the_leaderboard_links_each_boards_csv_and_json_and_the_api_has_an_index_page(demo_hub: Path) -> None:
    site = built_site(demo_hub)
    home = (site / "index.html").read_text(encoding="utf-8")
    for board in ("tournament", "baseline"):
        for view in ("overall", "dataset", "market", "resolved-only"):
            for suffix in ("csv", "json"):
                assert f'href="api/boards/{board}/{view}.{suffix}"' in home and (site / f"api/boards/{board}/{view}.{suffix}").is_file()
    index = (site / "api/index.html").read_text(encoding="utf-8")
    assert 'href="boards/tournament/overall.csv"' in index and 'href="schemas/board.schema.json"' in index
    assert not (site / "generated/api/index.html").exists()
