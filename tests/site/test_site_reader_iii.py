"""The reader's site III in Chromium, desktop and phone: "Open now" first with a countdown the
browser keeps, the board's sentence, best-first and keyboard sorting, sticky Rank and Model
columns on a phone, and the Questions page loading its rows from the API. Screenshots are saved
under ``test-artifacts/screenshots/``. Skips (with the reason) without /usr/bin/chromium or Playwright."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers import require_browser, screenshot, serve

require_browser()

from helpers import built_site

pytestmark = pytest.mark.browser

DESKTOP, PHONE = 1280, 390
BEFORE_DUE, AFTER_DUE = "2026-07-24T21:30:00Z", "2026-07-27T08:00:00Z"  # the demo's open round is due 2026-07-26T00:00Z


@pytest.fixture(scope="module")
def base(demo_hub: Path) -> Iterator[str]:
    with serve(built_site(demo_hub)) as url:
        yield url


def _page(browser, width: int, when: str | None = None):
    phone = width < 500
    context = browser.new_context(
        viewport={"width": width, "height": 844 if phone else 900}, is_mobile=phone, has_touch=phone, service_workers="block"
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    if when:
        page.clock.install(time=when)
    page._errors = errors  # type: ignore[attr-defined]
    return page


@pytest.mark.parametrize("width", [DESKTOP, PHONE])
def test_open_now_comes_first_and_counts_down_in_the_browser(browser, base: str, width: int) -> None:
    page = _page(browser, width, BEFORE_DUE)
    page.goto(base)
    first = page.evaluate("document.querySelector('article h1').nextElementSibling.id")
    assert first == "open-now", "Open now is the first thing under the title"
    # the demo is a replay: its countdown runs in its own time (as_of 2026-07-19), whatever the reader's
    # clock says (a live hub's keeps the reader's clock: test_site_reader_iv.py)
    assert page.locator("#open-now .prescient-countdown").inner_text() == "open in the replay · closes in 7 d 0 h"
    screenshot(page, "reader3-home")
    late = _page(browser, width, AFTER_DUE)
    late.goto(base)
    badge = late.locator("#open-now .prescient-countdown")
    assert badge.inner_text() == "open in the replay · closes in 7 d 0 h" and "prescient-status-passed" not in (badge.get_attribute("class") or "")
    assert not page._errors and not late._errors  # type: ignore[attr-defined]


def test_the_board_speaks_and_sorts_best_first_by_click_and_by_keyboard(browser, base: str) -> None:
    page = _page(browser, DESKTOP)
    page.goto(base)
    panel = page.locator(".prescient-panel:not([hidden])")
    assert " leads (Brier Index " in panel.locator(".prescient-says").inner_text()
    table = panel.locator("table.prescient-board")
    heads = table.locator("thead th").all_inner_texts()
    index = next(i for i, h in enumerate(heads) if h.startswith("Brier Index"))
    rank_col = f"Array.from(t.tBodies[0].rows).map(r => r.children[{index}].getAttribute('data-value'))"
    table.locator("thead th").nth(len(heads) - 1).focus()  # a header is a tab stop
    table.locator("thead th").nth(index).focus()
    page.keyboard.press("Enter")
    values = [float(v) for v in table.evaluate(f"t => {rank_col}") if v]
    assert values == sorted(values, reverse=True), "the first sort of a higher-is-better column puts the best first"
    assert table.locator("thead th").nth(index).get_attribute("aria-sort") == "descending"
    page.keyboard.press(" ")
    values = [float(v) for v in table.evaluate(f"t => {rank_col}") if v]
    assert values == sorted(values), "a second sort reverses"
    table.locator("thead th").nth(0).click()
    ranks = [float(v) for v in table.evaluate("t => Array.from(t.tBodies[0].rows).map(r => r.children[0].getAttribute('data-value'))") if v]
    assert ranks == sorted(ranks) and ranks[0] == 1, "Rank sorts 1 first"
    assert not page._errors  # type: ignore[attr-defined]


def test_on_a_phone_rank_and_model_stay_put_when_every_column_scrolls(browser, base: str) -> None:
    page = _page(browser, PHONE)
    page.goto(base)
    panel = page.locator(".prescient-panel:not([hidden])")
    panel.locator(".prescient-columns").click()
    table = panel.locator("table.prescient-board")
    row = table.locator("tbody tr").first
    rank_before = row.locator("td").first.bounding_box()
    scrolled = table.evaluate("t => { t.scrollLeft = t.scrollWidth; return t.scrollLeft; }")
    assert scrolled > 100, "with every column the board scrolls sideways on a phone"
    rank, model, score = (row.locator(sel).bounding_box() for sel in ("td >> nth=0", "td.prescient-model", "td >> nth=4"))
    assert rank_before and rank and model and score
    assert abs(rank["x"] - rank_before["x"]) < 2, "Rank stays at the left edge"
    assert abs(model["x"] - (rank["x"] + rank["width"])) < 2, "Model stays beside it (Rank 95% scrolled under it)"
    assert score["x"] < rank["x"], "the columns between have scrolled away"
    screenshot(page, "reader3-board-scrolled", full_page=False)


@pytest.mark.parametrize("width", [DESKTOP, PHONE])
def test_the_question_index_loads_filters_sorts_and_pages(browser, base: str, demo_hub: Path, width: int) -> None:
    html = (built_site(demo_hub) / "generated/questions/index.html").read_text(encoding="utf-8")
    assert "sim--m0000" not in html, "the page ships no rows: they load from the API"
    page = _page(browser, width)
    page.goto(base + "generated/questions/")
    count = page.locator(".prescient-index-count")
    page.wait_for_function("() => /of \\d+ questions/.test(document.querySelector('.prescient-index-count').textContent)")
    total = int(count.inner_text().split(" of ")[1].split()[0])
    assert total > 200 and page.locator("table.prescient-questions tbody tr").count() == 100
    assert page.locator(".prescient-pager span").inner_text() == f"page 1 of {-(-total // 100)}"
    page.select_option("select[name=status]", "void")
    void = int(count.inner_text().split(" of ")[0])
    assert 0 < void < total and all(s == "void" for s in page.locator("table.prescient-questions tbody tr td:nth-child(4)").all_inner_texts())
    page.select_option("select[name=status]", "")
    page.fill("input[name=q]", "sim:m0011")
    assert count.inner_text().startswith("1 of ")
    link = page.locator("table.prescient-questions tbody a").first
    assert "/generated/questions/sim--m0011/" in (link.get_attribute("href") or "")
    page.fill("input[name=q]", "")
    page.locator("thead th[data-key=rounds]").click()
    rounds = [int(v) for v in page.locator("table.prescient-questions tbody tr td:nth-child(6)").all_inner_texts()]
    assert rounds == sorted(rounds, reverse=True) and rounds[0] > 1, "most-asked first"
    page.locator(".prescient-pager [data-page=next]").click()
    assert page.locator(".prescient-pager span").inner_text().startswith("page 2 of ")
    screenshot(page, "reader3-questions")
    assert not page._errors  # type: ignore[attr-defined]


def test_the_search_index_and_worker_are_fetched_on_first_use_of_search_and_search_works(browser, base: str) -> None:
    page = _page(browser, DESKTOP)
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    page.goto(base, wait_until="networkidle")
    searching = [u for u in requested if "search_index" in u or "/workers/search." in u]
    assert not searching, f"a page view alone does not fetch the search index or start its worker: {searching}"
    page.locator("input.md-search__input").focus()
    page.keyboard.type("Calibrated")
    page.wait_for_function("() => document.querySelectorAll('.md-search-result__item').length > 0", timeout=20_000)
    assert [u for u in requested if u.endswith("search/search_index.json")] == [base + "search/search_index.json"]
    assert len([u for u in requested if "/workers/search." in u]) == 1
    assert "Calibrated" in page.locator(".md-search-result__item").first.inner_text()
    assert not page._errors  # type: ignore[attr-defined]
