"""Helpers the browser tests share: screenshots kept as artifacts, and what a page weighs.

Screenshots go to ``test-artifacts/screenshots/`` (git-ignored) as ``<page>-<width>.png``; the
run prints where (pytest -s, or the captured output of a failing test). CI keeps the folder.
"""

from __future__ import annotations

import gzip
from pathlib import Path
from urllib.parse import unquote, urlsplit

ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"
SCREENSHOTS = ARTIFACTS / "screenshots"


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
