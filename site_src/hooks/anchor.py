"""MkDocs hook: every page's footer names the commit of the data it was built from, and the night it shows.

`prescient build` writes both into the API's index (docs/generated/api/index.json: ``data_commit``, the
last commit that changed data/ when the site was built, and ``as_of``, the night); this hook hands them to
the theme (``config.extra.prescient_anchor``), and overrides/partials/copyright.html prints them with the
command that proves nothing published as of that commit has changed since (``prescient verify --git
--anchor``). The pages show the commit of the data, not of the build: a commit that changes no data (or a
rebuild) changes no byte of the site, and the commit a build would make is not known before it is made.
"""

import json
from pathlib import Path

INDEX = "generated/api/index.json"


def on_config(config):
    path = Path(config["docs_dir"]) / INDEX
    try:
        index = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return config  # a site built without `prescient build` (no generated pages): no footer line
    config.extra["prescient_anchor"] = {
        "commit": index.get("data_commit") or "",
        "commit_url": index.get("data_commit_url") or "",
        "uncommitted": bool(index.get("data_uncommitted")),
        "night": index.get("as_of") or "",
    }
    return config
