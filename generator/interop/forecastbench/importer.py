"""``prescient import forecastbench``: ForecastBench question, resolution and forecast sets → ledgers.

The shell around ``fb_parse`` (files → rows) and ``fb_frames`` (rows → ledger frames). Every input
file is parsed and checked first; if any has an error, one SchemaError lists every problem and
nothing is written. Then, in order: the question bank and the stated-resolutions ledger are
appended (``store.ledger.append``), each round's question set is written once (rounds are frozen),
the hub's Always 0 / Always 1 / Always 0.5 baselines and every forecast set become forecast files
(immutable: an existing file is kept), and model metadata is written where absent. Importing the
same files twice changes no byte.

``as_of`` is the import's "now": rounds frozen after it, forecast sets of rounds not yet due and
resolutions dated after it are left for a later import.
"""

from __future__ import annotations

import contextlib
import gc
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import pandas as pd

from ...errors import Problem, SchemaError
from ...forecasters.baselines import AT_OPEN
from ...models import ModelMeta
from ...schemas import QUESTION_SETS, QUESTIONS, RESOLUTIONS, ROUND_QUESTIONS
from ...scoring.brier import set_name
from ...store import ingest, ledger, readers
from ...store.csvio import as_read, empty_frame, forecast_bytes, forecast_file, read_table, to_csv_bytes, write_bytes_atomic
from ...store.layout import Layout
from ...store.lock import hub_lock
from ...timeutil import format_ts, parse_ts
from . import frames
from . import parse as fbp
from . import workers as worker_pool

WRITE_THREADS = 4  # forecast files written (and fsynced) at once by default

# The hub's constant baselines, the same forecasters the nightly run writes for its own rounds.
HUB_BASELINES = ("prescient.always-0", "prescient.always-1", "prescient.always-0.5")


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
    problems: list[Problem]
    rounds: dict[str, pd.DataFrame] = field(default_factory=dict)  # the workers' rounds (``worker_pool.pool``), by due


def dataset_dirs(root: Path) -> tuple[Path, Path]:
    """(question_sets, resolution_sets) under ``root`` (``datasets/`` itself or its parent)."""
    for base in (root / "datasets", root):
        if (base / "question_sets").is_dir() or (base / "resolution_sets").is_dir():
            return base / "question_sets", base / "resolution_sets"
    raise SchemaError(f"{root}: no ForecastBench datasets here", [Problem(
        str(root), None, None, "not-forecastbench", "expected datasets/question_sets and datasets/resolution_sets (or DIR = datasets/)")])


def _parse_all(paths: list[Path], parser, base: Path, pool=None) -> list[fbp.Parsed]:
    jobs = [(path, path.relative_to(base).as_posix() if path.is_relative_to(base) else str(path), parser.__name__)
            for path in paths]
    if pool is None:
        return list(map(worker_pool.parse_one, jobs))
    parsed = pool.imap(worker_pool.parse_packed, jobs, chunksize=4)
    return [worker_pool.unpacked(p) for p in parsed] if parser is fbp.parse_forecast_set else list(parsed)


def read_inputs(datasets_dir: Path, forecasts_dir: Path | None) -> _Inputs:
    qdir, rdir = dataset_dirs(datasets_dir)
    qpaths, rpaths = sorted(qdir.glob("*.json")), sorted(rdir.glob("*_resolution_set.json"))
    fpaths = sorted(forecasts_dir.rglob("*.json")) if forecasts_dir else []
    pooled = worker_pool.pooled(len(qpaths) + len(rpaths) + len(fpaths))
    with worker_pool.pool(pooled) as pool:
        qsets = _parse_all(qpaths, fbp.parse_question_set, datasets_dir, pool)
        rlist = _parse_all(rpaths, fbp.parse_resolution_set, datasets_dir, pool)
    rsets: dict[str, fbp.Parsed] = {}
    problems: list[Problem] = []
    for r in rlist:
        named = Path(r.label).name.split("_", 1)[0]
        if r.due and r.due != named:
            problems.append(Problem(r.label, None, "forecast_due_date", "due-mismatch", f"the file name says {named}, the file {r.due}"))
        if r.due in rsets:
            problems.append(Problem(r.label, None, None, "duplicate-round", f"a second resolution set for {r.due}"))
        rsets.setdefault(r.due, r)
    rsets = {d: r for d, r in rsets.items() if d}
    dated = [q for q in qsets if q.due]
    # the workers make forecast files against the rounds only when the rounds can be made (no error)
    rounds = _rounds(dated, rsets) if pooled and not _any_error([*problems, *(p for s in (*qsets, *rlist) for p in s.problems)]) else {}
    with worker_pool.pool(pooled and bool(fpaths), rounds) as pool:
        fsets = _parse_all(fpaths, fbp.parse_forecast_set, forecasts_dir, pool) if forecasts_dir else []
    problems = [p for parsed in (*qsets, *rlist, *fsets) for p in parsed.problems] + problems
    return _Inputs(dated, rsets, fsets, problems, rounds)


def _any_error(problems: list[Problem]) -> bool:
    return any(p.severity == "error" for p in problems)


def _rounds(qsets: list[fbp.Parsed], rsets: dict[str, fbp.Parsed]) -> dict[str, pd.DataFrame]:
    """Every round's questions as the input files give them (``frames.round_frame``), by due date."""
    return {due: frames.round_frame(due, [q for q in qsets if q.due == due], rsets.get(due))
            for due in sorted({q.due for q in qsets} | set(rsets))}


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
        if f.problems and any(p.severity == "error" for p in f.problems):
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


def import_forecastbench(hub_root: Path | Layout, datasets_dir: Path, forecasts_dir: Path | None = None, *,
                         as_of: datetime | str, workers: int = WRITE_THREADS) -> ImportReport:
    """Import FB files into the hub at ``hub_root`` (a folder, or the command's Layout, whose read
    cache then holds the written forecast files for the scoring); raise SchemaError (writing nothing)
    on bad input. ``workers``: threads writing forecast files; 1 writes them one by one, in order."""
    as_of_text = as_of if isinstance(as_of, str) else format_ts(as_of)
    layout = hub_root if isinstance(hub_root, Layout) else Layout(Path(hub_root))
    report = ImportReport(as_of_text)
    inputs = read_inputs(Path(datasets_dir), Path(forecasts_dir) if forecasts_dir else None)
    dues = _round_dues(inputs, as_of_text)
    fsets, more = _check_forecasts(inputs, dues, as_of_text)
    problems = inputs.problems + more
    errors = [p for p in problems if p.severity == "error"]
    if errors:
        raise SchemaError(f"ForecastBench input rejected: {len(errors)} problem(s); nothing was written", errors)
    report.warnings = [p for p in problems if p.severity != "error"]
    report.rounds = dues
    if not dues:  # nothing to write (and no data/ folder to create for the lock)
        return report
    with hub_lock(layout.data, f"prescient import forecastbench --as-of {as_of_text}"), collector_spared():  # a nightly run must wait
        readers.check_as_of(layout, as_of_text)  # time never runs backwards in a ledger
        _write_hub_toml(layout, dues, report)
        _write_bank(layout, inputs, dues, report)
        _write_statements(layout, [inputs.rsets[d] for d in dues if d in inputs.rsets], as_of_text, report)
        rounds = {due: _write_round(layout, due, inputs, report) for due in dues}
        sets = {due: _write_round_sets(layout, due, rounds[due], inputs, report) for due in dues}
        made = {due: inputs.rounds[due] for due in dues if rounds[due] is inputs.rounds.get(due)}
        _write_forecasts(layout, rounds, sets, fsets, as_of_text, report, workers, made)
    return report


@contextlib.contextmanager
def collector_spared() -> Iterator[None]:
    """The objects alive now (the parsed inputs, hundreds of thousands of rows) set aside from the
    garbage collector while the import writes (``gc.freeze``), then handed back: its full passes
    walked them again and again for nothing (they live until the import ends), ~4 CPU s at FB scale.
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
    text = ("# Created by `prescient import forecastbench`: a hub of imported ForecastBench rounds.\n"
            "[hub]\ntitle = \"ForecastBench (imported)\"\n\n[rounds]\n"
            f"first_due = \"{dues[0]}T00:00:00Z\"\ncadence_days = 14\nopen_days_before_due = 0\n\n"
            "[scoring]\n# ForecastBench exempts its own organisation's files from the 5% imputation rule.\n"
            "imputation_exempt = [\"forecastbench\"]\n")
    write_bytes_atomic(layout.hub_toml, text.encode("utf-8"))
    report.written.append(layout.relative(layout.hub_toml))


def _write_bank(layout: Layout, inputs: _Inputs, dues: list[str], report: ImportReport) -> None:
    bank = readers.load_bank(layout)
    added: list[pd.DataFrame] = []
    for due in dues:
        sets = [q for q in inputs.qsets if q.due == due]
        versions = [frames.question_versions(q) for q in sorted(sets, key=lambda q: (not q.label.endswith("-llm.json"), q.label))]
        if versions:  # compared with what the bank said at the set's time, so re-imports add nothing
            fresh = pd.concat(versions, ignore_index=True).drop_duplicates("id", keep="first")
            new = ingest.new_questions(bank[bank["recorded_at"] <= fresh["recorded_at"].max()], fresh)
            bank, added = pd.concat([bank, new], ignore_index=True), added + [new]
    known = set(bank["id"])
    for due in dues:
        if due in inputs.rsets:
            new = frames.placeholder_questions(inputs.rsets[due], known)
            known |= set(new["id"])
            added.append(new)
    rows = pd.concat(added, ignore_index=True) if added else bank.iloc[:0]
    for source, group in rows.groupby("source", sort=True):
        path = layout.questions(source)
        added_rows = len(ledger.append(path, group, QUESTIONS, layout.relative(path), layout.cache))
        report.questions_added += added_rows
        report.written += [layout.relative(path)] if added_rows else []


def resolution_path(layout: Layout, source: str) -> Path:
    return layout.data / "resolutions" / f"{source}.csv"


def _write_statements(layout: Layout, rsets: list[fbp.Parsed], as_of: str, report: ImportReport) -> None:
    stated = [frames.stated_frame(r, as_of) for r in rsets]
    if not stated:
        return
    new = frames.new_statements(readers.load_resolutions(layout), pd.concat(stated, ignore_index=True), as_of)
    for source, group in new.groupby(new["question_id"].str.split(":", n=1).str[0], sort=True):
        path = resolution_path(layout, source)
        added_rows = len(ledger.append(path, group, RESOLUTIONS, layout.relative(path), layout.cache))
        report.statements_added += added_rows
        report.written += [layout.relative(path)] if added_rows else []


def _write_round(layout: Layout, due: str, inputs: _Inputs, report: ImportReport) -> pd.DataFrame:
    """Write the round once; an existing, different round file is kept (rounds are frozen)."""
    made = inputs.rounds.get(due)
    frame = made if made is not None else frames.round_frame(due, [q for q in inputs.qsets if q.due == due], inputs.rsets.get(due))
    path = layout.round_questions(parse_ts(due))
    data = to_csv_bytes(frame, ROUND_QUESTIONS)
    if path.is_file() and path.read_bytes() != data:
        report.warnings.append(Problem(layout.relative(path), None, None, "round-frozen",
                                       "the round is already published with other questions; it is kept as it is", "warning"))
        return read_table(path, ROUND_QUESTIONS, layout.relative(path), layout.cache)
    if write_bytes_atomic(path, data):
        report.written.append(layout.relative(path))
    return frame


def _write_round_sets(layout: Layout, due: str, units: pd.DataFrame, inputs: _Inputs, report: ImportReport) -> pd.DataFrame:
    """The round's question sets (``schemas.QUESTION_SETS``) where a set asks less than the whole
    round; written once, like the round (an existing file is kept)."""
    path = layout.round_sets(parse_ts(due))
    if path.is_file():
        return read_table(path, QUESTION_SETS, layout.relative(path), layout.cache)
    frame = frames.round_sets_frame(units, [q for q in inputs.qsets if q.due == due])
    if frame is None:
        return empty_frame(QUESTION_SETS)
    if write_bytes_atomic(path, to_csv_bytes(frame, QUESTION_SETS)):
        report.written.append(layout.relative(path))
    return frame


def _kept_as_published(fset: fbp.Parsed, sets: pd.DataFrame) -> bool:
    """An individual file, or one answering a set smaller than its round, is stored as FB published it
    (JSON: its members' rows and its ``question_set`` travel with it); any other as a CSV forecast file."""
    return bool(fset.header.get("individual")) or set_name(fset.header["question_set"]) in set(sets["question_set"].map(set_name))


def _set_problems(fset: fbp.Parsed, sets: pd.DataFrame) -> list[Problem]:
    names = set(sets["question_set"].map(set_name))
    declared = set_name(fset.header["question_set"])
    if not names or declared in names:
        return []
    return [Problem(fset.label, None, "question_set", "unknown-question-set",
                    f"question_set {fset.header['question_set']!r} names none of round {fset.due}'s question sets "
                    f"({', '.join(sorted(names))}); it is scored on the whole round", "warning")]


def _write_forecasts(layout: Layout, rounds: dict[str, pd.DataFrame], sets: dict[str, pd.DataFrame], fsets: list[fbp.Parsed],
                     as_of: str, report: ImportReport, workers: int = 1, made: dict[str, pd.DataFrame] | None = None) -> None:
    """``made``: the rounds, by due, whose forecast files the parsing workers made (``worker_pool``):
    the ones the import keeps as they were given to the workers."""
    models: dict[str, ModelMeta] = {}
    units = {due: (q["question_id"].to_numpy(dtype=object), q["resolution_date"].to_numpy(dtype=object))
             for due, q in (made or {}).items()}
    with _FileWriter(layout, report, workers) as writer:
        for due, questions in rounds.items():
            if frames.midnight(due) > as_of:
                continue
            for model in HUB_BASELINES:
                meta, forecaster = AT_OPEN[model]
                writer.add(due, model, forecaster(questions), [])
                models[model] = meta
        allowed: dict[str, dict[tuple[str, str], tuple[str, str]]] = {}  # due -> frames.unit_keys
        for fset in fsets:
            model = frames.model_id(fset)
            models[model] = frames.model_meta(fset)
            if _kept_as_published(fset, sets[fset.due]):
                writer.add_published(fset.due, model, Path(fset.path).read_bytes())
                continue
            prepared = fset.prepared
            if isinstance(prepared, worker_pool.Prepared) and fset.due in units:
                ids, dates = units[fset.due]
                writer.add_made(fset.due, model, prepared.data, lambda p=prepared, i=ids, d=dates: worker_pool.frame_of(p, i, d),
                                prepared.problems + _set_problems(fset, sets[fset.due]))
                continue
            if prepared is not None:  # made against a round the import does not keep: parsed again, made here
                fset = worker_pool.parse_one((Path(fset.path), fset.label, "parse_forecast_set"))
            if fset.due not in allowed:
                allowed[fset.due] = frames.unit_keys(rounds[fset.due])
            columns, problems = frames.forecast_columns(fset, allowed[fset.due])
            writer.add(fset.due, model, columns, problems + _set_problems(fset, sets[fset.due]))
    for model, meta in sorted(models.items()):
        path = layout.model_meta(model)
        if not path.is_file() and write_bytes_atomic(path, meta.to_yaml()):
            report.written.append(layout.relative(path))
    report.models = sorted(models)


_NO_FRAME: Callable[[], pd.DataFrame | None] = lambda: None  # noqa: E731


class _FileWriter:
    """Writes forecast files (an existing, different file is kept: forecasts are immutable) with
    their fsyncs overlapped on a few threads, and reports them in the order they were added, exactly as one-by-one writing does:
    each file's warnings, then its own outcome. The bytes are made here, on the calling thread, or
    come made (``add_made``); a thread only compares with an existing file and writes. Files go to
    distinct paths. With one worker, files are written one by one on the calling thread, so "the N-th
    write" is well defined (a crash test counting writes passes ``workers=1``). On an error every file
    before the failing one is still written, as before. A written CSV file's frame, as ``read_table``
    would read it, is handed to the scoring (``readers.remember_forecasts``) when known."""

    WINDOW = 64

    def __init__(self, layout: Layout, report: ImportReport, workers: int):
        self.layout, self.report = layout, report
        self.pending: deque[tuple[list[Problem], Path, Future[str], Callable[[], pd.DataFrame | None]]] = deque()
        self.pool = ThreadPoolExecutor(workers, thread_name_prefix="fb-write") if workers > 1 else None

    def __enter__(self):
        return self

    def add(self, due: str, model: str, rows: pd.DataFrame | dict[str, list], problems: list[Problem]) -> None:
        cache = self.layout.cache
        data, cells = forecast_file(rows, cache) if isinstance(rows, dict) else (forecast_bytes(rows, cache), None)
        self.add_made(due, model, data, _NO_FRAME if cells is None else lambda: as_read(cells), problems)

    def add_made(self, due: str, model: str, data: bytes, frame: Callable[[], pd.DataFrame | None], problems: list[Problem]) -> None:
        """A CSV forecast file of these bytes; ``frame()``: what ``read_table`` reads from them, if known."""
        self._add(problems, self.layout.forecast(parse_ts(due), model), data, frame)

    def add_published(self, due: str, model: str, data: bytes) -> None:
        """A forecast set kept byte for byte as published (a ForecastBench JSON file)."""
        self._add([], self.layout.forecast(parse_ts(due), model).with_suffix(".json"), data, _NO_FRAME)

    def _add(self, problems: list[Problem], path: Path, data: bytes, frame: Callable[[], pd.DataFrame | None]) -> None:
        if self.pool is None:
            self._report(problems, path, _store(path, data), frame)
            return
        self.pending.append((problems, path, self.pool.submit(_store, path, data), frame))
        while len(self.pending) > self.WINDOW:
            self._collect()

    def _collect(self) -> None:
        problems, path, future, frame = self.pending.popleft()
        self._report(problems, path, future.result(), frame)

    def _report(self, problems: list[Problem], path: Path, outcome: str, frame: Callable[[], pd.DataFrame | None]) -> None:
        layout, report = self.layout, self.report
        report.warnings += problems
        if outcome == "different":
            report.warnings.append(Problem(layout.relative(path), None, None, "forecast-immutable",
                                           "a different forecast file already exists for this round; it is kept", "warning"))
            return
        if outcome == "written":
            report.written.append(layout.relative(path))
            report.forecast_files += 1
        read = frame()
        if read is not None:  # the file holds these bytes: hand the scoring the frame it would read
            readers.remember_forecasts(layout, path, read)

    def __exit__(self, *exc) -> None:
        try:
            while self.pending and exc[0] is None:
                self._collect()
        finally:
            if self.pool is not None:
                self.pool.shutdown(wait=True)


def _store(path: Path, data: bytes) -> str:
    """Write a forecast file unless a different one exists: "written", "same" or "different"."""
    if path.is_file() and path.read_bytes() != data:
        return "different"
    return "written" if write_bytes_atomic(path, data) else "same"
