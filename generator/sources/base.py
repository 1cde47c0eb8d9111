"""The Source interface every platform implements, the built-in ``sim`` included.

A source is asked once per run to ``fetch`` with a ``FetchContext``. It returns the questions it
knows about (new or changed; the store keeps one row per question version) and one observation per
question it could read. It never writes anything: the pipeline decides what is new.

Rules every source follows:
- question ids are ``<source>:<native id>``;
- timestamps are timezone-aware UTC ``datetime``s;
- a market observation has ``value`` = the current probability of YES, ``status`` open, resolved or
  void, and ``outcome`` 1.0/0.0 once resolved (None otherwise);
- a dataset (series) observation has ``observed_at`` = the date the value refers to (00:00 UTC),
  ``value`` = the series value and ``status`` open;
- ``payload_sha256`` is the sha256 of the raw bytes the value was parsed from (``payload_hash``);
- one bad item becomes a ``Failure`` in the result, and the rest proceed; a whole-source outage
  raises ``SourceError``, which the pipeline isolates.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

import httpx

from .http import Budget


@dataclass(frozen=True)
class Question:
    id: str
    source: str
    kind: str
    text: str
    background: str = ""
    resolution_criteria: str = ""
    url: str = ""
    category: str = ""
    open_time: datetime | None = None
    close_time: datetime | None = None


@dataclass(frozen=True)
class Observation:
    question_id: str
    observed_at: datetime
    value: float | None
    status: str = "open"
    outcome: float | None = None
    payload_sha256: str = ""


@dataclass(frozen=True)
class Failure:
    """One item that could not be read, e.g. ``polymarket market 123: missing outcomePrices``."""

    item: str
    reason: str

    def __str__(self) -> str:
        return f"{self.item}: {self.reason}"


@dataclass
class FetchResult:
    source: str
    questions: list[Question] = field(default_factory=list)
    observations: list[Observation] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    skipped: str | None = None  # a reason when the source chose not to run (e.g. no API key)


@dataclass(frozen=True)
class FetchContext:
    """What a source may use. ``tracked`` holds the ids of this source's questions still open;
    ``settled`` those whose latest recorded state is final (resolved or void): a source whose final
    states never change may leave them out, since what it would report of them is recorded."""

    as_of: datetime
    options: Mapping[str, Any]
    tracked: frozenset[str] = frozenset()
    client: httpx.Client | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    progress: Callable[[int], None] | None = None  # told of each finished request (for a progress bar)
    budget: Budget | None = None  # this source's time budget for the run (sources.http.Budget)
    settled: frozenset[str] = frozenset()  # after the older fields: callers pass those by position


class Source(Protocol):
    name: str
    needs_http: bool

    def fetch(self, ctx: FetchContext) -> FetchResult: ...


def payload_hash(raw: bytes | str) -> str:
    """sha256 hex of the raw payload a value came from (text is hashed as UTF-8)."""
    data = raw.encode("utf-8") if isinstance(raw, str) else raw
    return hashlib.sha256(data).hexdigest()
