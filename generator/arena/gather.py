"""The Arena's one I/O edge: read a hub's rounds, bets, forecasts and ledgers into ``Cohorts``."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pandas as pd

from ..errors import PrescientError, Problem
from ..scoring.resolve import LedgerView, known_by, ledger_view, resolve_round
from ..store import readers, receipts
from ..store.git import blob_id
from ..store.hub import Hub
from ..store.layout import Layout
from ..timeutil import format_date, format_ts
from ..vocabulary import MARKET
from .portfolio import POSITIONS, Cohorts, bet_positions, settle
from .simulate import simulated_positions


def load_cohorts(root: Path, as_of: datetime, due: datetime | None = None,
                 quarantine: list[Problem] | None = None,
                 forecasts: dict[str, dict[str, pd.DataFrame]] | None = None) -> Cohorts:
    """Every round's cohorts (or only the round due at ``due``) as the ledgers stood at ``as_of``.

    An unreadable bet or forecast file is left out (the nightly never scores it either);
    ``quarantine`` collects those files when the caller reports them. ``forecasts`` (round due
    date ``YYYY-MM-DD`` -> ``readers.load_forecasts``) are forecast files the caller has read
    already (the site build): those rounds' files are not read again."""
    quarantine = [] if quarantine is None else quarantine
    hub = Hub(root)
    layout = hub.layout
    dues = readers.round_dues(hub)
    if due is not None:
        if format_date(due) not in {format_date(d) for d in dues}:
            raise PrescientError(f"no round is due on {format_date(due)} (no {layout.relative(layout.round_questions(due))})")
        dues = [d for d in dues if format_date(d) == format_date(due)]
    rounds = {d: readers.load_round(hub, d) for d in dues}
    markets = {q for r in rounds.values() for q in r.loc[r["kind"] == MARKET, "question_id"]}
    obs = readers.load_observations(hub)
    obs = obs[obs["question_id"].isin(markets)]
    stamp = format_ts(as_of)
    view, known = ledger_view(obs, stamp, readers.load_resolutions(hub)), known_by(obs, stamp)
    attested = receipts.attested(receipts.load_receipts(hub))
    given = forecasts or {}
    frames = [_round_positions(hub, d, questions, view, known, quarantine, attested, given.get(format_date(d)))
              for d, questions in rounds.items()]
    frames = [f for f in frames if len(f)]
    positions = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=POSITIONS)
    return Cohorts(stamp, positions, known)


def attested_time(layout: Layout, path: Path, attested: dict[tuple[str, str], datetime]) -> str | None:
    """When a receipt first attests the bytes of the file at ``path`` (ISO UTC), or None."""
    when = attested.get((layout.relative(path), blob_id(path.read_bytes())))
    return format_ts(when) if when is not None else None


def _round_positions(hub: Hub, due: datetime, questions: pd.DataFrame, view: LedgerView,
                     known: pd.DataFrame, quarantine: list[Problem], attested: dict[tuple[str, str], datetime],
                     forecasts: dict[str, pd.DataFrame] | None = None) -> pd.DataFrame:
    label, due_ts = format_date(due), format_ts(due)
    markets = questions[questions["kind"] == MARKET]
    parts = [bet_positions(label, model, frame, markets, known, attested_time(hub.layout, hub.layout.bets(due, model), attested))
             for model, frame in readers.load_bets(hub, due, quarantine).items()]
    given = readers.load_forecasts(hub, due, quarantine) if forecasts is None else forecasts
    parts.append(simulated_positions(label, given, markets, due_ts))
    parts = [p for p in parts if len(p)]
    if not parts or markets.empty:
        return pd.DataFrame(columns=POSITIONS)
    return settle(pd.concat(parts, ignore_index=True), resolve_round(markets, view), due_ts)
