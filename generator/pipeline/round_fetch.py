"""``prescient round fetch``: a hub's open rounds into a team's folder, from the hub's site, no clone.

Every open round's question set is read from the site's static API (``sources.hubsite``: each file
checked against the sha256 ``rounds.json`` publishes, all before anything is written) and written
where a hub keeps it, ``data/rounds/<due>/``; with a model, a ready-to-fill forecast file per round
(``round template``'s, never over a file already there). A folder that holds no ``data/hub.toml``
gets a short one naming the site, so that ``prescient validate`` and ``prescient submit`` find the
folder and check the files as the hub's pull-request check will (the hub's own settings stay in its
repository; the check there is the one that counts).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from ..config import HUB_FILE
from ..sources.hubsite import FetchedRound
from ..store.atomic import write_bytes_atomic
from ..store.hub import Hub
from ..submissions import paths as submission_paths
from ..timeutil import format_ts, parse_ts
from .forecaster import forecast_template

WORKSPACE_TOML = """\
# A team's folder made by `prescient round fetch --site {site}`: the hub's open rounds as its site
# publishes them (data/rounds/), and your forecast files (data/forecasts/). This is not the hub: its
# settings are in its repository, and the check that counts is its pull request's.
[rounds]
first_due = "{first_due}"
"""


@dataclass
class Fetched:
    rounds: list[str] = field(default_factory=list)  # the open rounds written, YYYY-MM-DD
    written: list[str] = field(default_factory=list)  # paths relative to the folder
    templates: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def write_rounds(root: Path, site: str, fetched: list[FetchedRound], as_of: datetime, model: str | None, fmt: str = "csv") -> Fetched:
    """The rounds still open at ``as_of`` written under ``root``; a template for ``model`` in each."""
    done = Fetched()
    still = [f for f in fetched if parse_ts(f.round.due_time) > as_of]
    for gone in (f for f in fetched if f not in still):
        done.notes.append(f"round {gone.round.due} closed at {gone.round.due_time}, after the site was built: not written")
    if still and not (root / HUB_FILE).is_file():
        text = WORKSPACE_TOML.format(site=site, first_due=format_ts(parse_ts(still[0].round.due_time)))
        write_bytes_atomic(root / HUB_FILE, text.encode("utf-8"))
        done.written.append(HUB_FILE)
    for item in still:
        folder = f"{submission_paths.ROUNDS_DIR}/{item.round.due}"
        for name, data in sorted(item.contents.items()):
            if write_bytes_atomic(root / folder / name, data):
                done.written.append(f"{folder}/{name}")
        done.rounds.append(item.round.due)
        if model:
            path = submission_paths.forecast_path(item.round.due, model, fmt)
            if (root / path).exists():
                done.notes.append(f"{path} is already there: left as it is")
            else:
                write_bytes_atomic(root / path, forecast_template(Hub(root), parse_ts(item.round.due_time), fmt, model))
                done.templates.append(path)
    return done
