"""The built site in a real browser: Debian's Chromium driven by Playwright.

One small demo hub is built for the whole module and served by a stdlib HTTP server on
127.0.0.1. The checks: every chart renders, no console or page errors, no request leaves the
local server (no CDN, no Google Fonts), tables sort, the dark-mode switch re-colours the charts,
plotly.js is loaded once from the local asset, and XSS payloads in a model's metadata and a
question's text and url stay inert text.

Skips (with the reason) where /usr/bin/chromium or Playwright is missing (tests/helpers.py).
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urljoin

import pytest

from helpers import ARTIFACTS, require_browser, serve

require_browser()

import pandas as pd
import yaml
from playwright.sync_api import Browser, BrowserContext, Page

from generator.pipeline.demo import SEASON_END
from generator.site.build import build_site

from helpers import ALL_CHARTS_DRAWN, built_site

pytestmark = pytest.mark.browser

AS_OF = SEASON_END
MODEL = "demo.noisy"
ORACLE_SET = "demo-news"

# Payloads: each must come out as visible, inert text.
# Markup Plotly itself would draw (a link, bold, a styled span) when the name reaches a chart raw.
PLOTLY_MARKUP = '<a href="javascript:alert(9)">x</a><b>y</b><span style="font-size:99px">z</span>'
NAME = "<script>alert(1)</script> <img src=x onerror=alert(1)> {{ 7*7 }} " + PLOTLY_MARKUP
ORGANIZATION = "</script><script>alert(2)</script> [x](javascript:alert(3))"
QUESTION_TEXT = "<svg onload=alert(5)> Will [y](javascript:alert(6)) happen?"
QUESTION_URL = "javascript:alert(4)"
REASONING = '</script><img src=x onerror=alert(7)> [z](javascript:alert(8)) =HYPERLINK("http://x")'


# --------------------------------------------------------------------------------------------
# Hubs, server, browser


# ``demo_hub`` is the session's demo from conftest.py: the site exactly as `prescient demo` builds it.


@pytest.fixture(scope="module")
def xss_hub(demo_hub: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the demo hub whose model metadata and one question carry XSS payloads."""
    root = tmp_path_factory.mktemp("browser-xss") / "hub"
    shutil.copytree(demo_hub, root, ignore=shutil.ignore_patterns("site"))
    model_file = root / "data" / "models" / f"{MODEL}.yml"
    meta = yaml.safe_load(model_file.read_text(encoding="utf-8"))
    meta.update(name=NAME, organization=ORGANIZATION)
    model_file.write_text(yaml.safe_dump(meta, sort_keys=False, allow_unicode=True), encoding="utf-8")
    questions = _xss_round_file(root)
    frame = pd.read_csv(questions, dtype=str, keep_default_na=False)
    frame.loc[0, "text"], frame.loc[0, "url"] = QUESTION_TEXT, QUESTION_URL
    frame.to_csv(questions, index=False, lineterminator="\n")
    for bank_file in (root / "data" / "questions").glob("*.csv"):  # the question page reads the bank's text
        bank = pd.read_csv(bank_file, dtype=str, keep_default_na=False)
        mine = bank["id"] == frame.loc[0, "question_id"]
        if mine.any():
            bank.loc[mine, "text"], bank.loc[mine, "url"] = QUESTION_TEXT, QUESTION_URL
            bank.to_csv(bank_file, index=False, lineterminator="\n")
    forecasts_file = questions.parent.parent.parent / "forecasts" / questions.parent.name / f"{MODEL}.csv"
    forecasts = pd.read_csv(forecasts_file, dtype=str, keep_default_na=False)
    forecasts.loc[forecasts["question_id"] == frame.loc[0, "question_id"], "reasoning"] = REASONING
    forecasts.to_csv(forecasts_file, index=False, lineterminator="\n")
    _xss_bets(root)
    _xss_oracle(root)
    build_site(root, AS_OF)
    return root


def _xss_bets(root: Path) -> None:
    """The reasoning of the model's first bet in its first round carries a payload (the Arena's decisions)."""
    path = min((root / "data" / "bets").glob(f"*/{MODEL}.csv"))
    bets = pd.read_csv(path, dtype=str, keep_default_na=False)
    bets.loc[0, "reasoning"] = REASONING
    bets.to_csv(path, index=False, lineterminator="\n")


def _xss_oracle(root: Path) -> None:
    """The newest question of the demo's news set, one of its options and its article's title (a feed's strings) carry payloads."""
    path = root / "data" / "oracle" / ORACLE_SET / "questions.csv"
    questions = pd.read_csv(path, dtype=str, keep_default_na=False)
    newest = questions.sort_values(["resolution_date", "id"], ascending=[False, True]).index[0]
    questions.loc[newest, "text"] = QUESTION_TEXT
    questions.loc[questions["kind"] == "mc", "choice_c"] = ORGANIZATION
    questions.to_csv(path, index=False, lineterminator="\n")
    for news_file in (root / "data" / "news").glob("*.csv"):
        news = pd.read_csv(news_file, dtype=str, keep_default_na=False)
        news.loc[news["url"] == questions.loc[newest, "url"], "title"] = NAME
        news.to_csv(news_file, index=False, lineterminator="\n")


def _xss_question_path(root: Path) -> str:
    from generator.site.questions import question_slug

    first = pd.read_csv(_xss_round_file(root), dtype=str, keep_default_na=False).loc[0, "question_id"]
    return f"generated/questions/{question_slug(first)}/"


def _xss_round_file(root: Path) -> Path:
    """The latest round past its due time at AS_OF (an open round's forecasts are never shown)."""
    return max(p for p in (root / "data" / "rounds").glob("*/questions.csv") if p.parent.name <= f"{AS_OF:%Y-%m-%d}")


@pytest.fixture(scope="module")
def base_url(demo_hub: Path) -> Iterator[str]:
    with serve(built_site(demo_hub)) as url:
        yield url


@pytest.fixture(scope="module")
def xss_url(xss_hub: Path) -> Iterator[str]:
    with serve(built_site(xss_hub)) as url:
        yield url


class Visit:
    """One page, with everything it logged, requested or popped up since it was opened."""

    def __init__(self, context: BrowserContext, base: str) -> None:
        self.base = base
        self.page: Page = context.new_page()
        self.console_errors: list[str] = []
        self.page_errors: list[str] = []
        self.requests: list[str] = []
        self.dialogs: list[str] = []
        self.page.on("console", lambda m: self.console_errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.page_errors.append(str(e)))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("dialog", self._dialog)

    def _dialog(self, dialog) -> None:
        self.dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    def open(self, path: str) -> Page:
        self.page.goto(urljoin(self.base, path), wait_until="load")
        self.page.wait_for_function(ALL_CHARTS_DRAWN, timeout=20_000)
        return self.page

    def assert_clean(self) -> None:
        assert self.console_errors == [], f"console errors: {self.console_errors}"
        assert self.page_errors == [], f"page errors: {self.page_errors}"
        assert self.dialogs == [], f"dialogs fired: {self.dialogs}"
        outside = [u for u in self.requests if not u.startswith(self.base)]
        assert outside == [], f"requests that left {self.base}: {outside}"


class Site:
    """The pages of one served site, each opened once and shared by the tests in file order.

    Every page with a chart parses the 1.2 MB plotly.js (about 1 s on a busy 2-core machine), so the
    checks of one page share one load. Tests that change a page (sorting, the palette) run after
    the read-only ones, and the palette test switches back.
    """

    def __init__(self, browser: Browser, root: Path, base: str) -> None:
        self.root, self.base = root, base
        self.context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme="light", service_workers="block")
        self.visits: dict[str, Visit] = {}

    def path(self, name: str) -> str:
        return {
            "home": "",
            "model": f"generated/models/{MODEL}/",
            "models index": "generated/models/",
            "round": f"generated/rounds/{_xss_round_file(self.root).parent.name}/",
            "question": _xss_question_path(self.root),
            "oracle set": f"generated/oracle/sets/{ORACLE_SET}/",
            "arena": "generated/arena/",
            "explore": "generated/explore/",
        }[name]

    def __getitem__(self, name: str) -> Visit:
        if name not in self.visits:
            visit = Visit(self.context, self.base)
            visit.open(self.path(name))
            self.visits[name] = visit
        return self.visits[name]

    def close(self) -> None:
        self.context.close()


@pytest.fixture(scope="module")
def site(browser: Browser, demo_hub: Path, base_url: str) -> Iterator[Site]:
    s = Site(browser, demo_hub, base_url)
    yield s
    s.close()


@pytest.fixture(scope="module")
def xss_site(browser: Browser, xss_hub: Path, xss_url: str) -> Iterator[Site]:
    s = Site(browser, xss_hub, xss_url)
    yield s
    s.close()


PAGES = ["home", "model", "round", "models index", "question", "oracle set", "arena", "explore"]
PLOTLY = "generated/assets/plotly.min.js"


# --------------------------------------------------------------------------------------------
# The demo site


@pytest.mark.parametrize("name", PAGES)
def test_page_renders_cleanly_and_offline(site: Site, name: str) -> None:
    visit = site[name]
    page = visit.page
    charts = page.locator(".prescient-chart:not([data-figure-src])")  # those drawn on demand: the switches' test
    if name in ("home", "model", "question", "explore"):  # the demo's models have release dates: Explore plots them
        assert charts.count() >= 1, f"the {name} page has no chart"
    for i in range(charts.count()):
        assert charts.nth(i).locator(".main-svg").count() >= 1, f"chart {i} on the {name} page is not drawn"
    assert page.locator("table.prescient-table tbody tr").count() >= 1
    padding = page.eval_on_selector("table.prescient-table td", "td => parseFloat(getComputedStyle(td).paddingLeft)")
    assert padding >= 4, "table cells have no padding: the numbers run together"
    page.wait_for_timeout(200)  # let late console messages arrive
    visit.assert_clean()
    # plotly.js: on a page with a chart, one script element, the local asset, fetched from nowhere else
    local = urljoin(site.base, PLOTLY)
    if charts.count():
        assert page.eval_on_selector_all("script[src*='plotly']", "ss => ss.map(s => s.src)") == [local]
        assert [u for u in visit.requests if "plotly" in u] == [local]
        assert page.evaluate("typeof window.Plotly") == "object"
    else:  # none where nothing is drawn
        assert [u for u in visit.requests if "plotly" in u] == [] and page.evaluate("typeof window.Plotly") == "undefined"


def test_screenshots(site: Site) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    for name, file in (("home", "home.png"), ("model", "model.png")):
        site[name].page.screenshot(path=str(ARTIFACTS / file), full_page=True)
        assert (ARTIFACTS / file).stat().st_size > 10_000


@pytest.mark.parametrize("name", PAGES)
def test_plotly_is_never_a_static_script_nor_inlined(demo_hub: Path, site: Site, name: str) -> None:
    """prescient.js adds the one local plotly.js where a chart is (test_page_renders_cleanly_and_offline
    checks what the browser then loads); the HTML itself names no Plotly and no outside script."""
    path = site.path(name)
    html = (built_site(demo_hub) / path / "index.html").read_text(encoding="utf-8")
    srcs = re.findall(r"<script\b[^>]*\bsrc=\"([^\"]*)\"", html)
    assert not [s for s in srcs if "plotly" in s], srcs
    assert not [s for s in srcs if s.startswith(("http:", "https:", "//"))], srcs
    inline = re.findall(r"<script\b(?![^>]*\bsrc=)[^>]*>(.*?)</script>", html, flags=re.DOTALL)
    assert max(map(len, inline), default=0) < 100_000, "an inline script is over 100 KB (plotly inlined?)"
    assert "fonts.googleapis" not in html and "cdn.plot.ly" not in html


def _rows(page: Page, table: str) -> list[str]:
    """Each body row's whole text: which rows, in which order."""
    return page.eval_on_selector(table, "t => Array.from(t.tBodies[0].rows).map(r => r.textContent.trim())")


def _column(page: Page, table: str, index: int, attribute: bool) -> list[str]:
    return page.eval_on_selector(
        table,
        """(t, [i, attr]) => Array.from(t.tBodies[0].rows).map(r => {
        const c = r.children[i]; return attr && c.hasAttribute('data-value') ? c.getAttribute('data-value')
                                                                             : c.textContent.trim(); })""",
        [index, attribute],
    )


@pytest.mark.parametrize("name,header", [("home", "Brier Index"), ("models index", "Rounds"), ("round", "Freeze value"), ("question", "Probability")])
def test_numeric_header_sorts_the_table(site: Site, name: str, header: str) -> None:
    visit = site[name]
    page = visit.page
    table = f'table.prescient-table:has(th:text-is("{header}"))'  # a past round's page shows its board first
    if name == "question":  # its raw forecast rows wait behind a disclosure, under the summary
        table = "table.prescient-table[data-forecasts]"
        page.locator("details.prescient-raw > summary").click()
    headers = page.eval_on_selector(table, "t => Array.from(t.tHead.rows[0].cells).map(c => c.textContent.trim())")
    index = headers.index(header)
    th = page.locator(f"{table} thead th").nth(index)
    first_before = _rows(page, table)
    assert len(first_before) >= 2, "the table is too short to show sorting"

    best_first = "descending" if th.get_attribute("data-better") == "higher" else "ascending"  # Best first
    assert (best_first == "descending") == (header in ("Brier Index", "Rounds"))
    orders = {}
    for direction in (best_first, "ascending" if best_first == "descending" else "descending"):
        th.click()
        assert th.get_attribute("aria-sort") == direction
        values = [float(v) for v in _column(page, table, index, True) if v != ""]
        assert values == sorted(values, reverse=direction == "descending") and len(set(values)) >= 2
        orders[direction] = _rows(page, table)
    first_ascending, first_descending = orders["ascending"], orders["descending"]

    assert sorted(first_ascending) == sorted(first_descending) == sorted(first_before)  # the same rows
    assert first_ascending != first_descending
    visit.assert_clean()


def test_a_long_forecast_table_shows_one_page_sorts_all_rows_and_shows_the_rest_on_request(site: Site) -> None:
    """Question pages draw the first page of their forecasts only (thousands of rows at FB scale).
    The demo's questions have a few dozen forecasts, so the page size is cut to 10 on the way in."""
    visit = Visit(site.context, site.base)
    page = visit.page

    def smaller_pages(route) -> None:
        response = route.fetch()
        route.fulfill(response=response, body=response.text().replace('data-page-size="500"', 'data-page-size="10"'))

    page.route("**/generated/questions/**", smaller_pages)
    visit.open(site.path("question"))
    table, more = "table.prescient-table[data-forecasts]", "button.prescient-more"
    page.locator("details.prescient-raw > summary").click()  # the raw rows are collapsed at first
    payload = page.evaluate("JSON.parse(document.getElementById('prescient-forecasts').textContent)")
    total = len(payload["p"])
    assert total > 10, "the demo question needs more forecasts than one page"
    assert page.locator(f"{table} tbody tr").count() == 10
    assert page.locator(more).inner_text() == f"Show all {total} forecasts" and page.locator(more).is_visible()
    shown = f"Array.from(document.querySelectorAll('{table} tbody tr')).map(r => parseFloat(r.children[3].getAttribute('data-value')))"
    probability = page.locator(f"{table} thead th").nth(3)
    probability.click()
    assert probability.get_attribute("aria-sort") == "ascending"
    assert page.evaluate(shown) == sorted(payload["p"])[:10], "the page shows the smallest of all rows, not of the first page"
    probability.click()
    assert page.evaluate(shown) == sorted(payload["p"], reverse=True)[:10]
    page.locator(more).click()
    assert page.locator(f"{table} tbody tr").count() == total and not page.locator(more).is_visible()
    assert page.evaluate(shown) == sorted(payload["p"], reverse=True), "still in the chosen order"
    visit.assert_clean()
    page.close()


BACKGROUNDS = "() => Array.from(document.querySelectorAll('.prescient-chart.js-plotly-plot')).map(el => el._fullLayout.paper_bgcolor)"
SCHEME = "document.body.getAttribute('data-md-color-scheme')"
TOGGLE = 'form[data-md-component="palette"] label.md-header__button:visible'


@pytest.mark.parametrize("name", ["home", "model"])
def test_dark_mode_switch_recolours_the_charts(site: Site, name: str) -> None:
    visit = site[name]
    page = visit.page
    light = page.evaluate(BACKGROUNDS)
    assert light and len(set(light)) == 1
    assert page.evaluate(SCHEME) == "default"

    page.locator(TOGGLE).click()
    page.wait_for_function(f"{SCHEME} === 'slate'", timeout=5_000)
    page.wait_for_function(f"({BACKGROUNDS})().every(c => c !== {light[0]!r})", timeout=5_000)
    dark = page.evaluate(BACKGROUNDS)
    assert len(set(dark)) == 1 and dark[0] != light[0], (light, dark)

    page.locator(TOGGLE).click()  # and back: the next page in this context starts light again
    page.wait_for_function(f"{SCHEME} === 'default'", timeout=5_000)
    page.wait_for_function(f"({BACKGROUNDS})().every(c => c === {light[0]!r})", timeout=5_000)
    visit.assert_clean()


# --------------------------------------------------------------------------------------------
# XSS: payloads in submitter and source strings stay inert, visible text


@pytest.mark.parametrize("name", PAGES)
def test_xss_payloads_stay_inert(xss_site: Site, name: str) -> None:
    visit = xss_site[name]
    page = visit.page
    page.wait_for_timeout(300)  # give any injected handler the chance to fire
    visit.assert_clean()
    assert page.locator('a[href^="javascript:" i], [href*="javascript:" i]').count() == 0
    assert page.locator("[onerror], [onload]").count() == 0
    # scripts the browser runs (a type="application/json" data block is never run, only parsed)
    scripts = page.eval_on_selector_all("script", "ss => ss.filter(s => !s.type || /javascript|module/i.test(s.type)).map(s => s.textContent)")
    assert not [s for s in scripts if "alert(" in s], "a payload became a script element"
    data = page.eval_on_selector_all('script[type="application/json"]', "ss => ss.map(s => s.id)")
    assert set(data) <= {"__config", "prescient-forecasts"}, "only Material's config and a question's forecasts are data blocks"
    text = page.evaluate("document.body.innerText")
    if name in ("home", "models index", "model"):
        assert NAME in text and ORGANIZATION in text
    if name == "model":
        assert page.title() == f"{NAME} - Prescient demo hub"
        assert page.locator("article h1").first.inner_text() == NAME
    if name == "round":
        assert page.get_by_text(QUESTION_TEXT, exact=True).is_visible()
        cell = page.locator("table.prescient-table tbody td", has_text=QUESTION_TEXT).first
        links = cell.locator("a")
        assert [links.nth(i).get_attribute("href") for i in range(links.count())] == [
            f"../../{_xss_question_path(xss_site.root).removeprefix('generated/')}"
        ], "the only link is to the question's page: a javascript: url must not become a link"
    if name == "oracle set":  # a question, an option and an article's title as the question maker and a feed wrote them
        assert QUESTION_TEXT in text and ORGANIZATION in text and NAME in text
        assert page.locator('a[href^="http://sim.invalid/"]').count() > 0, "the articles are linked"
    if name == "explore":  # the model is plotted by its release date and listed in the board's table, as text
        assert NAME in page.evaluate("document.body.innerText")
    if name == "arena":  # the bet's reasoning, in the model's decisions (fetched when opened), as text
        page.locator("details.prescient-decisions > summary", has_text="decisions").last.click()
        page.wait_for_function(f"() => document.body.innerText.includes({json.dumps(REASONING)})", timeout=10_000)
        assert page.locator("details.prescient-decisions img").count() == 0
    if name == "question":
        assert page.locator("article h1").first.inner_text() == QUESTION_TEXT
        page.locator("details.prescient-raw > summary").click()  # the raw rows (with the reasoning) are collapsed
        assert REASONING in page.evaluate("document.body.innerText")
        assert page.locator('a[rel~="nofollow"]').count() == 0, "a javascript: source url must not become a link"


@pytest.mark.parametrize("name", ["home", "model"])
def test_names_inside_plotly_charts_are_plain_text(xss_site: Site, name: str) -> None:
    """Plotly reads trace names and category ticks as pseudo-HTML: the name's <a>, <b> and
    <span style> must come out as characters, not as elements of the chart."""
    if name == "home":  # its Score over time is fetched when scrolled to
        history = xss_site[name].page.locator(".prescient-history:not([hidden]) .prescient-chart")
        history.scroll_into_view_if_needed()
        history.locator(".main-svg").first.wait_for(timeout=20_000)
    found = xss_site[name].page.evaluate("""() => {
        const plots = Array.from(document.querySelectorAll('.js-plotly-plot'));
        const all = sel => plots.flatMap(p => Array.from(p.querySelectorAll(sel)));
        return {plots: plots.length, links: all('a').length,
                styles: all('tspan[style], text[style*="font-size: 99px"], text[style*="font-size:99px"]')
                        .map(t => t.getAttribute('style')),
                text: plots.map(p => Array.from(p.querySelectorAll('text')).map(t => t.textContent).join('\\n')).join('\\n')};
    }""")
    assert found["plots"] >= 1
    assert found["links"] == 0, "a name became a link inside a chart"
    assert not [s for s in found["styles"] if "bold" in s or "99px" in s], f"a name styled a chart: {found['styles']}"
    if name == "home":  # its dot-plot ticks and history legend show names (a one-trace chart has no legend)
        assert PLOTLY_MARKUP in found["text"], "the name is drawn as the characters it holds"


def test_xss_payloads_reached_the_pages_escaped(xss_hub: Path) -> None:
    """Guards the fixture: the payloads reached the generated pages (escaped), so the checks above bite."""
    generated = built_site(xss_hub).parent / "docs" / "generated"
    model_md = (generated / "models" / f"{MODEL}.md").read_text(encoding="utf-8")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in model_md
    assert "<script>alert" not in model_md
    due = _xss_round_file(xss_hub).parent.name
    round_md = (generated / "rounds" / f"{due}.md").read_text(encoding="utf-8")
    round_table = (generated / "round-tables" / f"{due}.html").read_text(encoding="utf-8")  # the question rows
    assert "&lt;svg onload=alert(5)&gt;" in round_table and "javascript:alert(4)" not in round_md + round_table
    from generator.site.questions import question_slug

    first = pd.read_csv(_xss_round_file(xss_hub), dtype=str, keep_default_na=False).loc[0, "question_id"]
    body = (generated / "question-pages" / f"{question_slug(first)}.html").read_text(encoding="utf-8")
    data = body.split('<script type="application/json" id="prescient-forecasts">', 1)[1].split("</script>", 1)[0]
    assert "\\u003c/script\\u003e\\u003cimg src=x onerror=alert(7)" in data, "the reasoning reached the data block"
    assert "<" not in data, "nothing in the data block can close it"
    heads = json.loads((generated / "question-pages" / "pages.json").read_text(encoding="utf-8"))[question_slug(first)]
    assert heads["heading"].startswith("&lt;svg onload=alert(5)&gt;") and heads["title"].startswith("&lt;svg")


# --------------------------------------------------------------------------------------------
# Board and view switches


def test_board_and_view_switches_show_one_panel(site: Site) -> None:
    visit = site["home"]
    page = visit.page
    page.bring_to_front()  # a background tab's timers are throttled, and Plotly resizes on a timer
    visible = (
        "() => Array.from(document.querySelectorAll('.prescient-panel')).filter(p => !p.hidden).map(p => p.dataset.board + '/' + p.dataset.view)"
    )
    assert page.evaluate(visible) == ["tournament/overall"]
    # the first board and view's charts are in the page; every other panel's are fetched when shown
    fetched: list[str] = []
    page.on("request", lambda r: fetched.append(r.url) if "/generated/figures/" in r.url else None)
    lazy = page.locator(".prescient-chart[data-figure-src]")
    assert lazy.count() >= 2 and page.locator("[hidden] .prescient-chart[data-figure-src] .main-svg").count() == 0
    page.locator('.prescient-switch button[data-switch="view"][data-value="market"]').click()
    drawn = """() => Array.from(document.querySelectorAll('.prescient-panel-part')).filter(p => !p.hidden)
        .flatMap(p => Array.from(p.querySelectorAll('.prescient-chart'))).every(c => c.querySelector('.main-svg'))"""
    page.wait_for_function(drawn, timeout=10_000)
    # (the shown panel's Score over time is fetched when it nears the screen: maybe while this test looks)
    assert sorted(u.rsplit("/", 1)[1] for u in fetched if not u.endswith("/history-tournament-overall.json")) == [
        "board-tournament-market.json",
        "history-tournament-market.json",
    ]
    assert page.evaluate(visible) == ["tournament/market"]
    page.locator('.prescient-switch button[data-switch="board"][data-value="baseline"]').click()
    assert page.evaluate(visible) == ["baseline/market"]
    panel = page.locator('.prescient-panel[data-board="baseline"][data-view="market"]')
    header = panel.locator("thead th").nth(4).inner_text()
    assert header.startswith("Market"), header
    chart = page.locator('.prescient-panel-part:not(.prescient-history)[data-board="baseline"][data-view="market"] .prescient-chart')
    if chart.count():  # drawn while hidden: it must take the panel's width once shown (Plotly resizes after ~100 ms)
        fits = "el => Math.abs(el._fullLayout.width - el.getBoundingClientRect().width) < 30"
        page.wait_for_function(fits, arg=chart.first.element_handle(), timeout=5_000)
    for button in ('[data-switch="board"][data-value="tournament"]', '[data-switch="view"][data-value="overall"]'):
        page.locator(f".prescient-switch button{button}").click()
    assert page.evaluate(visible) == ["tournament/overall"]
    visit.assert_clean()


SECTION_CHART = """(id) => { const h = document.getElementById(id); if (!h) return null;
    for (let el = h.nextElementSibling; el && el.tagName !== 'H2'; el = el.nextElementSibling) {
        const chart = el.classList.contains('prescient-chart') ? el : el.querySelector('.prescient-chart');
        if (chart) {
            return {drawn: chart.querySelector('.main-svg') !== null, traces: chart._fullData.map(t => t.name),
                    width: chart.getBoundingClientRect().width, drawnWidth: chart._fullLayout.width}; } }
    return null; }"""


@pytest.mark.parametrize(
    "section,traces",
    [("arena-view", ["bets", "simulated"]), ("truefalse-and-multiple-choice-questions-self-reported", ["accuracy", "5-month moving average"])],
)
def test_the_demo_model_page_draws_its_arena_and_oracle_charts(site: Site, section: str, traces: list[str]) -> None:
    """The demo's bettor and oracle forecaster: both secondary views have a drawn chart of their own."""
    visit = site["model"]
    page = visit.page
    details = page.locator(f"h2#{section} ~ details.prescient-section").first
    assert details.get_attribute("open") is None, "the secondary views are collapsed by default"
    details.locator("summary").click()
    page.wait_for_function(f"() => ({SECTION_CHART})({section!r}).width > 0")
    page.wait_for_function(
        f"() => {{ const c = ({SECTION_CHART})({section!r}); return Math.abs(c.width - c.drawnWidth) < 30; }}", timeout=5_000
    )  # sized to the opened section, not to its hidden width
    chart = page.evaluate(SECTION_CHART, section)
    assert {k: chart[k] for k in ("drawn", "traces")} == {"drawn": True, "traces": traces}, chart
    visit.assert_clean()


# --------------------------------------------------------------------------------------------
# A site that keeps its size as rounds pass


def test_the_score_over_time_chart_is_fetched_when_a_reader_scrolls_to_it(browser: Browser, base_url: str) -> None:
    """Its lines gain a point every night, so the home page does not carry them: a first visit that
    stays at the board never loads them; scrolling down fetches and draws the chart."""
    context = browser.new_context(viewport={"width": 1280, "height": 600}, color_scheme="light", service_workers="block")
    visit = Visit(context, base_url)
    page = visit.open("")
    page.wait_for_timeout(500)
    chart = page.locator(".prescient-history:not([hidden]) .prescient-chart")
    assert chart.count() == 1 and chart.get_attribute("data-figure-src").endswith("/history-tournament-overall.json")
    assert chart.locator(".main-svg").count() == 0, "drawn before the reader scrolled to it"
    assert not [u for u in visit.requests if "/history-" in u], "fetched before the reader scrolled to it"
    chart.scroll_into_view_if_needed()
    page.wait_for_function("el => el.querySelector('.main-svg') !== null", arg=chart.element_handle(), timeout=20_000)
    assert [u.rsplit("/", 1)[1] for u in visit.requests if "/history-" in u] == ["history-tournament-overall.json"]
    assert chart.evaluate("el => el._fullData.length") >= 2, "the chart draws the forecasters' lines"
    visit.assert_clean()
    context.close()


def test_a_question_asked_in_many_rounds_links_each_earlier_round_and_its_forecast_files(site: Site) -> None:
    from generator.site.questions import RECENT_ROUNDS, question_slug

    asked: dict[str, list[str]] = {}
    for path in sorted((site.root / "data" / "rounds").glob("*/questions.csv")):
        for qid in pd.read_csv(path, dtype=str, keep_default_na=False)["question_id"].unique():
            asked.setdefault(qid, []).append(path.parent.name)
    qid = max((q for q, rounds in asked.items() if len(rounds) > RECENT_ROUNDS), key=lambda q: (len(asked[q]), q))
    older = asked[qid][:-RECENT_ROUNDS]
    visit = Visit(site.context, site.base)
    page = visit.open(f"generated/questions/{question_slug(qid)}/")
    rows = page.evaluate("JSON.parse(document.getElementById('prescient-forecasts').textContent).rounds")
    assert rows and set(rows) <= set(asked[qid][-RECENT_ROUNDS:]), "the page ships its latest rounds' forecasts only"
    page.get_by_role("link", name=f"{len(older)} earlier rounds").first.click()
    assert page.url.endswith("#older-rounds")
    earlier = page.locator("#older-rounds + p.prescient-older-rounds a")
    assert earlier.count() == len(older) and earlier.first.is_visible()
    assert earlier.first.inner_text() == f"round due {older[-1]}"
    earlier.first.click()
    page.wait_for_url(f"**/generated/rounds/{older[-1]}/")
    files = page.locator('a[download][href*="/downloads/forecasts/"]')
    assert files.count() >= 1 and all(f"/forecasts/{older[-1]}/" in href for href in files.evaluate_all("as => as.map(a => a.href)"))
    visit.assert_clean()
    page.close()
