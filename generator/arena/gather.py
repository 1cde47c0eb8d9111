"""The Arena's one I/O edge: read a hub's rounds, bets, forecasts and ledgers into ``Cohorts``."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import pandas as pd

from ..errors import PrescientError, Problem
from ..scoring.resolve import LedgerView, known_by, ledger_view, resolve_round
from ..store import manifest, readers, receipts, seals
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
    rounds = {d: readers.load_round(hub, d) for d in dues if d <= as_of}  # an open round's bets are never shown
    markets = {q for r in rounds.values() for q in r.loc[r["kind"] == MARKET, "question_id"]}
    obs = readers.load_observations(hub)
    obs = obs[obs["question_id"].isin(markets)]
    stamp = format_ts(as_of)
    view, known = ledger_view(obs, stamp, readers.load_resolutions(hub)), known_by(obs, stamp)
    attested = attestations(hub)
    given = forecasts or {}
    frames = [_round_positions(hub, d, questions, view, known, quarantine, attested, given.get(format_date(d)))
              for d, questions in rounds.items()]
    frames = [f for f in frames if len(f)]
    positions = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=POSITIONS)
    return Cohorts(stamp, positions, known)


@dataclass(frozen=True)
class Attestations:
    """The earliest time GitHub or the hub attests a file's bytes (ISO UTC): a receipt (GitHub's time of
    the push) or a seal's evidence, by (path, blob); the manifest (the first nightly run that saw them), by
    (path, sha256). A bet is never priced before it, and a file nothing attests is not priced at all
    (never at its own ``placed_at``)."""

    by_blob: dict[tuple[str, str], str]
    by_sha: dict[tuple[str, str], str]

    def time_of(self, path: str, data: bytes) -> str | None:
        found = [t for t in (self.by_blob.get((path, blob_id(data))), self.by_sha.get((path, manifest.sha256(data)))) if t]
        return min(found) if found else None


def attestations(hub: Hub) -> Attestations:
    by_blob = {key: format_ts(when) for key, when in receipts.attested(receipts.load_receipts(hub)).items()}
    sealed = seals.load_seals(hub).dropna(subset=["path", "blob", "attested_at"])
    for path, blob, at in zip(sealed["path"].astype(str), sealed["blob"].astype(str), sealed["attested_at"].astype(str)):
        by_blob[(path, blob)] = min(at, by_blob.get((path, blob), at))
    return Attestations(by_blob, manifest.first_recorded(manifest.load_manifest(hub)))


def attested_time(layout: Layout, path: Path, attested: Attestations) -> str | None:
    """When GitHub or the hub first attests the bytes of the file at ``path`` (ISO UTC), or None."""
    return attested.time_of(layout.relative(path), path.read_bytes())


def _round_positions(hub: Hub, due: datetime, questions: pd.DataFrame, view: LedgerView,
                     known: pd.DataFrame, quarantine: list[Problem], attested: Attestations,
                     forecasts: dict[str, pd.DataFrame] | None = None) -> pd.DataFrame:
    label, due_ts = format_date(due), format_ts(due)
    markets = questions[questions["kind"] == MARKET]
    timed = {model: (frame, attested_time(hub.layout, hub.layout.bets(due, model), attested))
             for model, frame in readers.load_bets(hub, due, quarantine).items()}
    parts = [bet_positions(label, model, frame, markets, known, when) for model, (frame, when) in timed.items() if when is not None]
    given = readers.load_forecasts(hub, due, quarantine) if forecasts is None else forecasts
    parts.append(simulated_positions(label, given, markets, due_ts))
    parts = [p for p in parts if len(p)]
    if not parts or markets.empty:
        return pd.DataFrame(columns=POSITIONS)
    return settle(pd.concat(parts, ignore_index=True), resolve_round(markets, view), due_ts)
