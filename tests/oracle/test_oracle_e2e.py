"""Daily Oracle, living, end to end: the real ``prescient`` executable runs ``oracle fetch-news``,
``generate`` and ``answer`` as a user would, against a local feed server and a local
OpenAI-compatible server (both http.server on 127.0.0.1, never the network).

The feed server serves tests/data/oracle_news/: an RSS feed with relative links and an article
of 20 MB, an Atom feed with a syndicated copy of an article and one listed by both feeds, and a
feed of garbage. The LLM server answers each step from recorded responses
(tests/data/llm/oracle-recorded.json): one question scores 12 and one 13, one article's questions
step answers malformed JSON once, and the answerer refuses one question.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest
from _llm_server import FakeLLM, LocalServer, Recorded, prompt_of

from generator.schemas import NEWS, ORACLE_ARTICLES, ORACLE_FORECASTS, ORACLE_GENERATED, ORACLE_QUESTIONS
from generator.sources.addresses import ALLOW_ENV
from generator.store.csvio import read_table
from generator.submissions import validate_files
from generator.timeutil import days, format_ts, parse_ts

from helpers import DATA, PRESCIENT, write_hub

pytestmark = pytest.mark.e2e

NEWS_DATA = DATA / "oracle_news"
RECORDED = DATA / "llm" / "oracle-recorded.json"
HUGE = 20 * 2**20
NIGHT = "2026-11-26T01:00:00Z"
SET = "daily-news"


class Feeds(LocalServer):
    """The feed server: the fixture files by path, the 20 MB article made on request, every request's User-Agent."""

    def __init__(self):
        self.agents: list[str] = []

    def handle(self, method: str, path: str, headers, body: bytes) -> tuple[int, dict, bytes]:
        self.agents.append(headers.get("User-Agent", ""))
        if path == "/a/huge.html":
            return 200, {"Content-Type": "text/html; charset=utf-8"}, b"<html><body><p>" + b"x" * HUGE + b"</p></body></html>"
        if path == "/syndicated/airline.html":  # the same page at another address: the same text
            path = "/a/airline.html"
        file = NEWS_DATA / (path.lstrip("/") if path.endswith(".xml") else f"pages{path}")
        if not file.is_file():
            return 404, {"Content-Type": "text/plain"}, b"not found"
        kind = "application/rss+xml" if path.endswith(".xml") else "text/html; charset=utf-8"
        return 200, {"Content-Type": kind}, file.read_bytes()


@pytest.fixture
def feeds(monkeypatch):
    """The feed server, the one loopback address the intake may read (``PRESCIENT_FETCH_ALLOW``: tests only)."""
    with Feeds() as server:
        monkeypatch.setenv(ALLOW_ENV, server.url.removeprefix("http://").split("/")[0])
        yield server


@pytest.fixture
def llm():
    with FakeLLM(Recorded(RECORDED)) as server:
        yield server


def hub_toml(feeds: Feeds, extra: str = "") -> str:
    return f"""\
[hub]
title = "Oracle test hub"
repo_url = "https://example.org/oracle-hub"

[rounds]
first_due = "2027-01-03T00:00:00Z"

[oracle]
question_set = "{SET}"
feeds = ["{feeds.url}/world.xml", "{feeds.url}/garbage.xml", "{feeds.url}/atom.xml"]
maker = "llm"
model = "fake-maker-1"
host_rate_per_second = 200
{extra}"""


def prescient(hub: Path, llm: FakeLLM, cache: Path, *args: str) -> subprocess.CompletedProcess:
    """The installed ``prescient`` executable, as a user runs it, with the endpoint in its environment."""
    env = {**os.environ, "PRESCIENT_LLM_API_KEY": "sk-test", "PRESCIENT_LLM_BASE_URL": llm.url, "PRESCIENT_CACHE_DIR": str(cache)}
    env.pop("PRESCIENT_LLM_MODEL", None)
    return subprocess.run([PRESCIENT, *args, "--hub", str(hub)], capture_output=True, text=True, env=env, timeout=300)


def table(hub: Path, path: str, schema) -> pd.DataFrame:
    return read_table(hub / path, schema)


def asked_twice(llm: FakeLLM) -> list[str]:
    return [p for p, n in Counter(llm.prompts()).items() if n > 1]


def test_fetch_generate_answer_as_a_user_would(tmp_path, feeds, llm):
    hub, cache = write_hub(tmp_path / "hub", hub_toml(feeds)), tmp_path / "cache"

    # -- news intake: a feed of garbage and a 20 MB article are reported with their codes; nothing else is lost
    fetched = prescient(hub, llm, cache, "oracle", "fetch-news", "--as-of", NIGHT)
    assert fetched.returncode == 6, fetched.stderr
    assert "[feed-unreadable]" in fetched.stderr and "garbage.xml" in fetched.stderr
    assert "[article-too-large]" in fetched.stderr and "huge.html" in fetched.stderr
    assert "Traceback" not in fetched.stderr
    news = table(hub, "data/news/2026-11.csv", NEWS)
    assert sorted(u.rsplit("/", 1)[1] for u in news["url"]) == [
        "airline.html",
        "column.html",
        "evacuation.html",
        "rates-markets.html",
        "rates.html",
        "storm.html",
        "tram.html",
    ]
    assert "same text as a known article 1" in fetched.stdout  # the syndicated copy of the airline story
    assert (news["source"] == "127.0.0.1").all() and (news["summary"].fillna("") == "").all()
    assert all("prescient-news/" in a and "Oracle test hub" in a and "example.org/oracle-hub" in a for a in feeds.agents)
    texts = list((cache).rglob("news-texts/*/*.txt"))
    assert len(texts) == 7 and not list(hub.rglob("*.txt"))  # full texts outside the repository
    again = prescient(hub, llm, cache, "oracle", "fetch-news", "--as-of", NIGHT)
    assert again.returncode == 6 and table(hub, "data/news/2026-11.csv", NEWS).equals(news)  # known articles are not read again
    pristine = tmp_path / "pristine"
    shutil.copytree(hub, pristine)

    # -- generate: the malformed answer leaves its article pending (exit 6, with its code); the rest is written
    first = prescient(hub, llm, cache, "oracle", "generate", "--as-of", NIGHT)
    assert first.returncode == 6, first.stderr
    assert "[llm-malformed-json]" in first.stderr and "rates-markets.html" in first.stderr
    assert "1 pending" in first.stdout
    generated = table(hub, f"data/oracle/{SET}/generated.csv", ORACLE_GENERATED).set_index("question_id")
    tram = generated[generated["url"].str.endswith("tram.html")]
    assert tram.loc[tram.index.str.endswith(".tf1"), ["total", "kept"]].values.tolist() == [[13, 1]]  # 13: kept
    assert tram.loc[tram.index.str.endswith(".tf2"), ["total", "kept"]].values.tolist() == [[12, 0]]  # 12: dropped
    questions = table(hub, f"data/oracle/{SET}/questions.csv", ORACLE_QUESTIONS)
    assert set(questions["id"]) == set(generated.index[generated["kept"] == 1])
    assert not questions["id"].str.endswith(tuple(tram.index[tram["kept"] == 0])).any()
    assert (questions["resolution_date"].astype(str) == questions["id"].str[:10]).all()  # resolution date = publication date
    selected = table(hub, f"data/oracle/{SET}/articles.csv", ORACLE_ARTICLES)
    assert set(selected["day"].astype(str)) == {"2026-11-24", "2026-11-25"} and len(selected) == 6
    calls_before = len(llm.requests)

    # -- resumed: only the pending step is asked again; a third run asks nothing
    second = prescient(hub, llm, cache, "oracle", "generate", "--as-of", NIGHT)
    assert second.returncode == 0, second.stderr
    assert len(llm.requests) == calls_before + 3  # questions (again), choices and filter of the pending article
    assert [p for p in asked_twice(llm)] == [p for p in llm.prompts() if "Veloria's stocks slide" in p and "Write four" in p][:1]
    third = prescient(hub, llm, cache, "oracle", "generate", "--as-of", NIGHT)
    assert third.returncode == 0 and len(llm.requests) == calls_before + 3 and "0 call(s)" in third.stdout
    news = table(hub, "data/news/2026-11.csv", NEWS)
    summaries = news[news["summarized_by"] == "fake-maker-1"]
    assert len(summaries) == 6 and summaries.loc[summaries["url"].str.endswith("column.html"), "new_event"].tolist() == [0]
    logs = [json.loads(line) for f in sorted((hub / f"data/oracle/{SET}/calls").glob("*.jsonl")) for line in f.read_text().splitlines()]
    assert len(logs) == len(llm.requests) and {r["status"] for r in logs} == {"ok", "malformed"}
    assert all(r["tokens_in"] == 100 and r["tokens_out"] == 10 and len(r["template_sha256"]) == 64 for r in logs)

    # -- the selection is reproducible: the same ledger selects the same articles in another copy
    with FakeLLM(Recorded(RECORDED)) as other:
        assert prescient(pristine, other, tmp_path / "cache2", "oracle", "generate", "--as-of", NIGHT).returncode == 6
    assert (pristine / f"data/oracle/{SET}/articles.csv").read_bytes() == (hub / f"data/oracle/{SET}/articles.csv").read_bytes()

    # -- the hub's own answers: closed-book, then open-book over the news ledger before the cutoff
    closed = prescient(
        hub, llm, cache, "oracle", "answer", "--model", "fake-answerer-1", "--as-of", "2026-11-26T02:00:00Z", "--knowledge-cutoff", "2026-06-30"
    )
    assert closed.returncode == 0, closed.stderr
    mid = "prescient.fake-answerer-1-closed-book"
    questions = table(hub, f"data/oracle/{SET}/questions.csv", ORACLE_QUESTIONS)
    answers = table(hub, f"data/oracle/{SET}/forecasts/{mid}.csv", ORACLE_FORECASTS).set_index("question_id")
    refused = answers[answers[["prob_a", "prob_b"]].isna().all(axis=1)]
    assert len(answers) == len(questions) and len(refused) == 1 and refused["reasoning"].tolist() == ["refused"]
    assert validate_files(hub, [hub / f"data/oracle/{SET}/forecasts/{mid}.csv"], parse_ts("2026-11-26T02:00:00Z"), hub_own=True).ok
    asked = len(llm.requests)
    open_book = prescient(
        hub,
        llm,
        cache,
        "oracle",
        "answer",
        "--model",
        "fake-answerer-1",
        "--setting",
        "open-book",
        "--cutoff",
        "2026-11-25",
        "--as-of",
        "2026-11-26T02:00:00Z",
    )
    assert open_book.returncode == 0, open_book.stderr
    retrieved = 0
    for body in llm.requests[asked:]:  # every article shown was published before the question's day and the cutoff
        prompt = prompt_of(body)
        bound = prompt.split("news articles published before ", 1)[1][:10] if "published before" in prompt else ""
        dates = [line.split(", ", 1)[1][:10] for line in prompt.splitlines() if line.startswith("Article ") and "(" in line]
        assert all(d < bound <= "2026-11-25" for d in dates) and bool(bound) == bool(dates), prompt[:400]
        retrieved += len(dates)
    assert retrieved > 0
    resumed = prescient(hub, llm, cache, "oracle", "answer", "--model", "fake-answerer-1", "--as-of", "2026-11-26T03:00:00Z")
    assert resumed.returncode == 0 and "asked 0" in resumed.stdout

    # -- the board: the hub's runs are labelled as such
    board = prescient(hub, llm, cache, "oracle", "--format", "json", "--as-of", "2026-11-26T03:00:00Z")
    rows = {r["model"]: r for r in json.loads(board.stdout)}
    assert rows[mid]["run_by"] == "hub" and rows[mid]["n"] == len(questions)
    assert rows[mid]["n_tf"] + rows[mid]["n_mc"] == rows[mid]["n"]
    assert "prescient.fake-answerer-1-open-book-2026-11-25" in rows


def test_the_daily_budget_stops_generation_cleanly_and_the_next_day_goes_on(tmp_path, feeds, llm):
    hub, cache = write_hub(tmp_path / "hub", hub_toml(feeds, "daily_budget_tokens = 300\n")), tmp_path / "cache"
    assert prescient(hub, llm, cache, "oracle", "fetch-news", "--as-of", NIGHT).returncode == 6
    spent = prescient(hub, llm, cache, "oracle", "generate", "--as-of", NIGHT)
    errors = [line for line in spent.stderr.splitlines() if line.startswith("error:")]
    assert spent.returncode == (6 if errors else 0), spent.stderr  # a spent budget is a warning, not a failure
    assert all("[llm-malformed-json]" in line for line in errors)  # unless the malformed answer came before it
    assert "[llm-budget-spent]" in spent.stderr and "the daily budget is spent" in spent.stdout
    made = len(llm.requests)
    assert 3 <= made < 22  # each call 110 tokens: the one that passes 300 is the last one started (4 may be in flight)
    same_day = prescient(hub, llm, cache, "oracle", "generate", "--as-of", "2026-11-26T05:00:00Z")
    assert same_day.returncode == 0 and len(llm.requests) == made
    for n in range(1, 14):  # each day's budget goes on where the last one stopped, past the window's days
        prescient(hub, llm, cache, "oracle", "generate", "--as-of", format_ts(parse_ts(NIGHT) + days(n)))
        news = pd.concat([table(hub, f"data/news/{p.name}", NEWS) for p in sorted((hub / "data/news").glob("*.csv"))])
        if (news["summarized_by"] == "fake-maker-1").sum() == 6:
            break
    assert (news["summarized_by"] == "fake-maker-1").sum() == 6  # the articles of days past the window too
    assert asked_twice(llm) == [p for p in llm.prompts() if "Veloria's stocks slide" in p and "Write four" in p][:1]
