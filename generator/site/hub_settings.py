"""The Methodology page's "This hub's settings": the schedule, the scoring rules' numbers, the boards
and each source's thresholds as this hub's ``data/hub.toml`` sets them (pure: Settings in, the
template's values out). The rest of the page names each setting by its key and states ForecastBench's
value as the default, so a hub that changes a setting publishes its own number here."""

from __future__ import annotations

import html
from typing import Any

from ..config import Settings
from ..config_schema import SOURCE_OPTIONS, specs, toml_value
from ..timeutil import format_ts

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def hub_settings_values(settings: Settings) -> dict[str, Any]:
    """What ``hub_settings.md.j2`` shows, each number already in words."""
    rounds, scoring, board = settings.rounds, settings.scoring, settings.leaderboard
    return {
        "schedule": schedule_words(settings),
        "first_due": format_ts(rounds.first_due),
        "open_days": rounds.open_days_before_due,
        "market_questions": rounds.market_questions,
        "dataset_questions": rounds.dataset_questions,
        "horizons": ", ".join(map(str, rounds.horizons)),
        "secrecy": rounds.secrecy,
        "reveal_days": rounds.reveal_days,
        "scoring": scoring,
        "imputed_share": f"{scoring.max_imputed_share * 100:g}%",
        "boards": ", ".join(board.boards),
        "views": ", ".join(board.views),
        "replicates": f"{board.replicates:,}",
        "market_difficulty": board.market_difficulty,
        "sources": [source_row(s.name, dict(s.options)) for s in settings.enabled_sources],
    }


def schedule_words(settings: Settings) -> str:
    """ "every other Sunday at 00:00 UTC", "every 10 days at 12:00 UTC", ..."""
    rounds = settings.rounds
    clock = rounds.first_due.strftime("%H:%M")
    day = WEEKDAYS[rounds.first_due.weekday()]
    every = {7: f"every {day}", 14: f"every other {day}"}.get(rounds.cadence_days, f"every {rounds.cadence_days} days")
    return f"{every} at {clock} UTC"


def source_row(name: str, options: dict[str, Any]) -> dict[str, str]:
    """A source and its qualifying thresholds: the keys of its table that are not advanced, as set or by default."""
    keys = [s for s in specs(name, SOURCE_OPTIONS[name]).values() if not s.meta.advanced and s.name != "enabled"]
    shown = [
        f"`{s.name}` = {html.escape(toml_value(options.get(s.name, s.default)), quote=False)}"
        for s in keys
        if options.get(s.name, s.default) is not None
    ]  # hub.toml's text, never raw HTML
    return {"name": name, "settings": ", ".join(shown) or "no setting of its own"}
