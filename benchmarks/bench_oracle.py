"""The oracle stage's costs: the time of the daily selection and of the filter on 10,000
articles, and what a generated question costs in calls and tokens on a recorded run.

1. **Selection**: 10,000 synthetic articles (300 topics of 12 words each; an article is 80 words,
   60% from its topic, the rest from a background vocabulary of 6,000 words), spread over
   ``--days`` news days, then all in one day (the worst case: DBSCAN compares every pair), each
   day selected as ``generate`` selects it (TF-IDF, DBSCAN on cosine distance, coherence, draws).
2. **Filter**: the filter step's answers for 10,000 articles (40,000 questions) parsed and judged
   against the threshold, as ``generate`` does with each answer.
3. **Cost per question**: ``oracle fetch-news`` and ``generate`` on the test fixtures
   (tests/data/oracle_news) against the recorded responses of tests/data/llm/oracle-recorded.json,
   served in-process; the token counts are *estimates*, a prompt's or an answer's characters / 4,
   since the recorded responses carry no real usage.

Usage: python -m benchmarks.bench_oracle [--articles 10000] [--days 30] [--runs 3]
Prints one line per measurement; record them in benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import tempfile
import time
from pathlib import Path

import httpx
import numpy as np

from benchmarks.bench_demo import cpu_model
from generator.llm import Endpoint
from generator.oracle.candidates import parse_scores
from generator.oracle.generate import generate
from generator.oracle.news import fetch_news
from generator.oracle.selection import select_day
from generator.schemas import FILTER_PRINCIPLES
from generator.store.calllog import read_records
from generator.store.hub import Hub
from generator.store.newstexts import NewsTexts
from generator.timeutil import parse_ts
from tests._llm_server import Recorded, completion, prompt_of

ROOT = Path(__file__).resolve().parents[1]
NEWS = ROOT / "tests" / "data" / "oracle_news"
RECORDED = ROOT / "tests" / "data" / "llm" / "oracle-recorded.json"


def corpus(n: int, seed: int = 0) -> tuple[list[str], list[str]]:
    rng = np.random.default_rng(seed)
    vocab = np.array([f"w{i:05d}" for i in range(6000)])
    topics = rng.choice(len(vocab), size=(300, 12), replace=False)
    texts = []
    for topic in rng.integers(300, size=n):
        words = np.concatenate([vocab[rng.choice(topics[topic], 48)], vocab[rng.integers(len(vocab), size=32)]])
        texts.append(" ".join(rng.permutation(words)))
    return [f"https://bench.example.org/{i:05d}" for i in range(n)], texts


def time_selection(urls: list[str], texts: list[str], days: int) -> tuple[float, float, int]:
    """Seconds to select every day of ``days`` and one day of everything; the picks of the big day."""
    start = time.perf_counter()
    for d in range(days):
        day = f"2026-10-{d + 1:02d}" if d < 31 else f"2026-12-{d - 30:02d}"
        select_day(day, urls[d::days], texts[d::days])
    spread = time.perf_counter() - start
    start = time.perf_counter()
    picks = select_day("2026-11-25", urls, texts)
    return spread, time.perf_counter() - start, len(picks)


def time_filter(n: int) -> tuple[float, int]:
    rng = np.random.default_rng(1)
    answers = [
        json.dumps({"scores": [{p: int(v) for p, v in zip(FILTER_PRINCIPLES, rng.choice([1, 2, 2, 2], 7), strict=True)} for _ in range(4)]})
        for _ in range(n)
    ]
    start = time.perf_counter()
    kept_n = 0
    for answer in answers:
        for scores in parse_scores(answer):
            kept_n += sum(scores.values()) >= 13
    return time.perf_counter() - start, kept_n


def fixture_feed(request: httpx.Request) -> httpx.Response:
    path = request.url.path
    file = NEWS / (path.lstrip("/") if path.endswith(".xml") else f"pages{path}")
    if path == "/syndicated/airline.html":
        file = NEWS / "pages/a/airline.html"
    if not file.is_file():
        return httpx.Response(404)
    return httpx.Response(200, headers={"Content-Type": "application/rss+xml" if path.endswith(".xml") else "text/html"}, content=file.read_bytes())


class Estimated:
    """The recorded responses, with token counts estimated as characters / 4."""

    def __init__(self):
        self.recorded = Recorded(RECORDED)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        status, headers, data = self.recorded(body)
        if status != 200:
            return httpx.Response(status, headers=headers, content=data)
        content = json.loads(data)["choices"][0]["message"]["content"]
        return httpx.Response(200, headers=headers, content=completion(content, math.ceil(len(prompt_of(body)) / 4), math.ceil(len(content) / 4)))


def recorded_run(folder: Path) -> dict:
    hub_dir = folder / "hub"
    (hub_dir / "data").mkdir(parents=True)
    (hub_dir / "data/hub.toml").write_text(
        '[rounds]\nfirst_due = "2027-01-03T00:00:00Z"\n[oracle]\n'
        'feeds = ["https://feeds.example.org/world.xml", "https://feeds.example.org/atom.xml"]\n'
        'model = "recorded"\nhost_rate_per_second = 1000\n'
    )
    hub, texts, night = Hub.load(hub_dir), NewsTexts(folder / "texts"), parse_ts("2026-11-26T01:00:00Z")
    fetch_news(hub, night, texts, client=httpx.Client(transport=httpx.MockTransport(fixture_feed)))
    llm = httpx.Client(transport=httpx.MockTransport(Estimated()))
    endpoint = Endpoint("sk-bench", "https://llm.example.org/v1")
    reports = [generate(hub, night, texts, endpoint=endpoint, client=llm, sleep=lambda s: None) for _ in range(2)]
    records = read_records(sorted((hub_dir / "data/oracle/daily-news/calls").glob("*.jsonl")), "key")
    return {
        "articles": sum(r.made for r in reports),
        "no_event": sum(r.no_event for r in reports),
        "kept": sum(r.kept for r in reports),
        "dropped": sum(r.dropped for r in reports),
        "calls": len(records),
        "tokens_in": sum(r["tokens_in"] or 0 for r in records),
        "tokens_out": sum(r["tokens_out"] or 0 for r in records),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--articles", type=int, default=10000)
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    urls, texts = corpus(args.articles)
    runs = [time_selection(urls, texts, args.days) for _ in range(args.runs)]
    print(
        f"selection, {args.articles} articles over {args.days} days: median {statistics.median(r[0] for r in runs):.2f} s "
        f"({statistics.median(r[0] for r in runs) / args.days * 1000:.0f} ms a day of ~{args.articles // args.days})"
    )
    print(f"selection, {args.articles} articles in one day: median {statistics.median(r[1] for r in runs):.2f} s, {runs[0][2]} picked")
    filters = [time_filter(args.articles) for _ in range(args.runs)]
    print(
        f"filter, {args.articles} articles ({4 * args.articles} questions) parsed and judged: "
        f"median {statistics.median(f[0] for f in filters):.2f} s, {filters[0][1]} kept"
    )
    with tempfile.TemporaryDirectory() as tmp:
        run = recorded_run(Path(tmp))
    made = run["articles"] - run["no_event"]
    print(
        f"recorded run: {run['articles']} articles ({run['no_event']} with no new event), {run['calls']} calls "
        f"(one answer malformed and asked again), {run['kept']} questions kept, {run['dropped']} dropped"
    )
    print(
        f"per kept question: {run['calls'] / run['kept']:.2f} calls, ~{run['tokens_in'] / run['kept']:.0f} tokens in, "
        f"~{run['tokens_out'] / run['kept']:.0f} out (estimates: characters / 4); per article with an event: "
        f"{(run['calls'] - 1 - run['no_event']) / made:.0f} calls; per article read: "
        f"~{(run['tokens_in'] + run['tokens_out']) / run['articles']:.0f} tokens"
    )
    print(f"{cpu_model()}, {os.cpu_count()} CPUs; load average {Path('/proc/loadavg').read_text().split()[0]}")


if __name__ == "__main__":
    main()
