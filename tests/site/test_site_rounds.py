"""Rounds, the "Open now" box, question-page summaries and the preview's 404 page, in Chromium.

The demo as `prescient demo` builds it, as of the end of its season (2026-07-19): the round due
2026-07-26 is open (its set was published on 07-16), the older ones are closed. The site is served
by ``prescient serve``'s own handler (``generator.site.serve``), so a missing path gets the site's
404 page as GitHub Pages would serve it. Skips (with the reason) where /usr/bin/chromium or
Playwright is missing (``helpers.require_browser``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urljoin

import pandas as pd
import pytest

from helpers import ALL_CHARTS_DRAWN, ARTIFACTS, require_browser, serve

require_browser()

from playwright.sync_api import Browser, Page

from generator.pipeline.demo import SEASON_END
from generator.site.questions import RECENT_ROUNDS, question_slug
from generator.timeutil import format_ts

pytestmark = pytest.mark.browser

STATUS = re.compile(r"^(open · closes in \d+ (d|h|min)|closed, resolving \([\d,]+ of [\d,]+ resolved\)|scored)$")


@pytest.fixture(scope="module")
def base(demo_hub: Path) -> Iterator[str]:
    with serve(demo_hub / "site_src" / "site") as url:
        yield url


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, service_workers="block")
    page = context.new_page()
    errors: list[str] = []
    # the one expected failure: the document of the 404 test itself (its URL names "no-such-")
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" and "no-such-" not in m.location.get("url", "") else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    yield page
    assert errors == [], f"console or page errors: {errors}"
    context.close()


def _open(page: Page, base: str, path: str) -> Page:
    response = page.goto(urljoin(base, path), wait_until="load")
    assert response is not None and response.status == 200, path
    page.wait_for_function(ALL_CHARTS_DRAWN, timeout=20_000)
    return page


def _dues(demo_hub: Path) -> list[str]:
    return sorted(p.name for p in (demo_hub / "data" / "rounds").iterdir() if (p / "questions.csv").is_file())


def _resolves(page: Page, base: str, href: str, at: str) -> None:
    response = page.request.get(urljoin(urljoin(base, at), href))
    assert response.status == 200, f"{href} on {at}: {response.status}"


def test_every_round_has_a_status_and_only_the_future_one_is_open(page: Page, base: str, demo_hub: Path) -> None:
    _open(page, base, "generated/rounds/")
    rows = page.eval_on_selector_all(
        "table.prescient-rounds tbody tr",
        """rs => rs.map(r => ({
        due: r.children[0].textContent.trim(), status: r.children[1].textContent.trim(),
        state: r.children[1].getAttribute('data-status')}))""",
    )
    dues = _dues(demo_hub)
    assert sorted(r["due"] for r in rows) == dues, "one row per round"
    for row in rows:
        assert STATUS.match(row["status"]), row
        due_time = pd.read_csv(demo_hub / "data/rounds" / row["due"] / "questions.csv", dtype=str)["due"].iloc[0]
        assert (row["state"] == "open") == (due_time > format_ts(SEASON_END)), row  # time is as_of, not the clock
    opened = [r for r in rows if r["state"] == "open"]
    assert [r["due"] for r in opened] == ["2026-07-26"] and opened[0]["status"] == "open · closes in 7 d"
    assert any(r["state"] == "resolving" for r in rows)


@pytest.mark.parametrize("path", ["generated/rounds/", ""])
def test_open_now_box_gives_the_due_time_and_working_links(page: Page, base: str, path: str) -> None:
    _open(page, base, path)
    box = page.locator("#open-now")
    assert box.count() == 1 and box.is_visible()
    text = box.inner_text()
    assert "Open now" in text and "Round due 2026-07-26" in text and "Sun 26 Jul 2026, 00:00 UTC" in text
    links = {
        a["text"]: a["href"] for a in box.locator("a").evaluate_all("as => as.map(a => ({text: a.textContent.trim(), href: a.getAttribute('href')}))")
    }
    assert set(links) == {"Round due 2026-07-26", "CSV", "ForecastBench JSON", "how to submit"}, links
    assert links["CSV"].endswith("rounds/2026-07-26/questions.csv") and links["ForecastBench JSON"].endswith(".json")
    for href in links.values():
        _resolves(page, base, href, path)
    if path == "generated/rounds/":  # at the top: nothing but the title above it
        first = page.evaluate("document.querySelector('article h1').nextElementSibling.id")
        assert first == "open-now"


def test_a_closed_round_shows_its_own_board_and_how_its_questions_resolved(page: Page, base: str, demo_hub: Path) -> None:
    due = "2026-02-08"
    _open(page, base, f"generated/rounds/{due}/")
    status = page.locator("article .prescient-badge").first.inner_text()
    assert STATUS.match(status) and not status.startswith("open")
    board = page.locator("table.prescient-round-board")
    headers = board.locator("thead th").all_inner_texts()
    assert headers[:3] == ["Rank", "Model", "Brier Index"] and "N" in headers
    rows = board.evaluate("""t => Array.from(t.tBodies[0].rows).map(r => ({
        rank: parseFloat(r.children[0].getAttribute('data-value')), bi: parseFloat(r.children[2].getAttribute('data-value')),
        n: parseInt(r.children[5].textContent, 10)}))""")
    participants = len(list((demo_hub / "data/forecasts" / due).glob("*.csv")))
    assert len(rows) == participants > 3
    assert [r["rank"] for r in rows] == sorted(r["rank"] for r in rows) and rows[0]["rank"] == 1
    assert rows[0]["bi"] >= max(r["bi"] for r in rows) - 1e-9, "rank 1 has the best Brier Index"
    assert all(r["n"] > 0 for r in rows)
    questions = page.locator("table.prescient-round-questions")
    heads = questions.locator("thead th").all_inner_texts()
    resolved, final = heads.index("Resolved"), heads.index("Final value")
    cells = questions.evaluate(f"""t => Array.from(t.tBodies[0].rows).map(r => [r.children[{resolved}].textContent.trim(),
        r.children[{final}].textContent.trim()])""")
    outcomes = {c[0] for c in cells}
    assert outcomes <= {"YES", "NO", "higher", "not higher", "void", "open"} and {"YES", "NO"} & outcomes, outcomes
    assert all(re.fullmatch(r"\d+\.\d{4}|–", c[1]) for c in cells) and sum(c[1] != "–" for c in cells) > len(cells) // 2
    assert page.locator("#open-now").count() == 0, "a closed round is not open"


def _asks(questions_csv: Path, slug: str) -> bool:
    """Whether the round's question set asks the question whose page is ``slug``."""
    asked = pd.read_csv(questions_csv, dtype=str, keep_default_na=False)["question_id"]
    return slug in {question_slug(q) for q in asked}


def _question(demo_hub: Path, kind: str) -> str:
    asked = pd.read_csv(demo_hub / "data/rounds/2026-02-08/questions.csv", dtype=str, keep_default_na=False)
    return question_slug(asked.loc[asked["kind"] == kind, "question_id"].iloc[0])


@pytest.mark.parametrize("kind", ["binary", "dataset"])
def test_question_page_summary_comes_first_and_the_raw_rows_wait_behind_a_button(page: Page, base: str, demo_hub: Path, kind: str) -> None:
    _open(page, base, f"generated/questions/{_question(demo_hub, kind)}/")
    first = page.locator("article h1 + table")
    assert "prescient-question-summary" in (first.get_attribute("class") or "")
    labels = first.locator("th").all_inner_texts()
    assert labels[:3] == ["Outcome", "Resolution date" if kind == "binary" else "Resolution dates", "Asked in"]
    outcome = first.locator("td").first.inner_text()
    assert re.match(r"resolved (YES|NO) on \d{4}-\d\d-\d\d|open|void|\d+ of \d+ resolution dates resolved", outcome), outcome
    # the chart marks the freeze, due and resolution times
    marks = page.eval_on_selector(".prescient-chart", "el => JSON.parse(el.getAttribute('data-marks'))")
    shapes = page.eval_on_selector(".prescient-chart", "el => el._fullLayout.shapes.map(s => [s.line.dash, s.x0])")
    assert {m[0] for m in marks} >= {"freeze", "due"} and len(shapes) == len(marks)
    # of the rounds the page shows (its latest RECENT_ROUNDS): a question asked in every round marks those only
    asked = [p.parent.name for p in sorted((demo_hub / "data/rounds").glob("*/questions.csv")) if _asks(p, _question(demo_hub, kind))]
    shown = asked[-RECENT_ROUNDS:]
    dues = sorted(str(x)[:10] for d, x in shapes if d == "dash")
    assert shown[-1] in dues, "the latest round's due time is marked"
    assert all(due >= shown[0] for due in dues), "an earlier round than the page shows is marked"
    # the distribution per round × horizon, with best and worst once resolved
    summary = page.locator("table.prescient-forecast-summary")
    heads = summary.locator("thead th").all_inner_texts()
    assert {"Round", "N", "Median [range]", "Best", "Worst"} <= set(heads)
    rows = summary.locator("tbody tr")
    assert rows.count() >= 1 and ("Resolution date" in heads) == (kind == "dataset")
    best = heads.index("Best")
    filled = [r for r in rows.evaluate_all(f"rs => rs.map(r => r.children[{best}].textContent.trim())") if r != "–"]
    assert filled and all(re.fullmatch(r"\S+ [01]\.\d\d", b) for b in filled), filled
    # the raw rows: collapsed, drawn on request
    raw = page.locator("details.prescient-raw")
    assert raw.get_attribute("open") is None
    table = page.locator("table[data-forecasts]")
    assert not table.is_visible() and table.locator("tbody tr").count() >= 1
    raw.locator("summary").click()
    assert table.is_visible() and table.locator("tbody tr").first.is_visible()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"question-{kind}.png"), full_page=True)


def test_a_missing_page_gets_the_sites_own_404_page(page: Page, base: str) -> None:
    response = page.goto(urljoin(base, "generated/models/no-such-model/"), wait_until="load")
    assert response is not None and response.status == 404
    assert "404" in page.locator("article").inner_text()
    assert page.locator(".md-header").is_visible(), "the site's own page, with its header and styles"
    assert page.evaluate("getComputedStyle(document.querySelector('.md-header')).position") in ("sticky", "fixed")
    assert page.locator("nav a[href='/generated/rounds/']").count() >= 1, "its links lead back into the site"


def test_the_round_tables_rows_are_the_frames_records():
    """The round tables read their rows from each column's list (render.column_records): the same
    values as DataFrame.to_dict("records"), missing text and numbers included."""
    import math

    import numpy as np

    from generator.site.round_pages import column_records

    frame = pd.DataFrame(
        {
            "question_id": pd.Series(["a:1", "b:2", None], dtype="str"),
            "freeze_value": [0.25, np.nan, 1.0],
            "status": np.array(["resolved", "open", "void"], dtype=object),
        }
    )
    expected, got = frame.to_dict("records"), column_records(frame)
    assert [list(r) for r in got] == [list(r) for r in expected]
    for a, b in zip(got, expected, strict=True):
        for key in a:
            same = a[key] == b[key] or (isinstance(a[key], float) and math.isnan(a[key]) and math.isnan(b[key]))
            assert same and type(a[key]) is type(b[key]), (key, a[key], b[key])
    assert column_records(frame.iloc[:0]) == []
