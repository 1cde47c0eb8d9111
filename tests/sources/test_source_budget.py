"""A source's time budget: a server that hangs, rate-limits or answers garbage all night cannot hold
the run past ``budget_seconds``; what the source read before is kept, the other sources' rows are
written, and the run reports the source (exit 6) with "budget exhausted after N s".

The misbehaving server is a real HTTP server on 127.0.0.1, so httpx's own timeouts are exercised.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import httpx
import pandas as pd
import pytest

from generator.errors import ConfigError, PartialFailure
from generator.pipeline.nightly import nightly
from generator.sources.http import Budget, BudgetExhausted, FetchError, Http, RateLimiter
from generator.store.files import load_settings
from generator.timeutil import parse_ts

from helpers import DATA, SMALL_HUB, run_cli, write_hub

SEARCH = json.loads((DATA / "api/manifold/search_markets_binary_open_2026-08.json").read_text())
AS_OF = "2026-01-16T00:00:00Z"


class FakeClock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


# -- the budget inside sources.http ---------------------------------------------------------------


def counting_client(respond) -> tuple[httpx.Client, list[httpx.Request]]:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return respond(request)

    return httpx.Client(transport=httpx.MockTransport(handler)), seen


def test_once_the_budget_is_spent_no_request_is_made_and_the_error_says_so():
    clock = FakeClock()
    client, seen = counting_client(lambda r: httpx.Response(200, json={"ok": True}))
    budget = Budget(5, clock)
    http = Http(client=client, budget=budget, sleep=clock.sleep)
    assert http.get("https://example.test/a")[0] == {"ok": True}
    clock.now += 7
    with pytest.raises(BudgetExhausted) as caught:
        http.get("https://example.test/b")
    assert len(seen) == 1 and budget.exhausted_after == 7
    assert str(caught.value) == "GET https://example.test/b: not requested, budget exhausted after 7 s (budget 5 s)"
    assert isinstance(caught.value, FetchError) and caught.value.transient


def test_waits_for_a_rate_limit_are_cut_to_the_budget():
    clock = FakeClock()
    client, seen = counting_client(lambda r: httpx.Response(429, headers={"Retry-After": "3600"}))
    http = Http(client=client, budget=Budget(10, clock), retries=50, max_wait=60, sleep=clock.sleep, limiter=RateLimiter(None))
    with pytest.raises(BudgetExhausted, match="budget exhausted after 10 s"):
        http.get("https://example.test/limited")
    assert clock.now == 110.0  # one wait of the 10 s left, never the hour asked for
    assert len(seen) == 1


def test_without_a_budget_a_request_behaves_as_before():
    clock = FakeClock()
    client, seen = counting_client(lambda r: httpx.Response(503))
    http = Http(client=client, retries=2, backoff=1, sleep=clock.sleep, rng=lambda: 0.5)
    with pytest.raises(FetchError, match="gave up after 3 attempts") as caught:
        http.get("https://example.test/down")
    assert not isinstance(caught.value, BudgetExhausted) and len(seen) == 3 and clock.now == 103.0


def test_request_timeouts_are_cut_to_what_is_left():
    clock = FakeClock()
    budget = Budget(30, clock)
    clock.now += 28
    cut = budget.timeout(httpx.Timeout(10.0, connect=1.0))
    assert cut.connect == 1.0 and cut.read == cut.write == cut.pool == pytest.approx(2.0)
    assert budget.timeout(httpx.Timeout(None)).read == pytest.approx(2.0)


def test_the_budget_comes_from_the_source_table_then_the_http_table_then_600():
    assert Budget.from_options({}).seconds == 600
    assert Budget.from_options({"source_budget_seconds": 60}).seconds == 60
    assert Budget.from_options({"source_budget_seconds": 60, "budget_seconds": 5}).seconds == 5


def test_a_budget_that_is_not_a_positive_number_is_a_configuration_error(tmp_path: Path):
    root = write_hub(tmp_path / "hub", SMALL_HUB + '\n[http]\nsource_budget_seconds = "ten"\n' + "\n[sources.manifold]\nbudget_seconds = 0\n")
    with pytest.raises(ConfigError) as caught:
        load_settings(root)
    keys = {p.column: p.code for p in caught.value.problems}
    assert keys == {"http.source_budget_seconds": "wrong-type", "sources.manifold.budget_seconds": "bad-value"}
    assert load_settings(write_hub(tmp_path / "ok", SMALL_HUB + "\n[http]\nsource_budget_seconds = 2.5\n")).http["source_budget_seconds"] == 2.5


# -- a misbehaving server for a whole run ---------------------------------------------------------


class Misbehaving:
    """A Manifold look-alike on 127.0.0.1. ``mode``: "hang" (never answers), "429" (always asks
    to retry in an hour), "garbage" (200 with a body that is not JSON), or "slow-second-page" (the
    first discovery page is served, every later request hangs)."""

    def __init__(self, mode: str):
        self.mode, self.release, self.requests = mode, threading.Event(), 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep the test output quiet
                pass

            def do_GET(self):
                outer.requests += 1
                url = urlparse(self.path)
                first_page = url.path.endswith("/search-markets") and parse_qs(url.query).get("offset") == ["0"]
                if outer.mode == "slow-second-page" and first_page:
                    return self.reply(200, json.dumps(SEARCH[:2]).encode())
                if outer.mode in ("hang", "slow-second-page"):
                    outer.release.wait(30)
                    return None
                if outer.mode == "429":
                    return self.reply(429, b"{}", {"Retry-After": "3600"})
                return self.reply(200, b"<html>upstream error</html>")

            def reply(self, status, body, headers=None):
                try:
                    self.send_response(status)
                    for name, value in {"Content-Type": "application/json", **(headers or {})}.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:  # the client gave up first
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v0"

    def __enter__(self):
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


def hub_with(tmp_path: Path, url: str, budget: float) -> Path:
    return write_hub(
        tmp_path / "hub",
        SMALL_HUB
        + f"""
[http]
timeout = 30
source_budget_seconds = 600

[sources.manifold]
enabled = true
base_url = "{url}"
budget_seconds = {budget}
min_bettors = 5
min_liquidity = 100
page_size = 2
retries = 3
backoff = 0.2
rate_per_second = 0
""",
    )


def fetch_night(root: Path) -> tuple[PartialFailure, float]:
    started = time.monotonic()
    with pytest.raises(PartialFailure) as caught:
        nightly(root, parse_ts(AS_OF), fetch_only=True, env={})
    return caught.value, time.monotonic() - started


@pytest.mark.parametrize("mode", ["hang", "429"])
def test_a_source_that_hangs_or_rate_limits_all_night_stops_at_its_budget_and_the_others_are_written(tmp_path, mode):
    with Misbehaving(mode) as server:
        root = hub_with(tmp_path, server.url, budget=2)
        error, elapsed = fetch_night(root)
    assert elapsed < 8, f"the run took {elapsed:.1f} s with a 2 s budget"
    report = {s.name: s for s in error.run_report.sources}
    assert report["sim"].new_questions > 0 and not report["sim"].failures and report["sim"].error is None
    assert (root / "data/questions/sim.csv").is_file()
    manifold = report["manifold"]
    assert "budget exhausted after 2 s (budget 2 s)" in manifold.failures[0]
    assert [p.code for p in error.problems] == ["source-failed"] and "budget exhausted after 2 s" in error.problems[0].message
    assert not (root / "data/questions/manifold.csv").exists()


def test_a_source_that_answers_garbage_all_night_is_reported_and_the_others_are_written(tmp_path):
    with Misbehaving("garbage") as server:
        root = hub_with(tmp_path, server.url, budget=30)
        error, elapsed = fetch_night(root)
    assert elapsed < 8
    report = {s.name: s for s in error.run_report.sources}
    assert "malformed JSON" in report["manifold"].error and report["sim"].new_questions > 0
    assert not any("budget" in f for f in report["manifold"].failures)


def test_what_a_source_read_before_its_budget_ran_out_is_kept(tmp_path):
    with Misbehaving("slow-second-page") as server:
        root = hub_with(tmp_path, server.url, budget=2)
        error, elapsed = fetch_night(root)
    assert elapsed < 8
    manifold = {s.name: s for s in error.run_report.sources}["manifold"]
    assert manifold.error is None and manifold.new_questions == 2 and manifold.new_observations == 2
    assert "budget exhausted after 2 s" in manifold.failures[0]
    written = pd.read_csv(root / "data/questions/manifold.csv", keep_default_na=False)
    assert sorted(written["id"]) == sorted(f"manifold:{m['id']}" for m in SEARCH[:2])


def test_the_cli_exits_6_and_names_the_exhausted_budget(tmp_path):
    with Misbehaving("hang") as server:
        root = hub_with(tmp_path, server.url, budget=1)
        result = run_cli("fetch", "--hub", str(root), "--as-of", AS_OF)
    assert result.returncode == 6, result.stderr
    assert "manifold" in result.stderr and "budget exhausted after 1 s" in result.stderr
    assert "Traceback" not in result.stderr
    assert (root / "data/questions/sim.csv").is_file()
