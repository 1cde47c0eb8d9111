"""MkDocs hook: after the build, write every question page from the one themed shell page,
put each round's question table into its round page, and delete the theme files no reader's
browser requests.

The work is done by ``generator.site.shell`` (see its docstring for why question pages and round
tables skip MkDocs' per-page rendering); this file only connects it to MkDocs' build events.
"""

from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.utils import get_build_timestamp

from generator.site.shell import ShellError, expand_question_pages, fill_round_tables, prune_theme_assets


def on_post_build(config, **kwargs) -> None:
    try:
        expand_question_pages(Path(config["docs_dir"]), Path(config["site_dir"]), get_build_timestamp())
    except (ShellError, OSError, ValueError) as exc:  # reported by MkDocs as a build error, not a traceback
        raise PluginError(f"question pages: {exc}") from None
    try:
        fill_round_tables(Path(config["docs_dir"]), Path(config["site_dir"]))
    except (ShellError, OSError) as exc:
        raise PluginError(f"round pages: {exc}") from None
    try:
        prune_theme_assets(Path(config["site_dir"]))
    except (OSError, ValueError) as exc:
        raise PluginError(f"theme files: {exc}") from None
