"""Build the site: gather everything from the hub, render the pages, write what changed, run MkDocs.

``build_site`` is the shell around ``site.render`` (pure). MkDocs runs in strict mode, with
``SOURCE_DATE_EPOCH`` set to ``as_of`` so its own dates (sitemap) are reproducible too.

``gather`` reads as the method (its docstring) and keeps both cores busy on any but a small hub
(``WORKER_MIN_ROWS`` score rows or more; at ForecastBench's scale the score files are also parsed
by two processes, ``SHARED_READ_BYTES``): the bootstrapped boards (``site.boards``), the rounds' own boards, the
Arena and the Changes page's diffs are made in forked workers (``parallel.in_background``) while the
main process reads the forecast files and builds the question infos; each is the same value made
here, where forking is not sound or not worth it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterator
from datetime import datetime
from importlib import resources
from pathlib import Path
from typing import Any

import pandas as pd

from ..arena.decisions import decision_rows
from ..arena.gather import load_cohorts
from ..arena.portfolio import arena_table, bet_brier, pnl_curves
from ..errors import BuildError, Problem
from ..leaderboard.crowd import crowd_from_rounds
from ..leaderboard.diff import first_rounds, history_diffs
from ..leaderboard.hub_boards import history_views, hub_board
from ..oracle.board import oracle_board, oracle_scores
from ..oracle.sets import oracle_sets
from ..oracle.temporal import temporal_view
from ..parallel import default_processes, forked_map, in_background
from ..schemas import FORECASTS
from ..scoring.corrections import corrections
from ..scoring.resolve import LedgerView, ledger_view
from ..store import files, maintainer, readers
from ..store.cache import Share
from ..store.git import last_change
from ..store.hub import Hub, as_hub
from ..store.seals import load_seals
from ..store.spreadsheet import spreadsheet_safe_bytes
from ..timeutil import format_date, format_ts
from .api import site_files
from .boards import WORKER_MIN_ROWS, site_boards
from .questions import question_infos, shown_rounds
from .render import GENERATED, SiteData, safe_url
from .rounds import OPEN, RoundStatus, is_replay, resolutions, round_status
from .seal_rows import SealIndex, seal_index
from .shell import FRAGMENTS, ROUND_TABLE, ROUND_TABLES, SHELL
from .sitedata import RoundInfo
from .speak import CHANGES_NIGHTS
from .write import write_tree

SHARED_READ_BYTES = 32 << 20  # less: a forked process costs more than it saves


def _last_nights(history: pd.DataFrame, n: int) -> pd.DataFrame:
    """The rows of the latest ``n`` nights."""
    nights = sorted(history["as_of"].unique())[-n:]
    return history[history["as_of"].isin(nights)]


def gather(hub: Hub | Path, as_of: datetime, quarantine: list[Problem] | None = None) -> SiteData:
    """Everything the pages show. A submitted file that cannot be read (forecast, bet, oracle answer)
    is left out, as the nightly leaves it out of the scores; ``quarantine`` collects those files.

    The method, top to bottom: read the ledgers (scores, models, history, observations and how they
    resolve, the rounds' question sets); make the boards (every configured board × view, and each
    round's own); each round's state and, once past its due time, its forecasts; the Arena and the
    Changes page's diffs; the question pages' data; then the rest, each read as it is needed. Speed
    wraps three steps and changes no value (tests/site/test_site_boards.py compares the two): large
    ledgers are parsed by forked processes (``_shared``); the boards are taken from the disk cache or
    made in forked workers (``site_boards``); and ``later`` starts the rounds' boards, the Arena and
    the Changes page in a forked worker each (``WORKER_MIN_ROWS`` score rows or more), taken where they
    are used (on a smaller hub, they run there)."""
    hub = as_hub(hub)
    settings = hub.settings
    quarantine = [] if quarantine is None else quarantine
    scores, models = readers.load_scores(hub, _shared(hub, readers.score_files(hub.layout))), readers.load_models(hub, as_of)
    history = readers.load_history(hub)  # every view; a night from before the view column has it empty
    named = history_views(history)
    overall = named[named["view"] == "overall"]
    observations = readers.load_observations(hub, _shared(hub, hub.layout.observation_files()))
    view = ledger_view(observations, format_ts(as_of), readers.load_statements(hub), settings.scoring.unresolved_markets)
    first = settings.leaderboard.boards[0]
    sets = {due: readers.load_round(hub, due) for due in readers.round_dues(hub)}
    asked = pd.concat(list(sets.values()), ignore_index=True) if sets else None
    made = site_boards(hub, scores, models, as_of, settings, asked, observations)
    busy = len(scores) >= WORKER_MIN_ROWS  # a smaller hub's work takes less than a worker costs to start

    def later(make: Callable[[], Any]) -> Callable[[], Any]:  # in a forked worker at scale, else here when taken: the same value
        return in_background(make, busy)

    round_boards = later(lambda: _round_boards(scores, sets, models, as_of, settings, first))
    states, read = _rounds_read(hub, sets, view, as_of, quarantine)
    arena = later(lambda: _arena(hub, as_of, read))
    changes = later(lambda: _changes(overall, scores, models))
    rounds: list[RoundInfo] = []
    boards_of_rounds = round_boards()
    for day, (questions, participants, status, units) in states.items():
        board = None if status.state == OPEN else boards_of_rounds[day]
        rounds.append(RoundInfo(day, questions, participants, status=status, resolutions=units, board=board))
    questions_of_rounds = _questions(hub, observations, rounds, read, scores, as_of)
    arena_parts, unreadable_bets = arena()
    quarantine += unreadable_bets
    commit, uncommitted = last_change(hub.root, "data/")
    gathered: dict[str, Any] = dict(
        title=settings.title,
        as_of=as_of,
        data_commit=commit,  # the last commit that changed data/: what every page's footer names
        data_uncommitted=uncommitted,
        methodology_version=settings.scoring.methodology_version,
        history=overall[overall["board"] == first],
        board_history=history,
        models=models,
        round_age_days=settings.scoring.min_age_days,
        model_scores={m: g for m, g in scores.groupby("model", sort=True)},
        changes=changes(),
        corrections=corrections(observations, format_ts(as_of), {r.due: r.questions for r in rounds}, readers.load_resolutions(hub)),
        decisions=_decisions(hub, as_of),
        **arena_parts,
        **_oracle(hub, as_of, models, quarantine),
        rounds=rounds,
        questions=questions_of_rounds,
        repo_url=settings.repo_url,
        settings=settings,
        **_downloads(hub, readers.quarantined_files(quarantine), settings.repo_url, as_of),
        seals=_seals(hub, as_of, models, rounds),
        replay=is_replay(settings),
    )
    boards = made()
    return SiteData(board=boards.get((first, "overall"), next(iter(boards.values()))), boards=boards, **gathered)


def _seals(hub: Hub, as_of: datetime, models: dict, rounds: list[RoundInfo]) -> SealIndex:
    """The seals recorded by ``as_of``, as the round and model pages list them (``seal_rows``)."""
    ledger = load_seals(hub)
    ledger = ledger[ledger["sealed_at"].astype(str) <= format_ts(as_of)]
    due_times = {r.due: r.status.due for r in rounds if r.status is not None}
    return seal_index(ledger, {m: meta.name for m, meta in models.items()}, due_times, safe_url(hub.settings.repo_url))


def _shared(hub: Hub, paths: list[Path]) -> Share | None:
    """Files this large in all (``SHARED_READ_BYTES``) are parsed by forked processes (``ReadCache.read_tables``):
    the score files, which every worker waits for, took ~3.3 s of one core at six months of a
    ForecastBench-density hub (112 MB; ~17 s at three years), and the observations ~170 MB at three years."""
    if sum(p.stat().st_size for p in paths) < SHARED_READ_BYTES:
        return None
    return lambda work, items: forked_map(work, items, default_processes(), carry=hub.cache.disk)


def _decisions(hub: Hub, as_of: datetime) -> pd.DataFrame:
    """The maintainers' decisions recorded by ``as_of``, newest first (those not yet in effect included)."""
    actions = maintainer.as_taken(maintainer.load_actions(hub), maintainer.load_taken(hub))
    actions = actions[actions["recorded_at"] <= format_ts(as_of)]
    return actions.iloc[::-1].reset_index(drop=True)


def _round_boards(scores: pd.DataFrame, sets: dict, models: dict, as_of: datetime, settings, board: str) -> dict[str, pd.DataFrame | None]:
    """Each round's own board (``_round_board``), by its due date."""
    by_round = {r: g for r, g in scores.groupby("round", sort=False)} if len(scores) else {}
    return {
        format_date(due): _round_board(by_round.get(format_date(due)), questions, models, as_of, settings, board) for due, questions in sets.items()
    }


def _rounds_read(hub: Hub, sets: dict, view: LedgerView, as_of: datetime, quarantine: list[Problem]) -> tuple[dict, dict]:
    """Each round's question set, participants, state and resolutions (``_round_state``), by due date;
    and the forecasts of each round past its due time, by due date then model. An open round's
    forecasts are never published: a late team could copy them."""
    states, read = {}, {}
    for due, questions in sets.items():
        day = format_date(due)
        by_model = readers.load_forecasts(hub, due, quarantine)
        states[day] = (questions, tuple(sorted(by_model)), *_round_state(day, questions, view, as_of))
        if states[day][2].state != OPEN:
            read[day] = by_model
    return states, read


def _changes(overall: pd.DataFrame, scores: pd.DataFrame, models: dict) -> list:
    """The Changes page's diffs of the latest nights of the overall view."""
    return history_diffs(_last_nights(overall, CHANGES_NIGHTS), first_rounds=first_rounds(scores), names={m: meta.name for m, meta in models.items()})


def _round_state(due: str, questions: pd.DataFrame, view: LedgerView, as_of: datetime) -> tuple[RoundStatus, pd.DataFrame]:
    """A round's state at ``as_of`` and how each of its units resolved (``rounds.resolutions``)."""
    units = resolutions(questions, view) if len(questions) else pd.DataFrame(columns=["status"])
    due_time = questions["due"].iloc[0] if len(questions) else f"{due}T00:00:00Z"
    return round_status(due_time, units, as_of), units


def _round_board(scores: pd.DataFrame | None, questions: pd.DataFrame, models: dict, as_of: datetime, settings, board: str) -> pd.DataFrame | None:
    """One round's own board (the first board's overall view, point estimates and ranks, no
    bootstrap): who did best in that round alone. None when nothing of it is scored yet."""
    if scores is None or not len(scores):
        return None
    crowd = crowd_from_rounds(questions) if len(questions) else None
    # min_round_age_days=0: the round is shown as soon as something resolves; the Leaderboard waits
    # [scoring] min_age_days before it counts a round
    return hub_board(scores, models, as_of, settings, board=board, view="overall", replicates=0, crowd=crowd, min_round_age_days=0)


def _arena(hub: Hub, as_of: datetime, forecasts: dict[str, dict[str, pd.DataFrame]]) -> tuple[dict, list[Problem]]:
    """The Arena's table, curves and decisions, from the forecast files, question sets and observations
    ``gather`` has read (not read twice: at ForecastBench scale a read of every forecast file costs ~20 s,
    and of the observations ~2 s at six months of its density). The decisions read the
    bet files of the rounds past their due time; with them, the unreadable bet files found (the
    forecast files are ``gather``'s), which ``gather`` adds to its quarantine: this may run in a worker."""
    unreadable: list[Problem] = []
    cohorts = load_cohorts(hub, as_of, quarantine=unreadable, forecasts=forecasts)
    bets = {format_date(due): readers.load_bets(hub, due, []) for due in readers.round_dues(hub) if due <= as_of}
    return {
        "arena": arena_table(cohorts),
        "arena_curves": pnl_curves(cohorts),
        "arena_brier": bet_brier(cohorts),
        "arena_decisions": decision_rows(cohorts.positions, bets),
    }, unreadable


def _oracle(hub: Hub, as_of: datetime, models: dict, quarantine: list[Problem]) -> dict:
    scores = oracle_scores(hub, as_of, quarantine=quarantine)
    cutoffs = {m: meta.knowledge_cutoff or "" for m, meta in models.items()}
    board = oracle_board(scores, cutoffs, hub.settings.own_prefix)
    return {
        "oracle_board": board,
        "oracle_sets": oracle_sets(hub, as_of, scores, board, cutoffs),
        "oracle_months": temporal_view(scores, cutoffs, by=("model",)) if len(scores) else pd.DataFrame(),
    }


def _questions(
    hub: Hub, observations: pd.DataFrame, rounds: list[RoundInfo], forecasts: dict[str, dict[str, pd.DataFrame]], scores, as_of: datetime
) -> list:
    """The question pages' data, from the forecasts of each round past its due time (``forecasts``: by
    round, then model), each file's rows cut to the questions whose page shows that round
    (``shown_rounds``) before they are joined; the pages' shared model list is that of every file."""
    if not rounds:
        return []
    asked = pd.concat([_with_resolutions(r) for r in rounds], ignore_index=True)
    shown, ids = shown_rounds(asked), set(asked["question_id"])
    given, models = [], set()
    for day, by_model in forecasts.items():
        for model, frame in sorted(by_model.items()):
            cut = frame[frame["question_id"].isin(shown.get(day, ()))]
            if len(cut) or frame["question_id"].isin(ids).any():  # the model forecast a question asked
                models.add(model)
            given.append(cut.assign(round=day, model=model))
    given = pd.concat(given, ignore_index=True) if given else pd.DataFrame(columns=["round", "model", *FORECASTS.names])
    return question_infos(readers.load_bank(hub), observations, asked, given, scores, format_ts(as_of), models=tuple(sorted(models)))


def _with_resolutions(r: RoundInfo) -> pd.DataFrame:
    """A round's question set with its round and how each unit resolved (``rounds.resolutions``)."""
    out = r.questions.reset_index(drop=True).assign(round=r.due)
    if r.resolutions is not None and len(r.resolutions) == len(out):
        for column in ("status", "outcome", "resolved_at", "final_value"):
            out[column] = r.resolutions[column].to_numpy()
    return out


def _downloads(hub: Hub, quarantined: set[str], repo_url: str = "", as_of: datetime | None = None) -> dict:
    """The files offered for download: each round's question set (CSV and ForecastBench JSON) and
    every forecast file of a round past its due time at ``as_of`` (an open round's are never offered).
    ``offered`` maps each one's name on the site (``downloads/...``, mirroring ``data/``) to its path
    in the repository. With a ``repo_url`` the pages link to the repository's
    own copy and the site holds none; without one, ``downloads`` holds the site's copies, as
    committed except that a CSV cell a spreadsheet would run as a formula gets a leading single
    quote (the ledgers keep it raw). A quarantined file (unreadable, not a regular file) is not offered."""
    layout, offered = hub.layout, {}
    for folder in layout.round_dirs():
        for path in sorted(folder.glob("questions.*")):
            offered[f"downloads/rounds/{folder.name}/{path.name}"] = path
    for due in (d for d in readers.round_dues(hub) if as_of is None or d <= as_of):
        for path in (p for p in layout.forecast_files(due) if layout.relative(p) not in quarantined):
            offered[f"downloads/forecasts/{format_date(due)}/{path.name}"] = path
    local = not safe_url(repo_url)
    return {
        "offered": {name: layout.relative(path) for name, path in offered.items()},
        "downloads": {name: _for_people(path) for name, path in offered.items()} if local else {},
        "round_files": _open_round_files(hub, as_of),
    }


def _open_round_files(hub: Hub, as_of: datetime | None) -> dict[str, bytes]:
    """The files of each round still open at ``as_of`` (``<due>/<name>``), as committed: the API serves
    them with their sha256 for ``prescient round fetch``."""
    out: dict[str, bytes] = {}
    if as_of is None:
        return out
    now = format_ts(as_of)
    for folder in hub.layout.round_dirs():
        if f"{folder.name}T00:00:00Z" > now:
            for path in sorted(p for p in folder.iterdir() if p.is_file() and p.suffix in (".csv", ".json") and not p.name.startswith(".")):
                out[f"{folder.name}/{path.name}"] = files.read_bytes(path)
    return out


def _for_people(path: Path) -> bytes:
    data = files.read_bytes(path)
    return spreadsheet_safe_bytes(data) if path.suffix == ".csv" else data


def build_site(hub: Hub | Path, as_of: datetime, run_mkdocs: bool = True, quarantine: list[Problem] | None = None) -> list[str]:
    """Regenerate ``site_src/docs/generated`` and build ``site_src/site``. Return the changed pages.

    An unreadable submitted file never stops the build: it is left out and listed in ``quarantine``."""
    hub = as_hub(hub)
    site_src = ensure_site_src(hub.root)
    changed = write_tree(site_src / "docs" / GENERATED, strip_generated(site_files(gather(hub, as_of, quarantine))))
    if run_mkdocs:
        settings = hub.settings
        run_mkdocs_build(site_src / "mkdocs.yml", as_of, settings.title, site_description=settings.description, site_url=settings.site_url or None)
    return changed


def strip_generated(files: dict[str, bytes]) -> dict[str, bytes]:
    prefix = GENERATED + "/"
    return {path.removeprefix(prefix): data for path, data in files.items()}


def skeleton_dir() -> Path:
    """The site skeleton shipped with Prescient (in a wheel) or beside the package (a checkout)."""
    packaged = resources.files("generator").joinpath("_site_src")
    if packaged.is_dir():
        return Path(str(packaged))
    return Path(__file__).resolve().parents[2] / "site_src"  # generator/site/build.py -> the checkout


def ensure_site_src(root: Path) -> Path:
    """The hub's ``site_src``; a hub without one gets a copy of the skeleton."""
    site_src = root / "site_src"
    if not (site_src / "mkdocs.yml").is_file():
        ignore = shutil.ignore_patterns("generated", "site", "__pycache__")
        shutil.copytree(skeleton_dir(), site_src, ignore=ignore, dirs_exist_ok=True)
    return site_src


def run_mkdocs_build(config_file: Path, as_of: datetime, title: str, **identity: str | None) -> None:
    """``mkdocs build --strict`` with the hub's identity (``site_name``; ``site_description``, ``site_url``
    from hub.toml when given) over the skeleton's mkdocs.yml."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException

    with _source_date(as_of), _quiet_mkdocs():
        try:
            config = load_config(str(config_file), strict=True, site_name=title, **{k: v for k, v in identity.items() if v is not None})
            with _cleared_meanwhile(Path(config["site_dir"])):
                build(config)
        except MkDocsException as exc:
            raise BuildError(f"mkdocs build --strict failed for {config_file}: {exc}") from None
    site = Path(config["site_dir"])
    if (site / GENERATED / "questions" / SHELL).exists():
        raise BuildError(
            f"{config_file}: the question pages were not written: this mkdocs.yml lacks the "
            f"'hooks: [hooks/question_pages.py]' and 'exclude_docs: generated/{FRAGMENTS}/' entries "
            f"of the skeleton ({skeleton_dir() / 'mkdocs.yml'}); copy them and the hooks/ folder"
        )
    if (site / GENERATED / ROUND_TABLES).exists() or _unfilled_round_page(site):
        raise BuildError(
            f"{config_file}: the round pages' question tables were not filled in: this mkdocs.yml or "
            f"its hooks/ folder predate them; copy 'exclude_docs: generated/{ROUND_TABLES}/' and the "
            f"hooks/ folder from the skeleton ({skeleton_dir()})"
        )


def _unfilled_round_page(site: Path) -> bool:
    """Whether a built round page still holds the marker its question table goes in (a hook that predates it)."""
    return any(ROUND_TABLE in page.read_text(encoding="utf-8") for page in (site / GENERATED / "rounds").glob("*/index.html"))


PREVIOUS = ".prescient-previous"  # in site/: the last build's files while they are deleted


@contextlib.contextmanager
def _cleared_meanwhile(site: Path) -> Iterator[None]:
    """Delete the last build's files in ``site`` while MkDocs builds, not before: they move (one rename
    each) into a hidden folder of ``site``, which MkDocs's own clean-up skips as it skips every hidden
    entry, and a thread deletes that folder (~6,000 folders of question pages at ForecastBench scale,
    seconds of file-system calls). The folder is gone when the block ends; one left by an interrupted
    build is deleted with it."""
    previous = site / PREVIOUS
    if site.is_dir():
        batch = Path(tempfile.mkdtemp(dir=_made(previous)))
        for entry in sorted(site.iterdir()):
            if not entry.name.startswith("."):
                entry.rename(batch / entry.name)
    deleting = threading.Thread(target=shutil.rmtree, args=(previous,), kwargs={"ignore_errors": True})
    deleting.start()
    try:
        yield
    finally:
        deleting.join()


def _made(folder: Path) -> Path:
    folder.mkdir(exist_ok=True)
    return folder


@contextlib.contextmanager
def _source_date(as_of: datetime) -> Iterator[None]:
    old = os.environ.get("SOURCE_DATE_EPOCH")
    os.environ["SOURCE_DATE_EPOCH"] = str(int(as_of.timestamp()))
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("SOURCE_DATE_EPOCH", None)
        else:
            os.environ["SOURCE_DATE_EPOCH"] = old


@contextlib.contextmanager
def _quiet_mkdocs() -> Iterator[None]:
    logger = logging.getLogger("mkdocs")
    level = logger.level
    logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        logger.setLevel(level)
