"""generator.sources.http: client config, retries/backoff/Retry-After, rate limit, concurrency."""

from __future__ import annotations

import json

import httpx
import pytest

from generator.errors import SourceError
from generator.sources.http import (
    USER_AGENT,
    FetchError,
    RateLimiter,
    backoff_delay,
    fetch_many,
    get_json,
    http_for,
    open_client,
    retry_after_seconds,
)  # fmt: skip

from helpers import InFlight

URL = "https://api.example.test/v0/thing"


def scripted(*steps):
    """A MockTransport that plays ``steps`` in order: a Response, an exception, or a callable."""
    queue = list(steps)
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        step = queue.pop(0) if len(queue) > 1 else queue[0]
        if isinstance(step, Exception):
            raise step
        return step

    return httpx.Client(transport=httpx.MockTransport(handler)), seen


def ok(payload=None):
    return httpx.Response(200, json={"ok": True} if payload is None else payload)


class Sleeps(list):
    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def test_open_client_has_descriptive_user_agent_and_timeout():
    with open_client({}) as client:
        assert client.headers["User-Agent"] == USER_AGENT
        assert "prescient" in USER_AGENT and "forecasting benchmark" in USER_AGENT
        assert client.timeout.read == 30.0
    with open_client({"user_agent": "custom/1", "timeout": 5}) as client:
        assert client.headers["User-Agent"] == "custom/1"
        assert client.timeout.connect == 5.0


def test_get_json_returns_parsed_and_raw_bytes():
    client, _ = scripted(httpx.Response(200, content=b'{"a": [1, 2]}'))
    data, raw = get_json(client, URL, sleep=Sleeps())
    assert data == {"a": [1, 2]}
    assert raw == b'{"a": [1, 2]}'


def test_timeout_then_success_retries_with_backoff():
    client, seen = scripted(httpx.ReadTimeout("slow"), ok())
    sleeps = Sleeps()
    data, _ = get_json(client, URL, sleep=sleeps, rng=lambda: 0.5, backoff=0.25)
    assert data == {"ok": True}
    assert len(seen) == 2
    assert sleeps == [0.25]  # base·2^0·(0.5+0.5)


def test_connect_error_then_500_then_success_backs_off_exponentially():
    client, seen = scripted(httpx.ConnectError("refused"), httpx.Response(500), ok())
    sleeps = Sleeps()
    get_json(client, URL, sleep=sleeps, rng=lambda: 0.5, backoff=1.0)
    assert sleeps == [1.0, 2.0]
    assert len(seen) == 3


def test_429_honours_retry_after_seconds():
    client, _ = scripted(httpx.Response(429, headers={"Retry-After": "7"}), ok())
    sleeps = Sleeps()
    get_json(client, URL, sleep=sleeps)
    assert sleeps == [7.0]


def test_retry_after_http_date_is_measured_against_the_date_header():
    response = httpx.Response(
        503,
        headers={"Retry-After": "Sun, 22 Nov 2026 10:00:30 GMT", "Date": "Sun, 22 Nov 2026 10:00:00 GMT"},
    )
    assert retry_after_seconds(response) == 30.0
    client, _ = scripted(response, ok())
    sleeps = Sleeps()
    get_json(client, URL, sleep=sleeps)
    assert sleeps == [30.0]


def test_retry_after_is_capped_by_max_wait():
    client, _ = scripted(httpx.Response(429, headers={"Retry-After": "3600"}), ok())
    sleeps = Sleeps()
    get_json(client, URL, sleep=sleeps, max_wait=60)
    assert sleeps == [60]


def test_gives_up_with_a_clear_transient_error_and_no_query_string():
    client, seen = scripted(httpx.Response(503))
    sleeps = Sleeps()
    with pytest.raises(FetchError) as info:
        get_json(client, URL, params={"api_key": "SECRET"}, retries=2, sleep=sleeps, rng=lambda: 0.0)
    assert isinstance(info.value, SourceError)
    assert info.value.transient
    assert str(info.value) == f"GET {URL}: gave up after 3 attempts (HTTP 503)"
    assert "SECRET" not in str(info.value)
    assert len(seen) == 3 and len(sleeps) == 2


def test_client_errors_are_not_retried():
    client, seen = scripted(httpx.Response(404))
    sleeps = Sleeps()
    with pytest.raises(FetchError) as info:
        get_json(client, URL, sleep=sleeps)
    assert info.value.status == 404 and not info.value.transient
    assert "HTTP 404" in str(info.value)
    assert len(seen) == 1 and sleeps == []


def test_malformed_json_is_a_named_error():
    client, _ = scripted(httpx.Response(200, content=b'{"truncated": '))
    with pytest.raises(FetchError, match="malformed JSON"):
        get_json(client, URL, sleep=Sleeps())


def test_backoff_delay_has_jitter_bounds():
    assert backoff_delay(3, 0.5, lambda: 0.0) == 2.0
    assert backoff_delay(3, 0.5, lambda: 0.999) == pytest.approx(5.996)


def test_rate_limiter_spaces_request_starts():
    clock = [100.0]
    sleeps = Sleeps()
    limiter = RateLimiter(4.0, clock=lambda: clock[0], sleep=sleeps)
    for _ in range(3):
        limiter.wait()
    assert sleeps == [0.25, 0.5]
    assert RateLimiter(None).interval == 0.0


def test_fetch_many_keeps_order_and_returns_errors_in_place():
    def one(key: int) -> int:
        if key == 3:
            raise SourceError("three is broken")
        return key * 10

    out = fetch_many(one, [1, 2, 3, 4], concurrency=3)
    assert out[:2] == [10, 20] and out[3] == 40
    assert isinstance(out[2], SourceError) and str(out[2]) == "three is broken"


def test_concurrency_limit_bounds_in_flight_requests():
    handler = InFlight(lambda request: httpx.Response(200, json={"path": request.url.path}))
    client = httpx.Client(transport=httpx.MockTransport(handler))
    http = http_for(client, {"concurrency": 4, "rate_per_second": None})
    out = http.many(lambda i: http.get(f"https://x.test/item/{i}")[0], list(range(40)))
    assert [o["path"] for o in out] == [f"/item/{i}" for i in range(40)]
    assert 1 < handler.max <= 4


def test_http_for_reads_options_over_defaults():
    client = httpx.Client(transport=httpx.MockTransport(lambda r: ok()))
    http = http_for(client, {"retries": 1, "concurrency": 9}, defaults={"concurrency": 2, "rate_per_second": 5})
    assert http.retries == 1 and http.concurrency == 9
    assert http.limiter.interval == pytest.approx(0.2)
    assert json.loads(http.get(URL)[1]) == {"ok": True}
