"""Benchmark: a full ManifoldSource.fetch of 2,000 tracked markets against a local fake API.

A ThreadingHTTPServer on 127.0.0.1 imitates the Manifold v0 API (``/search-markets`` and
``/market/{id}``) with ~50 ms latency per request and a 429 (``Retry-After`` 0 or 1) on every
``THROTTLE_EVERY``-th request. 500 markets are open and qualify (found by discovery); 1,500 have
resolved since the last run, so they drop out of open discovery and must be re-read one by one.
All 2,000 are tracked. The real ``ManifoldSource.fetch`` runs through a real ``open_client``.

Usage (from the repo root): PYTHONPATH=. python benchmarks/bench_sources.py [--runs 3] [--concurrency 8] [--rate 0]
Prints one JSON line per run and a summary with the median.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import threading
import time
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

from generator.sources.base import FetchContext
from generator.sources.http import open_client
from generator.sources.manifold import ManifoldSource

N_MARKETS, N_OPEN = 2000, 500
LATENCY = 0.05
THROTTLE_EVERY = 37  # ~2.7% of requests get a 429
AS_OF = datetime(2026, 11, 22, 6, 0, tzinfo=UTC)
CLOSE_MS = int(datetime(2027, 6, 1, tzinfo=UTC).timestamp() * 1000)


def make_market(i: int) -> dict:
    resolved = i >= N_OPEN
    market = {
        "id": f"bench{i:04d}", "question": f"Benchmark question {i}?", "outcomeType": "BINARY",
        "mechanism": "cpmm-1", "createdTime": 1767225600000 + i, "closeTime": CLOSE_MS,
        "probability": round(0.01 + (i % 98) / 100, 4), "totalLiquidity": 150 + i,
        "uniqueBettorCount": 20 + i % 50, "isResolved": resolved, "token": "MANA",
        "slug": f"benchmark-question-{i}", "creatorUsername": "bench", "groupSlugs": ["bench"],
    }  # fmt: skip
    if resolved:
        market.update(resolution="YES" if i % 2 else "NO", resolutionTime=1795000000000)
    return market


MARKETS = [make_market(i) for i in range(N_MARKETS)]
BY_ID = {m["id"]: json.dumps(m).encode() for m in MARKETS}
OPEN = [m for m in MARKETS if not m["isResolved"]]


class Api(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    wbufsize = -1  # one buffered write per response (flushed by the stdlib after do_GET) ...
    disable_nagle_algorithm = True  # ... and no Nagle/delayed-ACK stalls on keep-alive
    counter = 0
    lock = threading.Lock()

    def log_message(self, *args) -> None:  # keep the benchmark output clean
        return

    def do_GET(self) -> None:  # noqa: N802 (stdlib name)
        time.sleep(LATENCY)
        with Api.lock:
            Api.counter += 1
            n = Api.counter
        if n % THROTTLE_EVERY == 0:
            return self._send(429, b'{"message":"rate limited"}', {"Retry-After": str(n % 2)})
        url = urlparse(self.path)
        if url.path == "/v0/search-markets":
            return self._send(200, self._search(parse_qs(url.query)))
        body = BY_ID.get(url.path.removeprefix("/v0/market/"))
        self._send(200, body) if body else self._send(404, b'{"message":"not found"}')

    def _search(self, query: dict) -> bytes:
        limit, offset = int(query["limit"][0]), int(query["offset"][0])
        return json.dumps(OPEN[offset : offset + limit]).encode()

    def _send(self, status: int, body: bytes, headers: dict | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)


def run_once(base_url: str, concurrency: int, rate: float) -> dict:
    options = {"base_url": base_url, "concurrency": concurrency, "rate_per_second": rate}
    tracked = frozenset(f"manifold:{m['id']}" for m in MARKETS)
    Api.counter = 0
    start = time.perf_counter()
    with open_client(options) as client:
        result = ManifoldSource(options).fetch(FetchContext(AS_OF, {}, tracked, client))
    seconds = time.perf_counter() - start
    observed = {o.question_id for o in result.observations}
    return {
        "seconds": round(seconds, 2), "requests": Api.counter, "throttled": Api.counter // THROTTLE_EVERY,
        "observations": len(result.observations), "lost": len(tracked - observed),
        "failures": len(result.failures), "questions": len(result.questions),
    }  # fmt: skip


def machine() -> str:
    model = "unknown CPU"
    with open("/proc/cpuinfo", encoding="utf-8") as info:
        model = next((line.split(":", 1)[1].strip() for line in info if line.startswith("model name")), model)
    return f"{os.cpu_count()} CPUs (nproc), {model}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--rate", type=float, default=0.0, help="rate_per_second; 0 = unlimited")
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Api)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base_url = f"http://127.0.0.1:{server.server_address[1]}/v0"
    try:
        runs = [run_once(base_url, args.concurrency, args.rate) for _ in range(max(1, args.runs))]
    finally:
        server.shutdown()
        server.server_close()
    for run in runs:
        print(json.dumps(run))
    median = statistics.median(r["seconds"] for r in runs)
    summary = {"median_seconds": median, "max_lost": max(r["lost"] for r in runs), "machine": machine()}
    print(json.dumps({**summary, "concurrency": args.concurrency, "rate_per_second": args.rate}))


if __name__ == "__main__":
    main()
