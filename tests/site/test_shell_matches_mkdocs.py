"""A question page written from the shell (``site.shell``) has the chrome MkDocs itself renders for the
same page: header, tabs, the navigation drawer, footer and everything else around the body.

A tiny hub's site is built for real (``build_site``: ``mkdocs build --strict`` and the post-build hook
that fills the shell once per question). Then the same hub's docs are built again with one question's
page given to MkDocs as an ordinary Markdown page: the shell page's front matter and heading, at the
page's own path (so every relative link is the same), the shell and the fragments left out. The two
pages are cut at the body and their parts compared after normalising what the shell changes on
purpose, and only that:

- whitespace: the shell drops the theme templates' indentation and blank lines (``compact``); the
  chrome holds no ``<pre>`` or ``<textarea>``, where that would matter. Both sides are compared line
  by line, each line stripped, blank lines dropped.
- icons: the shell moves each inline ``<svg>`` icon into one sprite file and refers to it
  (``shared_icons``). The references are put back from the sprite, to the byte of MkDocs' own
  ``<svg>``.
- the table of contents: the shell drops its sidebar (``light_chrome``), which MkDocs renders
  ``hidden`` and empty on a page with ``hide: [toc]``. The test checks that it is so in MkDocs' page,
  then drops it there too.

Nothing else is normalised: the title, the heading in the header, the tabs, the drawer with the menu
button, the search, the palette, the footer and the scripts must be MkDocs' own.
"""

from __future__ import annotations

import difflib
import html
import json
import re
import shutil
from pathlib import Path

import pytest

from generator.site import shell
from generator.site.build import build_site, run_mkdocs_build
from generator.store.hub import Hub
from generator.timeutil import parse_ts

from helpers import SEASON_NIGHTS

pytestmark = pytest.mark.e2e  # two real MkDocs builds

AS_OF = parse_ts(SEASON_NIGHTS[-1])
MARK = "PRESCIENT-MKDOCS-OWN-BODY"
_TOC = re.compile(
    r'<div class="md-sidebar md-sidebar--secondary"[^>]*>\n<div class="md-sidebar__scrollwrap">.*?</nav>\n</div>\n</div>\n</div>\n', re.S
)
_REFERENCE = re.compile(r'<svg viewBox="([^"]*)"><use href="[^"#]*#(i\d+)"/></svg>')
_SYMBOL = re.compile(r'<symbol id="(i\d+)" viewBox="([^"]*)">(.*?)</symbol>', re.S)
PARTS = {  # the chrome's parts, each compared on its own before the whole
    "header": re.compile(r'<header class="md-header".*?</header>', re.S),
    "menu button": re.compile(r'<label class="md-header__button md-icon" for="__drawer">.*?</label>', re.S),
    "tabs": re.compile(r'<nav class="md-tabs".*?</nav>', re.S),
    "drawer": re.compile(r'<div class="md-sidebar md-sidebar--primary".*?</nav>\n</div>\n</div>\n</div>', re.S),
    "footer": re.compile(r'<footer class="md-footer">.*?</footer>', re.S),
}


def lines(part: str) -> str:
    """``part`` with each line stripped and the blank lines dropped."""
    return "\n".join(line.strip() for line in part.splitlines() if line.strip())


def icons_put_back(part: str, sprite: str) -> str:
    """Each reference to the sprite replaced by the inline icon the theme wrote."""
    symbols = {name: (box, paths) for name, box, paths in _SYMBOL.findall(sprite)}

    def inline(found: re.Match) -> str:
        box, paths = symbols[found[2]]
        assert box == found[1], found[0]
        return f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="{box}">{paths}</svg>'

    return _REFERENCE.sub(inline, part)


def without_the_hidden_toc(part: str) -> str:
    """MkDocs' page without the table of contents' sidebar, which must be hidden and hold no link."""
    found = _TOC.findall(part)
    assert len(found) <= 1 and all(" hidden>" in toc.split("\n", 1)[0] and "<a " not in toc for toc in found), found
    return _TOC.sub("", part)


def same(name: str, shell_text: str, mkdocs_text: str) -> None:
    diff = "\n".join(difflib.unified_diff(mkdocs_text.splitlines(), shell_text.splitlines(), "mkdocs", "shell", lineterm="", n=2))
    assert shell_text == mkdocs_text, f"{name} differs from MkDocs' own:\n{diff}"


@pytest.fixture(scope="module")
def pages(git_season: Path, tmp_path_factory) -> tuple[str, str, str]:
    """(the shell's page, MkDocs' own page, the question's slug), one question of a tiny hub's site; the
    pages line by line (``lines``), the shell's with its icons put back and ``MARK`` for its body."""
    root = Path(shutil.copytree(git_season, tmp_path_factory.mktemp("shell") / "hub"))
    build_site(root, AS_OF)
    docs, site = root / "site_src" / "docs", root / "site_src" / "site"
    heads = json.loads((docs / "generated" / shell.FRAGMENTS / shell.INDEX).read_text(encoding="utf-8"))
    slug = next(s for s, head in sorted(heads.items()) if head["title"] == html.unescape(head["title"]))  # a title with nothing escaped
    shell_page = (site / "generated" / "questions" / slug / "index.html").read_text(encoding="utf-8")
    body = (docs / "generated" / shell.FRAGMENTS / f"{slug}.html").read_text(encoding="utf-8")
    before, found, after = shell_page.partition(body)
    assert found and body not in after
    sprite = (site / shell.ICONS).read_text(encoding="utf-8")

    own = Path(shutil.copytree(root / "site_src", tmp_path_factory.mktemp("own") / "site_src", ignore=shutil.ignore_patterns("site")))
    questions = own / "docs" / "generated" / "questions"
    (questions / f"{shell.SHELL}.md").unlink()
    shutil.rmtree(own / "docs" / "generated" / shell.FRAGMENTS)
    source = shell.shell_markdown().replace(shell.TITLE, heads[slug]["title"]).replace(shell.HEADING, heads[slug]["heading"])
    (questions / f"{slug}.md").write_text(source.replace(shell.BODY, MARK), encoding="utf-8")
    settings = Hub.load(root).settings
    run_mkdocs_build(own / "mkdocs.yml", AS_OF, settings.title, site_description=settings.description, site_url=settings.site_url or None)
    mkdocs_page = (own / "site" / "generated" / "questions" / slug / "index.html").read_text(encoding="utf-8")
    return lines(icons_put_back(before, sprite) + MARK + icons_put_back(after, sprite)), lines(mkdocs_page), slug


@pytest.mark.parametrize("name", sorted(PARTS))
def test_each_part_of_the_chrome_is_mkdocs_own(pages, name: str):
    shell_page, mkdocs_page, _ = pages
    mine, theirs = PARTS[name].findall(shell_page), PARTS[name].findall(mkdocs_page)
    assert len(theirs) == 1, f"MkDocs' page has {len(theirs)} {name}(s): the theme changed, and so must this test"
    assert len(mine) == 1, f"the shell's page has {len(mine)} {name}(s)"
    same(name, mine[0], theirs[0])


def test_the_whole_page_around_the_body_is_mkdocs_own(pages):
    shell_page, mkdocs_page, _ = pages
    mkdocs_before, mkdocs_after = shell.split_once(without_the_hidden_toc(mkdocs_page), f"<p>{MARK}</p>", "MkDocs' page lost its body")
    shell_before, shell_after = shell.split_once(shell_page, MARK, "the shell's page lost its body")
    same("the page before the body", shell_before, mkdocs_before)
    same("the page after the body", shell_after, mkdocs_after)
    assert "md-sidebar--secondary" in mkdocs_page and "md-sidebar--secondary" not in shell_page  # the one part dropped
