"""The reader's pages in Chromium, at a desktop's 1280 px and a phone's 390 px: the Explore page (score against
release date, the state of the art, parity with the human groups), the human groups on the
Leaderboard (FB's two one-sided tests, % top 5%) and the Arena page (every portfolio on one chart,
its range selector and $/% switch, the decisions with their reasoning, the Brier Index beside P/L).

The demo's forecasters have no release dates and no human group, so the hub here is a copy of the
session's demo whose metadata gives five of them release dates and makes two of them human groups,
the leaderboard's reference and public reference (``_explore_hub``); the model log goes, so each
file's metadata counts for every night. Screenshots of both pages at both widths are saved under
``test-artifacts/screenshots/`` (tests/helpers.py).
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers import built_site, open_page, reader_context, require_browser, screenshot, serve

require_browser()

import yaml

from generator.pipeline.demo import SEASON_END
from generator.site.build import build_site

pytestmark = pytest.mark.browser

DESKTOP, PHONE = 1280, 390
SUPERS, PUBLIC = "demo.calibrated", "prescient.random-uniform"
METADATA = {
    "demo.noisy": dict(kind="llm", release_date="2025-01-15", knowledge_cutoff="2024-10-01"),
    "demo.overconfident": dict(kind="llm", release_date="2025-04-01"),
    "prescient.naive": dict(kind="llm", release_date="2025-07-01"),
    "prescient.crowd-median": dict(kind="llm", release_date="2025-10-01"),
    "demo.market-copier": dict(kind="llm", release_date=""),  # left out: no release date
    SUPERS: dict(kind="human", name="Superforecaster median"),
    PUBLIC: dict(kind="human", name="Public median"),
}


@pytest.fixture(scope="module")
def explore_hub(demo_hub: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("explore") / "hub"
    shutil.copytree(demo_hub, root, ignore=shutil.ignore_patterns("site"))
    for model, fields in METADATA.items():
        path = root / "data" / "models" / f"{model}.yml"
        meta = yaml.safe_load(path.read_text(encoding="utf-8"))
        meta.update(fields)
        path.write_text(yaml.safe_dump(meta, sort_keys=False, allow_unicode=True), encoding="utf-8")
    (root / "data" / "metadata" / "models.csv").unlink(missing_ok=True)  # else each night keeps the season's metadata
    toml = root / "data" / "hub.toml"
    text, n = re.subn(r'^reference = ""', f'reference = "{SUPERS}"\npublic_reference = "{PUBLIC}"', toml.read_text(encoding="utf-8"), flags=re.M)
    assert n == 1, "the demo's hub.toml no longer sets reference"
    toml.write_text(text, encoding="utf-8")
    build_site(root, SEASON_END)
    return root


@pytest.fixture(scope="module")
def base(explore_hub: Path) -> Iterator[str]:
    with serve(built_site(explore_hub)) as url:
        yield url


@pytest.fixture(scope="module", params=[DESKTOP, PHONE], ids=["desktop", "phone"])
def context(request, browser):
    context = reader_context(browser, request.param)
    yield context
    context.close()


def _trace_names(page, index: int = 0) -> list[str]:
    return page.evaluate(f"() => document.querySelectorAll('.prescient-chart')[{index}].data.map(t => t.name || '')")


def _fits(page) -> bool:
    """Nothing but a table's own scroller is wider than the window."""
    return page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth + 1")


# --------------------------------------------------------------------------------------------
# Explore


def test_explore_plots_each_board_against_release_date_with_its_frontier_trend_and_parity(context, base) -> None:
    page = open_page(context, base, "generated/explore/")
    charts = page.locator(".prescient-chart")
    assert charts.count() == 2  # the tournament and the baseline board
    for i in range(charts.count()):
        assert charts.nth(i).locator(".main-svg").count() >= 1, f"chart {i} is not drawn"
    names = _trace_names(page, 0)
    assert names[:2] == ["model", "state of the art"] and names[2].startswith("trend of the state of the art")
    assert {"Superforecaster median", "Public median"} <= set(names)
    points = page.evaluate("() => document.querySelectorAll('.prescient-chart')[0].data[0].x")
    assert points == ["2025-01-15", "2025-04-01", "2025-07-01", "2025-10-01"]  # by release date; no market copier
    first = page.locator("table.prescient-explore-table").first
    assert first.locator("tbody tr").count() == 4 and first.locator("tr.prescient-frontier").count() == 3
    parity = page.locator("ul.prescient-parity").first.inner_text()
    assert "Superforecaster median" in parity and "Public median" in parity
    assert "reached by the state of the art with a forecaster released 2025-01-15" in parity
    left_out = page.locator("details.prescient-left-out").first
    assert "1 forecaster without a release date" in left_out.inner_text()
    left_out.locator("summary").click()
    assert "Market copier: no release date" in left_out.inner_text()
    assert "no projection: the state of the art has 2 model(s)" in page.locator("ul.prescient-parity").nth(1).inner_text()
    assert _fits(page), "the Explore page scrolls sideways"
    assert page._prescient_errors == []
    assert screenshot(page, "explore").stat().st_size > 10_000


def test_explore_is_in_the_navigation(context, base) -> None:
    page = open_page(context, base, "")
    assert page.locator("a[href$='generated/explore/']").count() >= 1


# --------------------------------------------------------------------------------------------
# Human groups on the Leaderboard


def test_human_groups_are_marked_and_tested_both_ways(context, base) -> None:
    page = open_page(context, base, "")
    panel = page.locator(".prescient-panel:not([hidden])")
    head = panel.locator("thead th").all_inner_texts()
    head = [h.strip() for h in head]
    assert "Superforecaster median > Forecaster?" in head and "Forecaster > Public median?" in head
    assert head.index("% top 5%") == head.index("% #1") + 1
    humans = panel.locator("tr.prescient-human-group")
    assert humans.count() == 3, "the two made here and the demo's own (Sim superforecasters)"
    marked = humans.locator("td.prescient-model").evaluate_all("tds => tds.map(td => td.textContent)")
    assert any("Superforecaster median" in t and "ref" in t for t in marked), marked
    assert any("Public median" in t and "public" in t for t in marked), marked
    bar = humans.first.locator("td").first.evaluate("td => getComputedStyle(td).boxShadow")
    assert bar != "none", "a human group's row has no bar at its left edge"
    cells = panel.evaluate("""p => { const head = Array.from(p.querySelectorAll('thead th')).map(t => t.textContent.trim());
        const i = head.indexOf('Forecaster > Public median?'), j = head.indexOf('% top 5%');
        return Array.from(p.querySelectorAll('tbody tr')).map(r => [r.children[i].textContent.trim(), r.children[j].textContent.trim()]); }""")
    labels = {c[0] for c in cells}
    assert labels <= {"Yes", "Likely", "No", "—"} and "Yes" in labels and "—" in labels  # the public's own row: —
    assert sum(float(c[1]) for c in cells if c[1] not in ("–", "")) >= 100.0 - 1e-6  # every replicate has a top 5%
    legend = page.locator("dl.prescient-legend").inner_text()
    assert "human group" in legend and "% top 5%" in legend
    assert page._prescient_errors == []


# --------------------------------------------------------------------------------------------
# Arena


def test_the_arena_draws_every_portfolio_with_a_range_selector_and_a_dollar_percent_switch(context, base) -> None:
    page = open_page(context, base, "generated/arena/")
    chart = page.locator(".prescient-arena-chart")
    assert chart.locator(".main-svg").count() >= 1
    legend = [n for n in _trace_names(page) if n]
    assert sorted(legend) == ["Noisy", "Superforecaster median"]  # one entry a bettor, its cohorts grouped
    first_y = "() => document.querySelector('.prescient-arena-chart').data[0].y.slice(0, 1)[0]"
    assert page.evaluate(first_y) > 1_000  # dollars: a cohort starts with $10,000
    chart.locator(".updatemenu-button").nth(1).click()  # %
    page.wait_for_function(f"Math.abs(({first_y})()) < 100")  # the same line as a return in percent
    assert chart.locator(".ytitle").text_content().startswith("$ value or % return")
    assert chart.locator(".rangeselector .button").count() == 3
    full = page.evaluate("() => document.querySelector('.prescient-arena-chart').layout.xaxis.range.slice()")
    chart.locator(".rangeselector .button").first.click()  # 1m
    page.wait_for_timeout(300)
    month = page.evaluate("() => document.querySelector('.prescient-arena-chart').layout.xaxis.range.slice()")
    assert month[0] > full[0] and month[1][:10] == full[1][:10]
    cohort_lines = page.evaluate("() => document.querySelector('.prescient-arena-chart').layout.shapes.filter(s => s.xref === 'x').length")
    assert cohort_lines == page.locator("h2[id^='cohort-']").count() > 1
    assert page._prescient_errors == []


def test_the_arena_shows_each_decision_with_its_reasoning_and_the_proper_score(context, base, explore_hub: Path) -> None:
    page = open_page(context, base, "generated/arena/")
    head = page.locator("table.prescient-table").first.locator("thead th").all_inner_texts()
    assert "Brier Index" in [h.strip() for h in head]
    assert re.match(r"\d+\.\d \[", page.locator("table.prescient-table").first.locator("tbody tr td").last.inner_text())
    groups = page.locator("details.prescient-decisions")
    assert groups.count() == 2
    first = groups.first
    assert not first.locator("table").is_visible()
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url) if "/arena/decisions/" in r.url else None)
    first.locator("summary").click()
    assert first.locator("table").is_visible()
    first.locator("tbody tr").first.wait_for(timeout=10_000)  # fetched when opened: the reasoning is most of the page
    assert [u.rsplit("/", 1)[1] for u in requested] == [first.get_attribute("id").removeprefix("decisions-") + ".json"]
    bets = sum(
        len(p.read_text(encoding="utf-8").splitlines()) - 1
        for p in (explore_hub / "data" / "bets").glob(f"*/{SUPERS}.csv")
        if p.parent.name <= f"{SEASON_END:%Y-%m-%d}"
    )
    assert first.locator("tbody tr").count() == bets
    reasoning = first.locator("td.prescient-reasoning").first.inner_text()
    assert reasoning.startswith("forecast ") and " vs price " in reasoning  # the demo bettor's own words
    assert _fits(page), "the Arena page scrolls sideways"
    assert page._prescient_errors == []
    assert screenshot(page, "arena").stat().st_size > 10_000
