"""What one response may cost: a total deadline per request and per source, and a body size cap.

httpx's timeouts are per phase and per socket read, so a server that sends one byte every fraction
of a second never trips them, and an endless body would be read until memory runs out. The servers
here are real sockets on 127.0.0.1 (a raw server, so the bytes and their timing are exactly what
we say); each stops on its own after a few seconds, so a regression fails its time assertion
instead of hanging the suite.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import httpx
import pytest

from generator.sources.http import Budget, BudgetExhausted, FetchError, RequestLimits, ResponseTooLarge, get_json, http_for, open_client

SERVER_LIFETIME = 6.0  # seconds a misbehaving server keeps going before it closes the connection
HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"


@contextmanager
def raw_server(behave: Callable[[socket.socket, threading.Event], None]) -> Iterator[tuple[str, list[int]]]:
    """A TCP server on 127.0.0.1: each connection's request is read, then ``behave(conn, stop)``
    writes whatever it likes. Yields the base URL and a one-item list counting the requests."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop, count = threading.Event(), [0]

    def serve(conn: socket.socket) -> None:
        with conn:
            try:
                conn.settimeout(SERVER_LIFETIME)
                data = b""
                while b"\r\n\r\n" not in data:
                    data += conn.recv(4096) or b"\r\n\r\n"
                count[0] += 1
                behave(conn, stop)
            except OSError:  # the client hung up: what these tests want
                pass

    def accept() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except (TimeoutError, OSError):
                continue
            threading.Thread(target=serve, args=(conn,), daemon=True).start()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}", count
    finally:
        stop.set()
        thread.join(timeout=2)
        listener.close()


def drip(data: bytes, every: float) -> Callable[[socket.socket, threading.Event], None]:
    """Send ``data`` one byte every ``every`` seconds, repeating its last byte, for SERVER_LIFETIME."""

    def behave(conn: socket.socket, stop: threading.Event) -> None:
        started, i = time.monotonic(), 0
        while not stop.is_set() and time.monotonic() - started < SERVER_LIFETIME:
            conn.sendall(data[min(i, len(data) - 1) :][:1])
            i += 1
            time.sleep(every)

    return behave


def endless(conn: socket.socket, stop: threading.Event) -> None:
    """A 200 with no length, then ``[0,0,0,...`` as fast as the client reads, for SERVER_LIFETIME."""
    conn.sendall(HEAD + b"Connection: close\r\n\r\n[")
    chunk, started = b"0," * 32768, time.monotonic()
    while not stop.is_set() and time.monotonic() - started < SERVER_LIFETIME:
        conn.sendall(chunk)


def fetch(url: str, options: dict, budget: Budget | None = None, retries: int = 0) -> float:
    """GET ``url`` through ``http_for`` as a source does; the seconds it took (it must raise)."""
    with open_client(options) as client:
        http = http_for(client, {"retries": retries, "backoff": 0.01, **options}, budget=budget)
        started = time.monotonic()
        try:
            http.get(f"{url}/v0/markets")
        finally:
            fetch.elapsed = time.monotonic() - started
    raise AssertionError("the request returned")


@pytest.mark.parametrize("where", ["headers", "body"])
def test_a_slow_drip_server_is_cut_at_the_request_deadline(where):
    """One byte every 0.1 s keeps every socket read under httpx's 30 s read timeout forever."""
    data = (b"HTTP/1.1 200 OK\r\nX-Slow: " + b"a" * 1000) if where == "headers" else (HEAD + b"Content-Length: 100000\r\n\r\n[" + b"0," * 1000)
    with raw_server(drip(data, 0.1)) as (url, _), pytest.raises(FetchError, match="request_seconds") as caught:
        fetch(url, {"timeout": 30, "request_seconds": 1.0})
    assert fetch.elapsed < 2.5, f"the request took {fetch.elapsed:.1f} s with a 1 s deadline"
    assert caught.value.transient and not isinstance(caught.value, BudgetExhausted)


def test_a_source_budget_holds_against_a_slow_drip_server_across_retries():
    budget = Budget(1.5)
    slow = drip(HEAD + b"Content-Length: 100000\r\n\r\n[" + b"0," * 1000, 0.1)
    with raw_server(slow) as (url, count), pytest.raises(BudgetExhausted, match="budget exhausted"):
        fetch(url, {"timeout": 30, "request_seconds": 100}, budget=budget, retries=5)
    assert fetch.elapsed < 3.0, f"the source took {fetch.elapsed:.1f} s with a 1.5 s budget"
    assert count[0] >= 1


def test_an_endless_body_stops_at_the_size_cap_with_a_coded_error_and_no_retry():
    with raw_server(endless) as (url, count), pytest.raises(ResponseTooLarge, match="max_response_bytes = 1048576") as caught:
        fetch(url, {"max_response_bytes": 2**20, "request_seconds": 5}, retries=3)
    assert fetch.elapsed < 3.0 and count[0] == 1, "a body over the cap is a failure for good, not retried"
    assert caught.value.code == "response-too-large" and not caught.value.transient


def test_a_declared_length_over_the_cap_is_refused_before_reading():
    def huge(conn: socket.socket, stop: threading.Event) -> None:
        conn.sendall(HEAD + b"Content-Length: 999999999999\r\n\r\n[")
        stop.wait(SERVER_LIFETIME)

    with raw_server(huge) as (url, _), pytest.raises(ResponseTooLarge, match="999999999999 bytes"):
        fetch(url, {"max_response_bytes": 1000})
    assert fetch.elapsed < 2.0


def test_a_body_under_the_cap_and_a_quick_answer_are_read_as_before():
    body = b"[" + b"0," * 400 + b"1]"

    def quick(conn: socket.socket, stop: threading.Event) -> None:
        conn.sendall(HEAD + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)

    with raw_server(quick) as (url, _), open_client({}) as client:
        http = http_for(client, {"max_response_bytes": len(body), "request_seconds": 2})
        parsed, raw = http.get(f"{url}/v0/markets")
        assert raw == body and len(parsed) == 401
        # the deadline of one request never leaks into the next on the same thread
        assert get_json(client, f"{url}/v0/markets", limits=RequestLimits(len(body), 2))[1] == body


def test_limits_come_from_the_source_options_then_the_defaults():
    assert RequestLimits.from_options({}) == RequestLimits(20 * 2**20, 120.0)
    assert RequestLimits.from_options({"max_response_bytes": 10, "request_seconds": 3}) == RequestLimits(10, 3.0)
    mock = httpx.Client(transport=httpx.MockTransport(lambda r: httpx.Response(200, content=b"[" + b"1," * 50 + b"1]")))
    with pytest.raises(ResponseTooLarge):  # the cap also holds on an injected client
        http_for(mock, {"max_response_bytes": 64}).get("https://example.test/x")
