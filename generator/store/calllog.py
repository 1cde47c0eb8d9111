"""Append-only JSONL logs of LLM calls: one JSON object per line, the resume state of every run that
asks an LLM (the LLM forecaster's ``data/llm/<due>/<model>.jsonl``, the oracle's generation and
answer logs).

A line is appended as soon as its call ends, from any worker thread, and flushed at once, so a
crash loses at most the call in flight. A line cut short by a crash is not valid JSON: reading skips
it (that call is then made again), and the next append first ends it with a newline so it stays one
bad line rather than spoiling the next record.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable
from pathlib import Path


def read_records(paths: Path | Iterable[Path], required: str) -> list[dict]:
    """Every record (a JSON object holding ``required``) of the log file(s), in file and line order;
    absent files are empty, and lines that do not parse are skipped."""
    records = []
    for path in [paths] if isinstance(paths, Path) else paths:
        if not path.is_file():
            continue
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict) and required in record:
                records.append(record)
    return records


class Appender:
    """Appends records to one log file as they arrive, from any thread (one lock per file)."""

    def __init__(self, path: Path):
        self.path, self.lock = path, threading.Lock()
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_file() and path.stat().st_size:
            with open(path, "rb") as handle:
                handle.seek(-1, 2)
                cut = handle.read(1) != b"\n"
            if cut:  # end a line a crash cut short, so it stays one bad line
                with open(path, "ab") as handle:
                    handle.write(b"\n")

    def __call__(self, record: dict) -> None:
        line = json.dumps(record, sort_keys=True, ensure_ascii=False) + "\n"
        with self.lock, open(self.path, "a", encoding="utf-8") as handle:
            handle.write(line)
            handle.flush()
