"""The one place httpx is configured: client, retrying JSON GET (and POST), and bounded concurrent fetching.

``get_json`` retries connect errors, timeouts, 429 and 5xx with exponential backoff and jitter,
honours ``Retry-After`` (seconds, or an HTTP date measured against the response's own ``Date``
header, so no wall clock is read), and returns ``(parsed_json, raw_bytes)``; ``post_json`` does the
same for a JSON POST (the LLM calls' chat completions), ``get_bytes`` for a body kept unparsed (news
feeds and articles). When it gives up it
raises ``FetchError`` (a ``SourceError``) whose message names the URL without its query string,
so API keys passed as params never reach a log.

``Http`` bundles a client with one source's retry, concurrency and rate settings, read from that
source's ``[sources.<name>]`` table: ``timeout`` (per phase), ``user_agent``, ``retries``, ``backoff``,
``max_wait``, ``concurrency``, ``rate_per_second``, ``request_seconds`` and ``max_response_bytes``.

A ``Budget`` caps the time one source may spend in a run (``budget_seconds``, default
``[http] source_budget_seconds``, 600). Every request and every wait between retries is cut to
what is left of it, and once it is spent no further request is made: each raises
``BudgetExhausted`` at once.

Every request also has a total deadline, ``request_seconds`` (default 120, cut to the budget left):
httpx's timeouts are per phase and per socket read, so a server that sends one byte every few
seconds would never trip them. The deadline is enforced on each socket read and write of the
request (its connection's streams are wrapped through httpx's ``trace`` extension, the deadline
kept per thread), so a request ends at its deadline whatever the server does. The body is read as a
stream and given up past ``max_response_bytes`` (default 20 MiB) with ``ResponseTooLarge`` (code
``response-too-large``), before it can exhaust memory. Both are read from the source's table, then
``[http]``.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any, TypedDict, TypeVar, Unpack

import httpcore
import httpx

from ..config_schema import HttpSettings
from ..errors import SourceError

USER_AGENT = HttpSettings.user_agent  # hub.toml's [http] user_agent (config_schema: every key's default, once)
DEFAULT_TIMEOUT = 30.0
DEFAULT_MAX_BYTES = 20 * 2**20  # max_response_bytes
DEFAULT_REQUEST_SECONDS = 120.0  # request_seconds: the total deadline of one request
T = TypeVar("T")
R = TypeVar("R")


class FetchError(SourceError):
    """A request that failed for good. ``transient`` marks outages (timeouts, 429, 5xx)."""

    def __init__(self, message: str, *, status: int | None = None, transient: bool = False):
        super().__init__(message)
        self.status = status
        self.transient = transient


class BudgetExhausted(FetchError):
    """The source's time budget is spent: the request was not made (or was cut short)."""


class ResponseTooLarge(FetchError):
    """A response body over ``max_response_bytes``: reading stopped there, the request is not retried."""

    code = "response-too-large"


@dataclass(frozen=True)
class RequestLimits:
    """What one request may take: ``max_bytes`` of body and ``seconds`` in total (all phases)."""

    max_bytes: int = DEFAULT_MAX_BYTES
    seconds: float = DEFAULT_REQUEST_SECONDS

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> RequestLimits:
        return cls(int(options.get("max_response_bytes", DEFAULT_MAX_BYTES)), float(options.get("request_seconds", DEFAULT_REQUEST_SECONDS)))


DEFAULT_BUDGET = 600.0


class Budget:
    """The seconds one source may spend on requests in a run, measured on a monotonic clock
    from its creation. ``exhausted_after`` is the elapsed time when it first ran out, else None."""

    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic):
        self.seconds, self._clock = float(seconds), clock
        self._start = clock()
        self.exhausted_after: float | None = None

    @classmethod
    def from_options(cls, options: Mapping[str, Any], clock: Callable[[], float] = time.monotonic) -> Budget:
        """``budget_seconds`` of the source's table, else ``[http] source_budget_seconds``, else 600."""
        seconds = options.get("budget_seconds", options.get("source_budget_seconds", DEFAULT_BUDGET))
        return cls(float(seconds), clock)

    def remaining(self) -> float:
        return max(0.0, self.seconds - (self._clock() - self._start))

    def check(self, what: str) -> None:
        """Raise ``BudgetExhausted`` (and remember when) if nothing is left for ``what``."""
        if self.remaining() <= 0:
            if self.exhausted_after is None:
                self.exhausted_after = self._clock() - self._start
            raise BudgetExhausted(f"{what}: not requested, {self.message()}", transient=True)

    def message(self) -> str:
        spent = self.exhausted_after if self.exhausted_after is not None else self._clock() - self._start
        return f"budget exhausted after {spent:.0f} s (budget {self.seconds:g} s)"

    def timeout(self, configured: httpx.Timeout) -> httpx.Timeout:
        """``configured`` with each phase cut to the time left (never below 1 ms)."""
        return cut_timeout(configured, self.remaining())


def cut_timeout(configured: httpx.Timeout, seconds: float) -> httpx.Timeout:
    """``configured`` with each phase cut to ``seconds`` (never below 1 ms)."""
    left = max(0.001, seconds)
    return httpx.Timeout(**{k: (left if v is None else min(v, left)) for k, v in configured.as_dict().items()})


# -- the total deadline of a request, enforced on every socket read and write ---------------------
_DEADLINE = threading.local()  # .end: the monotonic time the current thread's request must end by


@contextmanager
def _deadline(end: float) -> Iterator[None]:
    _DEADLINE.end = end
    try:
        yield
    finally:
        _DEADLINE.end = None


def _bounded(operation: Callable, expired: type[Exception]) -> Callable:
    """A stream's ``read``/``write`` whose timeout never reaches past the current request's deadline."""

    def bounded(data, timeout: float | None = None):
        end = getattr(_DEADLINE, "end", None)
        if end is not None:
            left = end - time.monotonic()
            if left <= 0:
                raise expired("the request's total deadline passed")
            timeout = left if timeout is None else min(timeout, left)
        return operation(data, timeout)

    return bounded


def _trace(event: str, info: Mapping[str, Any]) -> None:
    """httpx ``trace`` extension: wrap each new connection's network stream (TCP, then TLS)."""
    stream = info.get("return_value") if event.endswith(("connect_tcp.complete", "start_tls.complete")) else None
    if stream is not None and not getattr(stream, "_prescient_bounded", False):
        stream.read = _bounded(stream.read, httpcore.ReadTimeout)
        stream.write = _bounded(stream.write, httpcore.WriteTimeout)
        stream._prescient_bounded = True


def open_client(options: Mapping[str, Any]) -> httpx.Client:
    """A client with a timeout, a descriptive User-Agent and a pool sized for ``concurrency``."""
    pool = max(10, int(options.get("concurrency", 4)))
    return httpx.Client(
        timeout=float(options.get("timeout", DEFAULT_TIMEOUT)),
        headers={"User-Agent": str(options.get("user_agent", USER_AGENT))},
        limits=httpx.Limits(max_connections=pool, max_keepalive_connections=pool),
        follow_redirects=True,
    )


@contextmanager
def client_for(client: httpx.Client | None, options: Mapping[str, Any]) -> Iterator[httpx.Client]:
    """Use the injected client, or open (and then close) one configured from ``options``."""
    if client is not None:
        yield client
        return
    owned = open_client(options)
    try:
        yield owned
    finally:
        owned.close()


def retry_after_seconds(response: httpx.Response) -> float | None:
    """``Retry-After`` as seconds: a number, or an HTTP date minus the response's ``Date``."""
    value = response.headers.get("Retry-After", "").strip()
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return _http_date_delta(value, response.headers.get("Date", ""))


def _http_date_delta(value: str, date_header: str) -> float | None:
    try:
        target, now = parsedate_to_datetime(value), parsedate_to_datetime(date_header)
    except (TypeError, ValueError):
        return None
    return max(0.0, (target - now).total_seconds())


def backoff_delay(attempt: int, base: float, rng: Callable[[], float]) -> float:
    """Exponential backoff with equal jitter: base·2^attempt scaled by a factor in [0.5, 1.5)."""
    return base * (2**attempt) * (0.5 + rng())


def _decode(url: str, response: httpx.Response, raw: bytes, method: str = "GET") -> tuple[Any, bytes]:
    try:
        return json.loads(raw), raw
    except (ValueError, RecursionError) as exc:  # RecursionError: absurdly deep nesting
        raise FetchError(f"{method} {url}: malformed JSON ({exc})", status=response.status_code) from exc


def read_capped(response: httpx.Response, max_bytes: int, what: str, end: float | None = None) -> bytes:
    """The body of a streamed ``response``; ``ResponseTooLarge`` once it passes ``max_bytes``
    (declared or read), ``httpx.ReadTimeout`` once the monotonic time ``end`` has passed."""
    declared = response.headers.get("Content-Length", "")
    if declared.isascii() and declared.isdigit() and int(declared) > max_bytes:
        raise ResponseTooLarge(f"{what}: response body of {declared} bytes, over max_response_bytes = {max_bytes}", status=response.status_code)
    chunks, size = [], 0
    for chunk in response.iter_bytes():
        size += len(chunk)
        if size > max_bytes:
            raise ResponseTooLarge(f"{what}: response body over max_response_bytes = {max_bytes}; reading stopped", status=response.status_code)
        if end is not None and time.monotonic() > end:
            raise httpx.ReadTimeout("the request's total deadline passed")
        chunks.append(chunk)
    return b"".join(chunks)


def _attempt(
    client, url, params, headers, body=None, budget: Budget | None = None, limits: RequestLimits = RequestLimits(), method: str | None = None
) -> tuple[httpx.Response | None, bytes, str, float | None]:
    """One request (a GET, or a JSON POST, or ``method``, when ``body`` is given), ended by its total
    deadline: (final response, its body, retry reason, Retry-After)."""
    seconds = limits.seconds if budget is None else min(limits.seconds, budget.remaining())
    method = method or ("GET" if body is None else "POST")
    request = client.build_request(
        method, url, params=params, headers=headers, json=body, timeout=cut_timeout(client.timeout, seconds), extensions={"trace": _trace}
    )
    end = time.monotonic() + seconds
    try:
        with _deadline(end):
            response = client.send(request, stream=True)
            try:
                if response.status_code == 429 or response.status_code >= 500:
                    return None, b"", f"HTTP {response.status_code}", retry_after_seconds(response)
                if response.status_code >= 400:  # not retried, its body never read
                    return response, b"", "", None
                return response, read_capped(response, limits.max_bytes, f"{method} {url}", end), "", None
            finally:
                response.close()
    except httpx.TransportError as exc:  # connect errors, timeouts, broken reads, the deadline
        if isinstance(exc, httpx.TimeoutException) and time.monotonic() >= end:
            return None, b"", f"no complete answer within {seconds:.3g} s (request_seconds)", None
        return None, b"", f"{type(exc).__name__}: {exc}", None


class RetryOptions(TypedDict, total=False):
    """How ``get_json`` and ``post_json`` retry (each defaults as ``_retrying`` says): ``retries``
    after the first attempt, ``backoff`` (seconds, doubled each retry, with jitter from ``rng``), a
    ``max_wait`` per wait, the ``sleep`` that waits, and ``throttle`` (a rate limiter's wait) before
    every attempt."""

    retries: int
    backoff: float
    max_wait: float
    sleep: Callable[[float], None]
    rng: Callable[[], float]
    throttle: Callable[[], None] | None


def get_json(
    client: httpx.Client,
    url: str,
    *,
    params: Mapping[str, Any] | None = None,
    headers: Mapping[str, str] | None = None,
    budget: Budget | None = None,
    limits: RequestLimits = RequestLimits(),
    **retry: Unpack[RetryOptions],
) -> tuple[Any, bytes]:
    """GET ``url`` and parse JSON, retrying transient failures (``RetryOptions``) within ``budget``."""
    return _retrying(client, url, params, headers, None, budget=budget, limits=limits, **retry)


def post_json(
    client: httpx.Client,
    url: str,
    body: Any,
    *,
    headers: Mapping[str, str] | None = None,
    limits: RequestLimits = RequestLimits(),
    method: str = "POST",
    **retry: Unpack[RetryOptions],
) -> tuple[Any, bytes]:
    """POST ``body`` as JSON to ``url`` (or PATCH it: ``method``) and parse the JSON answer, with
    ``get_json``'s retries."""
    return _retrying(client, url, None, headers, body, limits=limits, method=method, **retry)


def get_bytes(
    client: httpx.Client,
    url: str,
    *,
    params: Mapping[str, Any] | None = None,
    headers: Mapping[str, str] | None = None,
    budget: Budget | None = None,
    limits: RequestLimits = RequestLimits(),
    **retry: Unpack[RetryOptions],
) -> tuple[str, bytes]:
    """GET ``url`` and return (its Content-Type, its body) unparsed (a news feed, an article's page),
    with ``get_json``'s retries, total deadline and size cap."""
    return _retrying(client, url, params, headers, None, budget=budget, limits=limits, parse=_content, **retry)


def _content(url: str, response: httpx.Response, raw: bytes, method: str = "GET") -> tuple[str, bytes]:
    return response.headers.get("Content-Type", ""), raw


def _retrying(
    client,
    url,
    params,
    headers,
    body,
    *,
    retries: int = 3,
    backoff: float = 0.5,
    max_wait: float = 60.0,
    sleep: Callable[[float], None] = time.sleep,
    rng: Callable[[], float] = random.random,
    throttle: Callable[[], None] | None = None,
    budget: Budget | None = None,
    limits: RequestLimits = RequestLimits(),
    parse=None,
    method: str | None = None,
) -> tuple[Any, bytes]:
    method, reason = (method or ("GET" if body is None else "POST")), ""
    for attempt in range(retries + 1):
        if throttle is not None:
            throttle()
        if budget is not None:
            budget.check(f"{method} {url}")
        response, raw, reason, retry_after = _attempt(client, url, params, headers, body, budget, limits, method)
        if response is not None:
            return _check(url, response, raw, method, parse or _decode)
        if attempt < retries:
            wait = retry_after if retry_after is not None else backoff_delay(attempt, backoff, rng)
            sleep(min(wait, max_wait, budget.remaining()) if budget is not None else min(wait, max_wait))
    if budget is not None:
        budget.check(f"{method} {url}")  # a last attempt cut short by the budget says so
    raise FetchError(f"{method} {url}: gave up after {retries + 1} attempts ({reason})", transient=True)


def _check(url: str, response: httpx.Response, raw: bytes, method: str = "GET", parse=_decode) -> tuple[Any, Any]:
    if response.status_code >= 400:
        status = response.status_code
        raise FetchError(f"{method} {url}: HTTP {status} {response.reason_phrase}".rstrip(), status=status)
    return parse(url, response, raw, method)


class RateLimiter:
    """Spaces request starts at least ``1/rate`` seconds apart across threads (None: no limit)."""

    def __init__(self, rate: float | None, clock=time.monotonic, sleep=time.sleep):
        self.interval = 1.0 / rate if rate else 0.0
        self._clock, self._sleep = clock, sleep
        self._next = 0.0
        self._lock = threading.Lock()

    def wait(self) -> None:
        if not self.interval:
            return
        with self._lock:
            now = self._clock()
            slot = max(now, self._next)
            self._next = slot + self.interval
        if slot > now:
            self._sleep(slot - now)


def fetch_many(fetch_one: Callable[[T], R], keys: Sequence[T], *, concurrency: int = 4) -> list[R | SourceError]:
    """``fetch_one`` over ``keys`` on up to ``concurrency`` threads, in order; errors are returned."""

    def task(key: T) -> R | SourceError:
        try:
            return fetch_one(key)
        except SourceError as exc:
            return exc

    workers = max(1, min(int(concurrency), len(keys)))
    if workers == 1:
        return [task(key) for key in keys]
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="prescient-fetch") as pool:
        return list(pool.map(task, keys))


@dataclass
class Http:
    """A client plus one source's retry, concurrency and rate-limit settings."""

    client: httpx.Client
    headers: Mapping[str, str] = field(default_factory=dict)
    retries: int = 3
    backoff: float = 0.5
    max_wait: float = 60.0
    concurrency: int = 4
    sleep: Callable[[float], None] = time.sleep
    rng: Callable[[], float] = random.random
    limiter: RateLimiter = field(default_factory=lambda: RateLimiter(None))
    progress: Callable[[int], None] | None = None
    budget: Budget | None = None
    limits: RequestLimits = RequestLimits()

    def get(self, url: str, params: Mapping[str, Any] | None = None) -> tuple[Any, bytes]:
        try:
            return get_json(
                self.client, url, params=params, headers=self.headers, retries=self.retries,
                backoff=self.backoff, max_wait=self.max_wait, sleep=self.sleep, rng=self.rng,
                throttle=self.limiter.wait, budget=self.budget, limits=self.limits,
            )  # fmt: skip
        finally:
            if self.progress is not None:
                self.progress(1)

    def many(self, fetch_one: Callable[[T], R], keys: Sequence[T]) -> list[R | SourceError]:
        return fetch_many(fetch_one, keys, concurrency=self.concurrency)


def http_for(
    client: httpx.Client,
    options: Mapping[str, Any],
    *,
    sleep: Callable[[float], None] = time.sleep,
    headers: Mapping[str, str] | None = None,
    defaults: Mapping[str, Any] | None = None,
    progress: Callable[[int], None] | None = None,
    budget: Budget | None = None,
) -> Http:
    """Build an ``Http`` from a source's options, falling back to that source's ``defaults``."""
    opts = {**(defaults or {}), **options}
    rate = opts.get("rate_per_second")
    return Http(
        client=client, headers=dict(headers or {}), retries=int(opts.get("retries", 3)),
        backoff=float(opts.get("backoff", 0.5)), max_wait=float(opts.get("max_wait", 60.0)),
        concurrency=int(opts.get("concurrency", 4)), sleep=sleep,
        limiter=RateLimiter(float(rate) if rate else None, sleep=sleep), progress=progress, budget=budget,
        limits=RequestLimits.from_options(opts),
    )  # fmt: skip
