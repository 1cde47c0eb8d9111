"""What the tests share, in one module: paths, small hubs, the CLI run as a user runs it, the
browser's helpers, and the worlds and files more than one test module builds. Fixtures are in
``conftest.py``; no test module imports another.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from http.server import ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

import numpy as np
import pandas as pd
import pytest
from hypothesis import strategies as st

from generator.errors import SchemaError
from generator.forecasters.baselines import forecast_frame
from generator.oracle.formats import question_id
from generator.pipeline.nightly import nightly
from generator.schemas import FORECASTS, RESOLUTIONS, ROUND_QUESTIONS
from generator.site.serve import SiteHandler
from generator.sources.base import FetchContext, FetchResult, Observation, Question
from generator.store import git as store_git
from generator.store import ledger, readers
from generator.store.atomic import write_bytes_atomic
from generator.store.csvio import as_text, read_table, to_csv_bytes
from generator.store.hub import Hub
from generator.submissions import Report
from generator.submissions.report import MAX_MARKDOWN_ROWS
from generator.timeutil import days, format_date, format_ts, parse_ts
from generator.vocabulary import DATASET, MARKET

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
DATA = TESTS / "data"
API_DATA = DATA / "api"  # recorded responses of the live sources, one folder per source


# -- paths, small hubs, the CLI as a user runs it --------------------------------------------------

SMALL_HUB = """\
[hub]
title = "Test hub"
maintainers = ["hub-maintainer"]
bot_email = "t@example.invalid"  # the committer of the tests' git histories, playing the hub's nightly

[rounds]
first_due = "2026-01-25T00:00:00Z"
cadence_days = 14
open_days_before_due = 10
market_questions = 12
dataset_questions = 4
horizons = [7, 30]

[scoring]
min_resolved = 5
min_age_days = 20

[sources.sim]
enabled = true
seed = 3
start = "2026-01-04T00:00:00Z"
markets = 60
series = 6
span_days = 120
"""


MANIFOLD_API = Path(__file__).parent / "data" / "api" / "manifold"


MANIFOLD_HUB = """\
[rounds]
first_due = "2026-08-16T00:00:00Z"
market_questions = 3
dataset_questions = 0

[sources.manifold]
enabled = true
min_bettors = 5
min_liquidity = 100
rate_per_second = 0
retries = 0
"""  # a hub on the recorded Manifold payloads of tests/data/api/manifold


def installed(script: str) -> str | None:
    """The console script installed beside this Python (the environment the tests run in, which
    need not be activated: the README runs `.venv/bin/python -m pytest -n auto`), else one on PATH."""
    beside = Path(sys.executable).parent / script
    return str(beside) if beside.is_file() else shutil.which(script)


PRESCIENT = installed("prescient") or "prescient"


def benchmark(name: str):
    """The script ``benchmarks/<name>.py`` loaded as a module (the folder is not a package the tests import)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def write_hub(root: Path, text: str = SMALL_HUB) -> Path:
    (root / "data").mkdir(parents=True, exist_ok=True)
    (root / "data" / "hub.toml").write_text(text, encoding="utf-8")
    return root


def round_file(due: str, units: list[tuple[str, str, str]]) -> bytes:
    """A published round's questions.csv: one row per (question id, resolution date, kind) of ``units``."""
    rows = [
        {
            "question_id": q,
            "resolution_date": d,
            "source": q.split(":")[0],
            "kind": kind,
            "category": "",
            "due": f"{due}T00:00:00Z",
            "freeze_time": "2026-01-10T00:00:00Z",
            "freeze_value": "0.5",
            "text": f"Will {q} happen?",
            "url": "",
        }
        for q, d, kind in units
    ]
    return to_csv_bytes(pd.DataFrame(rows, columns=list(ROUND_QUESTIONS.names)), ROUND_QUESTIONS)


def ts(text: str):
    return parse_ts(text)


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Run ``python -m generator`` as a user would; never raises."""
    return subprocess.run([sys.executable, "-m", "generator", *args], capture_output=True, text=True, cwd=cwd, timeout=600)


def prescient(*args: str, cwd: Path | None = None, columns: int | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """The installed ``prescient`` executable (never ``python -m``), as a user runs it: no
    SOURCE_DATE_EPOCH unless ``env`` sets it, optionally a terminal width; never raises."""
    clean = {k: v for k, v in os.environ.items() if k not in ("SOURCE_DATE_EPOCH", "COLUMNS")}
    if columns:
        clean["COLUMNS"] = str(columns)
    return subprocess.run([PRESCIENT, *args], capture_output=True, text=True, cwd=cwd, env={**clean, **(env or {})}, timeout=600)


def two_round_hub(root: Path, rounds: dict[str, list[tuple[str, str, str]]]) -> Path:
    """A hub with ``rounds`` published (due → units, as ``round_file`` takes them) and a registered
    model, ``acme.bot``, maintained by alice: what the validator's message tests submit against."""
    write_hub(root)
    for due, units in rounds.items():
        (root / f"data/rounds/{due}").mkdir(parents=True)
        (root / f"data/rounds/{due}/questions.csv").write_bytes(round_file(due, units))
    (root / "data/models").mkdir()
    (root / "data/models/acme.bot.yml").write_text("name: Bot\norganization: Acme\nkind: llm\nmaintainers: [alice]\n")
    return root


def tree_bytes(root: Path) -> dict[str, bytes]:
    """Every file under root/data, as bytes: to prove a run changed nothing."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted((root / "data").rglob("*")) if p.is_file()}


class InFlight:
    """Wraps a request handler and records the most requests ever in flight at once."""

    def __init__(self, respond, delay: float = 0.01):
        import threading

        self.respond, self.delay, self.lock = respond, delay, threading.Lock()
        self.now = self.max = 0

    def __call__(self, request):
        import time

        with self.lock:
            self.now += 1
            self.max = max(self.max, self.now)
        time.sleep(self.delay)
        with self.lock:
            self.now -= 1
        return self.respond(request)


def score_rows(forecasts: dict, outcome: dict, round_: str = "2026-01-04", imputed=()) -> pd.DataFrame:
    """A SCORES frame from ``{model: {question: p}}``: questions named ``m…`` are manifold markets,
    the others fred dataset questions resolving 2026-01-11; ``outcome`` maps question → 0/1."""
    rows = []
    for model, given in forecasts.items():
        for q, p in given.items():
            market = q.startswith("m")
            rows.append(
                {
                    "round": round_,
                    "model": model,
                    "question_id": f"{'manifold' if market else 'fred'}:{q}",
                    "resolution_date": "" if market else "2026-01-11",
                    "source": "manifold" if market else "fred",
                    "kind": "binary" if market else "dataset",
                    "category": "",
                    "probability": p,
                    "imputed": int((model, q) in imputed),
                    "outcome": outcome[q],
                    "resolved_at": "2026-01-20T00:00:00Z",
                    "brier": (p - outcome[q]) ** 2,
                }
            )
    return pd.DataFrame(rows)


# -- the browser tests: Chromium, the site served, screenshots, page weights -----------------------
# A browser test module calls ``require_browser()`` before it imports Playwright: the module is
# skipped, with the reason, where Debian's Chromium (/usr/bin/chromium) or Playwright for Python is
# missing, and fails instead under ``PRESCIENT_REQUIRE_BROWSER=1`` (what ``.ci/run`` sets); nothing
# ever downloads a browser. The ``browser`` fixture (conftest.py) launches that Chromium headless,
# once per module. ``serve(site)`` serves a built site on a free local port as ``prescient serve``
# does, with cache headers so one browser context loads plotly.js once. Screenshots go to
# ``test-artifacts/screenshots/`` (git-ignored) as ``<page>-<width>.png``.

ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"


SCREENSHOTS = ARTIFACTS / "screenshots"


CHROMIUM = Path("/usr/bin/chromium")


CHROMIUM_ARGS = ["--no-sandbox", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-gpu"]


def require_browser() -> None:
    """Skip the calling test module (at import) unless Chromium and Playwright are both here;
    under ``PRESCIENT_REQUIRE_BROWSER=1`` a missing one is a failure, not a skip."""
    required = os.environ.get("PRESCIENT_REQUIRE_BROWSER") == "1"

    def missing(reason: str) -> None:
        if required:
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason, allow_module_level=True)

    if not CHROMIUM.is_file():
        missing(f"browser tests need Debian's Chromium at {CHROMIUM} (apt-get install -y chromium)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:  # pragma: no cover - depends on the machine
        missing("browser tests need Playwright for Python (pip install -e '.[test]')")


class _QuietSiteHandler(SiteHandler):
    def end_headers(self) -> None:
        # Let the pages of one browser context share the cached assets (plotly.js is the largest).
        self.send_header("Cache-Control", "max-age=600")
        super().end_headers()

    def log_message(self, format: str, *args) -> None:
        pass


@contextlib.contextmanager
def serve(site: Path) -> Iterator[str]:
    """The built site in ``site`` served on a free port of 127.0.0.1; yields its base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietSiteHandler, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def screenshot(page, name: str, full_page: bool = True) -> Path:
    """Save ``page`` as ``<name>-<viewport width>.png`` under ``SCREENSHOTS``; return the path."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}-{page.viewport_size['width']}.png"
    page.screenshot(path=str(path), full_page=full_page)
    print(f"screenshot: {path}")
    return path


def gzipped_bytes(site: Path, base: str, urls: list[str]) -> dict[str, int]:
    """Each distinct same-origin URL requested, as its file in ``site`` compressed with gzip -6
    (what a static host such as GitHub Pages sends): the page's transfer in bytes."""
    out = {}
    for url in dict.fromkeys(urls):
        if not url.startswith(base):
            continue
        path = unquote(urlsplit(url).path).lstrip("/")
        file = site / path
        if file.is_dir() or path.endswith("/") or not path:
            file = file / "index.html"
        if file.is_file():
            out[path or "/"] = len(gzip.compress(file.read_bytes(), compresslevel=6, mtime=0))
    return out


# -- fixed effects: random panels and a dense least-squares reference fit --------------------------


def random_panel(seed: int, n_models: int = 7, n_units: int = 40, density: float = 0.6):
    """Unbalanced random panel as a dict of build_panel arguments (with single-model units)."""
    rng = np.random.default_rng(seed)
    answered = rng.random((n_models, n_units)) < density
    est_model = rng.random(n_models) < 0.7
    est_model[:2] = True
    singles = rng.choice(n_units, 3, replace=False)
    answered[:, singles] = False
    answered[rng.integers(0, 2, 3), singles] = True
    lonely = ~(answered & est_model[:, None]).any(axis=0)
    answered[rng.integers(0, 2, n_units)[lonely], np.flatnonzero(lonely)] = True
    model, unit = np.nonzero(answered)
    return dict(
        model=model,
        unit=unit,
        brier=rng.random(model.size),
        in_estimation=est_model[model],
        unit_type=rng.integers(0, 2, n_units),
        unit_stratum=rng.integers(0, 4, n_units),
    )


def reference_fit(model, unit, brier, in_estimation, unit_type, weights=None, n_types=2):
    """Dense weighted lstsq on explicit dummies; returns (D per type, fitted values, b)."""
    w = np.ones(unit_type.size) if weights is None else np.asarray(weights, float)
    n_models = model.max() + 1
    D, fitted, b_all = np.full((n_types, n_models), np.nan), np.full(model.size, np.nan), {}
    for t in range(n_types):
        rows = np.flatnonzero(in_estimation & (unit_type[unit] == t) & (w[unit] > 0))
        if rows.size == 0:
            continue
        ems, em = np.unique(model[rows], return_inverse=True)
        us, uj = np.unique(unit[rows], return_inverse=True)
        design = np.zeros((rows.size, ems.size + us.size))
        design[np.arange(rows.size), em] = 1
        design[np.arange(rows.size), ems.size + uj] = 1
        sw = np.sqrt(w[unit[rows]])
        coef = np.linalg.lstsq(design * sw[:, None], brier[rows] * sw, rcond=None)[0]
        fitted[rows] = design @ coef
        b = dict(zip(us, coef[ems.size :], strict=True))
        b_all.update(b)
        units_t = [j for j in np.flatnonzero((unit_type == t) & (w > 0))]
        mean_b = sum(w[j] * b[j] for j in units_t) / sum(w[j] for j in units_t)
        for i in range(n_models):
            r = [k for k in range(model.size) if model[k] == i and unit_type[unit[k]] == t and w[unit[k]] > 0]
            if r:
                num = sum(w[unit[k]] * (brier[k] - b[unit[k]]) for k in r)
                D[t, i] = num / sum(w[unit[k]] for k in r) + mean_b
    return D, fitted, b_all


# -- a scripted world and its random seasons (incremental and cached nights) -----------------------

WORLD_HUB = """\
[hub]
title = "Incremental test hub"

[rounds]
first_due = "2026-01-05T00:00:00Z"
cadence_days = 2
open_days_before_due = 1
market_questions = 4
dataset_questions = 2
horizons = [1, 2]

[scoring]
min_resolved = 2
min_age_days = 1

[sources.sim]
enabled = true
"""


WORLD_START = parse_ts("2026-01-02T00:00:00Z")


WORLD_FAR = parse_ts("2027-01-01T00:00:00Z")


@dataclass
class World:
    """A scripted source: markets (value, status, outcome) and series (date → value)."""

    markets: dict[str, tuple[float, str, float | None]] = field(default_factory=dict)
    series: dict[str, dict[datetime, float]] = field(default_factory=dict)

    def fetch(self, ctx: FetchContext) -> FetchResult:
        questions = [Question(q, "sim", MARKET, f"Market {q}?", category="c", open_time=WORLD_START, close_time=WORLD_FAR) for q in self.markets]
        questions += [Question(q, "sim", DATASET, f"Series {q}", category="d") for q in self.series]
        observations = [Observation(q, ctx.as_of, value, status, outcome) for q, (value, status, outcome) in self.markets.items()]
        observations += [Observation(q, when, value) for q, values in self.series.items() for when, value in values.items()]
        return FetchResult("sim", questions, observations)


WORLD_EVENT = st.one_of(
    st.tuples(st.just("new-market")),
    st.tuples(st.just("new-series")),
    st.tuples(st.just("move"), st.integers(0, 20), st.sampled_from([0.1, 0.35, 0.6, 0.9])),
    st.tuples(st.just("resolve"), st.integers(0, 20), st.sampled_from([0.0, 1.0])),
    st.tuples(st.just("void"), st.integers(0, 20)),
    st.tuples(st.just("reopen"), st.integers(0, 20)),
    st.tuples(st.just("value"), st.integers(0, 5), st.sampled_from([1.0, 2.0, 3.0])),
    st.tuples(st.just("revise"), st.integers(0, 5), st.integers(0, 30), st.sampled_from([0.5, 2.5, 4.0])),
    st.tuples(st.just("late"), st.integers(0, 5), st.sampled_from([0.2, 0.7])),
    st.tuples(st.just("state"), st.integers(0, 5), st.integers(0, 30), st.sampled_from(["resolved", "void"])),
)


def apply_event(world: World, event: tuple, night: datetime, roots: list[Path], n: int) -> None:
    """One event, in the world or (late files, stated resolutions) in both hubs alike."""
    kind, *args = event
    markets, series = sorted(world.markets), sorted(world.series)
    if kind == "new-market":
        world.markets[f"sim:m{len(markets)}"] = (0.5, "open", None)
    elif kind == "new-series":
        world.series[f"sim:s{len(series)}"] = {night - days(2): 1.0}
    elif kind in ("move", "resolve", "void", "reopen") and markets:
        q = markets[args[0] % len(markets)]
        value = world.markets[q][0]
        world.markets[q] = {
            "move": (args[1] if kind == "move" else value, "open", None),
            "resolve": (args[1] if kind == "resolve" else value, "resolved", args[1] if kind == "resolve" else None),
            "void": (value, "void", None),
            "reopen": (value, "open", None),
        }[kind]
    elif kind == "value" and series:
        world.series[series[args[0] % len(series)]][night - days(1)] = args[1]
    elif kind == "revise" and series:
        values = world.series[series[args[0] % len(series)]]
        dates = sorted(values)
        values[dates[args[1] % len(dates)]] = args[2]
    elif kind in ("late", "state"):
        for root in roots:
            _event_in_hub(root, kind, args, night, n)


def _event_in_hub(root: Path, kind: str, args: list, night: datetime, n: int) -> None:
    hub = Hub.load(root)
    layout = hub.layout
    dues = [d for d in readers.round_dues(hub) if d <= night]
    if not dues:
        return
    due = dues[args[0] % len(dues)]
    questions = readers.load_round(hub, due)
    if kind == "late":  # a forecast file merged after the round's due time
        frame = forecast_frame(questions, np.full(len(questions), args[1]))
        write_bytes_atomic(layout.forecast(due, f"late-{n}"), to_csv_bytes(frame, FORECASTS))
        return
    unit = questions.iloc[args[1] % len(questions)]
    status = args[2]
    row = pd.DataFrame(
        [
            {
                "round": format_date(due),
                "question_id": unit["question_id"],
                "resolution_date": unit["resolution_date"],
                "recorded_at": format_ts(night),
                "status": status,
                "outcome": 1.0 if status == "resolved" else np.nan,
                "resolved_at": format_ts(night) if status == "resolved" else "",
                "value": np.nan,
                "payload_sha256": "",
            }
        ]
    )
    path = layout.data / "resolutions" / "stated.csv"
    key = ["round", "question_id", "resolution_date", "recorded_at"]
    if path.is_file() and len(as_text(read_table(path, RESOLUTIONS), RESOLUTIONS)[key].merge(as_text(row, RESOLUTIONS)[key], on=key)):
        return  # one statement of a unit an instant: a second one then is a conflict the ledger refuses
    ledger.append(path, row, RESOLUTIONS, layout.relative(path))


def data_bytes(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted((root / "data").rglob("*")) if p.is_file() and p.name != ".prescient.lock"}


# -- the recorded oracle question set --------------------------------------------------------------

ORACLE_DATA = Path(__file__).parent / "data" / "oracle"


ORACLE_FORECAST_HEADER = "question_id,prob_a,prob_b,prob_c,prob_d,reasoning\n"


LAYOFFS = question_id("Which company will announce the largest layoffs in April 2024?", "2024-04-30")


# -- the built site in the browser -----------------------------------------------------------------

# every chart of the page is drawn, but for those whose figure is fetched when a reader first shows
# their panel (data-figure-src: the home page's other boards and views) and whose panel is hidden, or
# which wait for the reader to scroll near them (the Score over time chart) and have not been fetched
CHARTS_SHOWN = """Array.from(document.querySelectorAll('.prescient-chart'))
    .filter(el => !(el.hasAttribute('data-figure-src') && (el.closest('[hidden]') || !el._prescientFetched)))"""
ALL_CHARTS_DRAWN = f"""() => {CHARTS_SHOWN}.every(el => el.querySelector('.main-svg') !== null)"""


VISIBLE_CHARTS_DRAWN = """() => Array.from(document.querySelectorAll('.prescient-chart'))
    .filter(el => el.offsetParent).every(el => el.querySelector('.main-svg') !== null)"""


def draw_shown_charts(page) -> None:
    """Scroll to every chart the page shows, one after the other, as a reader reading down the page would
    (a chart fetched when a reader nears it, the home page's Score over time, is then drawn too), and
    wait until each is drawn."""
    charts = page.locator(".prescient-chart:visible")
    for i in range(charts.count()):
        charts.nth(i).scroll_into_view_if_needed()
    page.wait_for_function(VISIBLE_CHARTS_DRAWN, timeout=20_000)


def show_every_panel(page) -> None:
    """Press the home page's board and view switches through every panel, each drawn before the next
    (their charts are fetched when first shown), and back to the first."""
    panels = page.evaluate("() => Array.from(document.querySelectorAll('.prescient-panel')).map(p => [p.dataset.board, p.dataset.view])")
    for board, view in panels[1:] + panels[:1]:
        for switch, value in (("board", board), ("view", view)):
            page.locator(f'.prescient-switch button[data-switch="{switch}"][data-value="{value}"]').click()
        page.wait_for_function(ALL_CHARTS_DRAWN, timeout=20_000)


def built_site(root: Path) -> Path:
    return root / "site_src" / "site"


def reader_context(browser, width: int):
    """A browser context as a reader's: a phone (``width`` under 500 px: touch, mobile) or a desktop."""
    phone = width < 500
    return browser.new_context(
        viewport={"width": width, "height": 900 if not phone else 844},
        is_mobile=phone,
        has_touch=phone,
        device_scale_factor=1,
        color_scheme="light",
        service_workers="block",
    )


def open_page(context, base: str, path: str):
    """``base + path`` opened in ``context`` once its charts are drawn; its console and page errors
    collect in ``page._prescient_errors``."""
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(base + path, wait_until="load")
    page.wait_for_function(ALL_CHARTS_DRAWN, timeout=20_000)
    page._prescient_errors = errors
    return page


# -- hostile text in a validation report -----------------------------------------------------------

# Hostile text, as file names (git gives any bytes but NUL and "/") and as cell content quoted in
# messages. None may inject into the PR comment, forge a line or fail to encode in any format.
HOSTILE_TEXTS = [
    "a\n| error | forged.csv | 1 | x | `ok` | a forged row |\nb",
    "x](javascript:alert(1))",
    "[click](https://evil.example)",
    "<img src=x onerror=alert(1)>",
    "@everyone and @org/team",
    "<!-- the rest is hidden",
    "``a`b```",
    "a|b\\|c",
    "\udcff\udcfe not UTF-8",
    "\u202egnp.exe",
    "a\r\n\r\n## Approved\n\n---",
    "see https://evil.example and www.evil.example",
    "$\\Huge{PASSED}$",
    "#1 and owner/repo#2",
    "\u2028x\u0085y\x00z\x1b[31m",
    " `lead and trail` ",
    "**bold** _it_ ~~gone~~ ![img](x)",
    "&lt;escaped&gt; &#60;",
]


ZWSP = "\u200b"


def markdown_cells(line: str) -> list[str]:
    """A table row split at its unescaped pipes (a pipe after an even number of backslashes)."""
    cells, start, i = [], 0, 0
    while i < len(line):
        if line[i] == "\\":
            i += 2
            continue
        if line[i] == "|":
            cells.append(line[start:i])
            start = i + 1
        i += 1
    return cells[1:] + ([line[start:]] if line[start:].strip() else [])


def assert_inert_cell(cell: str) -> None:
    """Markdown text with no markup: every special character escaped, no autolink or mention."""
    i = 0
    while i < len(cell):
        ch = cell[i]
        if ch == "\\":
            i += 2
            continue
        assert ch not in "[]`*_~!$|<>\n\r", (ch, cell)
        if ch in "@#":
            assert cell[i + 1 : i + 2] == ZWSP, cell
        i += 1
    assert "://" not in cell and "www." not in cell.lower() and "&#" not in cell and "&l" not in cell.replace("&lt;", "")


def assert_inert_markdown(text: str, report: Report) -> None:
    assert all(line.replace(ZWSP, "").isprintable() for line in text.split("\n")), "a control or format character reached the comment"
    table = [line for line in text.split("\n") if line.startswith("| ") and not line.startswith("| severity")]
    assert len(table) == min(len(report.problems), MAX_MARKDOWN_ROWS)
    for line in table:
        cells = markdown_cells(line)
        assert len(cells) == 6, line
        for cell in (cells[1], cells[3], cells[5]):  # file, column, message
            assert_inert_cell(cell.strip())
    section = text.split("Files checked:\n\n", 1)[1].split("\n\n", 1)[0]
    listed = section.split("\n")
    assert len(listed) == len(report.files)
    for line in listed:
        fence = re.match("- (`+)", line)[1]
        assert line.endswith(fence) and fence not in line[2 + len(fence) : -len(fence)], line


# -- a small ForecastBench import ------------------------------------------------------------------

MINI_QSET = {
    "forecast_due_date": "2026-01-04",
    "question_set": "2026-01-04-llm.json",
    "questions": [
        {
            "id": "m1",
            "source": "manifold",
            "question": "Will m1?",
            "resolution_criteria": "",
            "background": "",
            "url": "",
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


MINI_RSET = {
    "forecast_due_date": "2026-01-04",
    "question_set": "2026-01-04-llm.json",
    "resolutions": [
        {"id": "m1", "source": "manifold", "direction": None, "resolution_date": "2026-01-20", "resolved_to": 1.0, "resolved": True},
        {"id": "F1", "source": "fred", "direction": None, "resolution_date": "2026-01-11", "resolved_to": 0.0, "resolved": True},
        {"id": "F1", "source": "fred", "direction": None, "resolution_date": "2026-02-03", "resolved_to": 1.0, "resolved": True},
        {"id": ["F1", "m1"], "source": "fred", "direction": [1, 1], "resolution_date": "2026-01-11", "resolved_to": 0.0, "resolved": True},
    ],
}


MINI_FSET = {
    "organization": "Team A",
    "model": "Model X 1.0",
    "model_organization": "Lab",
    "question_set": "2026-01-04-llm.json",
    "forecasts": [
        {"id": "m1", "source": "manifold", "forecast": 0.8, "resolution_date": None, "reasoning": None},
        {"id": "F1", "source": "fred", "forecast": 0.4, "resolution_date": "2026-01-11", "reasoning": "r"},
    ],
}


def mini_fb(root: Path, qset=MINI_QSET, rset=MINI_RSET, fset=MINI_FSET, raw: dict[str, str] | None = None) -> tuple[Path, Path]:
    data, forecasts = root / "fb" / "datasets", root / "forecasts"
    files = {"question_sets/2026-01-04-llm.json": json.dumps(qset), "resolution_sets/2026-01-04_resolution_set.json": json.dumps(rset)}
    files.update(raw or {})
    for name, text in files.items():
        (data / name).parent.mkdir(parents=True, exist_ok=True)
        (data / name).write_text(text)
    forecasts.mkdir(parents=True, exist_ok=True)
    (forecasts / "x.json").write_text(json.dumps(fset))
    return root / "fb", forecasts


# -- a committed git season (the ``git_season`` fixture) -------------------------------------------

SEASON_NIGHTS = ("2026-01-16T00:00:00Z", "2026-01-20T00:00:00Z", "2026-02-20T00:00:00Z", "2026-03-01T00:00:00Z")  # round due 01-25


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout


def commit_at(root: Path, when: str, message: str) -> str:
    """Commit everything with author and committer dates set to ``when``; return the sha."""
    stamp = f"@{int(parse_ts(when).timestamp())} +0000"
    env = {**os.environ, "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
    git(root, "add", "-A")
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", message],
        cwd=root,
        env=env,
        check=True,
        capture_output=True,
    )
    return git(root, "rev-parse", "HEAD").strip()


def first_parent_line(repo: Path, rev: str = "HEAD") -> list[str]:
    """The commits of ``rev``'s first-parent line, newest first."""
    return [sha for sha, _ in store_git.first_parent_dates(repo, store_git.resolve_commit(repo, rev))]


def rewrite_an_observation(repo: Path) -> None:
    """Edit the value of the sim observations' second record in place (row 3 of the January ledger), uncommitted."""
    path = repo / "data/observations/sim/2026-01.csv"
    lines = path.read_text().splitlines(keepends=True)
    fields = lines[2].split(",")
    fields[3] = "0.999"
    lines[2] = ",".join(fields)
    path.write_text("".join(lines))


def git_dated(root: Path, *args: str, when: str | None = None, check: bool = True) -> str:
    """``git -C root ARGS`` as the tests' one identity (t, the hub's ``bot_email`` in SMALL_HUB), with
    author and committer dates at ``when`` if given; its output, stripped."""
    stamp = f"@{int(parse_ts(when).timestamp())} +0000" if when else None
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
        **({"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp} if stamp else {}),
    }
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, env=env, check=check).stdout.strip()


def commit_dated(root: Path, when: str, message: str) -> str:
    """Commit everything (an empty commit if nothing changed) at ``when``; return the sha."""
    git_dated(root, "add", "-A")
    git_dated(root, "commit", "-qm", message, "--allow-empty", when=when)
    return git_dated(root, "rev-parse", "HEAD")


def an_hour_after(when: str) -> str:
    return (parse_ts(when) + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")


def build_git_season(root: Path) -> Path:
    """A hub with four nightly runs, each committed an hour after its as_of, like the workflow does."""
    write_hub(root)
    git(root, "init", "-q", "-b", "main")
    commit_at(root, "2026-01-01T00:00:00Z", "hub")
    for night in SEASON_NIGHTS:
        nightly(root, parse_ts(night))
        commit_at(root, an_hour_after(night), f"nightly: data as of {night}")
    return root


# -- a hub's maintainer at the command line, with real git (tests/pipeline/test_hub_init.py, test_maintainer_actions.py)

INIT_AT = "2026-03-02T10:00:00Z"


def scene_run(*args: str, cwd: Path | None = None, at: str = INIT_AT, email: str = "alice@example.org", timeout: int = 300):
    """The command as a maintainer (alice) types it; git's dates are the scenario's, not the clock's."""
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "alice",
        "GIT_AUTHOR_EMAIL": email,
        "GIT_COMMITTER_NAME": "alice",
        "GIT_COMMITTER_EMAIL": email,
        "GIT_AUTHOR_DATE": at,
        "GIT_COMMITTER_DATE": at,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    done = subprocess.run(list(args), cwd=cwd, capture_output=True, text=True, env=env, timeout=timeout, check=False)
    assert "Traceback" not in done.stderr, done.stderr
    return done


def scene_ok(*args: str, **kw) -> str:
    done = scene_run(*args, **kw)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout


def scene_commit(hub: Path, message: str, at: str, email: str = "alice@example.org") -> None:
    scene_ok("git", "add", "-A", cwd=hub, at=at, email=email)
    scene_ok("git", "commit", "-q", "-m", message, cwd=hub, at=at, email=email)


def sim_only(text: str) -> str:
    """A `prescient init` hub.toml with the offline world as its only source, weekly rounds of 4 series, each
    frozen a week before its due time (open_days_before_due may not exceed cadence_days)."""
    for name in ("manifold", "polymarket", "kalshi", "dbnomics"):
        text = text.replace(
            f"[sources.{name}]\n# Whether the nightly asks this source.\nenabled = true",
            f"[sources.{name}]\n# Whether the nightly asks this source.\nenabled = false",
        )
    text = text.replace(
        "[sources.sim]\n# Whether the nightly asks this source.\nenabled = false",
        "[sources.sim]\n# Whether the nightly asks this source.\nenabled = true",
    )
    text = text.replace("cadence_days = 14", "cadence_days = 7").replace("open_days_before_due = 10", "open_days_before_due = 7")
    return text.replace("dataset_questions = 25", "dataset_questions = 4")


# -- ForecastBench inputs with hostile ids (tests/interop/test_fb_fast_paths.py, tests/pipeline/test_forked_processes.py)

forecast_columns_strategy = st.integers(0, 12).flatmap(
    lambda n: st.fixed_dictionaries(
        {
            "question_id": st.lists(
                st.sampled_from(["fred:a", "fred:b", "manifold:c", "x", " ", "", "a,b", 'q"']) | st.text(max_size=3), min_size=n, max_size=n
            ),
            "resolution_date": st.lists(st.sampled_from(["", "2026-01-01", "2026-02-01", "٢٠٢٦-٠١-٠١", "2026-1-1"]), min_size=n, max_size=n),
            "probability": st.lists(st.floats(0, 1) | st.sampled_from([-0.0, 0.1234565, 1e-9, 0.9999995]), min_size=n, max_size=n),
            "reasoning": st.lists(
                st.text(max_size=4) | st.sampled_from(["", "a,b", "x\ny", "\r", "\x00", "\ufeff", " ", "\x85", "\u2028", "#", "nan", "NA"]),
                min_size=n,
                max_size=n,
            ),
        }
    )
)


def bytes_or_error(write):
    try:
        return write()
    except SchemaError as exc:
        return exc.problems


# bare ids (the fast writer's), one of them read back differently (a BOM: as_read gives no frame), then ids to quote
HOSTILE_IDS = ["m1", "\u00e9\u2713 \u00fc", "x\ufeffy", 'q,"x"', "line\nbreak", "cr\rx", " edge ", "ctl\x01", "a\u2028b"]

HOSTILE_REASONS = [None, "plain", "\u00fc", "", 'a,"b"', "multi\nline\r\n", "ctl\x02", " ", "\ud800", "\ufeff"]


def hostile_fb(root: Path, questions: list[str]) -> tuple[Path, Path]:
    """FB inputs of one round whose ids and reasonings hold quotes, commas, line ends, control and
    non-ASCII characters; sets with repeated rows, rows outside the round, and an individual file."""
    data, forecasts = root / "fb" / "datasets", root / "forecasts"
    (data / "question_sets").mkdir(parents=True)
    (data / "resolution_sets").mkdir()
    forecasts.mkdir()
    q = [
        {"id": i, "source": "manifold", "question": f"Will {i}?", "freeze_datetime": "2025-12-25T00:00:00+00:00", "resolution_dates": "N/A"}
        for i in questions
    ]
    q.append(
        {
            "id": "F1",
            "source": "fred",
            "question": "F1?",
            "freeze_datetime": "2025-12-25T00:00:00+00:00",
            "resolution_dates": ["2026-01-11", "2026-02-03"],
        }
    )
    (data / "question_sets" / "2026-01-04-llm.json").write_text(
        json.dumps({"forecast_due_date": "2026-01-04", "question_set": "2026-01-04-llm.json", "questions": q})
    )
    (data / "resolution_sets" / "2026-01-04_resolution_set.json").write_text(
        json.dumps(
            {
                "forecast_due_date": "2026-01-04",
                "question_set": "2026-01-04-llm.json",
                "resolutions": [
                    {"id": "m1", "source": "manifold", "resolution_date": "2026-01-20", "resolved_to": 1.0, "resolved": True},
                    {"id": "F1", "source": "fred", "resolution_date": "2026-01-11", "resolved_to": 0.0, "resolved": True},
                ],
            }
        )
    )
    rng = np.random.default_rng(7)
    for k in range(14):
        ids, reasons = (
            (HOSTILE_IDS[:2], HOSTILE_REASONS[:4])
            if k % 3 == 1
            else (HOSTILE_IDS[:3], HOSTILE_REASONS[:4])
            if k % 3 == 2
            else (HOSTILE_IDS, HOSTILE_REASONS)
        )
        rows = [
            {
                "id": i,
                "source": "manifold",
                "forecast": float(rng.choice([0.0, 1.0, 0.1234567, 1 / 3, 0.5])),
                "resolution_date": None,
                "reasoning": reasons[(k + j) % len(reasons)],
            }
            for j, i in enumerate(ids)
            if (j + k) % 4 or len(ids) < 4
        ]
        rows += [{"id": "F1", "source": "fred", "forecast": 0.25, "resolution_date": "2026-02-03", "reasoning": "r"}]
        rows += rows[:1] * (k % 5 == 1) + [{"id": "zz", "source": "manifold", "forecast": 0.5}] * (k % 5 == 2)
        if k == 4:
            rows = [{**r, "user_id": f"u{j % 2}"} for j, r in enumerate(rows)]
        (forecasts / f"f{k:02d}.json").write_text(
            json.dumps(
                {"organization": "Team", "model": f"M{k}", "model_organization": "L", "question_set": "2026-01-04-llm.json", "forecasts": rows}
            )
        )
    return root / "fb", forecasts


def two_rounds_fb(root: Path) -> tuple[Path, Path]:
    """``hostile_fb`` with a second round (due 2026-01-18, the same questions) and five sets for it."""
    data, forecasts = hostile_fb(root, HOSTILE_IDS)
    for name in ("question_sets/2026-01-04-llm.json", "resolution_sets/2026-01-04_resolution_set.json"):
        body = json.loads((data / "datasets" / name).read_text())
        body.update(forecast_due_date="2026-01-18", question_set="2026-01-18-llm.json")
        (data / "datasets" / name.replace("01-04", "01-18")).write_text(json.dumps(body))
    for path in sorted(forecasts.glob("*.json"))[:5]:
        body = json.loads(path.read_text())
        (forecasts / f"late-{path.name}").write_text(json.dumps({**body, "question_set": "2026-01-18-llm.json"}))
    return data, forecasts
