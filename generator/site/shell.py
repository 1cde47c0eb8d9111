"""Question pages without MkDocs' per-page cost: one themed shell page, filled once per question.

An FB-scale hub asks thousands of questions. Sending each through Markdown and the Material
templates costs tens of milliseconds a page, minutes in all, for pages that share every byte of
their chrome. So the generator writes each question page's body as an HTML fragment
(``generated/question-pages/<slug>.html``, excluded from MkDocs by ``exclude_docs``) with its
title in ``pages.json``, and MkDocs builds one shell page, ``generated/questions/<SHELL>.md``.
After the build (the ``on_post_build`` hook in ``site_src/hooks/``), ``expand_question_pages``
writes ``generated/questions/<slug>/index.html`` = the shell with its markers replaced, lists
the pages in the sitemap instead of the shell, and removes the shell. Every question page sits
at the shell's depth, so the shell's relative links are right for all of them.

The markers are replaced in one pass over the shell (``fill``), so a replacement is never
scanned again: a title that contains a marker's text stays text. Titles and headings are
HTML-escaped by the generator before they get here; the body is the generator's own HTML.

Round pages go through MkDocs (each is one page with its own chrome), but their question tables
do not: at FB scale the 35 tables hold 70,000 unit rows, which Python-Markdown and the search
plugin parsed for most of MkDocs' time, only for the search to leave them out
(``data-search-exclude``). The generator writes each round's table rows as a fragment
(``generated/round-tables/<due>.html``, excluded from MkDocs) and the round page's table holds
``ROUND_TABLE``; ``fill_round_tables`` puts the rows in the built page. The marker is an HTML
comment, so no escaped text of the page can spell it, and the page is cut at it once
(``split_once``) rather than searched and replaced: the rows are never scanned.
"""

from __future__ import annotations

import gzip
import html
import json
import re
import shutil
from pathlib import Path

SHELL = "prescient-question-shell"  # the shell page's name (and the marker for the slug)
TITLE = "PRESCIENT-QUESTION-TITLE"
HEADING = "PRESCIENT-QUESTION-HEADING"
BODY = "PRESCIENT-QUESTION-BODY"
FRAGMENTS = "question-pages"  # under generated/: one <slug>.html per question + pages.json
INDEX = "pages.json"
ROUND_TABLES = "round-tables"  # under generated/: one <due>.html per round, the rows of its question table
ROUND_TABLE = "<!-- prescient-round-table -->\n"  # where a round page's question table gets them
_MARKERS = re.compile("|".join(re.escape(m) for m in (SHELL, TITLE, HEADING)))
_BODY = f"<p>{BODY}</p>"
# The table of contents' sidebar, empty and hidden on a question page (see ``light_chrome``). The
# navigation sidebar stays: on a phone it is the drawer behind the header's menu button.
_TOC = re.compile(
    r'<div class="md-sidebar md-sidebar--secondary"[^>]*>\n<div class="md-sidebar__scrollwrap">\n'
    r'<div class="md-sidebar__inner">\n<nav (?:(?!<nav |</nav>).)*</nav>\n</div>\n</div>\n</div>\n',
    re.S,
)
ICONS = "generated/assets/question-icons.svg"  # under the site: the theme's icons, shared by every question page
_ICONS_FROM_PAGE = "../../assets/question-icons.svg"  # the same file from generated/questions/<slug>/
_SVG = re.compile(r'<svg xmlns="http://www.w3.org/2000/svg" viewBox="([^"<>]*)">((?:(?!</?svg)[^<]|<(?!/?svg))*)</svg>')


class ShellError(RuntimeError):
    """The built shell page is missing a marker (the theme or the shell page changed)."""


def shell_markdown() -> str:
    """The shell page's source: out of the search index, no table of contents, the markers."""
    return f'---\ntitle: "{TITLE}"\nsearch:\n  exclude: true\nhide:\n  - toc\n---\n\n<h1>{HEADING}</h1>\n\n{BODY}\n'


def page_title(text: str, limit: int = 80) -> str:
    """The escaped ``<title>`` text of a question page: its text, cut at a word near ``limit``."""
    text = " ".join(str(text).split())
    if len(text) > limit:
        text = text[: limit - 1].rsplit(" ", 1)[0].rstrip(" ,.;:") + "…"
    return html.escape(text, quote=True)


def search_text(question_id: str) -> str:
    """What the site search finds a question page by besides its title: its id, and the id's
    native part alone (the search splits words on spaces and hyphens only, not on ``:``)."""
    native = question_id.split(":", 1)[-1]
    return html.escape(question_id if native == question_id else f"{question_id} {native}", quote=True)


def split_shell(shell: str) -> tuple[str, str]:
    """The built shell page, cut at the body marker into (before, after), each without the blank
    lines and indentation of the theme's templates (a third of a question page's weight; the
    chrome holds no ``<pre>`` or ``<textarea>`` whose text that would change)."""
    before, after = split_once(shell, _BODY, f"the built question shell does not hold exactly one {_BODY}")
    if HEADING not in before:
        raise ShellError(f"the built question shell does not hold exactly one {_BODY} after the {HEADING} heading")
    return compact(before), compact(after)


def split_once(page: str, marker: str, problem: str) -> tuple[str, str]:
    """``page`` cut at ``marker`` into (before, after); ``ShellError(problem)`` unless it holds the
    marker exactly once. What goes between the two parts is never scanned for markers."""
    before, found, after = page.partition(marker)
    if not found or marker in after:
        raise ShellError(problem)
    return before, after


def compact(part: str) -> str:
    """``part`` without blank lines and leading or trailing spaces, unless it holds preformatted text."""
    if "<pre" in part or "<textarea" in part:
        return part
    lines = [line.strip() for line in part.splitlines()]
    text = "\n".join(line for line in lines if line)
    return ("\n" if part.startswith("\n") else "") + text + ("\n" if part.endswith("\n") and text else "")


def light_chrome(part: str) -> str:
    """A compacted part of the shell without the theme's table of contents, empty and hidden on every
    question page. The navigation sidebar and the menu button stay (~1.5 KB a page): on a wide screen
    the tabs are the navigation and prescient.css hides the sidebar, but on a phone the tabs are gone
    and the sidebar is the drawer the menu button opens, the one way from a question page to the
    site's other pages. A theme whose markup differs is left as it is."""
    return _TOC.sub("", part)


def shared_icons(parts: list[str], href: str) -> tuple[list[str], str]:
    """``parts`` with each inline icon of the theme (``<svg>`` with its paths) replaced by a
    reference to one copy in a sprite file at ``href``, and that file's text. The theme draws ~10
    icons in every page's chrome (logo, menu, search, palette toggles), ~2.6 KB a page: over
    thousands of question pages, tens of MB. The icons keep their size and colour: the theme's CSS
    sizes the outer ``<svg>`` and the paths fill with its ``currentcolor``."""
    symbols: dict[tuple[str, str], str] = {}

    def reference(found: re.Match) -> str:
        name = symbols.setdefault((found[1], found[2]), f"i{len(symbols)}")
        return f'<svg viewBox="{found[1]}"><use href="{href}#{name}"/></svg>'

    out = [_SVG.sub(reference, part) for part in parts]
    sprite = "".join(f'<symbol id="{name}" viewBox="{box}">{paths}</symbol>' for (box, paths), name in symbols.items())
    return out, f'<svg xmlns="http://www.w3.org/2000/svg">{sprite}</svg>\n'


def fill(part: str, slug: str, title: str, heading: str) -> str:
    """``part`` of the shell with the slug, title and heading markers replaced in one pass."""
    values = {SHELL: slug, TITLE: title, HEADING: heading}
    return _MARKERS.sub(lambda m: values[m.group(0)], part)


def expand_question_pages(docs_dir: Path, site_dir: Path, build_time: int | None = None) -> int:
    """Write every question page from the built shell (module docstring). Return how many."""
    fragments = docs_dir / "generated" / FRAGMENTS
    shell_dir = site_dir / "generated" / "questions" / SHELL
    if not (fragments / INDEX).is_file():
        return 0
    pages = json.loads((fragments / INDEX).read_text(encoding="utf-8"))
    before, after = split_shell((shell_dir / "index.html").read_text(encoding="utf-8"))
    (before, after), icons = shared_icons([light_chrome(before), light_chrome(after)], _ICONS_FROM_PAGE)
    (site_dir / ICONS).parent.mkdir(parents=True, exist_ok=True)
    (site_dir / ICONS).write_text(icons, encoding="utf-8")
    out = site_dir / "generated" / "questions"
    for slug, head in pages.items():
        body = (fragments / f"{slug}.html").read_text(encoding="utf-8")
        page = fill(before, slug, head["title"], head["heading"]) + body + fill(after, slug, head["title"], head["heading"])
        (out / slug).mkdir(parents=True, exist_ok=True)
        (out / slug / "index.html").write_text(page, encoding="utf-8")
    shutil.rmtree(shell_dir)
    _sitemap(site_dir, list(pages), build_time)
    _search_index(site_dir, pages)
    return len(pages)


def fill_round_tables(docs_dir: Path, site_dir: Path) -> int:
    """Put each round's question-table rows into its built page (module docstring). Return how many."""
    fragments = docs_dir / "generated" / ROUND_TABLES
    count = 0
    for fragment in sorted(fragments.glob("*.html")) if fragments.is_dir() else []:
        page = site_dir / "generated" / "rounds" / fragment.stem / "index.html"
        if not page.is_file():
            raise ShellError(f"{fragment.name}: no built round page {fragment.stem} to hold its question table")
        before, after = split_once(
            page.read_text(encoding="utf-8"), ROUND_TABLE, f"the built round page {fragment.stem} does not hold exactly one {ROUND_TABLE.strip()}"
        )
        page.write_text(before + fragment.read_text(encoding="utf-8") + after, encoding="utf-8")
        count += 1
    return count


LUNR = "assets/javascripts/lunr"  # under the site: the theme's search-language scripts
_SOURCE_MAP = re.compile(r"\n//# sourceMappingURL=([A-Za-z0-9._-]+\.map)\n?$")


def lunr_scripts(languages: list[str]) -> set[str]:
    """The files under ``LUNR`` that Material's search worker imports for ``languages`` (its
    ``importScripts`` call): none for English alone; for any other language its stemmer, with the
    stemmer support, the multi-language script for more than one language, tinyseg (ja) and
    wordcut (hi, th)."""
    wanted = {f"min/lunr.{lang}.min.js" for lang in languages if lang != "en"}
    wanted |= {"tinyseg.js" for lang in languages if lang == "ja"} | {"wordcut.js" for lang in languages if lang in ("hi", "th")}
    wanted |= {"min/lunr.multi.min.js"} if len(languages) > 1 else set()
    return wanted | {"min/lunr.stemmer.support.min.js"} if wanted else set()


def prune_theme_assets(site_dir: Path) -> int:
    """Delete the theme's files that no reader's browser requests, ~2 MB of every build: the search
    scripts of languages the site's search does not use (``lunr_scripts`` of the languages in the
    search index's config; nothing when there is no index to say), and the source maps of the
    theme's minified scripts with the comment naming each (only a browser's developer tools fetch
    a map, and then they find none rather than a missing file). Return the bytes removed."""
    removed = 0
    index = site_dir / "search" / "search_index.json"
    lunr = site_dir / LUNR
    if index.is_file() and lunr.is_dir():
        languages = json.loads(index.read_text(encoding="utf-8")).get("config", {}).get("lang", [])
        known = isinstance(languages, list) and bool(languages)  # else which scripts the search needs is not known
        keep = lunr_scripts([str(lang) for lang in languages]) if known else set()
        for path in sorted(p for p in lunr.rglob("*") if p.is_file()) if known else []:
            if path.relative_to(lunr).as_posix() not in keep:
                removed += path.stat().st_size
                path.unlink()
        for folder in [*sorted((p for p in lunr.rglob("*") if p.is_dir()), reverse=True), lunr]:
            if not any(folder.iterdir()):
                folder.rmdir()
    for script in sorted((site_dir / "assets" / "javascripts").rglob("*.min.js")):
        text = script.read_text(encoding="utf-8")
        found = _SOURCE_MAP.search(text)
        if found and (script.parent / found[1]).is_file():
            removed += (script.parent / found[1]).stat().st_size + len(found[0].encode()) - 1
            (script.parent / found[1]).unlink()
            script.write_text(text[: found.start()] + "\n", encoding="utf-8")
    return removed


def _search_index(site_dir: Path, pages: dict[str, dict]) -> None:
    """List every question page in the site search's index by its title (the question) and its id;
    the pages' bodies stay out (thousands of forecast tables would swell the index for nothing)."""
    path = site_dir / "search" / "search_index.json"
    if not path.is_file():
        return
    index = json.loads(path.read_text(encoding="utf-8"))
    index["docs"] = [d for d in index["docs"] if not d.get("location", "").startswith("generated/questions/")]
    index["docs"] += [
        {"location": f"generated/questions/{slug}/", "title": head["heading"], "text": head.get("search", "")} for slug, head in pages.items()
    ]
    path.write_text(json.dumps(index, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")


def _sitemap(site_dir: Path, slugs: list[str], build_time: int | None) -> None:
    """List the question pages in sitemap.xml (and its .gz) where the shell was listed."""
    path = site_dir / "sitemap.xml"
    if not path.is_file():
        return
    text = path.read_text(encoding="utf-8")
    entry = re.search(r"[ \t]*<url>(?:(?!</url>).)*?" + re.escape(SHELL) + r"/.*?</url>\n?", text, re.S)
    if not entry:
        return
    block = entry.group(0)
    listed = "".join(block.replace(SHELL, slug) for slug in slugs)
    text = text[: entry.start()] + listed + text[entry.end() :]
    path.write_text(text, encoding="utf-8")
    gz = site_dir / "sitemap.xml.gz"
    if gz.is_file():
        with gz.open("wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", filename="sitemap.xml", mtime=build_time or 0) as zipped:
            zipped.write(text.encode("utf-8"))
