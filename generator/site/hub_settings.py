"""The Methodology page's "This hub's settings": the schedule, the scoring rules' numbers, the boards
and each source's thresholds as this hub's ``data/hub.toml`` sets them (pure: Settings in, the
template's values out). The rest of the page names each setting by its key, and states it with this
hub's value (``prose_values``), so a hub that changes a setting publishes its own number everywhere."""

from __future__ import annotations

import html
from datetime import datetime
from typing import Any

from ..config import OracleSettings, Settings
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


def prose_values(settings: Settings) -> dict[str, str]:
    """Every ``[rounds]``, ``[scoring]``, ``[leaderboard]`` and ``[oracle]`` key as this hub sets it
    (``[oracle]``'s defaults when it has no such table), by ``table.key``, in the words the hand-written
    pages use; plus ``hub.own_prefix``, ``rounds.schedule`` and ``scoring.max_imputed_share%``. Written beside the pages as
    ``generated/hub-settings.json``, from which ``site_src/hooks/settings.py`` puts each value where a
    page writes ``{hub:table.key}``: no page states a default as if it were this hub's number."""
    tables = {"rounds": settings.rounds, "scoring": settings.scoring, "leaderboard": settings.leaderboard}
    tables["oracle"] = settings.oracle if settings.oracle is not None else OracleSettings()
    values = {f"{table}.{name}": _words(value) for table, obj in tables.items() for name, value in vars(obj).items()}
    values["hub.own_prefix"] = settings.own_prefix
    values["rounds.schedule"] = schedule_words(settings)
    values["scoring.max_imputed_share%"] = f"{settings.scoring.max_imputed_share * 100:g}%"
    return dict(sorted(values.items()))


def _words(value: Any) -> str:
    if isinstance(value, tuple | list):
        return ", ".join(map(_words, value))
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, datetime):
        return format_ts(value)
    return str(value)


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
