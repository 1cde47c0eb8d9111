"""``prescient demo``: a complete hub on the offline ``sim`` world, a season of nightly runs.

The season's dates are fixed (they do not depend on today's date), so two demos are identical
byte for byte, and rerunning the demo in the same folder changes nothing.

The synthetic forecasters submit as a real hub's teams do (``submit``): the night a round opens,
each model's forecast file (and its bets) is a pull request by the teams, merged into ``main`` by the
demo's maintainer before the due time, with a receipt of its validation run as the receipts workflow
writes it (``pipeline.demo_git``); the next night records the receipt in ``data/receipts/`` as the
nightly's walk does, so the round's seal rests on it (evidence ``receipt``).

Besides the rounds, the demo fills the two secondary views (``forecasters.synthetic_views``):
- Arena bets: when a round opens, ``BETTORS`` write ``data/bets/<due>/<model>.csv`` (once per round, in
  their pull request);
- a Daily Oracle-style set ``demo-oracle``: imported once per run, before the first night and
  recorded at its time, with the function behind ``prescient import oracle`` (a re-import of the
  same questions adds nothing), and the synthetic forecasters' files in its ``forecasts/``.
Every file is checked by the same validation code as a pull request before it is written.
"""

from __future__ import annotations

import contextlib
import dataclasses
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from importlib import resources
from pathlib import Path, PurePosixPath

import pandas as pd

from ..config import Settings
from ..errors import ConfigError, Problem, SchemaError
from ..forecasters.synthetic import TEAM_LOGIN, synthetic_forecasts, synthetic_models
from ..forecasters.synthetic_views import BETTORS, ORACLE_SET, oracle_forecasts, oracle_question_file, synthetic_bets
from ..oracle import tfidf
from ..oracle.importer import current, import_oracle
from ..schemas import BETS, ORACLE_FORECASTS, RECEIPTS
from ..site.build import build_site
from ..sources.sim import SimSource, SimWorld, world_from_options
from ..store import files, readers, receipts
from ..store.atomic import fsyncs_deferred, write_bytes_atomic
from ..store.csvio import to_csv_bytes
from ..store.fast_forecasts import forecast_bytes
from ..store.git import run_git
from ..store.hub import Hub
from ..store.layout import Layout
from ..store.lock import hub_lock
from ..submissions.bets import check_bet_file
from ..submissions.content import published_round
from ..submissions.oracle import check_oracle_forecast
from ..timeutil import days, format_date, format_ts, parse_ts
from .demo_git import DEMO_TEAMS, MAINTAINER, PULL_REFS, RECEIPTS_BRANCH, Held, NightlyCommits, gitignore
from .fetch_lane import LANE_FOLDERS, FetchLane
from .nightly import nightly, validated_forecast

SEASON_START = parse_ts("2026-01-04T00:00:00Z")
SEASON_END = parse_ts("2026-07-19T00:00:00Z")

Progress = Callable[[int, int, str], None]
RUN_IDS = 7_000_000_000  # a demo pull request's validation run: run id RUN_IDS + its number
PUSHED, EACH, RUN_AFTER, RECEIPT_AFTER, MERGED_AFTER = (
    timedelta(hours=1),
    timedelta(minutes=20),
    timedelta(minutes=1),
    timedelta(minutes=3),
    timedelta(minutes=10),
)  # a night's pull requests, one after another


@dataclass(frozen=True)
class DemoResult:
    root: Path
    nights: int
    site: Path
    as_of: datetime | None  # the last night: the demo's clock stops there


def demo_hub_toml() -> bytes:
    return resources.files("generator").joinpath("data_templates/demo-hub.toml").read_bytes()


def season(start: datetime = SEASON_START, end: datetime = SEASON_END, step_days: int = 1) -> list[datetime]:
    nights, night = [], start
    while night <= end:
        nights.append(night)
        night += days(step_days)
    return nights


def run_demo(
    root: Path, progress: Progress | None = None, nights: list[datetime] | None = None, build: bool = True, fetch_lane: bool = True
) -> DemoResult:
    """Create (or bring up to date) a demo hub in ``root`` and build its site (``build``). ``progress``
    is told of each night, as (nights done, nights in all, what). ``fetch_lane``: each night's fetch
    made while the night before is scored (``pipeline.fetch_lane``; the same history without it), the
    first night's sources read while the hub is set up. The oracle's scikit-learn work runs in a companion
    process that imports scikit-learn while the first nights run (``oracle.tfidf.elsewhere``)."""
    _prepare(root, Layout(root))
    hub = Hub.load(root)
    options = _sim_options(hub.settings)
    sim = SimSource(options, world_from_options(options))  # drawn once for the season
    world = sim.world
    nights = season() if nights is None else nights
    todo = remaining(hub, nights)
    placed: set[str] = set()  # rounds whose bets this run has seen to
    done = len(nights) - len(todo)
    news_start = _news_start(options)
    news = any(night > news_start for night in todo)  # the oracle's nights: its scikit-learn work on the other core
    with fsyncs_deferred(), tfidf.elsewhere(news), NightlyCommits(root, hub.settings.bot_email) as commits:
        with FetchLane(hub, {"sim": sim}, {}) if fetch_lane and todo else contextlib.nullcontext() as lane:
            if lane is not None and not commits.has_nightly(todo[0]):
                lane.read_ahead(todo[0])  # the first night's sources, read while the hub is set up
            if nights:
                commits.commit(nights[0] - days(1), "hub: set up the demo hub (hub.toml, .gitignore)", MAINTAINER)
            if todo:
                load_oracle(root, world.seed, todo[0])
            teams = Teams.of(hub)
            for i, night in enumerate(todo, start=done + 1):
                # a night an earlier run committed is not run again: the teams' pull requests merged after it
                # would enter its manifest, and its history rows would conflict with those recorded
                if i > done + 1 or not commits.has_nightly(night):
                    teams.record(hub, night)  # the nightly's walk: the receipts of the runs created since the last night
                    _night(hub, night, sim, commits, lane, todo[i - done] if i - done < len(todo) else None, news=night > news_start)
                submit(hub, world, night, commits, teams, placed)
                if progress:
                    progress(i, len(nights), f"night {night:%Y-%m-%d}")
        commits.held = None  # the lane has ended: its files are on disk as the last night left them
        if todo and hub.settings.oracle is not None:
            write_oracle_forecasts(hub, hub.settings.oracle.question_set, world.seed)
            commits.commit(todo[-1], "demo teams: the synthetic forecasters' oracle answers", DEMO_TEAMS)
    last = nights[-1] if nights else None
    if build and last:
        build_site(hub, last)
        commit_site(root, last)
    return DemoResult(root, len(nights), root / "site_src" / "site", last)


def _night(
    hub: Hub, night: datetime, sim: SimSource, commits: NightlyCommits, lane: FetchLane | None, following: datetime | None, news: bool
) -> None:
    """The nightly run of ``night`` and its commit; with the ``lane``, its fetch taken from the lane,
    which is asked for the ``following`` night's as soon as this one no longer reads what it writes."""
    run = _with_news(hub, news)
    if lane is None:
        nightly(run, night, extra_models=synthetic_models(), env={}, sources={"sim": sim})
        commits.nightly(night)
        return
    fetched = lane.fetch(night)
    if following is not None:
        lane.read_ahead(following)  # the next night's sources, read (nothing written) while this night starts
    ahead = (lambda: lane.ask(following)) if following is not None else None
    nightly(run, night, extra_models=synthetic_models(), env={}, sources={"sim": sim}, fetched=fetched, ahead=ahead)
    commits.held = Held(LANE_FOLDERS, fetched.files)  # the night's, until the next night's fetch is taken
    commits.nightly(night)


def commit_site(root: Path, when: datetime) -> bool:
    """The site's sources (``site_src``: mkdocs.yml and the pages' Markdown) committed by the demo's
    maintainer once they are built; the generated pages and the built site are never committed."""
    with NightlyCommits(root, "") as commits:
        return commits.commit(when, "site: the hub's pages (site_src)", MAINTAINER)


@dataclass
class Teams:
    """The synthetic teams' pull requests: the next number, and the receipts the receipts workflow has
    written (on its branch) that the hub's ledger does not record yet."""

    next_pr: int
    pending: pd.DataFrame

    @classmethod
    def of(cls, hub: Hub) -> Teams:
        """As an earlier run of the demo left them (refs/pull/<n>/head, the receipts branch, data/receipts/)."""
        refs = run_git(hub.root, "for-each-ref", "--format=%(refname)", PULL_REFS, RECEIPTS_BRANCH).decode().split()
        numbers = [int(r.split("/")[2]) for r in refs if r.startswith(PULL_REFS) and r.split("/")[2].isdigit()]
        branch = receipts.load_branch_at(hub.root, RECEIPTS_BRANCH) if RECEIPTS_BRANCH in refs else receipts.empty()
        recorded = receipts.heads(receipts.load_receipts(hub))
        return cls(max(numbers, default=0) + 1, branch[~branch["head_sha"].isin(recorded)].reset_index(drop=True))

    def record(self, hub: Hub, night: datetime) -> pd.DataFrame:
        """What the nightly's walk does before it seals: record the receipts of the runs created by
        ``night`` (the receipts workflow's rows, at the night's time); return the rows added."""
        due = self.pending["attested_at"] <= format_ts(night)
        if not due.any():
            return receipts.empty()
        rows, self.pending = self.pending[due].assign(recorded_at=format_ts(night)), self.pending[~due].reset_index(drop=True)
        with hub_lock(hub.layout.data, "prescient demo: receipts"):
            return receipts.record(hub, [rows], night)


def submit(hub: Hub, world: SimWorld, night: datetime, commits: NightlyCommits, teams: Teams, placed: set[str]) -> list[int]:
    """The synthetic teams' pull requests of the night: for each open round that lacks their files,
    each model's forecast file (and bets) written, checked as a pull request's, pushed by the teams,
    its validation run's receipt written as the receipts workflow writes it, and merged by the
    maintainer, one after another from an hour past the night. Returns the pull requests' numbers."""
    files: dict[str, list[str]] = {}  # model → its files (data/<forecasts or bets>/<due>/<model>.csv)
    written = [p for due in readers.round_dues(hub) if due > night for p in write_team_forecasts(hub, world, due)]
    for path in written + place_bets(hub, placed):
        files.setdefault(PurePosixPath(path).stem, []).append(path)
    made = []
    for i, (model, paths) in enumerate(sorted(files.items())):
        number, pushed = teams.next_pr, night + PUSHED + i * EACH
        dues = sorted({PurePosixPath(p).parent.name for p in paths})
        head = commits.pull_request(number, paths, f"{model}: round {', '.join(dues)}", pushed, pushed + MERGED_AFTER)
        rows = receipts.receipt_rows(
            {p: commits.blobs[p] for p in paths},
            attested_at=format_ts(pushed + RUN_AFTER),
            head_sha=head,
            pr=number,
            run_id=RUN_IDS + number,
            verdict="success",
            as_of=pushed + RECEIPT_AFTER,
            author=TEAM_LOGIN,
        )
        commits.receipt(RUN_IDS + number, to_csv_bytes(rows, RECEIPTS), pushed + RECEIPT_AFTER)
        teams.pending = pd.concat([teams.pending, rows], ignore_index=True) if len(teams.pending) else rows
        teams.next_pr += 1
        made.append(number)
    return made


def write_team_forecasts(hub: Hub, world: SimWorld, due: datetime) -> list[str]:
    """The synthetic forecasters' files of round ``due`` that are not there yet, each checked as a pull
    request's; the files written."""
    layout = hub.layout
    models = [m for m in synthetic_models() if not layout.forecast(due, m).exists()]
    if not models:
        return []
    frames = synthetic_forecasts(world, readers.load_round(hub, due))
    the_round = published_round(layout, due)
    written = []
    with hub_lock(layout.data, "prescient demo: the teams' forecasts"):
        for model in sorted(models):
            path = layout.forecast(due, model)
            write_bytes_atomic(path, validated_forecast(layout.relative(path), forecast_bytes(frames[model]), the_round))
            written.append(layout.relative(path))
    return written


def remaining(hub: Hub, nights: list[datetime]) -> list[datetime]:
    """The nights still to run in a hub left by an earlier (perhaps interrupted) demo: from the last
    night the ledgers record on, that one included, since a night's run is idempotent and completes
    what an interrupted run of it began (``run_demo`` runs its nightly again only if its commit was
    not made). Time never runs backwards in a ledger, so earlier nights cannot be replayed."""
    latest = readers.latest_recorded(hub)
    return [n for n in nights if latest is None or format_ts(n) >= latest[0]]


def place_bets(hub: Hub, placed: set[str]) -> list[str]:
    """Write the bettors' files of every round not in ``placed`` (then added to it); return the files
    written. A round's bets are made once, from its forecast files, and a file already there is kept."""
    layout, written = hub.layout, []
    for due in readers.round_dues(hub):
        if format_date(due) in placed:
            continue
        placed.add(format_date(due))
        missing = [m for m in BETTORS if not layout.bets(due, m).exists() and layout.forecast(due, m).exists()]
        if not missing:
            continue
        questions, forecasts = readers.load_round(hub, due), readers.load_forecasts(hub, due)
        the_round = published_round(layout, due)
        with hub_lock(layout.data, "prescient demo: bets"):
            for model in missing:
                bets = synthetic_bets(questions, forecasts[model])
                if bets.empty:
                    continue
                path = layout.bets(due, model)
                data = to_csv_bytes(bets, BETS)
                _refuse(layout.relative(path), check_bet_file(data, layout.relative(path), the_round))
                write_bytes_atomic(path, data)
                written.append(layout.relative(path))
    return written


def load_oracle(root: Path, seed: int, as_of: datetime) -> list[str]:
    """Import the demo oracle set as ``prescient import oracle FILE --set demo-oracle`` does (a
    re-import of the same questions changes no byte), then write the forecasters' files. Return the
    files that changed."""
    hub = Hub(root)
    with tempfile.TemporaryDirectory(prefix="prescient-demo-") as folder:
        source = Path(folder) / f"{ORACLE_SET}.csv"
        oracle_question_file(seed).to_csv(source, index=False, lineterminator="\n")
        report = import_oracle(root, source, ORACLE_SET, as_of)
    return ([report.path] if report.added else []) + write_oracle_forecasts(hub, ORACLE_SET, seed)


def write_oracle_forecasts(hub: Hub, qset: str, seed: int) -> list[str]:
    """The synthetic forecasters' answers to every question of the oracle set ``qset`` (self-reported,
    as any submitted file), each checked as a pull request's would be; the files that changed."""
    layout = hub.layout
    questions_path = layout.oracle_questions(qset)
    if not questions_path.is_file():
        return []
    questions_label, written = layout.relative(questions_path), []
    questions = current(readers.load_oracle_questions(hub, qset))
    with hub_lock(layout.data, "prescient demo: oracle forecasts"):
        for model, frame in sorted(oracle_forecasts(questions, seed).items()):
            path = layout.oracle_forecast(qset, model)
            data = to_csv_bytes(frame, ORACLE_FORECASTS)
            _refuse(layout.relative(path), check_oracle_forecast(data, layout.relative(path), files.read_bytes(questions_path), questions_label))
            if write_bytes_atomic(path, data):
                written.append(layout.relative(path))
    return written


def _news_start(options: dict) -> datetime:
    """When the Sim Wire starts publishing (``[sources.sim] news_start``, else the world's start)."""
    return parse_ts(str(options.get("news_start") or options.get("start", "2026-01-04T00:00:00Z")))


def _with_news(hub: Hub, on: bool) -> Hub:
    """The hub with its [oracle] stage on, or off on the nights before the Sim Wire has published
    anything (the stage would read an empty feed each of those nights: time the demo spares)."""
    return hub if on or hub.settings.oracle is None else hub.with_settings(dataclasses.replace(hub.settings, oracle=None))


def _refuse(label: str, problems: list[Problem]) -> None:
    errors = [p for p in problems if p.severity == "error"]
    if errors:
        raise SchemaError(f"{label}: a demo file fails submission validation", errors)


def _prepare(root: Path, layout: Layout) -> None:
    if root.exists() and any(root.iterdir()) and not layout.hub_toml.is_file():
        raise ConfigError(f"{root} exists and is not a Prescient hub; choose an empty or new folder for the demo")
    if not layout.hub_toml.is_file():
        write_bytes_atomic(layout.hub_toml, demo_hub_toml())
        write_bytes_atomic(root / ".gitignore", gitignore())


def _sim_options(settings: Settings) -> dict:
    sim = [s for s in settings.sources if s.name == "sim" and s.enabled]
    if not sim:
        raise ConfigError(f"{settings.root / 'data/hub.toml'}: the demo needs [sources.sim] enabled")
    return dict(sim[0].options)
