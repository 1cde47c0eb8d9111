"""Helpers shared by the platform adapters: field access, time parsing, hashing, paging, and
the two source shells (``MarketSource`` for markets, ``SeriesSource`` for datasets).

Payload hashes: every observation's ``payload_sha256`` is ``item_hash`` of the single item it was
parsed from, i.e. sha256 of ``json.dumps(item, sort_keys=True, separators=(",", ":"),
ensure_ascii=False)``. The same market state hashes the same whether it came from a list page
or a single-item read.
"""

from __future__ import annotations

import json
import time
from datetime import datetime, timezone
from functools import partial
from typing import Any, Callable, Iterable, Mapping, Sequence

from ..errors import SourceError
from .base import FetchContext, FetchResult, Failure, payload_hash
from .http import FetchError, Http, client_for, http_for


class ParseError(ValueError):
    """One item's payload does not have the shape we expect (schema drift, missing field)."""


def require(item: Mapping[str, Any], key: str) -> Any:
    """``item[key]``, or ParseError("missing <key>") when absent or null."""
    value = item.get(key) if isinstance(item, Mapping) else None
    if value is None:
        raise ParseError(f"missing {key}")
    return value


def to_float(value: Any, name: str) -> float:
    """A number from a number or numeric string; ParseError names the field otherwise."""
    if isinstance(value, bool):
        raise ParseError(f"{name} is not a number: {value!r}")
    try:
        return float(value)
    except (TypeError, ValueError) as exc:
        raise ParseError(f"{name} is not a number: {value!r}") from exc


def number_or(item: Mapping[str, Any], key: str, default: float = 0.0) -> float:
    """Lenient numeric read for filters: missing or malformed counts as ``default``."""
    try:
        return float(item.get(key, default))
    except (TypeError, ValueError):
        return default


def json_list(item: Mapping[str, Any], key: str) -> list[Any]:
    """A list that the API sends as a JSON-encoded string inside JSON (or, leniently, as a list)."""
    value = require(item, key)
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError as exc:
            raise ParseError(f"{key} is not valid JSON: {value[:40]!r}") from exc
    if not isinstance(value, list):
        raise ParseError(f"{key} is not a list")
    return value


def ms_to_dt(ms: Any) -> datetime | None:
    """Milliseconds since the epoch → aware UTC datetime (None stays None)."""
    if ms is None:
        return None
    return datetime.fromtimestamp(to_float(ms, "timestamp") / 1000.0, tz=timezone.utc)


def s_to_dt(seconds: Any) -> datetime:
    return datetime.fromtimestamp(to_float(seconds, "timestamp"), tz=timezone.utc)


def parse_time(text: Any) -> datetime | None:
    """ISO-8601 (``Z``, ``+00``, space separator, fractions) → aware UTC; naive means UTC."""
    if text in (None, ""):
        return None
    try:
        moment = datetime.fromisoformat(str(text))
    except ValueError as exc:
        raise ParseError(f"bad timestamp {text!r}") from exc
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc)


def date_to_dt(text: Any) -> datetime:
    """``YYYY-MM-DD`` → that date at 00:00 UTC."""
    moment = parse_time(str(text)[:10])
    if moment is None:
        raise ParseError("missing date")
    return moment


def item_hash(item: Any) -> str:
    """sha256 of the canonical JSON of one item (see the module docstring)."""
    canonical = json.dumps(item, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return payload_hash(canonical)


def native_ids(source: str, tracked: Iterable[str]) -> list[str]:
    """The native ids of this source's tracked question ids, sorted."""
    prefix = f"{source}:"
    return sorted(qid[len(prefix) :] for qid in tracked if qid.startswith(prefix))


def paged(fetch_page: Callable[[Any], tuple[list, Any]], *, first: Any, max_pages: int, enough) -> list:
    """Pages from token ``first`` until the next token is None, ``enough(items)`` or
    ``max_pages`` (always bounded). ``fetch_page(token)`` returns (items, next token)."""
    items: list[Any] = []
    token = first
    for _ in range(max(1, max_pages)):
        batch, token = fetch_page(token)
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

    def fetch(self, ctx: FetchContext) -> FetchResult:
        reason = self.skip_reason(ctx.env)
        if reason:
            return FetchResult(self.name, skipped=reason)
        opts = {**self.defaults, **self.options, **ctx.options}
        base_url = str(opts.get("base_url", self.base_url)).rstrip("/")
        with client_for(ctx.client, opts) as client:
            http = http_for(client, opts, sleep=self.sleep, headers=self.headers(ctx.env), progress=ctx.progress)
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
        for nid, outcome in zip(missing, outcomes):
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
        except (ParseError, *SHAPE_ERRORS) as exc:
            result.failures.append(Failure(f"{self.label} {nid}", _reason(exc)))
            return
        if question:
            result.questions.append(parsed)
        if observation is not None:
            result.observations.append(observation)


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

    def collect(self, http, base_url, opts, ctx) -> FetchResult:
        result = FetchResult(self.name)
        configured = [str(code) for code in opts.get("series", [])]
        codes = list(dict.fromkeys([*configured, *native_ids(self.name, ctx.tracked)]))
        outcomes = http.many(partial(self.read, http, base_url, opts, ctx.env), codes)
        raise_if_outage(self.name, outcomes, had_data=False)
        category = str(opts.get("category", "economics"))
        for code, outcome in zip(codes, outcomes):
            try:
                if isinstance(outcome, SourceError):
                    raise outcome
                question, observations = self.parse(code, outcome, category)
            except (SourceError, ParseError, *SHAPE_ERRORS) as exc:
                result.failures.append(Failure(f"{self.name} series {code}", _reason(exc)))
                continue
            result.questions.append(question)
            result.observations.extend(observations)
        return result


def unwrap(payload: Any, key: str) -> Mapping[str, Any]:
    """``payload[key]`` when the API wraps a single item (``{"market": {...}}``)."""
    inner = payload.get(key) if isinstance(payload, Mapping) else None
    if not isinstance(inner, Mapping):
        raise FetchError(f"response has no {key!r} object")
    return inner


def list_at(payload: Any, what: str, *path: str) -> list[Any]:
    """The list at ``payload[path...]``; a missing list is a source-level schema change."""
    node = payload
    for key in path:
        node = node.get(key) if isinstance(node, Mapping) else None
    if not isinstance(node, list):
        where = ".".join(path) or "top level"
        raise SourceError(f"{what}: no list at {where} (schema change?)")
    return node
