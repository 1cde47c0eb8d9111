"""``prescient demo``: a complete hub on the offline ``sim`` world, a season of nightly runs.

The season's dates are fixed (they do not depend on today's date), so two demos are identical
byte for byte, and rerunning the demo in the same folder changes nothing.

Besides the rounds, the demo fills the two secondary views (``forecasters.synthetic_views``):
- Arena bets: when a round opens, ``BETTORS`` write ``data/bets/<due>/<model>.csv`` (once per round);
- a Daily Oracle-style set ``demo-oracle``: imported once per run, before the first night and
  recorded at its time, with the function behind ``prescient import oracle`` (a re-import of the
  same questions adds nothing), and the synthetic forecasters' files in its ``forecasts/``.
Every file is checked by the same validation code as a pull request before it is written.
"""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from importlib import resources
from pathlib import Path

from ..config import Settings
from ..errors import ConfigError, Problem, SchemaError
from ..forecasters.synthetic import synthetic_forecasts, synthetic_models
from ..forecasters.synthetic_views import BETTORS, ORACLE_SET, oracle_forecasts, oracle_question_file, synthetic_bets
from ..oracle.importer import current, import_oracle
from ..schemas import BETS, ORACLE_FORECASTS
from ..site.build import build_site
from ..sources.sim import SimSource, world_from_options
from ..store import readers
from ..store.atomic import write_bytes_atomic
from ..store.csvio import to_csv_bytes
from ..store.hub import Hub
from ..store.layout import Layout
from ..store.lock import hub_lock
from ..submissions.bets import check_bet_file
from ..submissions.content import round_set
from ..submissions.oracle import check_oracle_forecast
from ..timeutil import days, format_date, format_ts, parse_ts
from .nightly import nightly

SEASON_START = parse_ts("2026-01-04T00:00:00Z")
SEASON_END = parse_ts("2026-07-19T00:00:00Z")

Progress = Callable[[int, int, str], None]


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


def run_demo(root: Path, progress: Progress | None = None, nights: list[datetime] | None = None,
             build: bool = True) -> DemoResult:
    """Create (or bring up to date) a demo hub in ``root`` and build its site (``build``). ``progress``
    is told of each night, as (nights done, nights in all, what)."""
    _prepare(root, Layout(root))
    hub = Hub.load(root)
    options = _sim_options(hub.settings)
    sim = SimSource(options, world_from_options(options))  # drawn once for the season
    world = sim.world
    nights = season() if nights is None else nights
    todo = remaining(hub, nights)
    if todo:
        load_oracle(root, world.seed, todo[0])
    placed: set[str] = set()  # rounds whose bets this run has seen to
    done = len(nights) - len(todo)
    news_start = _news_start(options)
    for i, night in enumerate(todo, start=done + 1):
        nightly(_with_news(hub, night > news_start), night, extra=lambda q: synthetic_forecasts(world, q),
                extra_models=synthetic_models(), env={}, sources={"sim": sim})
        place_bets(hub, placed)
        if progress:
            progress(i, len(nights), f"night {night:%Y-%m-%d}")
    if todo and hub.settings.oracle is not None:
        write_oracle_forecasts(hub, hub.settings.oracle.question_set, world.seed)
    last = nights[-1] if nights else None
    if build and last:
        build_site(hub, last)
    return DemoResult(root, len(nights), root / "site_src" / "site", last)


def remaining(hub: Hub, nights: list[datetime]) -> list[datetime]:
    """The nights still to run in a hub left by an earlier (perhaps interrupted) demo: from the last
    night the ledgers record on, that one included, since a night's run is idempotent and completes
    what an interrupted run of it began. Time never runs backwards in a ledger, so earlier nights
    cannot be replayed."""
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
        the_round = round_set(layout.round_questions(due).read_bytes(), format_date(due),
                              layout.relative(layout.round_questions(due)))
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
            _refuse(layout.relative(path), check_oracle_forecast(data, layout.relative(path),
                                                                 questions_path.read_bytes(), questions_label))
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
        write_bytes_atomic(root / ".gitignore", b"site_src/docs/generated/\nsite_src/site/\ndata/.prescient.lock\n")


def _sim_options(settings: Settings) -> dict:
    sim = [s for s in settings.sources if s.name == "sim" and s.enabled]
    if not sim:
        raise ConfigError(f"{settings.root / 'data/hub.toml'}: the demo needs [sources.sim] enabled")
    return dict(sim[0].options)
