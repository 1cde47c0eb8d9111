"""``prescient import forecastbench``: ForecastBench question, resolution and forecast sets → ledgers.

The shell around ``fb_parse`` (files → rows) and ``fb_frames`` (rows → ledger frames). Every input
file is parsed and checked first; if any has an error, one SchemaError lists every problem and
nothing is written. Then, in order: the question bank and the stated-resolutions ledger are
appended (``store.ledger.append``), each round's question set is written once (rounds are frozen),
the hub's Always 0 / Always 1 / Always 0.5 baselines and every forecast set become forecast files
(immutable: an existing file is kept), and model metadata is written where absent. Importing the
same files twice changes no byte.

Many forecast sets are parsed by worker processes under the hub lock (``workers``): each stages
the file it makes (a set's, or a hub baseline's) beside its place and keeps its frame in the disk cache, while the main process
computes the ledgers' new rows (``_plan``); after the check, the staged files are renamed into
place, or removed if anything is rejected (``_remove_staged``).

``as_of`` is the import's "now": rounds frozen after it, forecast sets of rounds not yet due and
resolutions dated after it are left for a later import.
"""

from __future__ import annotations

import contextlib
import functools
import gc
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TypeVar

import pandas as pd

from ...errors import Problem, SchemaError
from ...schemas import QUESTION_SETS, QUESTIONS, RESOLUTIONS, ROUND_QUESTIONS
from ...store import files, ingest, ledger, readers, tarball
from ...store.atomic import discard_staged, write_bytes_atomic
from ...store.csvio import empty_frame, to_csv_bytes
from ...store.hub import Hub
from ...store.layout import Layout
from ...store.lock import new_hub_lock
from ...timeutil import format_ts, parse_ts
from . import frames
from . import parse as fbp
from . import workers as worker_pool
from .forecast_files import hub_baselines, write_forecasts
from .sealed import seal_imported

T = TypeVar("T")
WRITE_THREADS = 4  # forecast files written (and fsynced) at once by default


@dataclass
class ImportReport:
    as_of: str
    rounds: list[str] = field(default_factory=list)
    questions_added: int = 0
    statements_added: int = 0
    forecast_files: int = 0
    models: list[str] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)
    written: list[str] = field(default_factory=list)


@dataclass
class _Inputs:
    qsets: list[fbp.Parsed]
    rsets: dict[str, fbp.Parsed]
    fsets: list[fbp.Parsed]
    own: list[Problem]  # each file's own problems: the question, resolution, then forecast sets'
    rounds: dict[str, pd.DataFrame] = field(default_factory=dict)  # the rounds' questions by due (none on an error)
    checks: list[Problem] = field(default_factory=list)  # problems across the resolution sets
    baselines: dict[tuple[str, str], worker_pool.Prepared] = field(default_factory=dict)  # by (due, model), made by the workers

    @property
    def problems(self) -> list[Problem]:
        return self.own + self.checks


def dataset_dirs(root: Path) -> tuple[Path, Path]:
    """(question_sets, resolution_sets) under ``root`` (``datasets/`` itself or its parent)."""
    for base in (root / "datasets", root):
        if (base / "question_sets").is_dir() or (base / "resolution_sets").is_dir():
            return base / "question_sets", base / "resolution_sets"
    raise SchemaError(
        f"{root}: no ForecastBench datasets here",
        [Problem(str(root), None, None, "not-forecastbench", "expected datasets/question_sets and datasets/resolution_sets (or DIR = datasets/)")],
    )


def _parse_all(paths: list[Path], parser, base: Path, pool=None) -> Iterator[fbp.Parsed]:
    """The files parsed, in order, as they come (by the ``pool``'s workers, which start at once)."""
    jobs = [(path, path.relative_to(base).as_posix() if path.is_relative_to(base) else str(path), parser.__name__) for path in paths]
    if pool is None:
        return map(worker_pool.parse_one, jobs)
    parsed = pool.imap(worker_pool.parse_packed, jobs, chunksize=4)
    return map(worker_pool.unpacked, parsed) if parser is fbp.parse_forecast_set else parsed


def read_inputs(datasets_dir: Path, forecasts_dir: Path | None) -> _Inputs:
    """The parsed inputs (``read_sets``, then ``read_forecast_sets``)."""
    return read_forecast_sets(read_sets(datasets_dir, forecasts_dir), forecasts_dir)[0]


def _forecast_paths(forecasts_dir: Path | None) -> list[Path]:
    return sorted(forecasts_dir.rglob("*.json")) if forecasts_dir else []


def read_sets(datasets_dir: Path, forecasts_dir: Path | None = None) -> _Inputs:
    """The parsed question and resolution sets (no forecast set yet), and the rounds' questions the
    parsing workers make forecast files against (none when they cannot be made: an error). Parsed
    by workers when the import has many files in all (``forecasts_dir``'s count too)."""
    qdir, rdir = dataset_dirs(datasets_dir)
    qpaths, rpaths = sorted(qdir.glob("*.json")), sorted(rdir.glob("*_resolution_set.json"))
    with worker_pool.pool(worker_pool.pooled(len(qpaths) + len(rpaths) + len(_forecast_paths(forecasts_dir)))) as pool:
        qsets = list(_parse_all(qpaths, fbp.parse_question_set, datasets_dir, pool))
        rlist = list(_parse_all(rpaths, fbp.parse_resolution_set, datasets_dir, pool))
    rsets: dict[str, fbp.Parsed] = {}
    checks: list[Problem] = []
    for r in rlist:
        named = Path(r.label).name.split("_", 1)[0]
        if r.due and r.due != named:
            checks.append(Problem(r.label, None, "forecast_due_date", "due-mismatch", f"the file name says {named}, the file {r.due}"))
        if r.due in rsets:
            checks.append(Problem(r.label, None, None, "duplicate-round", f"a second resolution set for {r.due}"))
        rsets.setdefault(r.due, r)
    rsets = {d: r for d, r in rsets.items() if d}
    dated = [q for q in qsets if q.due]
    own = [p for parsed in (*qsets, *rlist) for p in parsed.problems]
    rounds = {} if _any_error(own + checks) else _rounds(dated, rsets)
    return _Inputs(dated, rsets, [], own, rounds, checks)


def read_forecast_sets(
    inputs: _Inputs,
    forecasts_dir: Path | None,
    hub: Hub | None = None,
    meanwhile: Callable[[], T] | None = None,
    baselines: list[tuple[str, str]] | None = None,
) -> tuple[_Inputs, T | None]:
    """``inputs`` with the forecast sets under ``forecasts_dir`` parsed, by worker processes when
    there are many, which then also make their files (``worker_pool``) and, given the ``hub`` (its
    lock held), stage them there: the caller commits or removes them (``_remove_staged``). The
    workers make the files of the hub's ``baselines`` too ((due, model) pairs, ``worker_pool.baseline``).
    The second value: what ``meanwhile()`` gives, called while the workers parse."""
    fpaths = _forecast_paths(forecasts_dir)
    jobs = [job for job in baselines or [] if job[0] in inputs.rounds]
    made: dict[tuple[str, str], worker_pool.Prepared] = {}
    with worker_pool.pool(worker_pool.pooled(len(fpaths)), inputs.rounds, hub) as pool:
        parsing = _parse_all(fpaths, fbp.parse_forecast_set, forecasts_dir, pool) if forecasts_dir else iter(())
        baseline_files = pool.map_async(worker_pool.baseline, jobs) if pool is not None and jobs else None
        done = meanwhile() if meanwhile is not None else None
        fsets = list(parsing)
        if baseline_files is not None:
            made = {job: prepared for job, prepared in zip(jobs, baseline_files.get(), strict=True) if prepared is not None}
    own = inputs.own + [p for parsed in fsets for p in parsed.problems]
    return _Inputs(inputs.qsets, inputs.rsets, fsets, own, inputs.rounds, inputs.checks, made), done


def _remove_staged(inputs: _Inputs) -> None:
    """Remove the files the workers staged that were not committed (``atomic.discard_staged``)."""
    prepared = [*(fset.prepared for fset in inputs.fsets), *inputs.baselines.values()]
    discard_staged([Path(p.staged) for p in prepared if isinstance(p, worker_pool.Prepared) and p.staged is not None])


def _any_error(problems: list[Problem]) -> bool:
    return any(p.severity == "error" for p in problems)


def _rounds(qsets: list[fbp.Parsed], rsets: dict[str, fbp.Parsed]) -> dict[str, pd.DataFrame]:
    """Every round's questions as the input files give them (``frames.round_frame``), by due date."""
    return {due: frames.round_frame(due, [q for q in qsets if q.due == due], rsets.get(due)) for due in sorted({q.due for q in qsets} | set(rsets))}


def _round_dues(inputs: _Inputs, as_of: str) -> list[str]:
    """Due dates whose question set was frozen (or, without one, that fell due) by ``as_of``."""
    frozen: dict[str, str] = {}
    for q in inputs.qsets:
        first = min((frames.fb_ts(r["freeze_datetime"]) or frames.midnight(q.due) for r in q.rows), default=frames.midnight(q.due))
        frozen[q.due] = min(frozen.get(q.due, first), first)
    for due in inputs.rsets:
        frozen.setdefault(due, frames.midnight(due))
    return sorted(d for d, t in frozen.items() if t <= as_of)


def _check_forecasts(inputs: _Inputs, dues: list[str], as_of: str) -> tuple[list[fbp.Parsed], list[Problem]]:
    problems: list[Problem] = []
    seen: dict[tuple[str, str], str] = {}  # (due, model) -> the label of its first forecast set
    keep: list[fbp.Parsed] = []
    for f in inputs.fsets:
        if _any_error(f.problems):
            continue
        if f.due not in dues and f.due not in inputs.rsets and f.due not in {q.due for q in inputs.qsets}:
            problems.append(Problem(f.label, None, "question_set", "unknown-round", f"no question or resolution set for round {f.due}"))
            continue
        key = (f.due, frames.model_id(f))
        if key in seen:
            problems.append(Problem(f.label, None, "model", "duplicate-model", f"{key[1]} already has a forecast set for {f.due} ({seen[key]})"))
            continue
        seen[key] = f.label
        if f.due in dues and frames.midnight(f.due) <= as_of:
            keep.append(f)
    return keep, problems


def import_forecastbench(
    hub_root: Path | Hub, datasets_dir: Path, forecasts_dir: Path | None = None, *, as_of: datetime | str, workers: int = WRITE_THREADS
) -> ImportReport:
    """Import FB files into the hub at ``hub_root`` (a folder, or the command's Hub, whose read
    cache then holds the written forecast files for the scoring); raise SchemaError (writing nothing)
    on bad input. ``workers``: threads writing forecast files; 1 writes them one by one, in order.
    ``datasets_dir`` and ``forecasts_dir`` may each be a bundle as ForecastBench publishes them
    (``.tar.gz``), checked member by member before anything is unpacked (``store.tarball``)."""
    with tarball.unpacked(Path(datasets_dir)) as datasets, tarball.unpacked(Path(forecasts_dir) if forecasts_dir else None) as forecasts:
        assert datasets is not None
        return _import(hub_root, datasets, forecasts, as_of=as_of, workers=workers)


def _import(hub_root: Path | Hub, datasets_dir: Path, forecasts_dir: Path | None, *, as_of: datetime | str, workers: int) -> ImportReport:
    as_of_text = as_of if isinstance(as_of, str) else format_ts(as_of)
    hub = hub_root if isinstance(hub_root, Hub) else Hub(Path(hub_root))
    layout = hub.layout
    report = ImportReport(as_of_text)
    inputs = read_sets(Path(datasets_dir), Path(forecasts_dir) if forecasts_dir else None)
    dues = _round_dues(inputs, as_of_text)
    if not dues:  # nothing to write (and no data/ folder to create for the lock)
        _checked(read_forecast_sets(inputs, Path(forecasts_dir) if forecasts_dir else None)[0], dues, report)
        return report
    # the lock is taken before the forecast sets are parsed, since the workers stage files in the hub
    with new_hub_lock(layout.root, f"prescient import forecastbench --as-of {as_of_text}"):  # a nightly run must wait
        readers.check_as_of(hub, as_of_text)  # time never runs backwards in a ledger
        plan = None if _any_error(inputs.problems) else functools.partial(_plan, hub, inputs, dues, as_of_text)
        own = files.own_prefix_of(layout.root)  # the default in a folder the import sets up
        baselines = [(due, model) for due in dues if frames.midnight(due) <= as_of_text for model in hub_baselines(own)]
        inputs, planned = read_forecast_sets(inputs, Path(forecasts_dir) if forecasts_dir else None, hub, plan, baselines)  # files staged
        try:
            fsets = _checked(inputs, dues, report)
            planned = planned or _plan(hub, inputs, dues, as_of_text)  # planned unless a set had an error
            with collector_spared():
                _write_hub_toml(layout, dues, report)
                _write_bank(hub, planned.questions, report)
                _write_statements(hub, planned.statements, report)
                rounds = {due: _write_round(hub, due, inputs, planned.rounds[due], report) for due in dues}
                sets = {due: _write_round_sets(hub, due, rounds[due], inputs, report) for due in dues}
                made = {due: inputs.rounds[due] for due in dues if rounds[due] is inputs.rounds.get(due)}
                report.models = write_forecasts(hub, rounds, sets, fsets, as_of_text, report, workers, made, inputs.baselines, own)
                report.written += seal_imported(hub, [d for d in dues if frames.midnight(d) <= as_of_text], as_of_text)
        finally:
            _remove_staged(inputs)
    return report


def _checked(inputs: _Inputs, dues: list[str], report: ImportReport) -> list[fbp.Parsed]:
    """The forecast sets to import; SchemaError (nothing written) on any error in the inputs; the
    warnings and the rounds go to ``report``."""
    fsets, more = _check_forecasts(inputs, dues, report.as_of)
    problems = inputs.problems + more
    errors = [p for p in problems if p.severity == "error"]
    if errors:
        raise SchemaError(f"ForecastBench input rejected: {len(errors)} problem(s); nothing was written", errors)
    report.warnings = [p for p in problems if p.severity != "error"]
    report.rounds = dues
    return fsets


@contextlib.contextmanager
def collector_spared() -> Iterator[None]:
    """The objects alive now (the parsed inputs, hundreds of thousands of rows) set aside from the
    garbage collector while the import writes (``gc.freeze``), then handed back: its full passes
    walked them again and again for nothing (they live until the import ends).
    The command keeps them set aside through its scoring too (``cli``). Not to be nested: the inner
    exit hands back everything."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _write_hub_toml(layout: Layout, dues: list[str], report: ImportReport) -> None:
    if layout.hub_toml.is_file() or not dues:
        return
    text = (
        "# Created by `prescient import forecastbench`: a hub of imported ForecastBench rounds.\n"
        '[hub]\ntitle = "ForecastBench (imported)"\n\n[rounds]\n'
        f'first_due = "{dues[0]}T00:00:00Z"\ncadence_days = 14\nopen_days_before_due = 0\n\n'
        "[scoring]\n# ForecastBench exempts its own organisation's files from the 5% imputation rule.\n"
        'imputation_exempt = ["forecastbench"]\n\n' + frames.FB_LEADERBOARD
    )
    write_bytes_atomic(layout.hub_toml, text.encode("utf-8"))
    report.written.append(layout.relative(layout.hub_toml))


@dataclass
class _Plan:
    """What the import adds to the ledgers and the rounds' files, made while the workers parse."""

    questions: pd.DataFrame  # question versions the bank does not have
    statements: pd.DataFrame | None  # stated resolutions the ledgers do not have (None: no resolution set)
    rounds: dict[str, bytes]  # each round's questions file, by due


def _plan(hub: Hub, inputs: _Inputs, dues: list[str], as_of: str) -> _Plan:
    return _Plan(
        _bank_rows(hub, inputs, dues),
        _statement_rows(hub, [inputs.rsets[d] for d in dues if d in inputs.rsets], as_of),
        {due: to_csv_bytes(inputs.rounds[due], ROUND_QUESTIONS) for due in dues},
    )


def _bank_rows(hub: Hub, inputs: _Inputs, dues: list[str]) -> pd.DataFrame:
    bank = readers.load_bank(hub)
    added: list[pd.DataFrame] = []
    latest: dict[str, tuple[str, tuple[str, ...]]] = {}
    covered = 0  # ingest.latest_contents (``latest``) of the bank's first ``covered`` rows
    for due in dues:
        sets = [q for q in inputs.qsets if q.due == due]
        versions = [frames.question_versions(q) for q in sorted(sets, key=lambda q: (not q.label.endswith("-llm.json"), q.label))]
        if versions:  # compared with what the bank said at the set's time, so re-imports add nothing
            fresh = pd.concat(versions, ignore_index=True).drop_duplicates("id", keep="first")
            said = bank["recorded_at"] <= fresh["recorded_at"].max()
            if said.all():  # the whole bank (rounds imported in order): its latest versions kept up to date, not found anew
                latest, covered = ingest.latest_contents(bank.iloc[covered:], latest), len(bank)
                new = ingest.new_questions(bank, fresh, latest)
            else:
                new = ingest.new_questions(bank[said], fresh)
            bank, added = pd.concat([bank, new], ignore_index=True), added + [new]
    known = set(bank["id"])
    for due in dues:
        if due in inputs.rsets:
            new = frames.placeholder_questions(inputs.rsets[due], known)
            known |= set(new["id"])
            added.append(new)
    return pd.concat(added, ignore_index=True) if added else bank.iloc[:0]


def _write_bank(hub: Hub, rows: pd.DataFrame, report: ImportReport) -> None:
    layout = hub.layout
    for source, group in rows.groupby("source", sort=True):
        path = layout.questions(source)
        added_rows = len(ledger.append(path, group, QUESTIONS, layout.relative(path), hub.cache))
        report.questions_added += added_rows
        report.written += [layout.relative(path)] if added_rows else []


def resolution_path(layout: Layout, source: str) -> Path:
    return layout.data / "resolutions" / f"{source}.csv"


def _statement_rows(hub: Hub, rsets: list[fbp.Parsed], as_of: str) -> pd.DataFrame | None:
    stated = [frames.stated_frame(r, as_of) for r in rsets]
    if not stated:
        return None
    return frames.new_statements(readers.load_resolutions(hub), pd.concat(stated, ignore_index=True), as_of)


def _write_statements(hub: Hub, new: pd.DataFrame | None, report: ImportReport) -> None:
    if new is None:
        return
    layout = hub.layout
    for source, group in new.groupby(new["question_id"].str.split(":", n=1).str[0], sort=True):
        path = resolution_path(layout, source)
        added_rows = len(ledger.append(path, group, RESOLUTIONS, layout.relative(path), hub.cache))
        report.statements_added += added_rows
        report.written += [layout.relative(path)] if added_rows else []


def _write_round(hub: Hub, due: str, inputs: _Inputs, data: bytes, report: ImportReport) -> pd.DataFrame:
    """Write the round (``data``: its file's bytes) once; an existing, different round file is kept
    (rounds are frozen). The round's questions as kept."""
    layout = hub.layout
    path = layout.round_questions(parse_ts(due))
    if path.is_file() and files.read_bytes(path) != data:
        report.warnings.append(
            Problem(
                layout.relative(path),
                None,
                None,
                "round-frozen",
                "the round is already published with other questions; it is kept as it is",
                "warning",
            )
        )
        return hub.cache.read_table(path, ROUND_QUESTIONS, layout.relative(path))
    if write_bytes_atomic(path, data):
        report.written.append(layout.relative(path))
    return inputs.rounds[due]


def _write_round_sets(hub: Hub, due: str, units: pd.DataFrame, inputs: _Inputs, report: ImportReport) -> pd.DataFrame:
    """The round's question sets (``schemas.QUESTION_SETS``) where a set asks less than the whole
    round; written once, like the round (an existing file is kept)."""
    layout = hub.layout
    path = layout.round_sets(parse_ts(due))
    if path.is_file():
        return hub.cache.read_table(path, QUESTION_SETS, layout.relative(path))
    frame = frames.round_sets_frame(units, [q for q in inputs.qsets if q.due == due])
    if frame is None:
        return empty_frame(QUESTION_SETS)
    if write_bytes_atomic(path, to_csv_bytes(frame, QUESTION_SETS)):
        report.written.append(layout.relative(path))
    return frame
