"""A run of LLM calls: each call made through one endpoint, charged to an optional budget, and
recorded in an append-only log (``store.calllog``) that is the run's resume state.

``Session.ask`` makes one call unless the budget is spent (then it is not made: ``Reply.skipped``),
and never raises for an endpoint failure (``Reply.error``); the caller decides what its answer
means and logs the record it wants with ``Session.log``. ``settled`` reads a log back: the record
that settled each key, so a rerun asks only what has no final answer yet.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import httpx

from ..errors import PrescientError, Problem
from ..sources.http import fetch_many
from ..store.calllog import Appender
from .endpoint import CallOptions, Completion, Endpoint, Post, chat, cost_usd, read_completion

T = TypeVar("T")
R = TypeVar("R")


@dataclass
class Budget:
    """What a run may still spend: ``usd`` and/or ``tokens`` (None: no limit of that kind), less what
    was ``spent`` already (by earlier runs of the same day, read from their logs)."""

    usd: float | None = None
    tokens: int | None = None
    spent_usd: float = 0.0
    spent_tokens: int = 0

    def spent(self) -> bool:
        return (self.usd is not None and self.spent_usd >= self.usd) or (self.tokens is not None and self.spent_tokens >= self.tokens)

    def charge(self, tokens: int, usd: float | None) -> None:
        self.spent_tokens += tokens
        self.spent_usd = round(self.spent_usd + (usd or 0.0), 8)

    def message(self) -> str:
        limits = ([f"${self.spent_usd:.4f} of ${self.usd:g}"] if self.usd is not None else []) + (
            [f"{self.spent_tokens} of {self.tokens} tokens"] if self.tokens is not None else []
        )
        return "the daily budget is spent (" + ", ".join(limits) + ")"

    @classmethod
    def of_day(cls, records: Iterable[dict], day: str, usd: float | None, tokens: int | None) -> Budget:
        """The budget of ``day`` (YYYY-MM-DD) with what the ``records`` recorded that day spent."""
        budget = cls(usd, tokens)
        for r in records:
            if str(r.get("recorded_at", "")).startswith(day):
                budget.charge((r.get("tokens_in") or 0) + (r.get("tokens_out") or 0), r.get("cost_usd"))
        return budget


@dataclass(frozen=True)
class Reply:
    """One call's outcome: the completion, or why there is none (``error``), or that it was not made
    because the budget is spent (``skipped``)."""

    completion: Completion | None
    error: str = ""
    skipped: bool = False
    cost_usd: float | None = None

    @property
    def tokens(self) -> tuple[int | None, int | None]:
        return (self.completion.tokens_in, self.completion.tokens_out) if self.completion else (None, None)


@dataclass
class NightStage:
    """What a nightly stage that asks an LLM noted (``notes``: a step skipped, and why) and found
    (``problems``); its ``errors`` end the night with PartialFailure after everything was written."""

    notes: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]


ANSWERED = ("ok", "refused", "unparseable")  # an answer's final statuses; "error" (the call failed) is asked again


@dataclass
class RunReport:
    """What a run of one model's calls did: units asked and skipped (answered before), how each ended,
    tokens and cost, and the files it wrote."""

    model: str
    asked: int = 0
    skipped: int = 0
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys((*ANSWERED, "error"), 0))
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float | None = None
    written: list[str] = field(default_factory=list)


class Session:
    """Calls to one endpoint from any number of threads, charged to ``budget`` and logged to ``append``."""

    def __init__(self, post: Post, endpoint: Endpoint, append: Appender, budget: Budget | None, concurrency: int):
        self.post, self.endpoint, self.append, self.budget = post, endpoint, append, budget
        self.concurrency, self.lock = concurrency, threading.Lock()
        self.calls = self.tokens_in = self.tokens_out = 0
        self.cost_usd: float | None = None

    def ask(self, body: dict) -> Reply:
        with self.lock:
            if self.budget is not None and self.budget.spent():
                return Reply(None, self.budget.message(), skipped=True)
        try:
            payload = self.post(body)
        except PrescientError as exc:
            return Reply(None, str(exc))
        completion = read_completion(payload)
        cost = cost_usd(completion.tokens_in, completion.tokens_out, self.endpoint)
        with self.lock:
            self.calls += 1
            self.tokens_in += completion.tokens_in or 0
            self.tokens_out += completion.tokens_out or 0
            if cost is not None:
                self.cost_usd = round((self.cost_usd or 0.0) + cost, 8)
            if self.budget is not None:
                self.budget.charge((completion.tokens_in or 0) + (completion.tokens_out or 0), cost)
        return Reply(completion, cost_usd=cost)

    def log(self, record: dict) -> None:
        self.append(record)

    def map(self, one: Callable[[T], R], items: Sequence[T]) -> list:
        """``one`` over ``items`` on up to ``concurrency`` threads, in order."""
        return fetch_many(one, items, concurrency=self.concurrency)


@contextmanager
def session(
    endpoint: Endpoint,
    options: CallOptions,
    log: Path,
    budget: Budget | None = None,
    client: httpx.Client | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> Iterator[Session]:
    """A Session over ``endpoint`` appending to the log file ``log``."""
    append = Appender(log)
    with chat(endpoint, options, client, sleep) as post:
        yield Session(post, endpoint, append, budget, options.concurrency)


def settled(records: Iterable[dict], key: Callable[[dict], Hashable], final: Iterable[str]) -> dict[Hashable, dict]:
    """The record that settled each key: the first whose status is one of ``final``."""
    final, out = set(final), {}
    for record in records:
        k = key(record)
        if record.get("status") in final and k not in out:
            out[k] = record
    return out
