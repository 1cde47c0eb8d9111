"""Every internal link and asset of the built demo site resolves to a file: no 404 on any page.

The crawl reads the HTML as a browser receives it (``site_src/site``, after MkDocs and the question
page hook), resolves each ``href`` and ``src`` against the page's own URL, as the browser would with
``use_directory_urls``, and looks the target up on disk. External, ``mailto:``, ``data:`` and
``javascript:`` references are out of scope; a fragment (``#…``) must name an element of its page.
"""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import pytest

ORIGIN = "http://hub.invalid/"


class _References(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found += [value for name, value in attrs if name in ("href", "src") and value]
        self.ids |= {value for name, value in attrs if name == "id" and value}


def references(html: str) -> list[str]:
    parser = _References()
    parser.feed(html)
    return parser.found


def target(site: Path, page: str, reference: str) -> Path | None:
    """The file a same-site reference on ``page`` points to, or None when it leaves the site."""
    url = urlsplit(urljoin(ORIGIN + page, reference))
    if f"{url.scheme}://{url.netloc}/" != ORIGIN:
        return None  # another scheme or host: http(s) elsewhere, mailto:, data:, javascript:
    path = site / unquote(url.path).lstrip("/")
    return path / "index.html" if url.path.endswith("/") or path.is_dir() else path


def broken_links(site: Path) -> dict[str, list[str]]:
    """{page: [references that resolve to no file]} over every HTML page of a built site."""
    broken: dict[str, list[str]] = {}
    for page in sorted(site.rglob("*.html")):
        name = page.relative_to(site).as_posix()
        for reference in references(page.read_text(encoding="utf-8")):
            path = target(site, name, reference)
            if path is not None and not path.is_file():
                broken.setdefault(name, []).append(reference)
    return broken


def test_the_crawler_sees_a_broken_link(tmp_path: Path) -> None:
    (tmp_path / "models/a").mkdir(parents=True)
    (tmp_path / "models/a/index.html").write_text("<a href='../../'>home</a><img src='x.png'>")
    (tmp_path / "index.html").write_text(
        "<a href='models/a/'>ok</a><a href='models/b/'>404</a><a href='https://example.org/'>out</a>"
        "<a href='#top'>in page</a><a href='mailto:x@example.org'>mail</a><script src='app.js'></script>"
    )
    assert broken_links(tmp_path) == {"index.html": ["models/b/", "app.js"], "models/a/index.html": ["x.png"]}


def broken_anchors(site: Path) -> dict[str, list[str]]:
    """{page: [references whose fragment names no element of the page they lead to]}."""
    parsed: dict[Path, _References] = {}

    def of(path: Path) -> _References:
        if path not in parsed:
            parsed[path] = _References()
            parsed[path].feed(path.read_text(encoding="utf-8"))
        return parsed[path]

    broken: dict[str, list[str]] = {}
    for page in sorted(site.rglob("*.html")):
        name = page.relative_to(site).as_posix()
        for reference in of(page).found:
            fragment, path = urlsplit(reference).fragment, target(site, name, reference)
            if fragment and path is not None and path.suffix == ".html" and path.is_file() and unquote(fragment) not in of(path).ids:
                broken.setdefault(name, []).append(reference)
    return broken


def test_the_crawler_sees_a_broken_anchor(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a/index.html").write_text("<h2 id='rules'>Rules</h2>")
    (tmp_path / "index.html").write_text("<p id='top'></p><a href='#top'>ok</a><a href='#gone'>no</a><a href='a/#rules'>ok</a><a href='a/#x'>no</a>")
    assert broken_anchors(tmp_path) == {"index.html": ["#gone", "a/#x"]}


def test_every_anchor_of_the_demo_site_names_an_element(demo_hub: Path) -> None:
    broken = broken_anchors(demo_hub / "site_src/site")
    assert not broken, {page: refs[:5] for page, refs in list(broken.items())[:10]}


def test_every_internal_link_of_the_demo_site_resolves(demo_hub: Path) -> None:
    site = demo_hub / "site_src/site"
    pages = list(site.rglob("*.html"))
    assert len(pages) > 50, "the demo site has its model, round and question pages"
    broken = broken_links(site)
    assert not broken, {page: refs[:5] for page, refs in list(broken.items())[:10]}


@pytest.mark.parametrize("page", ["index.html", "generated/models/index.html"])
def test_board_rows_link_to_model_pages(demo_hub: Path, page: str) -> None:
    site = demo_hub / "site_src/site"
    index = site / "generated/models/index.html"
    links = [r for r in references((site / page).read_text(encoding="utf-8")) if "models/" in r]
    models = {target(site, page, r) for r in links} - {index}  # the Models tab leads to the index
    assert len(models) >= 5 and all(m is not None and m.is_file() for m in models)
    assert all(m.parent.parent == index.parent for m in models)
