"""Build the site: gather everything from the hub, render the pages, write what changed, run MkDocs.

``build_site`` is the shell around ``site.render`` (pure). MkDocs runs in strict mode, with
``SOURCE_DATE_EPOCH`` set to ``as_of`` so its own dates (sitemap) are reproducible too.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
from datetime import datetime
from importlib import resources
from pathlib import Path
from typing import Iterator

from .config import load_settings
from .errors import PrescientError
from .leaderboard.board import mean_brier_board
from .site.render import GENERATED, RoundInfo, SiteData, render_site
from .site.write import write_tree
from .store import readers
from .store.layout import Layout
from .timeutil import format_date


class BuildError(PrescientError):
    """MkDocs refused to build the site (strict mode turns every warning into this)."""

    exit_code = 8


def gather(root: Path, as_of: datetime) -> SiteData:
    settings, layout = load_settings(root), Layout(root)
    scores, models = readers.load_scores(layout), readers.load_models(layout)
    board = mean_brier_board(scores, models, as_of, settings.scoring)
    history = readers.load_history(layout)
    return SiteData(
        title=settings.title, as_of=as_of, methodology_version=settings.scoring.methodology_version,
        board=board, history=history[history["board"] == "tournament"], models=models,
        model_scores={m: g for m, g in scores.groupby("model", sort=True)},
        rounds=[_round_info(layout, due) for due in readers.round_dues(layout)],
    )


def _round_info(layout: Layout, due: datetime) -> RoundInfo:
    participants = tuple(sorted(readers.load_forecasts(layout, due)))
    return RoundInfo(format_date(due), readers.load_round(layout, due), participants)


def build_site(root: Path, as_of: datetime, run_mkdocs: bool = True) -> list[str]:
    """Regenerate ``site_src/docs/generated`` and build ``site_src/site``. Return the changed pages."""
    site_src = ensure_site_src(root)
    changed = write_tree(site_src / "docs" / GENERATED, _strip(render_site(gather(root, as_of))))
    if run_mkdocs:
        run_mkdocs_build(site_src / "mkdocs.yml", as_of, load_settings(root).title)
    return changed


def _strip(files: dict[str, bytes]) -> dict[str, bytes]:
    prefix = GENERATED + "/"
    return {path.removeprefix(prefix): data for path, data in files.items()}


def skeleton_dir() -> Path:
    """The site skeleton shipped with Prescient (in a wheel) or beside the package (a checkout)."""
    packaged = resources.files("generator").joinpath("_site_src")
    if packaged.is_dir():
        return Path(str(packaged))
    return Path(__file__).resolve().parent.parent / "site_src"


def ensure_site_src(root: Path) -> Path:
    """The hub's ``site_src``; a hub without one gets a copy of the skeleton."""
    site_src = root / "site_src"
    if not (site_src / "mkdocs.yml").is_file():
        ignore = shutil.ignore_patterns("generated", "site", "__pycache__")
        shutil.copytree(skeleton_dir(), site_src, ignore=ignore, dirs_exist_ok=True)
    return site_src


def run_mkdocs_build(config_file: Path, as_of: datetime, title: str) -> None:
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException

    with _source_date(as_of), _quiet_mkdocs():
        try:
            build(load_config(str(config_file), strict=True, site_name=title))
        except MkDocsException as exc:
            raise BuildError(f"mkdocs build --strict failed for {config_file}: {exc}") from None


@contextlib.contextmanager
def _source_date(as_of: datetime) -> Iterator[None]:
    old = os.environ.get("SOURCE_DATE_EPOCH")
    os.environ["SOURCE_DATE_EPOCH"] = str(int(as_of.timestamp()))
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("SOURCE_DATE_EPOCH", None)
        else:
            os.environ["SOURCE_DATE_EPOCH"] = old


@contextlib.contextmanager
def _quiet_mkdocs() -> Iterator[None]:
    logger = logging.getLogger("mkdocs")
    level = logger.level
    logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        logger.setLevel(level)
