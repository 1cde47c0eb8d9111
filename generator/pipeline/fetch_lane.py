"""The demo's fetch lane: each night's fetch made while the demo scores the night before.

A night's fetch reads the sources and its own ledgers (``data/questions/``, ``data/observations/``)
and nothing the rest of a night writes; the rest of a night reads those ledgers only for the rounds
it opens, the ledger view it scores against and what its scoring takes as new, which it reads first
(``nightly``'s ``ahead``). From then on the next night's fetch runs in a forked process
(``parallel.Companion``), on the second core, while the night opens rounds, seals, scores and writes
its history, is committed, and the teams submit. What the fetch learnt comes back with its
answer and is taken into the demo's own command cache, as if the demo had fetched (the ledgers'
frames as ``read_table`` gives them, their last keys), and the bytes of the files it wrote go into
that night's commits as they were (``demo_git.Held``): the lane may be writing the next night's rows
by the time the commit is made.

The demo's history is the same, commit for commit, with the lane or without it (``fetch_lane=False``;
``tests/pipeline/test_fetch_lane.py``). Where forking is not sound the companion fetches in this
process, when the night asks for its fetch: the order of a plain season.

The lane writes without the hub lock, which the demo takes and releases around each of its own steps:
the demo is one command, and no other command may write to its folder while it runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import pandas as pd

from ..errors import PrescientError
from ..parallel import Companion, CompanionError
from ..sources.base import Source
from ..store import files, ledger
from ..store.cache import ReadCache, file_signature
from ..store.hub import Hub
from ..timeutil import format_ts
from .fetch import FetchReport, SourceReport, fetch_stage

LANE_FOLDERS = ("data/questions/", "data/observations/")  # what a fetch writes, and nothing else in the demo


@dataclass
class Fetched:
    """A night's fetch as ``nightly`` takes it (its ``fetched``), and the files it left."""

    bank: pd.DataFrame  # the question bank after the fetch, as ``fetch_stage`` returns it
    sources: list[SourceReport]
    written: list[str]
    files: dict[str, bytes]  # every file the fetch wrote, by path in the hub, as it left them


@dataclass
class _Report:
    """``fetch.FetchReport``, for the lane's fetch."""

    sources: list[SourceReport] = field(default_factory=list)
    written: list[str] = field(default_factory=list)


@dataclass
class _Answer:
    """What the lane sends back for one night."""

    bank: pd.DataFrame
    sources: list[SourceReport]
    written: list[str]
    tables: list[tuple[tuple, tuple, int, pd.DataFrame]]  # (key, signature, rows before, rows added) per ledger frame
    last_keys: list[tuple[str, Path, object, tuple[str, ...] | None]]  # (table, path, signatures, last key): ``ledger.last_key``


class FetchLane:
    """``with FetchLane(hub, sources) as lane``: ``ask(night)`` starts a night's fetch; ``fetch(night)``
    gives it (asking for it first when the night before did not)."""

    def __init__(self, hub: Hub, sources: Mapping[str, Source], env: dict[str, str]):
        self.hub = hub
        self.night: datetime | None = None  # the night asked for, not yet taken
        lane = Hub.load(hub.root)  # with its own cache: what the lane learns, the lane's process keeps
        self.companion: Companion[datetime, _Answer] = Companion(lambda night: _fetch(lane, night, sources, env))

    def ask(self, night: datetime) -> None:
        self.companion.ask(night)
        self.night = night

    def fetch(self, night: datetime) -> Fetched:
        if self.night != night:
            self.ask(night)
        self.night = None
        try:
            answer = self.companion.result()
        except CompanionError as exc:
            raise PrescientError(f"the demo's fetch of the night of {format_ts(night)} failed: {exc}") from None
        _take(self.hub.cache, answer)
        # its files read now, while the lane waits for the next night: as the fetch left them
        written = {rel: files.read_bytes(self.hub.root / rel) for rel in dict.fromkeys(answer.written)}
        return Fetched(answer.bank, answer.sources, answer.written, written)

    def close(self) -> None:
        self.companion.close()

    def __enter__(self) -> FetchLane:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _fetch(hub: Hub, night: datetime, sources: Mapping[str, Source], env: dict[str, str]) -> _Answer:
    """One night's fetch in the lane, with what the demo's cache takes of it."""
    cache = hub.cache
    before = {key: len(frame) for key, (signature, frame) in cache.tables.items() if _fresh(key, signature)}
    report: FetchReport = _Report()
    bank = fetch_stage(hub.settings, hub, night, report, None, env, sources=sources)
    paths = {str(hub.root / rel) for rel in report.written}
    tables = [
        (key, signature, before.get(key, 0), frame.iloc[before.get(key, 0) :])
        for key, (signature, frame) in cache.tables.items()
        if key[0] in paths and _fresh(key, signature)
    ]
    last_keys: list[tuple[str, Path, object, tuple[str, ...] | None]] = []
    for key, _, _, _ in tables:
        name, path = key[1], Path(key[0])
        kept = cache.kept_entry(ledger.LAST_KEY.of((name, str(path))))
        if kept is not None:
            last_keys.append((name, path, kept[0], kept[1]))
    return _Answer(bank, list(report.sources), list(report.written), tables, last_keys)


def _fresh(key: tuple, signature: tuple) -> bool:
    """A kept frame of a file as the file is now."""
    path = Path(key[0])
    return path.is_file() and file_signature(path) == signature


def _take(cache: ReadCache, answer: _Answer) -> None:
    """The lane's frames and last keys of the ledgers it wrote, into the demo's cache: each frame the
    demo holds of a file as it was before the fetch, with the rows the fetch added; a frame the demo
    does not hold as it was is dropped (read again when asked for)."""
    for key, signature, rows_before, added in answer.tables:
        held = cache.tables.get(key)
        if rows_before == 0:
            cache.tables[key] = (signature, added.reset_index(drop=True))
        elif held is not None and len(held[1]) == rows_before:
            cache.tables[key] = (signature, pd.concat([held[1], added], ignore_index=True))
        else:
            cache.tables.pop(key, None)
    for name, path, signatures, last in answer.last_keys:
        cache.keep(ledger.LAST_KEY.of((name, str(path))), signatures, last)
