"""Forecast files written in order with their fsyncs overlapped (``FileWriter``), for the
ForecastBench import (``interop.forecastbench``).

It takes each file's bytes as made (by the import, or by one of its parsing workers, which may also
have staged the file in the hub) and reports every outcome to the import's report in the order the
files were added.
"""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Protocol

import pandas as pd

from ..errors import Problem
from ..timeutil import parse_ts
from . import readers
from .atomic import commit_staged, write_bytes_atomic
from .fast_forecasts import as_read, forecast_file, forecast_lists
from .hub import Hub


class Outcomes(Protocol):
    """Where the writer reports (the import's ``ImportReport``)."""

    warnings: list[Problem]
    written: list[str]
    forecast_files: int


_NO_FRAME: Callable[[], pd.DataFrame | None] = lambda: None  # noqa: E731


class FileWriter:
    """Writes forecast files (an existing, different file is kept: forecasts are immutable) with
    their fsyncs overlapped on a few threads, and reports them in the order they were added, exactly as one-by-one writing does:
    each file's warnings, then its own outcome. The bytes are made here, on the calling thread, or
    come made (``add_made``); a thread only compares with an existing file and writes. Files go to
    distinct paths. With one worker, files are written one by one on the calling thread, so "the N-th
    write" is well defined (a crash test counting writes passes ``workers=1``). On an error every file
    before the failing one is still written, as one-by-one writing leaves them. A written CSV file's frame, as ``read_table``
    would read it, is handed to the scoring (``readers.remember_forecasts``) when known, or comes as
    a disk-cache entry a parsing worker kept with the file it staged (``add_staged``)."""

    WINDOW = 64

    def __init__(self, hub: Hub, report: Outcomes, workers: int):
        self.hub, self.layout, self.report = hub, hub.layout, report
        self.pending: deque[tuple[list[Problem], Path, Future[str], Callable[[], pd.DataFrame | None]]] = deque()
        self.pool = ThreadPoolExecutor(workers, thread_name_prefix="fb-write") if workers > 1 else None

    def __enter__(self):
        return self

    def add(self, due: str, model: str, rows: pd.DataFrame | dict[str, list], problems: list[Problem]) -> None:
        data, cells = forecast_file(rows if isinstance(rows, dict) else forecast_lists(rows), self.hub.cache.probabilities)
        self.add_made(due, model, data, _NO_FRAME if cells is None else lambda: as_read(cells), problems)

    def add_made(self, due: str, model: str, data: bytes, frame: Callable[[], pd.DataFrame | None], problems: list[Problem]) -> None:
        """A CSV forecast file of these bytes; ``frame()``: what ``read_table`` reads from them, if known."""
        path = self.layout.forecast(parse_ts(due), model)
        self._add(problems, path, lambda: _store(path, data), frame)

    def add_staged(
        self, due: str, model: str, staged: Path, digest: str, entry_kept: bool, frame: Callable[[], pd.DataFrame | None], problems: list[Problem]
    ) -> None:
        """A CSV forecast file a parsing worker staged (``workers``; its bytes' sha256 ``digest``),
        put in place unless a file is there; ``entry_kept``: its frame is in the disk cache."""
        path, disk = self.layout.forecast(parse_ts(due), model), self.hub.cache.disk

        def store() -> str:
            outcome = _commit(staged, path, digest)
            if entry_kept and outcome != "different" and disk is not None:
                disk.know(path, digest)
            return outcome

        self._add(problems, path, store, frame)

    def add_published(self, due: str, model: str, data: bytes) -> None:
        """A forecast set kept byte for byte as published (a ForecastBench JSON file)."""
        path = self.layout.forecast(parse_ts(due), model).with_suffix(".json")
        self._add([], path, lambda: _store(path, data), _NO_FRAME)

    def _add(self, problems: list[Problem], path: Path, store: Callable[[], str], frame: Callable[[], pd.DataFrame | None]) -> None:
        if self.pool is None:
            self._report(problems, path, store(), frame)
            return
        self.pending.append((problems, path, self.pool.submit(store), frame))
        while len(self.pending) > self.WINDOW:
            self._collect()

    def _collect(self) -> None:
        problems, path, future, frame = self.pending.popleft()
        self._report(problems, path, future.result(), frame)

    def _report(self, problems: list[Problem], path: Path, outcome: str, frame: Callable[[], pd.DataFrame | None]) -> None:
        layout, report = self.layout, self.report
        report.warnings += problems
        if outcome == "different":
            report.warnings.append(
                Problem(
                    layout.relative(path),
                    None,
                    None,
                    "forecast-immutable",
                    "a different forecast file already exists for this round; it is kept",
                    "warning",
                )
            )
            return
        if outcome == "written":
            report.written.append(layout.relative(path))
            report.forecast_files += 1
        read = frame()
        if read is not None:  # the file holds these bytes: hand the scoring the frame it would read
            readers.remember_forecasts(self.hub, path, read)

    def __exit__(self, *exc) -> None:
        try:
            while self.pending and exc[0] is None:
                self._collect()
        finally:
            if self.pool is not None:
                self.pool.shutdown(wait=True)


def _commit(staged: Path, path: Path, digest: str) -> str:
    """``_store`` for a staged file (``atomic.stage_bytes``) of bytes whose sha256 is ``digest``."""
    if path.is_file():
        outcome = "same" if hashlib.sha256(path.read_bytes()).hexdigest() == digest else "different"
        staged.unlink(missing_ok=True)
        return outcome
    commit_staged(staged, path)
    return "written"


def _store(path: Path, data: bytes) -> str:
    """Write a forecast file unless a different one exists: "written", "same" or "different"."""
    if path.is_file() and path.read_bytes() != data:
        return "different"
    return "written" if write_bytes_atomic(path, data) else "same"
