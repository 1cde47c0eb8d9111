"""Where the static API's board files are (``api/boards/<board>/<view>.{json,csv}``): named here, where
both the API (``site.api``) and the Leaderboard's links to each board's files (``site.render``) read it."""

from __future__ import annotations

import re

from .questions import question_slug

# a board or view name written as it is in a URL path: one path segment, no "." or ".." alone
_PATH_SAFE = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._:-]*")


def path_name(name: str) -> str:
    """A board's or view's name as one segment of its files' paths: the name itself when it is made
    only of letters, digits and ``_ - . :`` (every name the hub's settings build but a category with
    another character, so those URLs stay as they were), else ``question_slug`` of it, as the pages name
    their figure files: the name's letters and digits joined by ``-``, then 10 hex digits of its sha256
    (a ``/`` in a ``category:`` view would otherwise make a folder)."""
    return name if _PATH_SAFE.fullmatch(name) else question_slug(name)


def board_file(board: str, view: str) -> str:
    """A board and view's files under ``api/``, without the suffix: ``boards/<board>/<view>``."""
    return f"boards/{path_name(board)}/{path_name(view)}"
