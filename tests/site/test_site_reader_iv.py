"""The reader's site IV in Chromium at a phone's 390 px (and a desktop's 1280 px): a question page's
navigation drawer, the keyboard's way to the first model link ("Skip to the leaderboard", then one
Tab), the demo's "Open now" counting down in the replay's own time, each board's CSV and JSON, the
API's index page as ``prescient serve`` serves it, and the seals on a round page. Screenshots are
saved under ``test-artifacts/screenshots/``. Skips (with the reason) without /usr/bin/chromium or Playwright."""

from __future__ import annotations

import csv
import io
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from helpers import require_browser, screenshot

require_browser()

from generator.site.serve import site_server

from helpers import built_site, open_page, reader_context

pytestmark = pytest.mark.browser

DESKTOP, PHONE = 1280, 390
TAB_BUDGET = 4  # Tab presses from the top of the home page to its first model link (53 before)
LATE = "2026-08-30T12:00:00Z"  # a browser clock far past the demo's open round (due 2026-07-26T00:00Z)
# the drawer's navigation lies within the screen's width (closed, Material slides it off to the left)
ON_SCREEN = "(() => { const r = document.querySelector('.md-sidebar--primary').getBoundingClientRect(); return r.right > 1 && r.left > -1; })()"
FIRST_MODEL = "document.activeElement.closest('td.prescient-model') && document.activeElement.getAttribute('href')"


@pytest.fixture(scope="module")
def base(demo_hub: Path) -> Iterator[str]:
    """The demo's site served as ``prescient serve`` serves it (``site.serve.site_server``)."""
    server = site_server(built_site(demo_hub), "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def phone(browser):
    context = reader_context(browser, PHONE)
    yield context
    context.close()


def _question(demo_hub: Path) -> str:
    return sorted(p.parent.name for p in (built_site(demo_hub) / "generated/questions").glob("*/index.html"))[0]


def test_a_question_page_has_the_navigation_drawer_on_a_phone(phone, base: str, demo_hub: Path) -> None:
    page = open_page(phone, base, f"generated/questions/{_question(demo_hub)}/")
    menu = page.locator('header label.md-header__button[for="__drawer"]')
    assert menu.is_visible(), "the menu button is in the question page's header"
    drawer = page.locator(".md-sidebar--primary nav.md-nav--primary")
    assert not page.evaluate(ON_SCREEN), "the drawer starts closed (off the screen)"
    menu.click()
    page.wait_for_function(ON_SCREEN)
    rounds = drawer.get_by_role("link", name="Rounds", exact=True)
    screenshot(page, "reader4-question-drawer", full_page=False)
    assert {"Leaderboard", "Models", "Rounds", "Questions", "Submit"} <= set(drawer.locator("a.md-nav__link").all_inner_texts())
    rounds.click()
    page.wait_for_url(f"{base}generated/rounds/")
    assert page.locator("article h1").inner_text().rstrip("¶") == "Rounds"
    assert not page._prescient_errors  # type: ignore[attr-defined]


@pytest.mark.parametrize("width", [PHONE, DESKTOP])
def test_the_keyboard_reaches_the_first_model_link_in_a_few_tab_presses(browser, base: str, width: int) -> None:
    context = reader_context(browser, width)
    page = open_page(context, base, "")
    presses = 0
    while presses < TAB_BUDGET and page.evaluate("document.activeElement.textContent.trim()") != "Skip to the leaderboard":
        page.keyboard.press("Tab")
        presses += 1
    skip = page.evaluate("document.activeElement.textContent.trim()")
    assert skip == "Skip to the leaderboard", f"no skip link within {TAB_BUDGET} Tab presses"
    assert page.locator("a.prescient-skip").is_visible(), "a focused skip link shows"
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    presses += 1
    first = page.locator(".prescient-panel:not([hidden]) td.prescient-model a").first.get_attribute("href")
    assert page.evaluate(FIRST_MODEL) == first, "one Tab after the skip lands on the board's first model link"
    assert presses <= TAB_BUDGET
    page.get_by_role("button", name="Baseline", exact=True).click()
    page.evaluate("document.activeElement.blur()")
    page.locator("a.prescient-skip").focus()
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    shown = page.locator('.prescient-panel[data-board="baseline"]:not([hidden]) td.prescient-model a').first.get_attribute("href")
    assert page.evaluate(FIRST_MODEL) == shown, "after a switch the skip leads to the board shown"
    assert not page._prescient_errors  # type: ignore[attr-defined]
    context.close()


def test_the_demos_open_now_is_a_replay_counting_down_in_its_own_time(browser, base: str) -> None:
    context = reader_context(browser, PHONE)
    context.add_init_script(f"Date.now = () => Date.parse('{LATE}');")  # the reader's clock: long past the due time
    page = open_page(context, base, "")
    box = page.locator("#open-now")
    assert "replay" in box.locator(".admonition-title").inner_text()
    assert "19 Jul 2026, 00:00 UTC" in box.inner_text(), "the replay's clock: the data's as_of"
    assert box.locator(".prescient-countdown").inner_text() == "open in the replay · closes in 7 d 0 h"
    screenshot(page, "reader4-replay", full_page=False)
    context.close()


def test_a_live_hubs_countdown_keeps_the_readers_clock(browser, base: str) -> None:
    """Without the replay's clock (``data-now``) the countdown is the reader's browser's, as before."""
    context = reader_context(browser, DESKTOP)
    context.add_init_script("Date.now = () => Date.parse('2026-07-24T21:30:00Z');")

    def live(route) -> None:
        body = route.fetch().text()
        route.fulfill(body=body.replace(" data-now=", " data-was="), content_type="text/html")

    context.route(f"{base}", live)
    page = open_page(context, base, "")
    assert page.locator("#open-now .prescient-countdown").inner_text() == "open · closes in 1 d 2 h"
    context.close()


def test_each_board_links_its_csv_and_json(phone, base: str) -> None:
    page = open_page(phone, base, "")
    panel = page.locator(".prescient-panel:not([hidden])")
    json_href = panel.get_by_role("link", name="JSON", exact=True).get_attribute("href")
    csv_href = panel.get_by_role("link", name="CSV", exact=True).get_attribute("href")
    assert (json_href, csv_href) == ("api/boards/tournament/overall.json", "api/boards/tournament/overall.csv")
    shown = panel.locator("td.prescient-model a").evaluate_all("links => links.map(a => a.getAttribute('href'))")
    got = page.request.get(base + json_href)
    assert got.ok and [f"generated/models/{r['model']}/" for r in got.json()["rows"]] == shown, "the JSON is the board shown"
    rows = list(csv.DictReader(io.StringIO(page.request.get(base + csv_href).text())))
    assert [r["model"] for r in rows] == [r["model"] for r in got.json()["rows"]]
    other = page.locator('.prescient-panel[data-board="baseline"][data-view="market"] .prescient-board-files a')
    assert other.first.get_attribute("href") == "api/boards/baseline/market.csv", "each panel, shown or not, links its own"


def test_the_api_has_an_index_page_not_a_directory_listing(phone, base: str, demo_hub: Path) -> None:
    page = open_page(phone, base, "api/")
    text = page.locator("article").inner_text()
    assert "Directory listing" not in page.content() and page.locator("article h1").inner_text().rstrip("¶") == "API"
    index = json.loads((built_site(demo_hub) / "api/index.json").read_text(encoding="utf-8"))
    links = set(page.locator("article a").evaluate_all("links => links.map(a => a.getAttribute('href'))"))
    for board in index["boards"]:
        assert {board["json"], board["csv"]} <= links, board
    assert {"index.json", "models.json", "rounds.json", "questions.json", "questions.csv"} <= links
    for href in sorted(h for h in links if h and not h.startswith(("http", "#", "..", "/"))):
        assert page.request.get(base + "api/" + href).ok, href
    assert index["as_of"] in text
    screenshot(page, "reader4-api", full_page=False)


def test_a_round_page_lists_every_seal_with_its_attested_time_beside_the_model(phone, base: str, demo_hub: Path) -> None:
    seals = pd.read_csv(demo_hub / "data/seals/2026.csv", dtype=str, keep_default_na=False)
    teams = seals[(seals["model"].str.startswith("demo.")) & (seals["status"] == "sealed")]
    due = sorted(teams["due"])[0]
    page = open_page(phone, base, f"generated/rounds/{due}/")
    for seal in teams[teams["due"] == due].itertuples():
        row = page.locator(f'tr.prescient-seal[data-model="{seal.model}"][data-kind="{seal.kind}"][data-due="{due}"]')
        assert seal.model in row.locator("td").first.inner_text() and seal.attested_at in row.inner_text(), seal
    screenshot(page, "reader4-round-seals")
