"""MkDocs hook: a hand-written page states each setting with this hub's value.

Where a page (the Methodology, Run a hub, ...) writes ``{hub:scoring.min_age_days}``, the page shows
this hub's ``[scoring] min_age_days`` as its ``data/hub.toml`` sets it when the site was built, read
from ``generated/hub-settings.json`` (``generator.site.hub_settings.prose_values``). Without that file
(the pages built with no hub) the key's name stands in its place, never a number this hub may not use.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

TOKEN = re.compile(r"\{hub:([a-z_]+\.[a-z_]+%?)\}")


def _values(config) -> dict[str, str]:
    path = Path(config["docs_dir"]) / "generated" / "hub-settings.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def on_page_markdown(markdown, page, config, files):
    if "{hub:" not in markdown:
        return markdown
    values = _values(config)
    return TOKEN.sub(lambda m: values.get(m[1], f"`{m[1].split('.', 1)[1].rstrip('%')}`"), markdown)
