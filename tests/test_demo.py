"""The demo: a whole season on the offline world, whose leaderboard recovers the known order."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest

from generator.build import build_site
from generator.demo import SEASON_END
from generator.forecasters.synthetic import ORDER
from generator.pipeline import nightly
from generator.forecasters.synthetic import synthetic_forecasts, synthetic_models
from generator.sources.sim import world_from_options

from conftest import run_cli, tree_bytes


def _final(demo_hub: Path, board: str = "tournament") -> pd.DataFrame:
    history = pd.read_csv(demo_hub / "data/leaderboard/history.csv", dtype={"model": str})
    rows = history[history["board"] == board]
    return rows[rows["as_of"] == rows["as_of"].max()].sort_values("rank")


def test_leaderboard_ranks_the_synthetic_forecasters_in_their_known_order(demo_hub: Path):
    final = _final(demo_hub)
    assert tuple(m for m in final["model"] if m in ORDER) == ORDER
    assert final["provisional"].eq(0).all()
    assert final["n"].min() >= 400
    rank = dict(zip(final["model"], final["rank"]))
    for worse in ("prescient.always-0", "prescient.always-1", "prescient.random-uniform"):
        assert rank[worse] > rank["prescient.always-0.5"]  # no skill at all, and it shows
    assert final.loc[final["model"] == "prescient.always-0.5", "overall"].item() == pytest.approx(50)


def test_the_baseline_board_leaves_out_everyone_who_saw_the_crowd(demo_hub: Path):
    on_board = set(_final(demo_hub, "baseline")["model"])
    assert "demo.market-copier" not in on_board and "prescient.imputed" not in on_board
    assert not any(m.startswith("prescient.crowd-") for m in on_board)
    assert {"demo.calibrated", "prescient.always-0.5"} <= on_board


@pytest.mark.parametrize("night", [-1, 60])
def test_cli_leaderboard_as_of_a_past_night_reproduces_the_published_history(demo_hub: Path, night: int):
    """Scores are recomputed from the ledgers as recorded by that night: later observations and
    resolutions are ignored, so the board printed today equals the one published then."""
    history = pd.read_csv(demo_hub / "data/leaderboard/history.csv", dtype={"model": str})
    nights = sorted(history["as_of"].unique())
    as_of = nights[night]
    published = history[(history["as_of"] == as_of) & (history["board"] == "tournament")].set_index("model")
    result = run_cli("leaderboard", "--hub", str(demo_hub), "--as-of", as_of, "--replicates", "0", "--format", "json")
    assert result.returncode == 0, result.stderr
    printed = pd.DataFrame(json.loads(result.stdout)).set_index("model")
    assert sorted(printed.index) == sorted(published.index)
    for column in ("rank", "overall", "dataset", "market", "n_dataset", "n_market", "provisional"):
        assert printed.loc[published.index, column].astype(float).tolist() == \
            pytest.approx(published[column].astype(float).tolist(), rel=1e-8, nan_ok=True), column
    adjusted = run_cli("leaderboard", "--hub", str(demo_hub), "--as-of", nights[-1], "--replicates", "99", "--format", "json")
    assert adjusted.returncode == 0, adjusted.stderr
    assert tuple(row["model"] for row in json.loads(adjusted.stdout) if row["model"] in ORDER) == ORDER


def test_rerunning_the_last_night_and_rebuilding_changes_no_byte(demo_hub: Path):
    before = tree_bytes(demo_hub)
    site_before = {p: p.read_bytes() for p in (demo_hub / "site_src/docs/generated").rglob("*") if p.is_file()}
    world = world_from_options({"seed": 7, "start": "2026-01-04T00:00:00Z", "markets": 260, "series": 12, "span_days": 200})
    nightly(demo_hub, SEASON_END, extra=lambda q: synthetic_forecasts(world, q), extra_models=synthetic_models(), env={})
    assert tree_bytes(demo_hub) == before
    assert build_site(demo_hub, SEASON_END, run_mkdocs=False) == []
    assert {p: p.read_bytes() for p in (demo_hub / "site_src/docs/generated").rglob("*") if p.is_file()} == site_before


def test_the_site_is_built_with_a_chart_and_one_local_plotly(demo_hub: Path):
    site = demo_hub / "site_src/site"
    home = (site / "index.html").read_text(encoding="utf-8")
    assert 'class="prescient-table prescient-board"' in home
    figures = re.findall(r'class="prescient-chart" data-figure="([^"]+)"', home)
    assert len(figures) >= 2
    assert home.count("plotly.min.js") == 1 and "cdn" not in home.lower()
    assert (site / "generated/assets/plotly.min.js").stat().st_size > 1_000_000
    for page in ("methodology/index.html", "submit/index.html", "data/index.html",
                 "generated/models/demo.calibrated/index.html", "generated/rounds/index.html"):
        assert (site / page).is_file(), page
    data_page = (site / "data/index.html").read_text(encoding="utf-8")
    assert "payload_sha256" in data_page and "recorded_at" in data_page  # dictionary from schemas.py
