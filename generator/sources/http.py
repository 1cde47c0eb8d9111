"""The one place httpx is configured: client, retrying JSON GET, and bounded concurrent fetching.

``get_json`` retries connect errors, timeouts, 429 and 5xx with exponential backoff and jitter,
honours ``Retry-After`` (seconds, or an HTTP date measured against the response's own ``Date``
header, so no wall clock is read), and returns ``(parsed_json, raw_bytes)``. When it gives up it
raises ``FetchError`` (a ``SourceError``) whose message names the URL without its query string,
so API keys passed as params never reach a log.

``Http`` bundles a client with one source's retry, concurrency and rate settings, read from that
source's ``[sources.<name>]`` table: ``timeout``, ``user_agent``, ``retries``, ``backoff``,
``max_wait``, ``concurrency`` and ``rate_per_second``.
"""

from __future__ import annotations

import json
import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any, Callable, Iterator, Mapping, Sequence, TypeVar

import httpx

from ..errors import SourceError

USER_AGENT = "prescient/0.1 (+https://github.com/prescient-forecasting/prescient; forecasting benchmark)"
DEFAULT_TIMEOUT = 30.0
T = TypeVar("T")
R = TypeVar("R")


class FetchError(SourceError):
    """A request that failed for good. ``transient`` marks outages (timeouts, 429, 5xx)."""

    def __init__(self, message: str, *, status: int | None = None, transient: bool = False):
        super().__init__(message)
        self.status = status
        self.transient = transient


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


def _decode(url: str, response: httpx.Response) -> tuple[Any, bytes]:
    raw = response.content
    try:
        return json.loads(raw), raw
    except ValueError as exc:
        raise FetchError(f"GET {url}: malformed JSON ({exc})", status=response.status_code) from exc


def _attempt(client, url, params, headers) -> tuple[httpx.Response | None, str, float | None]:
    """One request: (response if final, reason if retryable, Retry-After if given)."""
    try:
        response = client.get(url, params=params, headers=headers)
    except httpx.TransportError as exc:  # connect errors, timeouts, broken reads
        return None, f"{type(exc).__name__}: {exc}", None
    if response.status_code == 429 or response.status_code >= 500:
        return None, f"HTTP {response.status_code}", retry_after_seconds(response)
    return response, "", None


def get_json(
    client: httpx.Client,
    url: str,
    *,
    params: Mapping[str, Any] | None = None,
    headers: Mapping[str, str] | None = None,
    retries: int = 3,
    backoff: float = 0.5,
    max_wait: float = 60.0,
    sleep: Callable[[float], None] = time.sleep,
    rng: Callable[[], float] = random.random,
    throttle: Callable[[], None] | None = None,
) -> tuple[Any, bytes]:
    """GET ``url`` and parse JSON, retrying transient failures ``retries`` times."""
    reason = ""
    for attempt in range(retries + 1):
        if throttle is not None:
            throttle()
        response, reason, retry_after = _attempt(client, url, params, headers)
        if response is not None:
            return _check(url, response)
        if attempt < retries:
            wait = retry_after if retry_after is not None else backoff_delay(attempt, backoff, rng)
            sleep(min(wait, max_wait))
    raise FetchError(f"GET {url}: gave up after {retries + 1} attempts ({reason})", transient=True)


def _check(url: str, response: httpx.Response) -> tuple[Any, bytes]:
    if response.status_code >= 400:
        status = response.status_code
        raise FetchError(f"GET {url}: HTTP {status} {response.reason_phrase}".rstrip(), status=status)
    return _decode(url, response)


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


def fetch_many(
    fetch_one: Callable[[T], R], keys: Sequence[T], *, concurrency: int = 4
) -> list[R | SourceError]:
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

    def get(self, url: str, params: Mapping[str, Any] | None = None) -> tuple[Any, bytes]:
        try:
            return get_json(
                self.client, url, params=params, headers=self.headers, retries=self.retries,
                backoff=self.backoff, max_wait=self.max_wait, sleep=self.sleep, rng=self.rng,
                throttle=self.limiter.wait,
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
) -> Http:
    """Build an ``Http`` from a source's options, falling back to that source's ``defaults``."""
    opts = {**(defaults or {}), **options}
    rate = opts.get("rate_per_second")
    return Http(
        client=client, headers=dict(headers or {}), retries=int(opts.get("retries", 3)),
        backoff=float(opts.get("backoff", 0.5)), max_wait=float(opts.get("max_wait", 60.0)),
        concurrency=int(opts.get("concurrency", 4)), sleep=sleep,
        limiter=RateLimiter(float(rate) if rate else None, sleep=sleep), progress=progress,
    )  # fmt: skip
