"""The demo's fetch lane: each night's fetch made while the demo scores the night before.

A night's fetch reads the sources and its own ledgers (``data/questions/``, ``data/observations/``)
and nothing the rest of a night writes; the rest of a night reads those ledgers only for the rounds
it opens, the ledger view it scores against and what its scoring takes as new, which it reads first
(``nightly``'s ``ahead``). The next night's fetch runs in a forked process (``parallel.Companion``),
on the second core, in two steps (``fetch.NightFetch``): as soon as a night has taken its own fetch,
the lane reads the next night's sources and makes their new rows, writing nothing (``read_ahead``);
once the night has read those ledgers it writes them (``ask``), while the night opens rounds, seals,
scores and writes its history, is committed, and the teams submit. What the fetch learnt comes back with its
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
from typing import cast

import pandas as pd

from ..errors import PrescientError
from ..parallel import Companion, CompanionError
from ..sources.base import Source
from ..store import files, ledger
from ..store.cache import ReadCache, file_signature
from ..store.hub import Hub
from ..timeutil import format_ts
from .fetch import NightFetch, SourceReport, SourceRows

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
    """``with FetchLane(hub, sources) as lane``: ``read_ahead(night)`` has the lane read a night's sources
    and make their new rows, writing nothing (the caller goes on at once); ``ask(night)``, once the
    night before no longer reads the lane's ledgers, has it write them (reading them first when it
    was not told to); ``fetch(night)`` gives the night's fetch (asking for it first when the night
    before did not)."""

    def __init__(self, hub: Hub, sources: Mapping[str, Source], env: dict[str, str]):
        self.hub = hub
        self.night: datetime | None = None  # the night asked for, not yet taken
        work = _LaneWork(Hub.load(hub.root), sources, env)  # with its own cache: what the lane learns, the lane's process keeps
        self.companion: Companion[tuple[str, datetime], _Answer | None] = Companion(work.answer)

    def read_ahead(self, night: datetime) -> None:
        self.companion.tell((READ, night))  # its rows kept there until asked to write them

    def ask(self, night: datetime) -> None:
        self.companion.ask((WRITE, night))
        self.night = night

    def fetch(self, night: datetime) -> Fetched:
        if self.night != night:
            self.ask(night)
        self.night = None
        answer = cast(_Answer, self._result(night))  # a write's: never None
        _take(self.hub.cache, answer)
        # its files read now, while the lane waits for the next night: as the fetch left them
        written = {rel: files.read_bytes(self.hub.root / rel) for rel in dict.fromkeys(answer.written)}
        return Fetched(answer.bank, answer.sources, answer.written, written)

    def _result(self, night: datetime) -> _Answer | None:
        try:
            return self.companion.result()
        except CompanionError as exc:
            raise PrescientError(f"the demo's fetch of the night of {format_ts(night)} failed: {exc}") from None

    def close(self) -> None:
        self.companion.close()

    def __enter__(self) -> FetchLane:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


READ, WRITE = "read", "write"  # the lane's two requests


class _LaneWork:
    """The lane's side: a night's sources read (``READ``), its rows kept in the lane's process until
    they are written (``WRITE``), with what the demo's cache takes of them."""

    def __init__(self, hub: Hub, sources: Mapping[str, Source], env: dict[str, str]):
        self.hub, self.sources, self.env = hub, sources, env
        self.read: _Read | None = None

    def answer(self, request: tuple[str, datetime]) -> _Answer | None:
        step, night = request
        if step == READ:
            self.read = self._read(night)
            return None
        read, self.read = self.read, None
        if read is not None and read.night != night:  # its rows are not tonight's, and the fetch's state has taken them
            raise PrescientError(f"the lane read the night of {format_ts(read.night)} ahead, then was asked for {format_ts(night)}")
        read = read or self._read(night)  # not read ahead: read now
        for rows in read.pending:
            read.fetch.write(rows, read.report)
        return _answer(self.hub, read.fetch.done(), read.report, read.before)

    def _read(self, night: datetime) -> _Read:
        cache = self.hub.cache
        before = {key: len(frame) for key, (signature, frame) in cache.tables.items() if _fresh(key, signature)}
        report, fetch = _Report(), NightFetch(self.hub, night)
        return _Read(night, fetch, report, list(fetch.read(self.hub.settings, report, None, self.env, sources=self.sources)), before)


@dataclass
class _Read:
    """A night's sources read by the lane, not yet written."""

    night: datetime
    fetch: NightFetch
    report: _Report
    pending: list[SourceRows]  # each source's new rows
    before: dict[tuple, int]  # the rows of each ledger frame the lane's cache held before the fetch


def _answer(hub: Hub, bank: pd.DataFrame, report: _Report, before: dict[tuple, int]) -> _Answer:
    """A night's fetch, written, with what the demo's cache takes of it: the rows each ledger frame the
    fetch wrote gained since ``before`` (its rows then), and those ledgers' last keys."""
    cache = hub.cache
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
