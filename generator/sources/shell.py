"""The two source shells every platform adapter is built on: ``MarketSource`` (discover qualifying
markets page by page, then re-read tracked ones) and ``SeriesSource`` (read configured series),
with the paging and outage rules they share."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from functools import partial
from typing import Any

from ..errors import SourceError
from ._util import ParseError, check_text, require
from .base import Failure, FetchContext, FetchResult, Observation, Question
from .http import BudgetExhausted, Http, client_for, http_for


def native_ids(source: str, tracked: Iterable[str]) -> list[str]:
    """The native ids of this source's tracked question ids, sorted."""
    prefix = f"{source}:"
    return sorted(qid[len(prefix) :] for qid in tracked if qid.startswith(prefix))


def paged(fetch_page: Callable[[Any], tuple[list, Any]], *, first: Any, max_pages: int, enough) -> list:
    """Pages from token ``first`` until the next token is None, ``enough(items)`` or
    ``max_pages`` (always bounded). ``fetch_page(token)`` returns (items, next token). When the
    source's time budget runs out after the first page, the pages read so far are kept."""
    items: list[Any] = []
    token = first
    for _ in range(max(1, max_pages)):
        try:
            batch, token = fetch_page(token)
        except BudgetExhausted:
            if not items:
                raise
            break
        items.extend(batch)
        if token is None or enough(items):
            break
    return items


def discovery_done(test, cap: int, native_id, wanted: Iterable[str]) -> Callable[[list], bool]:
    """Stop paging once ``cap`` items pass ``test`` and every tracked id has been seen: one more
    page costs one request, while a tracked market missing from discovery costs one read each."""
    wanted = set(wanted)

    def done(items: list[Any]) -> bool:
        rows = [i for i in items if isinstance(i, Mapping)]
        if sum(1 for i in rows if test(i)) < cap:
            return False
        return wanted <= {_safe_id(native_id, i) for i in rows}

    return done


def _safe_id(native_id, item) -> str | None:
    try:
        return native_id(item)
    except (ParseError, TypeError, AttributeError):
        return None


SHAPE_ERRORS = (TypeError, KeyError, IndexError, AttributeError)


def _reason(exc: Exception) -> str:
    if isinstance(exc, (ParseError, SourceError)):
        return str(exc)
    return f"unexpected shape ({type(exc).__name__}: {exc})"


class _Source:
    """Shared ``__init__``/``fetch`` shell: options, key check, client, ``Http``; subclasses
    implement ``collect(http, base_url, opts, ctx)``."""

    name = ""
    base_url = ""
    defaults: Mapping[str, Any] = {}
    needs_http = True

    def __init__(self, options: Mapping[str, Any], *, sleep: Callable[[float], None] = time.sleep):
        self.options = dict(options)
        self.sleep = sleep  # injected by tests so retries never really sleep

    def skip_reason(self, env: Mapping[str, str]) -> str | None:
        return None

    def headers(self, env: Mapping[str, str]) -> dict[str, str]:
        return {}

    def collect(self, http: Http, base_url: str, opts: Mapping[str, Any], ctx: FetchContext) -> FetchResult:
        raise NotImplementedError

    def fetch(self, ctx: FetchContext) -> FetchResult:
        reason = self.skip_reason(ctx.env)
        if reason:
            return FetchResult(self.name, skipped=reason)
        opts = {**self.defaults, **self.options, **ctx.options}
        base_url = str(opts.get("base_url", self.base_url)).rstrip("/")
        with client_for(ctx.client, opts) as client:
            http = http_for(client, opts, sleep=self.sleep, headers=self.headers(ctx.env), progress=ctx.progress, budget=ctx.budget)
            return self.collect(http, base_url, opts, ctx)


class MarketSource(_Source):
    """Discover qualifying open binary markets page by page, then observe tracked ones.

    Subclasses set ``label`` ("manifold market"), ``id_key``, ``first_page`` and provide
    ``qualifies(item, opts, as_of)`` (lenient, never raises), ``parse(item, as_of)`` (pure),
    ``fetch_page(http, base_url, opts, token) -> (items, next token)`` and
    ``read_one(http, base_url, native_id) -> item``.
    """

    label = ""
    id_key = "id"
    first_page: Any = 0

    @staticmethod
    def qualifies(item: Mapping[str, Any], /, opts: Mapping[str, Any], as_of: datetime) -> bool:
        raise NotImplementedError

    @staticmethod
    def parse(item: Mapping[str, Any], as_of: datetime, /) -> tuple[Question, Observation | None]:
        raise NotImplementedError

    @staticmethod
    def fetch_page(http: Http, base_url: str, opts: Mapping[str, Any], token: Any, /) -> tuple[list[Any], Any]:
        raise NotImplementedError

    @staticmethod
    def read_one(http: Http, base_url: str, native_id: str, /) -> Mapping[str, Any]:
        raise NotImplementedError

    def native_id(self, item: Mapping[str, Any]) -> str:
        return str(require(item, self.id_key))

    def collect(self, http, base_url, opts, ctx) -> FetchResult:
        cap = int(opts.get("max_markets", 500))
        test = partial(self.qualifies, opts=opts, as_of=ctx.as_of)
        done = discovery_done(test, cap, self.native_id, native_ids(self.name, ctx.tracked))
        pages = partial(self.fetch_page, http, base_url, opts)
        limit = int(opts.get("max_pages", 10))
        found = paged(pages, first=self.first_page, max_pages=limit, enough=done)
        return self.observe(found, test, partial(self.read_one, http, base_url), ctx, http, cap)

    def observe(self, found, test, read_one, ctx, http: Http, cap: int) -> FetchResult:
        """Questions + observations for qualifying found markets (at most ``cap``), observations
        for tracked ones, re-reading individually (concurrently) those not found."""
        result = FetchResult(self.name)
        by_id = self._index(result, found)
        wanted = set(native_ids(self.name, ctx.tracked))
        chosen = [nid for nid, item in by_id.items() if test(item)][: max(0, cap)]
        for nid in dict.fromkeys([*chosen, *sorted(wanted & by_id.keys())]):
            self._absorb(result, by_id[nid], ctx.as_of, question=nid in chosen)
        missing = sorted(wanted - by_id.keys())
        outcomes = http.many(read_one, missing)
        raise_if_outage(self.name, outcomes, had_data=bool(by_id))
        for nid, outcome in zip(missing, outcomes, strict=True):
            if isinstance(outcome, SourceError):
                result.failures.append(Failure(f"{self.label} {nid}", str(outcome)))
            else:
                self._absorb(result, outcome, ctx.as_of, question=False)
        return result

    def _index(self, result: FetchResult, items: Sequence[Any]) -> dict[str, Mapping[str, Any]]:
        by_id: dict[str, Mapping[str, Any]] = {}
        for item in items:
            nid = _safe_id(self.native_id, item)
            if nid is None:
                result.failures.append(Failure(f"{self.label} ?", f"missing {self.id_key}"))
            else:
                by_id.setdefault(nid, item)
        return by_id

    def _absorb(self, result: FetchResult, item: Any, as_of: datetime, *, question: bool) -> None:
        nid = _safe_id(self.native_id, item) or "?"
        try:
            if not isinstance(item, Mapping):
                raise ParseError("not a JSON object")
            parsed, observation = self.parse(item, as_of)
            check_probability(observation)
            if question:
                check_text(parsed)
        except (ParseError, *SHAPE_ERRORS) as exc:
            result.failures.append(Failure(f"{self.label} {nid}", _reason(exc)))
            return
        if question:
            result.questions.append(parsed)
        if observation is not None:
            result.observations.append(observation)


def check_probability(observation: Observation | None) -> None:
    """A market's value is a probability: a price outside [0, 1] means the item was misread (or the
    platform sent garbage), and it must not become a freeze value, a crowd forecast or a proxy outcome."""
    if observation is not None and observation.value is not None and not 0.0 <= observation.value <= 1.0:
        raise ParseError(f"market value {observation.value!r} is not a probability in [0, 1]")


def raise_if_outage(source: str, outcomes: Sequence[Any], *, had_data: bool) -> None:
    """Nothing could be read and every error was transient: the whole source is down."""
    if had_data or not outcomes:
        return
    errors = [o for o in outcomes if isinstance(o, SourceError)]
    if len(errors) == len(outcomes) and all(getattr(e, "transient", False) for e in errors):
        raise SourceError(f"{source}: all {len(errors)} reads failed; first: {errors[0]}")


class SeriesSource(_Source):
    """One dataset Question + observations per configured (``series``) or tracked code, read
    concurrently. Subclasses provide ``read(http, base_url, opts, env, code)`` and
    ``parse(code, payload, category) -> (Question, [Observation])`` (pure)."""

    @staticmethod
    def read(http: Http, base_url: str, opts: Mapping[str, Any], env: Mapping[str, str], code: str, /) -> Any:
        raise NotImplementedError

    @staticmethod
    def parse(code: str, payload: Any, category: str, /) -> tuple[Question, list[Observation]]:
        raise NotImplementedError

    def collect(self, http, base_url, opts, ctx) -> FetchResult:
        result = FetchResult(self.name)
        configured = [str(code) for code in opts.get("series", [])]
        codes = list(dict.fromkeys([*configured, *native_ids(self.name, ctx.tracked)]))
        outcomes = http.many(partial(self.read, http, base_url, opts, ctx.env), codes)
        raise_if_outage(self.name, outcomes, had_data=False)
        category = str(opts.get("category", "economics"))
        for code, outcome in zip(codes, outcomes, strict=True):
            try:
                if isinstance(outcome, SourceError):
                    raise outcome
                question, observations = self.parse(code, outcome, category)
                check_text(question)
            except (SourceError, ParseError, *SHAPE_ERRORS) as exc:
                result.failures.append(Failure(f"{self.name} series {code}", _reason(exc)))
                continue
            result.questions.append(question)
            result.observations.extend(observations)
        return result
