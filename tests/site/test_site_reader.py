"""The demo site as a reader sees it, at a desktop's 1400 px and a phone's 390 px.

What a page weighs, that every view of the board ranks, that the Leaderboard puts its table
first, the charts (distinct lines, the Always 0.5 line, following the switches, nothing clipped)
and the layout at both widths. Screenshots of the key pages at both widths are saved under
``test-artifacts/screenshots/`` (tests/helpers.py) and the page weights in
``test-artifacts/page-weights.json``.

Runs on the session's demo in the browser of tests/conftest.py (its helpers in tests/helpers.py) (skipped, with its reason, where
Chromium or Playwright is missing).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers import ARTIFACTS, gzipped_bytes, require_browser, screenshot, serve

require_browser()

from helpers import ALL_CHARTS_DRAWN, built_site, draw_shown_charts, open_page, reader_context, show_every_panel

pytestmark = pytest.mark.browser

DESKTOP, PHONE = 1400, 390
CHART_PAGE_BUDGET = 450_000  # bytes gzipped, everything a chart page loads, Plotly included (benchmarks/RESULTS.md)
PLAIN_PAGE_BUDGET = 150_000  # a page that draws no chart
PAGES = {
    "home": "",
    "models": "generated/models/",
    "model": "generated/models/demo.calibrated/",
    "rounds": "generated/rounds/",
    "methodology": "methodology/",
    "submit": "submit/",
    "data": "data/",
    "changes": "changes/",
    "oracle": "generated/oracle/",
    "oracle set": "generated/oracle/sets/demo-news/",
    "arena": "generated/arena/",
    "explore": "generated/explore/",
    "questions": "generated/questions/",
}
CHART_PAGES = {"home", "model", "oracle set", "arena", "explore"}  # Explore: the demo's models have release dates


@pytest.fixture(scope="module")
def served(demo_hub: Path) -> Iterator[tuple[Path, str]]:
    with serve(built_site(demo_hub)) as url:
        yield built_site(demo_hub), url


_context = reader_context


@pytest.fixture(scope="module")
def desktop(browser):
    context = _context(browser, DESKTOP)
    yield context
    context.close()


@pytest.fixture(scope="module")
def phone(browser):
    context = _context(browser, PHONE)
    yield context
    context.close()


_open = open_page


_pages: dict[tuple[int, str], object] = {}


def _page(context, base: str, name: str):
    """Each page opened once per width and shared by the read-only checks below."""
    key = (id(context), name)
    if key not in _pages or _pages[key].is_closed():
        _pages[key] = _open(context, base, PAGES[name])
    return _pages[key]


# --------------------------------------------------------------------------------------------
# Page weight


def test_pages_stay_within_their_weight_budget(browser, served) -> None:
    """Everything a fresh visit loads (HTML, CSS, scripts, Plotly where a chart is, the Questions
    page's list), each file gzipped as a static host sends it; the search index waits for the first
    use of search. The figures go to test-artifacts/."""
    site, base = served
    weights = {}
    for name, path in PAGES.items():
        context = _context(browser, DESKTOP)
        urls: list[str] = []
        context.on("request", lambda r: urls.append(r.url))
        page = context.new_page()
        page.goto(base + path, wait_until="networkidle")
        page.wait_for_function(ALL_CHARTS_DRAWN, timeout=20_000)
        page.wait_for_load_state("networkidle")
        files = gzipped_bytes(site, base, urls)
        weights[name] = {"gzipped_bytes": sum(files.values()), "plotly": any("plotly" in f for f in files), "files": files}
        context.close()
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "page-weights.json").write_text(json.dumps(weights, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print({name: w["gzipped_bytes"] for name, w in weights.items()})
    for name, w in weights.items():
        assert w["plotly"] == (name in CHART_PAGES), f"{name}: Plotly loaded {w['plotly']}, draws a chart {name in CHART_PAGES}"
        budget = CHART_PAGE_BUDGET if name in CHART_PAGES else PLAIN_PAGE_BUDGET
        assert w["gzipped_bytes"] <= budget, f"{name} weighs {w['gzipped_bytes']:,} bytes gzipped, over {budget:,}"
        early = [f for f in w["files"] if f == "search/search_index.json" or "/workers/search." in f]
        assert not early, f"{name}: {early} loaded before search was used"
    assert "api/questions.json" in weights["questions"]["files"], "the measure missed the Questions page's list"


# --------------------------------------------------------------------------------------------
# Every view ranks


PANELS = "() => Array.from(document.querySelectorAll('.prescient-panel')).map(p => [p.dataset.board, p.dataset.view])"
RANKS = """(panel) => Array.from(panel.querySelectorAll('tbody tr')).map(tr => {
    const head = Array.from(panel.querySelectorAll('thead th')).map(th => th.textContent.trim());
    const cell = name => { const i = head.indexOf(name); return i < 0 ? null : tr.children[i].textContent.trim(); };
    // "Ref better?", or ForecastBench's "<group> > Forecaster?" when the reference is a human group
    const ref = head.find(h => h === 'Ref better?' || (/ > Forecaster[?]$/.test(h) && !h.startsWith('Forecaster')));
    return {provisional: tr.classList.contains('provisional'), rank: cell('Rank'), interval: cell('Rank 95%'),
            first: cell('% #1'), ref: cell(ref), score: tr.children[head.findIndex(h => /Brier Index|BI$/.test(h))].textContent.trim()};
})"""


def test_every_board_and_view_on_the_leaderboard_ranks(desktop, served) -> None:
    site, base = served
    page = _page(desktop, base, "home")
    panels = page.evaluate(PANELS)
    assert {view for _, view in panels} >= {"overall", "dataset", "market"}
    for board, view in panels:
        page.locator(f'.prescient-switch button[data-switch="board"][data-value="{board}"]').click()
        page.locator(f'.prescient-switch button[data-switch="view"][data-value="{view}"]').click()
        panel = page.locator(f'.prescient-panel[data-board="{board}"][data-view="{view}"]')
        assert panel.is_visible()
        rows = panel.evaluate(RANKS)
        ranked = [r for r in rows if not r["provisional"]]
        assert ranked, f"{board}/{view}: no ranked row"
        ranks = [int(r["rank"]) for r in ranked]
        assert ranks == sorted(ranks) and ranks[0] == 1, f"{board}/{view}: not in rank order: {ranks}"
        for r in ranked:
            assert re.fullmatch(r"\d+–\d+", r["interval"]), f"{board}/{view}: Rank 95% {r['interval']!r}"
            assert re.fullmatch(r"\d+\.\d", r["first"]), f"{board}/{view}: % #1 {r['first']!r}"
            assert r["ref"] in ("Yes", "Likely", "No", "—"), f"{board}/{view}: vs. ref {r['ref']!r}"
            assert re.fullmatch(r"\d+\.\d \[\d+\.\d, \d+\.\d\]", r["score"]), f"{board}/{view}: {r['score']!r}"
        assert sum(float(r["first"]) for r in ranked) == pytest.approx(100, abs=0.5)
        assert [r["ref"] for r in ranked].count("—") == 1, f"{board}/{view}: one reference row"
    page.locator('.prescient-switch button[data-switch="board"]').first.click()
    page.locator('.prescient-switch button[data-switch="view"]').first.click()
    assert page._prescient_errors == []


# --------------------------------------------------------------------------------------------
# The Leaderboard: the table first, then a legend, then the prose


@pytest.mark.parametrize("width", [DESKTOP, PHONE])
def test_the_leaderboard_shows_its_table_before_any_prose(desktop, phone, served, width: int) -> None:
    site, base = served
    page = _page(desktop if width == DESKTOP else phone, base, "home")
    table = page.locator(".prescient-panel:not([hidden]) table.prescient-board")
    top = table.bounding_box()["y"]
    open_now = page.locator("#open-now").bounding_box()  # the one thing above the board: the open rounds
    assert open_now and open_now["y"] < top
    assert top < 450 + open_now["height"], f"the table starts {top:.0f} px down: something comes before it"
    first_row = table.locator("tbody tr").first.bounding_box()
    assert first_row["y"] + first_row["height"] <= page.viewport_size["height"], "the first row is below the fold"
    paragraphs = page.evaluate("""() => Array.from(document.querySelectorAll('article p, article details'))
        .filter(p => p.offsetParent !== null && !p.closest('table, .prescient-board-wrap, #open-now'))
        .map(p => ({y: p.getBoundingClientRect().top + window.scrollY, text: p.textContent.trim().slice(0, 40)}))""")
    before = [p for p in paragraphs if p["y"] < top]
    assert before == [], f"prose above the table: {before}"
    details = page.locator("details.prescient-howto")
    assert details.locator("summary").inner_text().strip() == "How to read this"
    assert details.get_attribute("open") is None, "the explanation is folded away"
    legend = page.locator(".prescient-legend").inner_text()
    for term in ("baseline", "ref", "provisional", "Ref better?"):
        assert term in legend
    updated = page.locator(".prescient-updated").first.inner_text()
    assert re.search(r"Updated \d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d UTC", updated), updated


def test_n_is_a_column_only_where_it_varies(desktop, served) -> None:
    site, base = served
    page = _page(desktop, base, "home")
    panels = page.locator(".prescient-panel").all()
    assert panels, "no board panel on the home page: nothing to check"
    for panel in panels:
        head = panel.evaluate("p => Array.from(p.querySelectorAll('thead th')).map(th => th.textContent.trim())")
        note = panel.locator(".prescient-n-note")
        if "N" in head:
            values = panel.evaluate(
                "p => Array.from(p.querySelectorAll('tbody tr')).map(tr => tr.children[" + str(head.index("N")) + "].textContent.trim())"
            )
            assert len(set(values)) > 1, "an N column of one number"
            assert note.count() == 0
        else:
            assert note.count() == 1 and re.search(r"N = \d+", note.text_content())


@pytest.mark.parametrize("width", [DESKTOP, PHONE])
def test_ci_brackets_and_model_names_never_break_inside(desktop, phone, served, width: int) -> None:
    site, base = served
    for name in ("home", "models"):
        page = _page(desktop if width == DESKTOP else phone, base, name)
        broken = page.evaluate("""() => {
            const out = [];
            const lines = el => { const r = document.createRange(); r.selectNodeContents(el);
                return new Set(Array.from(r.getClientRects()).map(x => Math.round(x.top))).size; };
            document.querySelectorAll('.prescient-ci').forEach(el => { if (el.offsetParent && lines(el) > 1) out.push(el.textContent); });
            document.querySelectorAll('td.prescient-model a').forEach(a => {
                if (!a.offsetParent) return;
                const text = a.firstChild; let at = 0;
                for (const word of text.textContent.split(' ')) {
                    const r = document.createRange(); r.setStart(text, at); r.setEnd(text, at + word.length); at += word.length + 1;
                    if (word && new Set(Array.from(r.getClientRects()).map(x => Math.round(x.top))).size > 1) out.push(word);
                }
            });
            return out; }""")
        assert broken == [], f"{name} at {width} px breaks inside: {broken}"


# --------------------------------------------------------------------------------------------
# A phone: 390 px


def test_on_a_phone_rank_model_and_brier_index_fit_without_sideways_scrolling(phone, served) -> None:
    site, base = served
    page = _page(phone, base, "home")
    assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE, "the page scrolls sideways"
    wrap = page.locator(".prescient-panel:not([hidden]) .prescient-board-wrap")
    table = wrap.locator("table")

    def head():
        return [
            h for h in table.evaluate("t => Array.from(t.tHead.rows[0].cells).filter(c => c.offsetParent !== null).map(c => c.textContent.trim())")
        ]

    assert head() == ["Rank", "Model", "Brier Index"]
    assert table.evaluate("t => t.scrollWidth <= t.clientWidth + 1"), "the board scrolls sideways"
    box = table.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE
    toggle = wrap.locator("button.prescient-columns")
    toggle.tap()
    assert toggle.get_attribute("aria-pressed") == "true"
    shown = set(head())
    assert {"Rank 95%", "% #1"} <= shown and any(h == "Ref better?" or h.endswith(" > Forecaster?") for h in shown), shown
    toggle.tap()
    assert head() == ["Rank", "Model", "Brier Index"]


def test_on_a_phone_definitions_open_by_tap(phone, served) -> None:
    site, base = served
    page = _page(phone, base, "home")
    legend = page.locator(".prescient-legend")
    assert legend.is_visible() and "is the reference better than this model" in legend.inner_text()
    details = page.locator("details.prescient-howto")
    details.locator("summary").tap()
    assert details.get_attribute("open") is not None
    assert "Brier Index" in details.inner_text() and details.locator("p").first.is_visible()
    details.locator("summary").tap()
    assert details.get_attribute("open") is None


COLOURS = """el => { const s = getComputedStyle(el); return [s.color, s.backgroundColor]; }"""


def _luminance(css: str) -> float:
    r, g, b = (int(x) / 255 for x in re.findall(r"[\d.]+", css)[:3])
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_on_a_phone_a_column_header_shows_its_definition_by_tap_and_by_keyboard(browser, served, scheme: str) -> None:
    site, base = served
    context = browser.new_context(
        viewport={"width": PHONE, "height": 844}, is_mobile=True, has_touch=True, device_scale_factor=1, color_scheme=scheme, service_workers="block"
    )
    try:
        page = _open(context, base, PAGES["home"])
        assert page.evaluate("document.body.dataset.mdColorScheme") == ("slate" if scheme == "dark" else "default")
        panel = page.locator(".prescient-panel:not([hidden])")
        heads = panel.locator("thead th:visible")
        note = panel.locator(".prescient-definition")
        assert heads.all_inner_texts() == ["Rank", "Model", "Brier Index"] and note.is_hidden()
        rank, score = heads.nth(0).locator("button.prescient-define"), heads.nth(2).locator("button.prescient-define")
        box = score.bounding_box()
        assert box["width"] >= 23.5 and box["height"] >= 23.5, f"a {box['width']:.0f} px target is too small to tap"
        assert score.get_attribute("aria-label") == "What is Brier Index?"
        assert score.get_attribute("aria-controls") == note.get_attribute("id")

        score.tap()
        assert note.is_visible() and score.get_attribute("aria-expanded") == "true"
        assert note.inner_text().startswith("Brier Index: Brier Index = 100·(1 − √D)") and "Always 0.5 scores 50" in note.inner_text()
        assert heads.nth(2).get_attribute("aria-sort") is None, "the tap sorted the column instead"
        assert page.locator(".md-tooltip--active").count() == 0, "a tooltip covers the definition"
        fg, bg = (_luminance(c) for c in note.evaluate(COLOURS))
        assert (max(fg, bg) + 0.05) / (min(fg, bg) + 0.05) >= 4.5, f"{scheme}: the definition is hard to read"
        assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE, "the page scrolls sideways"
        screenshot(page, f"definition-{scheme}", full_page=False)

        rank.tap()  # another header's definition replaces it
        assert note.inner_text().startswith("Rank: Rank by the headline Brier Index")
        assert rank.get_attribute("aria-expanded") == "true" and score.get_attribute("aria-expanded") == "false"
        rank.tap()  # the same one again closes it
        assert note.is_hidden() and rank.get_attribute("aria-expanded") == "false"

        rank.focus()  # by keyboard: Enter opens, Escape closes and leaves the focus on the button
        page.keyboard.press("Enter")
        assert note.is_visible() and note.inner_text().startswith("Rank:")
        page.keyboard.press("Escape")
        assert note.is_hidden() and rank.evaluate("b => document.activeElement === b")
        assert page._prescient_errors == []
    finally:
        context.close()


@pytest.mark.parametrize("name", sorted(CHART_PAGES))
def test_on_a_phone_charts_have_no_toolbar_and_nothing_clipped(phone, served, name: str) -> None:
    site, base = served
    page = _page(phone, base, name)
    charts = page.locator(".prescient-chart:visible")
    assert charts.count() >= 1
    for i in range(charts.count()):
        chart = charts.nth(i)
        chart.hover()
        assert chart.locator(".modebar").count() == 0 or not chart.locator(".modebar").is_visible()
    assert _clipped(page) == []


# --------------------------------------------------------------------------------------------
# Charts


CLIPPED = """() => {
    const out = [];
    document.querySelectorAll('.prescient-chart').forEach(chart => {
        if (!chart.offsetParent) return;
        if (!chart.querySelector('.main-svg')) { out.push('(a chart not drawn)'); return; }
        const svg = chart.querySelector('.main-svg').getBoundingClientRect();
        chart.querySelectorAll('.xtick text, .ytick text, .g-xtitle text, .g-ytitle text, .annotation-text, .gtitle')
             .forEach(t => { const b = t.getBoundingClientRect();
                 if (b.width && (b.left < svg.left - 1 || b.right > svg.right + 1 || b.top < svg.top - 1 || b.bottom > svg.bottom + 1))
                     out.push(t.textContent); });
    });
    return out; }"""


def _clipped(page) -> list[str]:
    draw_shown_charts(page)  # the charts a reader reaches by scrolling too
    return page.evaluate(CLIPPED)


@pytest.mark.parametrize("width", [DESKTOP, PHONE])
def test_no_chart_text_is_clipped(desktop, phone, served, width: int) -> None:
    site, base = served
    for name in sorted(CHART_PAGES):
        page = _page(desktop if width == DESKTOP else phone, base, name)
        assert _clipped(page) == [], f"{name} at {width} px"


HISTORY = """() => Array.from(document.querySelectorAll('.prescient-history')).map(p => {
    const chart = p.querySelector('.prescient-chart');
    return {board: p.dataset.board, view: p.dataset.view, shown: !p.hidden,
            traces: chart._fullData.map(t => [t.name, t.line.color, t.line.dash]),
            last: Object.fromEntries(chart.data.map(t => [t.name, t.y[t.y.length - 1]])),
            shapes: chart._fullLayout.shapes.map(s => [s.y0, s.y1])}; })"""
SHOWN = "() => Array.from(document.querySelectorAll('.prescient-history:not([hidden])')).map(p => p.dataset.board + '/' + p.dataset.view)"
HEADLINES = """(panel) => Array.from(panel.querySelectorAll('tbody tr')).map(tr => [
    tr.querySelector('td.prescient-model a').textContent.trim(), parseFloat(tr.children[2].dataset.value)])"""


def test_score_over_time_keeps_lines_apart_follows_the_board_and_the_view_and_says_why_it_starts_late(desktop, served) -> None:
    site, base = served
    page = _page(desktop, base, "home")
    show_every_panel(page)
    parts = page.evaluate(HISTORY)
    panels = page.evaluate(PANELS)  # every board × view of the switches, the first one shown
    assert [[p["board"], p["view"]] for p in parts] == panels and len(panels) >= 6
    assert [p["shown"] for p in parts] == [True] + [False] * (len(parts) - 1)
    for part in parts:
        styles = [(colour, dash) for _, colour, dash in part["traces"]]
        assert len(part["traces"]) >= 2 and len(set(styles)) == len(styles), f"{part['board']}/{part['view']}: two lines look alike"
        assert [50, 50] in part["shapes"], "no Always 0.5 line"
    assert len(parts[0]["traces"]) >= 13
    assert page.locator(".prescient-view-start").count() == 0, "the demo records every view from its first night"
    # each chart's last night is the board's view as the table shows it (the season's last night)
    for part in parts:
        panel = page.locator(f'.prescient-panel[data-board="{part["board"]}"][data-view="{part["view"]}"]')
        for name, score in panel.evaluate(HEADLINES):
            if score == score and name in part["last"]:
                assert part["last"][name] == pytest.approx(score, abs=0.01), f"{part['board']}/{part['view']}: {name}"
    assert parts[1]["last"] != parts[2]["last"] != parts[0]["last"], "the views' charts draw the same numbers"
    for board, view in (("tournament", "market"), ("baseline", "market"), ("baseline", "dataset"), ("tournament", "overall")):
        page.locator(f'.prescient-switch button[data-switch="board"][data-value="{board}"]').click()
        page.locator(f'.prescient-switch button[data-switch="view"][data-value="{view}"]').click()
        assert page.evaluate(SHOWN) == [f"{board}/{view}"]
    note = page.locator(".prescient-chart-note").inner_text()
    assert re.search(r"start on \d{4}-\d\d-\d\d, not at the first round .* 50 days after its due date", note), note
    dots = page.locator(".prescient-panel-part:not([hidden]):not(.prescient-history) .prescient-chart")
    assert dots.evaluate("el => el._fullLayout.shapes.map(s => [s.x0, s.x1])") == [[50, 50]]
    assert "Always 0.5" in dots.evaluate("el => el._fullLayout.annotations.map(a => a.text).join()")


# --------------------------------------------------------------------------------------------
# A desktop: 1400 px


@pytest.mark.parametrize("name", ["home", "models", "rounds", "methodology", "model"])
def test_on_a_desktop_no_sidebar_of_one_link_or_one_entry_takes_width(desktop, served, name: str) -> None:
    site, base = served
    page = _page(desktop, base, name)
    assert not page.locator(".md-sidebar--primary").is_visible(), "the one-link navigation sidebar shows"
    toc = page.locator(".md-sidebar--secondary")
    if toc.is_visible():
        assert toc.locator("nav.md-nav--secondary a.md-nav__link").count() > 1, "a table of contents of one entry"
    for table in page.locator("article table.prescient-table").all():
        if table.is_visible():
            assert table.evaluate("t => t.scrollWidth <= t.clientWidth + 1"), f"a table on {name} scrolls sideways"


# --------------------------------------------------------------------------------------------
# Screenshots (artifacts)


@pytest.mark.parametrize("width", [DESKTOP, PHONE])
def test_screenshots_of_the_key_pages(desktop, phone, served, width: int) -> None:
    site, base = served
    for name in ("home", "models", "model", "rounds", "methodology"):
        page = _page(desktop if width == DESKTOP else phone, base, name)
        path = screenshot(page, name)
        assert path.stat().st_size > 10_000
        assert page._prescient_errors == [], f"{name}: {page._prescient_errors}"
