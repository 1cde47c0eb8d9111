"""The API's index page (site/api_page.py): /api/ shows a page listing every file of the static API, not a
server's folder listing; the Leaderboard links each board's CSV and JSON. Hand-made boards here; the
demo's built pages in test_site_seals_demo.py and, in Chromium, test_site_reader_iv.py."""

from __future__ import annotations

import json

import pandas as pd

from generator.leaderboard.fb_board import COLUMNS
from generator.site.api import api_files
from generator.site.api_page import PAGE
from generator.site.render import render_site
from generator.site.sitedata import GENERATED, SiteData
from generator.timeutil import parse_ts


def _site() -> SiteData:
    row = {c: 0.0 for c in COLUMNS} | {"rank": 1, "model": "a.x", "name": "A", "organization": "o", "kind": "llm", "overall": 70.0}
    frame = pd.DataFrame([row | {"p_value": float("nan"), "p_display": "", "p_label": "", "n_dataset": 10, "n_market": 10}])
    views = ["overall", "category:<b>Science/Tech</b>"]
    return SiteData(
        title="t",
        as_of=parse_ts("2026-01-01T00:00:00Z"),
        methodology_version="1",
        board=frame,
        history=pd.DataFrame(columns=["as_of", "model", "overall"]),
        models={},
        model_scores={},
        boards={("tournament", v): frame for v in views},
    )


def test_the_api_index_page_links_every_file_the_index_names() -> None:
    files = api_files(_site())
    index, page = json.loads(files["api/index.json"]), files[PAGE].decode()
    assert PAGE == "api/index.md" and page.startswith("---\ntitle: API\n---\n")
    for board in index["boards"]:
        assert f'<a href="{board["csv"]}">CSV</a> · <a href="{board["json"]}">JSON</a>' in page and f"api/{board['csv']}" in files
    for path in (
        "index.json",
        "models.json",
        "rounds.json",
        "questions.json",
        "questions.csv",
        index["question_effects"],
        *index["schemas"].values(),
    ):
        assert f'href="{path}"' in page and f"api/{path}" in files, path
    assert "&lt;b&gt;Science/Tech&lt;/b&gt;" in page and "<b>" not in page, "a view's name is text"
    assert "2026-01-01T00:00:00Z" in page


def test_each_leaderboard_panel_links_its_own_boards_csv_and_json() -> None:
    data = _site()
    board = render_site(data)[f"{GENERATED}/leaderboard.md"].decode()
    paths = [b["csv"].removesuffix(".csv") for b in json.loads(api_files(data)["api/index.json"])["boards"]]
    for path in paths:
        assert f'<a href="api/{path}.csv" download>CSV</a> · <a href="api/{path}.json">JSON</a>' in board, path
    assert board.count('id="leaderboard-rows"') == 1, "the skip link's one target: the first panel's rows"
