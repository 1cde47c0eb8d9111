"""``prescient round open``: freeze and publish one round outside the nightly schedule.

The sampling is ``sampling.sample_round``; the writing is the nightly pipeline's own
(``publish_round`` for questions.csv + questions.json, ``write_forecasts`` for the hub's
baselines), so a round opened by hand is byte-identical to one the nightly job would open.
A published round is frozen: opening it again is refused.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from ..config_schema import due_not_midnight
from ..errors import ConfigError, LedgerError
from ..store import readers
from ..store.hub import Hub, as_hub
from ..store.lock import hub_lock
from ..timeutil import days, format_ts
from . import nightly, sampling


def open_round(hub: Hub | Path, due: datetime, as_of: datetime) -> nightly.NightlyReport:
    """Sample and write the round due at ``due`` from what the ledgers knew at ``as_of``."""
    if message := due_not_midnight(f"--due {format_ts(due)}", due):
        raise ConfigError(f"[due-not-midnight] {message}")
    hub = as_hub(hub)
    settings, layout = hub.settings, hub.layout
    if layout.round_questions(due).exists() or layout.round_json(due).exists():
        raise LedgerError(f"{layout.relative(layout.round_dir(due))}: the round is already published and frozen")
    if as_of >= due:
        raise ConfigError(f"--due {format_ts(due)} is not after --as-of {format_ts(as_of)}: the round would be closed already")
    freeze = min(due - days(settings.rounds.open_days_before_due), as_of)
    bank, obs = readers.load_bank(hub), readers.load_observations(hub)
    questions = sampling.sample_round(bank, obs, due, freeze, settings.rounds, as_of)
    if questions.empty:
        raise ConfigError(
            f"no question in the bank is eligible for a round due {format_ts(due)} at {format_ts(freeze)}: "
            + (
                "the bank is empty; run `prescient nightly` (its fetch) first"
                if bank.empty
                else "a market must be open then and close after the due time plus a day, a data series must have "
                "a value by then; run `prescient nightly` for fresh data, or give a later --due"
            )
        )
    report = nightly.NightlyReport(as_of)
    with hub_lock(layout.data, f"prescient round open --due {format_ts(due)}"):
        nightly.publish_round(hub, due, questions, bank, report)
        nightly.write_forecasts(layout, due, questions, None, report, settings.own_prefix)
    return report
