"""The shell around the pure stages: ``nightly`` and ``fetch``.

A nightly run has two phases, each of which gathers everything before it writes:
1. fetch: every enabled source is asked in turn, each in isolation; the rows that are new are
   appended to the question bank and the observation ledger at once, so a later failure can never
   lose what was fetched;
2. derive: rounds whose publication time has come are frozen, the hub's own forecasters write
   their files, every round is scored, and the leaderboard history gains tonight's rows. A submitted
   file that cannot be read (forecast, bet) is quarantined: reported with its code, left out of
   the scores, and everything else is written; the run then ends with PartialFailure (exit 6).
Run twice with the same ``as_of`` and nothing changes; a later ``as_of`` only appends; an earlier
``as_of`` than the ledgers' latest record is refused before anything is written.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import httpx
import pandas as pd

from ..config import RoundSettings
from ..errors import PartialFailure, Problem, SchemaError
from ..forecasters.baselines import AtDeadline, after_due, at_open, baselines
from ..interop.forecastbench import export
from ..models import DEFAULT_OWN, ModelMeta
from ..parallel import default_processes, forked_map
from ..schemas import ROUND_QUESTIONS, ROUND_REVEAL
from ..sources.base import Source
from ..store import maintainer, manifest, model_log, readers, seals
from ..store.atomic import write_bytes_atomic
from ..store.cache import Slot
from ..store.csvio import to_csv_bytes
from ..store.fast_forecasts import forecast_bytes
from ..store.forecast_file import parse_forecast
from ..store.hub import Hub, as_hub
from ..store.layout import FileStats, Layout
from ..store.lock import hub_lock
from ..store.newstexts import NewsTexts
from ..submissions.content import check_content, round_set
from ..timeutil import days, format_date, format_ts
from . import incremental, sampling
from .fetch import ProgressFactory, SourceReport, fetch_stage
from .headline import append_history
from .recompute import hub_view
from .seal import reveal_by, seal_stage

if TYPE_CHECKING:
    from ..forecasters.agents import AgentsNight
    from ..oracle.stage import OracleNight
    from .fetch_lane import Fetched

T = TypeVar("T")
# What a nightly keeps in its command's cache (``store.cache.ReadCache``) from night to night (the
# fetch's own: ``fetch``).
MODEL_TEXTS: Slot[dict[ModelMeta, bytes]] = Slot("derive: the hub models' YAML", lambda cache: {})
ExtraForecasters = Callable[[pd.DataFrame], dict[str, pd.DataFrame]]


@dataclass
class NightlyReport:
    as_of: datetime
    sources: list[SourceReport] = field(default_factory=list)
    rounds_opened: list[str] = field(default_factory=list)
    rounds_waiting: list[str] = field(default_factory=list)  # due to open, but no eligible question yet
    round_notes: list[str] = field(default_factory=list)  # a round frozen late, or why one waits and when the next opens
    written: list[str] = field(default_factory=list)
    quarantined: list[Problem] = field(default_factory=list)  # unreadable submitted files, one problem each
    unranked: list[str] = field(default_factory=list)  # "model · round: reason", left off by the imputation rule
    sealing: list[Problem] = field(default_factory=list)  # rounds whose seal waits, files put back to their seal
    oracle: OracleNight | None = None  # the [oracle] stage (news, questions, the hub's answers), when configured
    agents: AgentsNight | None = None  # the hub's Arena agents ([arena] agent_models), when configured

    @property
    def failed_sources(self) -> list[SourceReport]:
        return [s for s in self.sources if s.error or s.failures]

    @property
    def oracle_errors(self) -> list[Problem]:
        return self.oracle.errors if self.oracle is not None else []

    @property
    def agent_errors(self) -> list[Problem]:
        return self.agents.errors if self.agents is not None else []


def nightly(
    hub: Hub | Path,
    as_of: datetime,
    *,
    only: str | None = None,
    fetch_only: bool = False,
    extra: ExtraForecasters | None = None,
    extra_models: dict[str, ModelMeta] | None = None,
    env: dict[str, str] | None = None,
    client: httpx.Client | None = None,
    progress: ProgressFactory | None = None,
    sources: Mapping[str, Source] | None = None,
    walk: Callable[[Hub, datetime], bool] | None = None,
    fetched: Fetched | None = None,
    ahead: Callable[[], None] | None = None,
) -> NightlyReport:
    """One nightly run over ``hub`` (a Hub, or its folder). Raises PartialFailure after writing if a source failed.

    ``client`` replaces the sources' own HTTP clients (tests pass one over a mock transport);
    ``progress(source)`` returns a callback told of each finished request of that source;
    ``sources`` holds sources already built, by name, used instead of building them from hub.toml
    (the demo builds its sim world once for the season); ``walk(hub, as_of)`` records the receipts of
    every pull-request run GitHub created since the oldest unsealed round (``pipeline.receipts.walk``)
    and says whether it read them all: under ``[hub] receipts = "github"`` a round is sealed in a run
    whose walk did not complete (or without one) only once it is two days past its due time.

    ``fetched``: the night's fetch, made already by the demo's fetch lane (``fetch_lane``), in place of
    the fetch stage; ``ahead()`` is then called once, as soon as the night reads no more of the
    question and observation ledgers, so that the lane may fetch the next night meanwhile.
    """
    hub = as_hub(hub)
    settings, layout = hub.settings, hub.layout
    report = NightlyReport(as_of)
    env = dict(os.environ) if env is None else env
    command = "fetch" if fetch_only else "nightly"
    with hub_lock(layout.data, f"prescient {command} --as-of {format_ts(as_of)}"):
        readers.check_as_of(hub, format_ts(as_of))
        if fetched is None:
            bank = fetch_stage(settings, hub, as_of, report, only, env, client, progress, sources)
        else:
            bank = fetched.bank
            report.sources += fetched.sources
            report.written += fetched.written
        late = (settings.oracle is not None or bool(settings.arena.agent_models)) and not fetch_only and only is None
        ahead = _once(ahead)
        if not fetch_only:
            complete = settings.receipts != "github" or (walk is not None and walk(hub, as_of))
            if not complete:
                report.sealing.append(
                    Problem(
                        "data/receipts/",
                        None,
                        None,
                        "receipts-incomplete",
                        "the pull requests' runs could not all be read (GITHUB_TOKEN and GITHUB_REPOSITORY "
                        "set? GitHub's API reachable?), so no round less than two days past its due time is sealed in this run",
                        "warning",
                    )
                )
            take_up_decisions(hub, as_of)
            derive_stage(hub, as_of, bank, report, extra, extra_models or {}, complete, None if late else ahead)
    if settings.oracle is not None and not fetch_only and only is None:  # its steps take the lock themselves
        from ..oracle.stage import oracle_night  # its libraries (feeds, scikit-learn) load only where it runs

        report.oracle = oracle_night(hub, as_of, env, _news_texts(hub), client=client, world=getattr((sources or {}).get("sim"), "world", None))
    if settings.arena.agent_models and not fetch_only and only is None:  # each agent's run takes the lock itself
        from ..forecasters.agents import agents_night

        report.agents = agents_night(hub.root, settings.arena, as_of, env, client=client, own=settings.own_prefix)
    ahead()  # the oracle's and the agents' stages read the bank: the next fetch waits for them
    if report.failed_sources or report.quarantined or report.oracle_errors or report.agent_errors:
        raise PartialFailure(partial_summary(report), report_problems(report), run_report=report)
    return report


def take_up_decisions(hub: Hub, as_of: datetime) -> list[str]:
    """The maintainers' decisions this night sees on main for the first time, recorded with the time
    each acts from (``store.maintainer.take_up``): before scoring, so tonight's scores and boards
    already take them as of tonight. A decision merged after a night it was meant to act from acts
    from this one."""
    history = readers.load_history(hub)
    return maintainer.take_up(hub, as_of, str(history["as_of"].max()) if len(history) else "")


def _news_texts(hub: Hub) -> NewsTexts:
    """The articles' texts: in the command's cache folder (``--cache-dir``), else the hub's default one."""
    disk = hub.cache.disk
    return NewsTexts(disk.folder / "news-texts") if disk is not None else NewsTexts.for_hub(hub.root)


def partial_summary(report: NightlyReport) -> str:
    parts = [f"these sources failed: {', '.join(s.name for s in report.failed_sources)}"] if report.failed_sources else []
    if report.oracle_errors:
        parts.append(f"the oracle stage reported {len(report.oracle_errors)} problem(s) (feeds, articles or LLM calls)")
    if report.agent_errors:
        parts.append(f"the Arena agents reported {len(report.agent_errors)} problem(s) (LLM calls, bet files)")
    if report.quarantined:
        parts.append(f"{len(report.quarantined)} submitted file(s) could not be read and were quarantined (not scored)")
    return "wrote everything that succeeded; " + "; ".join(parts)


def report_problems(report: NightlyReport) -> list[Problem]:
    return (
        [Problem(f"source {s.name}", None, None, "source-failed", s.error or "; ".join(s.failures[:5])) for s in report.failed_sources]
        + report.quarantined
        + report.oracle_errors
        + report.agent_errors
    )


# -- phase 2: derive ------------------------------------------------------------------------------


def derive_stage(hub: Hub, as_of, bank, report, extra, extra_models, receipts_complete: bool = True, ahead: Callable[[], None] | None = None) -> None:
    settings, layout = hub.settings, hub.layout
    observations = _lazy(lambda: readers.load_observations(hub))  # the ledger after the fetch, read when needed
    view = _lazy(lambda: hub_view(hub, observations(), as_of))  # built only when a stage needs it
    scoring, found = settings.scoring, None
    if ahead is not None:  # all the night reads of the question and observation ledgers, read before the next fetch grows them
        view()
        found = incremental.ledger_changes(hub, format_ts(as_of), scoring.unresolved_markets)
        ahead()
    existing = {p.name for p in layout.round_dirs()}
    for due in sampling.rounds_to_open(settings.rounds, as_of, existing):
        freeze, questions = sampling.freeze_round(bank, observations(), due, settings.rounds, as_of)
        if questions.empty:  # never freeze an empty round: the next night in its window tries again
            report.rounds_waiting.append(format_date(due))
            report.round_notes.append(sampling.waiting_note(settings.rounds, due, as_of))
            continue
        if freeze != due - days(settings.rounds.open_days_before_due):
            report.round_notes.append(
                f"round {format_date(due)}: nothing was eligible at its freeze time, so it is frozen "
                f"now, {format_ts(freeze)} (the first run with eligible questions)"
            )
        write_forecasts(layout, due, questions, extra, report, settings.own_prefix)  # before the round: a crash leaves it unopened
        publish_round(hub, due, questions, bank, report, settings.rounds)
    _write_models(hub, {**{m: meta for m, (meta, _) in baselines(settings.own_prefix).items()}, **extra_models}, report)
    report.written += model_log.record(hub, readers.load_models(hub), as_of)  # what tonight's boards count
    sealed = seal_stage(hub, as_of, receipts_complete)  # before anything reads a past round's files
    report.written += sealed.written
    report.sealing += sealed.problems
    stats = layout.forecast_stats()  # every round's forecast files: what the manifest and the scores read
    if _write_after_due(hub, view, as_of, report, stats, settings.scoring.crowd_min_forecasters):  # after the others' files
        stats = layout.forecast_stats()
    report.written += manifest.record(hub, as_of, stats)  # every forecast file's sha256, first time seen
    # every round's scores, a frame per round; only the rounds what changed since this command's last
    # night can affect are scored again (the bytes of ``recompute.write_round_scores``)
    frames, written = incremental.rescore_changed_rounds(
        hub, view, format_ts(as_of), scoring.impute_value, scoring.unresolved_markets, report.quarantined, stats, found
    )
    report.written += written
    append_history(hub, frames, as_of, report, incremental.score_parts(hub))


def _once(call: Callable[[], None] | None) -> Callable[[], None]:
    """``call``, made callable any number of times, calling it the first time only (None: nothing)."""
    done: list[bool] = []

    def once() -> None:
        if call is not None and not done:
            done.append(True)
            call()

    return once


def _lazy(make: Callable[[], T]) -> Callable[[], T]:
    """``make()``, made on the first call and then given again."""
    made: list[T] = []

    def value() -> T:
        if not made:
            made.append(make())
        return made[0]

    return value


def publish_round(hub: Hub, due: datetime, questions: pd.DataFrame, bank: pd.DataFrame, report, rounds: RoundSettings | None = None) -> None:
    """questions.csv marks a round as open (``Layout.round_dirs``), so it is written last: a run
    killed before it leaves a round the next run opens again from the start. Under ``[rounds]
    secrecy = "commit-reveal"`` the round's reveal window is frozen with it (``reveal.csv``)."""
    layout = hub.layout
    if rounds is not None and rounds.secrecy == "commit-reveal":
        reveal = pd.DataFrame({"reveal_by": [format_ts(due + days(rounds.reveal_days))]})
        hub.cache.write_table(layout.round_reveal(due), reveal, ROUND_REVEAL)
        report.written.append(layout.relative(layout.round_reveal(due)))
    write_bytes_atomic(layout.round_json(due), export.forecastbench_json(questions, bank))
    hub.cache.write_table(layout.round_questions(due), questions, ROUND_QUESTIONS)
    report.rounds_opened.append(format_date(due))
    report.written += [layout.relative(layout.round_questions(due)), layout.relative(layout.round_json(due))]


def write_forecasts(layout, due, questions, extra: ExtraForecasters | None, report, own: str = DEFAULT_OWN) -> None:
    """The hub's own forecast files, checked by the same validation code as any pull request. The
    round is not published yet, so files left by a run killed while opening it are replaced; ``own``: ``[hub] own_prefix``."""
    frames = {m: forecaster(questions) for m, (_, forecaster) in at_open(own).items()}
    frames.update(extra(questions) if extra else {})
    _write_hub_files(layout, due, questions, frames, report, replace=True)


def _write_after_due(hub: Hub, view, as_of: datetime, report, stats: dict[str, FileStats], crowd_min: int = 2) -> bool:
    """Imputed, Naive and the crowd aggregates, once per round, at the first run after its due time;
    ``stats``: ``layout.forecast_stats()`` as they are now. True when a file was written. Several
    rounds to write are shared among forked processes (``parallel.forked_map``; the first night after
    an import writes every round's), their files reported in round order as one process writes them."""
    todo: list[tuple[datetime, list[str]]] = []
    revealed = seals.sealed_rounds(seals.load_seals(hub), "reveal")
    for due in readers.round_dues(hub):
        if due > as_of or (reveal_by(hub, due) is not None and format_date(due) not in revealed):
            continue  # a commit–reveal round's crowd waits for the reveals
        present = {name for name, _ in stats.get(format_date(due), ())}
        missing = [m for m in after_due(hub.settings.own_prefix) if f"{m}.csv" not in present]  # layout.forecast's name, without a path per model
        if missing:
            todo.append((due, missing))
    if not todo:
        return False
    at = view()

    def one(item: tuple[datetime, list[str]]) -> tuple[list[str], list[Problem]]:
        done = NightlyReport(as_of)  # what the round adds to the report
        _after_due_round(hub, at, *item, crowd_min, done)
        return done.written, done.quarantined

    results = forked_map(one, todo, default_processes(), hub.cache.disk)
    written = False
    for files, quarantined in results if results is not None else map(one, todo):
        report.written += files
        written = written or bool(files)
        report.quarantined += [p for p in quarantined if p not in report.quarantined]
    return written


def _after_due_round(hub: Hub, view, due: datetime, missing: list[str], crowd_min: int, report) -> None:
    questions = readers.load_round(hub, due)
    ctx = AtDeadline(view, due, readers.load_forecasts(hub, due, report.quarantined), crowd_min, hub.settings.own_prefix)
    made = {m: after_due(hub.settings.own_prefix)[m][1](questions, ctx) for m in missing}
    # a crowd of fewer than crowd_min forecasters on every unit forecasts nothing: no file, not a file of 0.5
    _write_hub_files(hub.layout, due, questions, {m: f for m, f in made.items() if len(f)}, report)


def _write_hub_files(layout: Layout, due: datetime, questions: pd.DataFrame, frames: dict, report, replace: bool = False) -> None:
    if not replace and all(layout.forecast(due, model).exists() for model in frames):
        return  # nothing to write (an after-due model with no forecast writes no file): no round to check against
    the_round = round_set(to_csv_bytes(questions, ROUND_QUESTIONS), format_date(due), layout.relative(layout.round_questions(due)))
    for model, frame in sorted(frames.items()):
        path = layout.forecast(due, model)
        if replace or not path.exists():
            data = validated_forecast(layout.relative(path), forecast_bytes(frame), the_round)
            if write_bytes_atomic(path, data):
                report.written.append(layout.relative(path))


def validated_forecast(label: str, data: bytes, the_round) -> bytes:
    """``data``, a forecast file the hub writes, when it passes submission validation; else SchemaError."""
    problems = [p for p in check_content(parse_forecast(data, label, "csv"), the_round) if p.severity == "error"]
    if problems:
        raise SchemaError(f"{label}: a hub forecaster's file fails submission validation", problems)
    return data


def _write_models(hub: Hub, models: dict[str, ModelMeta], report) -> None:
    layout, texts = hub.layout, hub.cache.state(MODEL_TEXTS)  # the same metadata every night: formatted once
    for model, meta in sorted(models.items()):
        if meta not in texts:
            texts[meta] = meta.to_yaml()
        if write_bytes_atomic(layout.model_meta(model), texts[meta]):
            report.written.append(layout.relative(layout.model_meta(model)))
