"""The Arena's one I/O edge: read a hub's rounds, bets, forecasts and ledgers into ``Cohorts``, and a
forecaster's ``Books`` at the opening of a round (what the bet-file check and the hub's agents start from)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import pandas as pd

from ..config import HUB_FILE
from ..errors import PrescientError, Problem
from ..scoring.resolve import LedgerView, known_by, ledger_view, resolve_round
from ..store import files, manifest, readers, receipts, seals
from ..store.git import blob_id
from ..store.hub import Hub
from ..store.layout import Layout
from ..timeutil import format_date, format_ts
from ..vocabulary import MARKET
from . import bets as b
from .cohorts import ROWS, Books, cohort_labels, replay
from .portfolio import POSITIONS, Cohorts, priced, prices_at, settle
from .simulate import simulated_positions


def load_cohorts(
    root: Hub | Path,
    as_of: datetime,
    due: datetime | None = None,
    quarantine: list[Problem] | None = None,
    forecasts: dict[str, dict[str, pd.DataFrame]] | None = None,
) -> Cohorts:
    """Every cohort (or only the one holding the round due at ``due``) as the ledgers stood at ``as_of``.

    An unreadable bet or forecast file is left out (the nightly never scores it either);
    ``quarantine`` collects those files when the caller reports them. ``forecasts`` (round due
    date ``YYYY-MM-DD`` -> ``readers.load_forecasts``) are forecast files the caller has read
    already (the site build), and a ``Hub`` brings the files its cache has read (the question sets,
    the observations): neither is read again."""
    quarantine = [] if quarantine is None else quarantine
    hub = root if isinstance(root, Hub) else Hub(root)
    layout = hub.layout
    labels = round_cohorts(hub)
    dues = readers.round_dues(hub)
    if due is not None:
        if format_date(due) not in labels:
            raise PrescientError(f"no round is due on {format_date(due)} (no {layout.relative(layout.round_questions(due))})")
        dues = [d for d in dues if labels[format_date(d)] == labels[format_date(due)]]
    ledgers = _Ledgers.read(hub, [d for d in dues if d <= as_of], as_of)  # an open round's bets are never shown
    given = forecasts or {}
    frames = [simulated_round(hub, d, r, ledgers, quarantine, given.get(format_date(d))) for d, r in ledgers.rounds.items()]
    rows = {d: bet_rows(hub, d, r, ledgers, quarantine) for d, r in ledgers.rounds.items()}
    frames += [_replayed(cohort, model, parts, _closes(ledgers, labels, cohort))[0] for (cohort, model), parts in _by_cohort(rows, labels).items()]
    frames = [f for f in frames if len(f)]
    positions = pd.concat(frames, ignore_index=True)[POSITIONS] if frames else pd.DataFrame(columns=POSITIONS)
    return Cohorts(ledgers.stamp, positions, ledgers.known)


def books_for(root: Path, as_of: datetime, due: datetime, model: str) -> tuple[Books, pd.DataFrame]:
    """What ``model`` carries into the round due at ``due`` (its cohort's books when the round opened),
    and its positions of the cohort's earlier rounds as the ledgers stood at ``as_of`` (``POSITIONS``)."""
    hub = Hub(root)
    labels = round_cohorts(hub)
    cohort = labels.get(format_date(due))
    earlier = [d for d in readers.round_dues(hub) if d < due and labels[format_date(d)] == cohort]
    if cohort is None or not earlier:
        return Books(), pd.DataFrame(columns=POSITIONS)
    ledgers = _Ledgers.read(hub, [*earlier, due], as_of)
    rows = {d: bet_rows(hub, d, ledgers.rounds[d], ledgers, [], only=model) for d in earlier}
    parts = [frame for by_model in rows.values() for m, frame in by_model.items() if m == model]
    positions, books = _replayed(cohort, model, parts, [(format_date(d), _books_close(ledgers.rounds[d])) for d in [*earlier, due]])
    return books[format_date(due)], positions


def round_cohorts(hub: Hub) -> dict[str, str]:
    """Each published round's cohort (``cohorts.cohort_labels`` under the hub's ``[arena] cohort_rounds``)."""
    settings = hub.settings if (hub.root / HUB_FILE).is_file() else None
    n, cadence = (settings.arena.cohort_rounds, settings.rounds.cadence_days) if settings else (1, 14)
    return cohort_labels([format_date(d) for d in readers.round_dues(hub)], n, cadence)


@dataclass(frozen=True)
class _Ledgers:
    """The rounds and what the ledgers said of their markets at ``stamp``: the view, the observations
    known, when each market's settlement was first recorded, and the attestations of files."""

    stamp: str
    rounds: dict[datetime, pd.DataFrame]
    view: LedgerView
    known: pd.DataFrame
    recorded: dict[str, str]
    attested: Attestations

    @classmethod
    def read(cls, hub: Hub, dues: list[datetime], as_of: datetime) -> _Ledgers:
        rounds = {d: readers.load_round(hub, d) for d in dues}
        markets = {q for r in rounds.values() for q in r.loc[r["kind"] == MARKET, "question_id"]}
        obs = readers.load_observations(hub)
        obs = obs[obs["question_id"].isin(markets)]
        stamp, stated = format_ts(as_of), readers.load_statements(hub)
        view, known = ledger_view(obs, stamp, stated), known_by(obs, stamp)
        return cls(stamp, rounds, view, known, settlements_recorded(known, view.stated), attestations(hub))


def settlements_recorded(known: pd.DataFrame, stated: pd.DataFrame) -> dict[str, str]:
    """Per market question: when the hub first recorded it settled (resolved or void), by an observation
    or a stated resolution: from then on the money it pays may be bet again."""
    seen = known.loc[known["status"].isin(["resolved", "void"]), ["question_id", "recorded_at"]]
    said = stated.loc[stated["status"].isin(["resolved", "void"]), ["question_id", "recorded_at"]] if len(stated) else seen.iloc[:0]
    both = pd.concat([seen, said], ignore_index=True)
    return both.groupby("question_id")["recorded_at"].min().astype(str).to_dict() if len(both) else {}


def simulated_round(
    hub: Hub, due: datetime, questions: pd.DataFrame, ledgers: _Ledgers, quarantine: list[Problem], forecasts: dict[str, pd.DataFrame] | None = None
) -> pd.DataFrame:
    """The simulated portfolios of the round's probability forecasts, settled."""
    markets = questions[questions["kind"] == MARKET]
    given = readers.load_forecasts(hub, due, quarantine) if forecasts is None else forecasts
    frame = simulated_positions(format_date(due), given, markets, format_ts(due))
    if frame.empty or markets.empty:
        return pd.DataFrame(columns=POSITIONS)
    return settle(frame, resolve_round(markets, ledgers.view), format_ts(due))


def bet_rows(
    hub: Hub, due: datetime, questions: pd.DataFrame, ledgers: _Ledgers, quarantine: list[Problem], only: str | None = None
) -> dict[str, pd.DataFrame]:
    """Each model's bet rows of the round (``cohorts.ROWS``), priced at the later of ``placed_at`` and the
    attestation of the file's bytes, buys settled; a file nothing attests is left out (never priced)."""
    label, due_ts, layout = format_date(due), format_ts(due), hub.layout
    markets = questions[questions["kind"] == MARKET]
    freeze = markets.drop_duplicates("question_id").set_index("question_id")["freeze_value"]
    outcomes = None  # resolved once, for the first bet file to settle: a round without bets (most) never needs it
    out = {}
    for model, frame in readers.load_bets(hub, due, quarantine).items():
        when = attested_time(layout, layout.bets(due, model), ledgers.attested) if only in (None, model) else None
        if when is None or frame.empty:
            continue
        outcomes = resolve_round(markets, ledgers.view) if outcomes is None else outcomes
        placed = frame["placed_at"]
        priced_at = placed.where(placed >= when, when)
        yes_price = prices_at(ledgers.known, frame["question_id"], priced_at).fillna(frame["question_id"].map(freeze))
        rows = priced(frame.assign(round=label, action=frame["action"].fillna("buy"), priced_at=priced_at, yes_price=yes_price))
        rows = settle(rows, outcomes, due_ts)
        settled, recorded = rows["settle_at"].astype(str), rows["question_id"].map(ledgers.recorded).astype(object).fillna("").astype(str)
        rows["credit_at"] = settled.where(settled >= recorded, recorded).where(rows["status"] != "open", "")
        out[model] = rows[ROWS]
    return out


def _by_cohort(rows: dict[datetime, dict[str, pd.DataFrame]], labels: dict[str, str]) -> dict[tuple[str, str], list[pd.DataFrame]]:
    grouped: dict[tuple[str, str], list[pd.DataFrame]] = {}
    for due, by_model in rows.items():
        for model, frame in by_model.items():
            grouped.setdefault((labels[format_date(due)], model), []).append(frame)
    return dict(sorted(grouped.items()))


def _books_close(questions: pd.DataFrame) -> str:
    """When a round's books close: its publication (the freeze time of its question set)."""
    return str(questions["freeze_time"].min()) if len(questions) else ""


def _closes(ledgers: _Ledgers, labels: dict[str, str], cohort: str) -> list[tuple[str, str]]:
    return [(format_date(d), _books_close(r)) for d, r in sorted(ledgers.rounds.items()) if labels[format_date(d)] == cohort]


def _replayed(cohort: str, model: str, parts: list[pd.DataFrame], rounds: list[tuple[str, str]]) -> tuple[pd.DataFrame, dict[str, Books]]:
    rows = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=ROWS)
    positions, books = replay(rows, rounds)
    return positions.assign(cohort=cohort, model=model, view="bets", start=b.START_CASH), books


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
    for path, blob, at in zip(sealed["path"].astype(str), sealed["blob"].astype(str), sealed["attested_at"].astype(str), strict=True):
        by_blob[(path, blob)] = min(at, by_blob.get((path, blob), at))
    return Attestations(by_blob, manifest.first_recorded(manifest.load_manifest(hub)))


def attested_time(layout: Layout, path: Path, attested: Attestations) -> str | None:
    """When GitHub or the hub first attests the bytes of the file at ``path`` (ISO UTC), or None."""
    return attested.time_of(layout.relative(path), files.read_bytes(path))
