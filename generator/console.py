"""What the command line shows while it works: progress bars on a terminal, plain lines otherwise,
and the per-source summary of a nightly run."""

from __future__ import annotations

import contextlib
import functools
import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

import pandas as pd

from .store.csvio import spreadsheet_safe

if TYPE_CHECKING:  # rich is imported only when a terminal shows the bar
    from rich.progress import Progress, TaskID


def print_sources(report) -> None:
    for s in getattr(report, "sources", []):
        if s.skipped:
            print(f"{s.name}: skipped ({s.skipped})")
            continue
        status = f"FAILED: {s.error}" if s.error else "ok"
        print(f"{s.name}: {status}; new questions {s.new_questions}, new observations {s.new_observations}, "
              f"resolved {s.resolved}, voided {s.voided}, item failures {len(s.failures)}")
        for failure in s.failures[:20]:
            print(f"  - {failure}")
    for due in getattr(report, "rounds_waiting", []):
        print(f"round {due}: not opened, no eligible question yet (the next run before its due time tries again)")


class progress_bar:
    """A rich progress bar on a terminal, plain lines otherwise."""

    def __init__(self, title: str):
        self.title = title
        self.bar: tuple[Progress, TaskID] | None = None  # the rich bar and its one task, on a terminal

    def __enter__(self) -> Callable[[int, int, str], None]:
        if sys.stderr.isatty():
            from rich.progress import Progress

            bar = Progress(transient=False)
            bar.start()
            self.bar = bar, bar.add_task(self.title, total=None)
        return self.advance

    def advance(self, done: int, total: int, message: str) -> None:
        if self.bar is not None:
            bar, task = self.bar
            bar.update(task, completed=done, total=total, description=f"{self.title}: {message}")
        elif done == total or done % 30 == 0:
            print(f"{self.title}: {done}/{total} ({message})", file=sys.stderr)

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar[0].stop()


@contextlib.contextmanager
def requests_progress():
    """Per-source request counters: a rich bar on a terminal, one plain log line otherwise."""
    if not sys.stderr.isatty():
        def plain(source: str):
            print(f"fetching {source} ...", file=sys.stderr)
            return lambda n: None
        yield plain
        return
    from rich.progress import Progress, SpinnerColumn, TextColumn

    with Progress(SpinnerColumn(), TextColumn("{task.description}: {task.completed} requests"), transient=False) as bar:
        yield lambda source: functools.partial(bar.advance, bar.add_task(source, total=None))


def print_frame(frame: pd.DataFrame, fmt: str, hide: tuple[str, ...] = (), digits: int | None = None) -> None:
    """A board as CSV (every column), JSON records (every column) or a table for people."""
    if fmt == "csv":  # for spreadsheets: formula-like text neutralised (store.csvio.spreadsheet_safe)
        spreadsheet_safe(frame).to_csv(sys.stdout, index=False, lineterminator="\n", float_format="%.6g")
    elif fmt == "json":
        print(json.dumps(json.loads(frame.to_json(orient="records")), indent=2))
    else:
        shown = frame.drop(columns=[c for c in hide if c in frame.columns])
        print(shown.to_string(index=False, float_format=(lambda x: f"{x:.{digits}f}") if digits is not None else None))
