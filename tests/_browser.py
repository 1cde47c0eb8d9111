"""Helpers the browser tests share: the browser itself, screenshots kept as artifacts, and what
a page weighs.

A browser test module calls ``require_browser()`` before it imports Playwright: the module is
skipped, with the reason, where Debian's Chromium (/usr/bin/chromium) or Playwright for Python is
missing, and fails instead under ``PRESCIENT_REQUIRE_BROWSER=1`` (what ``.ci/run`` sets). Never
downloads a browser: install Chromium with ``apt-get install -y chromium``. The ``browser``
fixture (conftest.py makes it every test's) launches that Chromium headless, once per module.

``serve(site)`` serves a built site on a free local port as ``prescient serve`` does (the site's own
404 page included), quietly and with cache headers so one browser context loads plotly.js once.

Screenshots go to ``test-artifacts/screenshots/`` (git-ignored) as ``<page>-<width>.png``; the
run prints where (pytest -s, or the captured output of a failing test). CI keeps the folder.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import os
import threading
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from generator.site.serve import SiteHandler

ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"
SCREENSHOTS = ARTIFACTS / "screenshots"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-gpu"]


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


@pytest.fixture(scope="module")
def browser() -> Iterator:
    """Headless Chromium for one test module (a ``playwright.sync_api.Browser``)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


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
