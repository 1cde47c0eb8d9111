"""The last build's files are deleted while MkDocs builds (site.build._cleared_meanwhile): MkDocs
then finds site/ as its own clean-up would leave it, and nothing of the old build is left after."""

from __future__ import annotations

from pathlib import Path

from generator.site.build import PREVIOUS, _cleared_meanwhile


def _tree(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*")}


def test_the_previous_build_is_gone_from_mkdocs_sight_at_once_and_from_disk_after(tmp_path: Path):
    site = tmp_path / "site"
    for name in ("index.html", "generated/questions/a/index.html", "assets/x.js", ".hidden/keep.txt"):
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_text(name)
    (site / PREVIOUS / "tmpold" / "stale").mkdir(parents=True)  # left by an interrupted build
    with _cleared_meanwhile(site):
        assert {p.name for p in site.iterdir() if not p.name.startswith(".")} == set()  # as MkDocs's clean leaves it
        (site / "index.html").write_text("new")
    assert _tree(site) == {"index.html", ".hidden", ".hidden/keep.txt"}
    assert (site / "index.html").read_text() == "new"


def test_a_site_not_built_yet_is_left_to_mkdocs(tmp_path: Path):
    with _cleared_meanwhile(tmp_path / "site"):
        pass
    assert not (tmp_path / "site").exists()
