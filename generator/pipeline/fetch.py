"""The nightly's first phase, fetch: every enabled source is asked in turn, each in isolation, and
the rows that are new are appended to the question bank and the observation ledger at once, so a
later failure can never lose what was fetched (``fetch_stage``; ``nightly.nightly`` runs it first).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

import httpx
import pandas as pd

from ..config import Settings
from ..config_schema import source_specs
from ..schemas import OBSERVATIONS, QUESTIONS
from ..sources.base import FetchContext, FetchResult, Source
from ..sources.http import Budget
from ..sources.registry import build_source
from ..store import ingest, ledger, readers
from ..store.cache import Slot, signatures
from ..store.hub import Hub
from ..timeutil import days, format_ts
from . import memo_store

# What the fetch keeps in its command's cache (``store.cache.ReadCache``) from night to night.
BANK: Slot[pd.DataFrame] = Slot("fetch: the question bank")  # while the question files are unchanged
LATEST_QUESTIONS: Slot[dict] = Slot("fetch: the questions' latest versions")  # ``ingest.latest_contents``
OBSERVATION_STATE: Slot[ingest.ObservationState] = Slot("fetch: the observation ledger's state")
SEEN_QUESTIONS: Slot[dict] = Slot("fetch: the questions a source gave")  # .of(source): id → Question, while the files are unchanged
ProgressFactory = Callable[[str], Callable[[int], None]]


@dataclass
class SourceReport:
    name: str
    new_questions: int = 0
    new_observations: int = 0
    resolved: int = 0
    voided: int = 0
    reread: int = 0  # resolved markets read again tonight (``reread_days``, at most ``reread_max``)
    failures: list[str] = field(default_factory=list)
    skipped: str | None = None
    error: str | None = None


class FetchReport(Protocol):
    """What the fetch reports into (``nightly.NightlyReport``): each source's report and the files written."""

    sources: list[SourceReport]
    written: list[str]


def fetch_stage(
    settings: Settings,
    hub: Hub,
    as_of: datetime,
    report: FetchReport,
    only: str | None,
    env: dict[str, str],
    client: httpx.Client | None = None,
    progress: ProgressFactory | None = None,
    sources: Mapping[str, Source] | None = None,
) -> pd.DataFrame:
    """Ask every enabled source (or ``only``) and append what is new; return the question bank as it
    is then. The observation ledger is not concatenated into one frame here: the fetch compares with
    its kept state, and the derive reads the ledger only when a stage needs it."""
    night = NightFetch(hub, as_of)
    for rows in night.read(settings, report, only, env, client, progress, sources):
        night.write(rows, report)  # each source's rows at once: a later source's failure loses nothing
    return night.done()


class NightFetch:
    """One night's fetch in two steps: ``read`` asks each source in turn and makes its new rows, taking
    them into what the fetch keeps of the ledgers (``_Kept``, the bank) but writing nothing; ``write``
    appends one source's rows. ``fetch_stage`` writes each source's rows as soon as they are read; the
    demo's fetch lane reads the next night while the demo still reads this night's ledgers, and writes
    once it no longer does (``fetch_lane``). ``done``: the bank, with what the fetch keeps saved."""

    def __init__(self, hub: Hub, as_of: datetime):
        layout, cache = hub.layout, hub.cache
        self.hub, self.as_of = hub, as_of
        self.bank = cache.kept(BANK, signatures(layout.question_files()), lambda: readers.load_bank(hub))  # while unchanged
        self.kept = _Kept(
            cache.kept(LATEST_QUESTIONS, signatures(layout.question_files()), lambda: ingest.latest_contents(self.bank)),
            cache.kept(OBSERVATION_STATE, signatures(layout.observation_files()), lambda: memo_store.load_observation_state(hub)),
        )  # kept between commands too

    def read(
        self,
        settings: Settings,
        report: FetchReport,
        only: str | None,
        env: dict[str, str],
        client: httpx.Client | None = None,
        progress: ProgressFactory | None = None,
        sources: Mapping[str, Source] | None = None,
    ) -> Iterator[SourceRows]:
        """Each enabled source's (or ``only``'s) new rows, a source at a time (none for a source that failed)."""
        for src in (s for s in settings.enabled_sources if only in (None, s.name)):
            source_report = SourceReport(src.name)
            report.sources.append(source_report)
            options = {**settings.http, **src.options}  # [http] defaults, then the source's own table
            ticker = progress(src.name) if progress else None
            built = (sources or {}).get(src.name)
            result = _fetch_one(src.name, options, self.as_of, self.bank, self.hub, self.kept.observations, env, client, ticker, source_report, built)
            if result is not None:
                rows = _new_rows(self.hub, self.as_of, self.bank, self.kept, result, source_report)
                self.bank = pd.concat([self.bank, rows.questions], ignore_index=True)
                yield rows

    def write(self, rows: SourceRows, report: FetchReport) -> None:
        _append(self.hub, self.as_of, self.kept, rows, report)

    def done(self) -> pd.DataFrame:
        memo_store.save_observation_state(self.hub, self.kept.observations)  # for the next command, as the files now are
        return self.bank


@dataclass
class _Kept:
    """What the fetch keeps of the ledgers between nights, in the command's cache
    (``ReadCache.kept``, while their files are unchanged: ``BANK``, ``LATEST_QUESTIONS``, ``OBSERVATION_STATE``): the question bank's latest versions
    (``ingest.latest_contents``) and the observation ledger's state (``ingest.ObservationState``),
    so that a night compares what it fetched with them instead of sorting the whole ledgers again;
    ``_ingest`` adds what it appends."""

    questions: dict
    observations: ingest.ObservationState


def _fetch_one(
    name,
    options,
    as_of,
    bank,
    hub: Hub,
    state: ingest.ObservationState,
    env,
    client,
    ticker,
    source_report: SourceReport,
    built: Source | None = None,
) -> FetchResult | None:
    """Ask one source. Live sources open their own client through ``sources.http.open_client``.

    The source's requests share one time budget (``budget_seconds``, else ``[http]
    source_budget_seconds``); when it runs out, what was read is kept and the report says so."""
    ids = bank.loc[bank["source"] == name, "id"].unique()
    stamp = format_ts(as_of)  # the state as of ``as_of``: rows recorded later (the nightly refuses them) left out
    if state.recorded <= stamp:
        known = state
    else:
        obs = readers.load_observations(hub)
        known = ingest.ObservationState.of(obs[obs["recorded_at"] <= stamp])
    closed = known.closed(ids)
    window, cap = reread_options(name, options)
    again = known.reread(closed, format_ts(as_of - days(window)), cap, as_of.toordinal())  # resolved lately: read again
    source_report.reread = len(again)
    budget = Budget.from_options(options)
    ctx = FetchContext(
        as_of=as_of,
        options=options,
        tracked=frozenset(set(ids) - closed | again),
        settled=frozenset(closed - again),
        client=client,
        env=env,
        progress=ticker,
        budget=budget,
    )
    try:
        result = (built or build_source(name, options)).fetch(ctx)
    except Exception as exc:  # isolation: one broken source must not stop the others
        source_report.error = f"{type(exc).__name__}: {exc}"
        return None
    finally:
        if budget.exhausted_after is not None:
            source_report.failures.append(f"{budget.message()}: its remaining requests were not made")
    source_report.skipped = result.skipped
    source_report.failures += [str(f) for f in result.failures]
    return result


def reread_options(name: str, options: Mapping) -> tuple[int, int]:
    """A market source's ``reread_days`` and ``reread_max`` (``config_schema.MarketOptions``); (0, 0) for others."""
    declared = source_specs(name)
    if "reread_days" not in declared:
        return 0, 0
    given = {k: options[k] if k in options else declared[k].default for k in ("reread_days", "reread_max")}
    return int(given["reread_days"]), int(given["reread_max"])


@dataclass
class SourceRows:
    """One source's new rows of a night (``_new_rows``), to be appended (``_append``)."""

    source: str
    questions: pd.DataFrame
    observations: pd.DataFrame
    seen: dict  # the questions the source gave, by id, with tonight's (``SEEN_QUESTIONS``)


def _new_rows(hub: Hub, as_of, bank, kept: _Kept, result: FetchResult, sr: SourceReport) -> SourceRows:
    """What of ``result`` is new, taken into ``kept`` (nothing is written)."""
    layout, cache = hub.layout, hub.cache
    # a question fetched exactly as this command saw it on an earlier night, the question files unchanged
    # since, is tonight's latest version already: only the others are made into rows and compared
    seen = cache.kept(SEEN_QUESTIONS.of(result.source), signatures(layout.question_files()), dict)
    fetched = {q.id: q for q in result.questions}  # the last of an id, as ``new_questions`` takes it
    fresh = [q for q in fetched.values() if seen.get(q.id) != q]
    new_q = ingest.new_questions(bank, ingest.question_frame(fresh, as_of), kept.questions)
    kinds = {
        **dict(zip(bank["id"].tolist(), bank["kind"].tolist(), strict=True)),
        **dict(zip(new_q["id"].tolist(), new_q["kind"].tolist(), strict=True)),
    }
    new_o = kept.observations.new_rows(ingest.observation_frame(result.observations, as_of), kinds)
    if len(new_q):
        ingest.latest_contents(new_q, kept.questions)  # brought up to date in place
    seen.update((q.id, q) for q in fresh)
    if len(new_o):
        kept.observations.add(new_o)
    sr.new_questions, sr.new_observations = len(new_q), len(new_o)
    sr.resolved = int((new_o["status"] == "resolved").sum())
    sr.voided = int((new_o["status"] == "void").sum())
    return SourceRows(result.source, new_q, new_o, seen)


def _append(hub: Hub, as_of, kept: _Kept, rows: SourceRows, report: FetchReport) -> None:
    """Append a source's new rows, and keep what the fetch knows of the files as they now are."""
    layout, cache = hub.layout, hub.cache
    if len(rows.questions):
        path = layout.questions(rows.source)
        ledger.append(path, rows.questions, QUESTIONS, layout.relative(path), cache)
        report.written.append(layout.relative(path))
        cache.keep(LATEST_QUESTIONS, signatures(layout.question_files()), kept.questions)
    cache.keep(SEEN_QUESTIONS.of(rows.source), signatures(layout.question_files()), rows.seen)
    if len(rows.observations):
        path = layout.observations(rows.source, as_of)
        ledger.append(path, rows.observations, OBSERVATIONS, layout.relative(path), cache)
        report.written.append(layout.relative(path))
        cache.keep(OBSERVATION_STATE, signatures(layout.observation_files()), kept.observations)
