"""The API's index page (``api/index.md``, served at ``/api/`` by ``hooks/api.py``): every file of the static
API with its schema, from the index document ``api/index.json`` gives. Pure: that document in, the page's
Markdown out. ``prescient serve`` and GitHub Pages then show this page at ``/api/``, not a folder listing."""

from __future__ import annotations

from .render import environment

PAGE = "api/index.md"  # under generated/


def api_index_page(index: dict) -> bytes:
    """The page listing what ``index`` (the payload of ``api/index.json``) names, each link relative to ``/api/``."""
    return environment().get_template("api_index.md.j2").render(index=index).encode("utf-8")
