"""Question pages filled from one built shell page (generator/site/shell.py)."""

from __future__ import annotations

import gzip
import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from generator.site import shell
from generator.site.payloads import FORECAST_COLUMNS, forecast_payload, script_json

SHELL_HTML = (
    f"<html><head><title>{shell.TITLE} - Hub</title>"
    f'<link rel="canonical" href="https://x.org/generated/questions/{shell.SHELL}/"></head>'
    f"<body><h1>{shell.HEADING}</h1>\n<p>{shell.BODY}</p>\n<footer>{shell.TITLE}</footer></body></html>"
)


def test_fill_replaces_every_marker_once_and_never_rescans_a_value() -> None:
    before, after = shell.split_shell(SHELL_HTML)
    hostile = f"{shell.HEADING} &lt;b&gt; {shell.SHELL}"  # a title that quotes the markers stays as it is
    page = shell.fill(before, "src--q1", hostile, "Heading") + "BODY" + shell.fill(after, "src--q1", hostile, "Heading")
    assert page == (
        f"<html><head><title>{hostile} - Hub</title>"
        '<link rel="canonical" href="https://x.org/generated/questions/src--q1/"></head>'
        f"<body><h1>Heading</h1>\nBODY\n<footer>{hostile}</footer></body></html>"
    )


@pytest.mark.parametrize(
    "html",
    [SHELL_HTML.replace(shell.BODY, "x"), SHELL_HTML.replace(shell.HEADING, "x"), SHELL_HTML.replace("</body>", f"<p>{shell.BODY}</p></body>")],
)
def test_a_shell_without_exactly_one_body_marker_after_the_heading_is_refused(html: str) -> None:
    with pytest.raises(shell.ShellError, match="question shell"):
        shell.split_shell(html)


def test_the_themes_icons_are_shared_through_one_sprite_file() -> None:
    logo = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path d="M1 2"/></svg>'
    menu = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 20 20"><path d="M3 4"/><path d="M5 6"/></svg>'
    parts, sprite = shell.shared_icons([f"<a>{logo}</a>{menu}", f"<nav>{logo}</nav>"], "icons.svg")
    assert parts == [
        '<a><svg viewBox="0 0 24 24"><use href="icons.svg#i0"/></svg></a><svg viewBox="0 0 20 20"><use href="icons.svg#i1"/></svg>',
        '<nav><svg viewBox="0 0 24 24"><use href="icons.svg#i0"/></svg></nav>',
    ], "one symbol per distinct icon"
    assert sprite == (
        '<svg xmlns="http://www.w3.org/2000/svg"><symbol id="i0" viewBox="0 0 24 24"><path d="M1 2"/></symbol>'
        '<symbol id="i1" viewBox="0 0 20 20"><path d="M3 4"/><path d="M5 6"/></symbol></svg>\n'
    )
    nested = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"><svg><path/></svg></svg>'
    assert shell.shared_icons([nested], "x")[0] == [nested], "an svg holding another is left as it is"


CHROME = """<header>
<label class="md-header__button md-icon" for="__drawer">
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path d="M3 6h18"/></svg>
</label>
<a href="../../..">logo</a>
</header>
<main>
<div class="md-sidebar md-sidebar--primary" data-md-component="sidebar" data-md-type="navigation" >
<div class="md-sidebar__scrollwrap">
<div class="md-sidebar__inner">
<nav class="md-nav md-nav--primary" aria-label="Navigation" data-md-level="0">
<ul><li><a href="../../rounds/">Rounds</a></li></ul>
</nav>
</div>
</div>
</div>
<div class="md-sidebar md-sidebar--secondary" data-md-component="sidebar" data-md-type="toc" hidden>
<div class="md-sidebar__scrollwrap">
<div class="md-sidebar__inner">
<nav class="md-nav md-nav--secondary" aria-label="Table of contents">
</nav>
</div>
</div>
</div>
<div class="md-content">
"""


def test_question_pages_leave_out_the_empty_table_of_contents_and_keep_the_menu_and_its_drawer() -> None:
    light = shell.light_chrome(CHROME)
    assert light == CHROME[: CHROME.index('<div class="md-sidebar md-sidebar--secondary"')] + '<div class="md-content">\n'
    assert 'for="__drawer"' in light and "md-sidebar--primary" in light and '<a href="../../rounds/">Rounds</a>' in light
    nested = CHROME.replace(
        '</nav>\n</div>\n</div>\n</div>\n<div class="md-content">',
        '<nav class="md-nav"></nav></nav>\n</div>\n</div>\n</div>\n<div class="md-content">',
    )
    assert "md-sidebar--secondary" in shell.light_chrome(nested), "a sidebar whose markup differs is not cut blindly"


def test_page_titles_are_escaped_and_cut_at_a_word() -> None:
    assert shell.page_title('Will <b>"x"</b> & y?') == "Will &lt;b&gt;&quot;x&quot;&lt;/b&gt; &amp; y?"
    long = shell.page_title("word " * 40)
    assert len(long) <= 80 and long.endswith("word…")


def test_payload_is_compact_complete_and_inert_in_a_script_element() -> None:
    import pandas as pd

    rows = pd.DataFrame(
        [
            ["2026-01-04", "a.m", "2026-02-01", 0.25, 1.0, 0.5625, ""],
            ["2026-01-04", "b.m", "2026-02-01", 0.5, 1.0, 0.25, "</script><script>alert(1)</script>"],
            ["2026-01-18", "a.m", "2026-03-01", 0.125, float("nan"), float("nan"), "x" * 400],
        ],
        columns=FORECAST_COLUMNS,
    )
    payload = forecast_payload(rows)
    assert payload["rounds"] == ["2026-01-04", "2026-01-18"] and set(payload) == {"rounds", "units", "p", "why"}
    # per unit: round, date, outcome, and its models (indexes into the sorted ids) as [gap, length] runs
    assert payload["units"] == [[0, "2026-02-01", 1, [0, 2]], [1, "2026-03-01", None, [0, 1]]]
    assert payload["p"] == [0.25, 0.5, 0.125]
    assert payload["why"][0] == [1, "</script><script>alert(1)</script>"] and len(payload["why"][1][1]) == 300
    shared = ["a.m", "a.n", "b.m", "c.m"]  # the list every page shares: b.m is index 2
    assert forecast_payload(rows, shared)["units"] == [[0, "2026-02-01", 1, [0, 1, 1, 1]], [1, "2026-03-01", None, [0, 1]]]
    with pytest.raises(ValueError, match="shared model list"):
        forecast_payload(rows, ["a.m"])
    text = script_json(payload)
    assert "<" not in text and ">" not in text and "&" not in text
    import json

    assert json.loads(text) == payload


def test_model_runs_round_trip_whatever_the_models_of_each_unit() -> None:
    """Gaps, runs and units without one model in common decode to the rows in unit, model order."""
    import numpy as np
    import pandas as pd

    shared = [f"t.m{i:02d}" for i in range(12)]
    picks = {("2026-01-04", "2026-02-01"): [0, 1, 2, 5, 6, 11], ("2026-01-04", "2026-03-01"): [3], ("2026-01-18", "2026-02-01"): [4, 5, 7, 8, 9, 10]}
    rows = pd.DataFrame(
        [[r, shared[i], d, i / 20, float("nan"), float("nan"), ""] for (r, d), chosen in picks.items() for i in reversed(chosen)],
        columns=FORECAST_COLUMNS,
    )
    payload = forecast_payload(rows, shared)
    assert [u[3] for u in payload["units"]] == [[0, 3, 2, 2, 4, 1], [3, 1], [4, 2, 1, 4]]
    from generator.site.payloads import payload_rows

    u, m = payload_rows(payload)
    assert m.tolist() == [i for chosen in picks.values() for i in sorted(chosen)]
    assert u.tolist() == [k for k, chosen in enumerate(picks.values()) for _ in chosen]
    assert np.allclose(payload["p"], m / 20), "each probability stays with its model"


def test_the_sitemap_lists_every_question_page_instead_of_the_shell(demo_hub: Path, tmp_path: Path) -> None:
    """A real MkDocs build of the demo's site with a site_url, so that MkDocs writes a sitemap."""
    from generator.site.build import run_mkdocs_build

    site_src = tmp_path / "site_src"
    shutil.copytree(demo_hub / "site_src", site_src, ignore=shutil.ignore_patterns("site"))
    config = site_src / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8") + "site_url: https://hub.example.org/\n", encoding="utf-8")
    run_mkdocs_build(config, datetime(2026, 7, 10, tzinfo=UTC), "Hub")
    slugs = sorted(p.stem for p in (site_src / "docs/generated/question-pages").glob("*.html"))
    sitemap = (site_src / "site/sitemap.xml").read_text(encoding="utf-8")
    assert shell.SHELL not in sitemap
    for slug in slugs:
        assert f"<loc>https://hub.example.org/generated/questions/{slug}/</loc>" in sitemap
    assert sitemap.count("<url>") == sitemap.count("</url>") > len(slugs)
    assert gzip.decompress((site_src / "site/sitemap.xml.gz").read_bytes()).decode("utf-8") == sitemap
    page = (site_src / "site/generated/questions" / slugs[0] / "index.html").read_text(encoding="utf-8")
    assert f'<link rel="canonical" href="https://hub.example.org/generated/questions/{slugs[0]}/">' in page


def test_a_second_mkdocs_build_writes_the_same_bytes_question_pages_included(demo_hub: Path, tmp_path: Path) -> None:
    from generator.pipeline.demo import SEASON_END
    from generator.site.build import run_mkdocs_build

    site_src = tmp_path / "site_src"
    shutil.copytree(demo_hub / "site_src", site_src, ignore=shutil.ignore_patterns("site"))

    def build() -> dict[str, bytes]:
        run_mkdocs_build(site_src / "mkdocs.yml", SEASON_END, "Hub")
        return {p.relative_to(site_src).as_posix(): p.read_bytes() for p in sorted((site_src / "site").rglob("*")) if p.is_file()}

    first = build()
    assert sum(1 for p in first if p.startswith("site/generated/questions/")) > 100
    assert build() == first


def test_a_hub_whose_mkdocs_yml_predates_the_hook_gets_a_clear_error(demo_hub: Path, tmp_path: Path) -> None:
    import re

    from generator.pipeline.demo import SEASON_END
    from generator.site.build import BuildError, run_mkdocs_build

    site_src = tmp_path / "site_src"
    shutil.copytree(demo_hub / "site_src", site_src, ignore=shutil.ignore_patterns("site"))
    config = site_src / "mkdocs.yml"
    text = config.read_text(encoding="utf-8")
    config.write_text(re.sub(r"  - hooks/question_pages.py\n", "", text), encoding="utf-8")
    with pytest.raises(BuildError, match=r"question pages were not written.*hooks/question_pages.py"):
        run_mkdocs_build(config, SEASON_END, "Hub")


def test_a_broken_shell_is_a_build_error_naming_the_question_pages(demo_hub: Path, tmp_path: Path, caplog) -> None:
    from generator.pipeline.demo import SEASON_END
    from generator.site.build import BuildError, run_mkdocs_build

    site_src = tmp_path / "site_src"
    shutil.copytree(demo_hub / "site_src", site_src, ignore=shutil.ignore_patterns("site"))
    shell_page = site_src / "docs/generated/questions" / f"{shell.SHELL}.md"
    shell_page.write_text(shell_page.read_text(encoding="utf-8").replace(shell.BODY, "lost"), encoding="utf-8")
    with pytest.raises(BuildError, match="mkdocs build --strict failed"):
        run_mkdocs_build(site_src / "mkdocs.yml", SEASON_END, "Hub")
    assert "question pages: the built question shell does not hold exactly one" in caplog.text  # MkDocs' own error log


def test_a_round_tables_rows_go_in_at_the_marker_once_and_are_never_rescanned(tmp_path: Path) -> None:
    docs, site = tmp_path / "docs", tmp_path / "site"
    (docs / "generated" / shell.ROUND_TABLES).mkdir(parents=True)
    page = site / "generated/rounds/2026-01-04/index.html"
    page.parent.mkdir(parents=True)
    # a model name that quotes the marker is escaped by the templates: it cannot spell the comment
    page.write_text(f"<td>&lt;!-- prescient-round-table --&gt;</td>\n<table>\n{shell.ROUND_TABLE}</table>\n", encoding="utf-8")
    rows = f"<tbody>\n<tr><td>{shell.ROUND_TABLE}</td></tr>\n</tbody>\n"  # rows holding the marker's text stay as they are
    (docs / "generated" / shell.ROUND_TABLES / "2026-01-04.html").write_text(rows, encoding="utf-8")
    assert shell.fill_round_tables(docs, site) == 1
    assert page.read_text(encoding="utf-8") == f"<td>&lt;!-- prescient-round-table --&gt;</td>\n<table>\n{rows}</table>\n"
    page.write_text(f"<table>\n{shell.ROUND_TABLE}{shell.ROUND_TABLE}</table>\n", encoding="utf-8")
    with pytest.raises(shell.ShellError, match="does not hold exactly one"):
        shell.fill_round_tables(docs, site)
    page.unlink()
    with pytest.raises(shell.ShellError, match="no built round page"):
        shell.fill_round_tables(docs, site)


def test_every_round_pages_question_table_is_in_the_built_page(demo_hub: Path) -> None:
    """The rows are written beside the Markdown, not in it, and reach the reader's page intact."""
    generated, site = demo_hub / "site_src/docs/generated", demo_hub / "site_src/site/generated"
    dues = sorted(p.stem for p in (generated / "rounds").glob("*.md") if p.stem != "index")
    assert dues and sorted(p.stem for p in (generated / shell.ROUND_TABLES).glob("*.html")) == dues
    for due in dues:
        rows = (generated / shell.ROUND_TABLES / f"{due}.html").read_text(encoding="utf-8")
        assert "prescient-round-questions" not in rows and rows.count("../../questions/") > 0
        assert "../../questions/" not in (generated / "rounds" / f"{due}.md").read_text(encoding="utf-8")
        built = (site / "rounds" / due / "index.html").read_text(encoding="utf-8")
        assert shell.ROUND_TABLE not in built
        assert (f'<table class="prescient-table prescient-round-questions" data-sortable data-search-exclude>\n{rows}</table>') in built
    assert not (site / shell.ROUND_TABLES).exists(), "the fragments are not published on their own"


def test_a_hub_whose_mkdocs_yml_predates_the_round_tables_gets_a_clear_error(demo_hub: Path, tmp_path: Path) -> None:
    from generator.pipeline.demo import SEASON_END
    from generator.site.build import BuildError, run_mkdocs_build

    site_src = tmp_path / "site_src"
    shutil.copytree(demo_hub / "site_src", site_src, ignore=shutil.ignore_patterns("site"))
    config = site_src / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8").replace(f"  generated/{shell.ROUND_TABLES}/\n", ""), encoding="utf-8")
    with pytest.raises(BuildError, match=r"question tables were not filled in.*round-tables"):
        run_mkdocs_build(config, SEASON_END, "Hub")


def test_the_payloads_of_many_questions_at_once_are_each_questions_own_payload() -> None:
    """question_infos builds every page's payload in one pass (forecast_payloads): each must be what
    forecast_payload gives for that question's rows alone, whatever the other questions hold."""
    import numpy as np
    import pandas as pd

    from generator.site.payloads import forecast_payloads

    rng = np.random.default_rng(7)
    shared = [f"t.m{i:02d}" for i in range(9)]
    rows = []
    for k in range(30):
        rounds = rng.choice(["2026-01-04", "2026-01-18", "2026-02-01", "2026-02-15"], size=rng.integers(1, 4), replace=False)
        for r in rounds:
            dates = [None] if k % 3 == 0 else list(rng.choice(["2026-03-01", "2026-04-01", "2026-05-01"], size=2, replace=False))
            for d in dates:
                for i in rng.choice(len(shared), size=rng.integers(1, len(shared)), replace=False):
                    p = float("nan") if rng.random() < 0.05 else float(rng.integers(0, 1000)) / 999
                    outcome = float("nan") if d == "2026-05-01" or rng.random() < 0.3 else float(rng.integers(0, 2))
                    rows.append(
                        [
                            f"q:{k:02d}",
                            r,
                            shared[i],
                            d,
                            p,
                            outcome,
                            float("nan"),
                            "because" if rng.random() < 0.1 else (None if rng.random() < 0.5 else ""),
                        ]
                    )
    frame = pd.DataFrame(rows, columns=["question_id", *FORECAST_COLUMNS]).sort_values("question_id", kind="mergesort")
    together = forecast_payloads(frame, shared)
    assert sorted(together) == sorted(set(frame["question_id"]))
    for qid, own in frame.groupby("question_id"):
        assert together[qid] == forecast_payload(own.drop(columns="question_id"), shared), qid


def _theme_site(root: Path, languages: list[str]) -> Path:
    """A built site's search index config and theme scripts, as Material writes them."""
    (root / "search").mkdir(parents=True)
    config = {"config": {"lang": languages, "separator": "[\\s]+"}, "docs": []}
    (root / "search" / "search_index.json").write_text(json.dumps(config), encoding="utf-8")
    scripts = root / "assets" / "javascripts"
    for name in (
        "lunr/tinyseg.js",
        "lunr/wordcut.js",
        "lunr/min/lunr.ja.min.js",
        "lunr/min/lunr.de.min.js",
        "lunr/min/lunr.multi.min.js",
        "lunr/min/lunr.stemmer.support.min.js",
    ):
        (scripts / name).parent.mkdir(parents=True, exist_ok=True)
        (scripts / name).write_text("x" * 100, encoding="utf-8")
    (scripts / "workers").mkdir()
    (scripts / "bundle.abc.min.js").write_text("code();\n//# sourceMappingURL=bundle.abc.min.js.map\n", encoding="utf-8")
    (scripts / "bundle.abc.min.js.map").write_text("{}" * 500, encoding="utf-8")
    (scripts / "workers" / "search.d.min.js").write_text("work();\n//# sourceMappingURL=search.d.min.js.map", encoding="utf-8")
    (scripts / "workers" / "search.d.min.js.map").write_text("{}" * 50, encoding="utf-8")
    return scripts


def test_an_english_site_ships_no_search_language_script_and_no_source_map(tmp_path: Path) -> None:
    scripts = _theme_site(tmp_path, ["en"])
    removed = shell.prune_theme_assets(tmp_path)
    assert not (scripts / "lunr").exists()
    assert sorted(p.relative_to(scripts).as_posix() for p in scripts.rglob("*") if p.is_file()) == ["bundle.abc.min.js", "workers/search.d.min.js"]
    assert (scripts / "bundle.abc.min.js").read_text(encoding="utf-8") == "code();\n"
    assert (scripts / "workers" / "search.d.min.js").read_text(encoding="utf-8") == "work();\n"
    assert (
        removed
        == 6 * 100 + 1000 + 100 + len("//# sourceMappingURL=bundle.abc.min.js.map\n") + len("//# sourceMappingURL=search.d.min.js.map") - 1 + 1
    )  # the worker's comment had no newline of its own
    assert shell.prune_theme_assets(tmp_path) == 0  # nothing left to remove: a second build removes nothing


def test_the_scripts_of_the_search_languages_stay(tmp_path: Path) -> None:
    scripts = _theme_site(tmp_path, ["en", "ja"])
    shell.prune_theme_assets(tmp_path)
    assert sorted(p.relative_to(scripts / "lunr").as_posix() for p in (scripts / "lunr").rglob("*") if p.is_file()) == [
        "min/lunr.ja.min.js",
        "min/lunr.multi.min.js",
        "min/lunr.stemmer.support.min.js",
        "tinyseg.js",
    ]
    assert shell.lunr_scripts(["en"]) == set()
    assert shell.lunr_scripts(["th"]) == {"wordcut.js", "min/lunr.th.min.js", "min/lunr.stemmer.support.min.js"}


def test_without_a_search_index_the_language_scripts_are_left(tmp_path: Path) -> None:
    scripts = _theme_site(tmp_path, ["en"])
    (tmp_path / "search" / "search_index.json").unlink()
    shell.prune_theme_assets(tmp_path)
    assert len([p for p in (scripts / "lunr").rglob("*") if p.is_file()]) == 6


def test_question_pages_made_from_their_shown_rounds_alone_are_the_pages_made_from_every_forecast(
    demo_hub: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """gather hands question_infos only the forecasts of each question's latest rounds (shown_rounds),
    where it used to join every forecast of every round: every generated file must be the same, and the
    cut must have left something out (the demo asks questions again in more rounds than a page shows)."""
    from generator.pipeline.demo import SEASON_END
    from generator.site import build, questions
    from generator.site.api import site_files

    cut = build.gather(demo_hub, SEASON_END)
    everything = questions.shown_rounds

    def every_round(round_questions):
        return {r: set(round_questions["question_id"]) for r in everything(round_questions)}

    monkeypatch.setattr(build, "shown_rounds", every_round)
    whole = build.gather(demo_hub, SEASON_END)
    sizes = {q.id: len(q.payload["p"]) for q in cut.questions}
    assert any(len(q.payload["p"]) > sizes[q.id] for q in whole.questions), "the demo has no question shown in part"
    assert [q.models for q in cut.questions] == [q.models for q in whole.questions]
    made, expected = site_files(cut), site_files(whole)
    assert sorted(made) == sorted(expected)
    assert [path for path in sorted(made) if made[path] != expected[path]] == []
