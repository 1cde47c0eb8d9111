"""Prompt templates: jinja2 files in one folder, rendered as plain text (never HTML), each prompt's
template identified by the sha256 of its file(s), so a changed prompt is visible in every record."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from functools import cached_property
from pathlib import Path
from typing import Any

import jinja2


class Templates:
    """The ``*.j2`` files of ``folder``; a template may include others of the same folder."""

    def __init__(self, folder: Path):
        self.folder = folder

    @cached_property
    def env(self) -> jinja2.Environment:
        return jinja2.Environment(
            loader=jinja2.FileSystemLoader(self.folder), undefined=jinja2.StrictUndefined, autoescape=False, keep_trailing_newline=False
        )  # plain text, never HTML

    def render(self, name: str, context: Mapping[str, Any]) -> str:
        """The prompt of template ``name`` (``<name>.j2``), stripped, ending in one newline."""
        return self.env.get_template(f"{name}.j2").render(**context).strip() + "\n"

    def sha256(self, *names: str) -> str:
        """sha256 over the named templates' files (``<name>.j2``, in this order, each ended by a NUL)."""
        digest = hashlib.sha256()
        for name in names:
            digest.update((self.folder / f"{name}.j2").read_bytes() + b"\0")
        return digest.hexdigest()


def prompt_sha256(prompt: str) -> str:
    return hashlib.sha256(prompt.encode("utf-8")).hexdigest()
