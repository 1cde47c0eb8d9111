"""The oracle's news intake, piece by piece: feeds and pages parsed from bytes, the reader's per-host
rate, size cap and User-Agent (through httpx.MockTransport, no network), the news ledger's
deduplication, the [oracle] table of hub.toml, and the Sim Wire (the demo's offline feed)."""

from __future__ import annotations

import httpx
import pytest

from generator.errors import ConfigError
from generator.oracle.ledgers import current_news
from generator.oracle.news import fetch_news, user_agent
from generator.schemas import NEWS
from generator.sources.feeds import NewsError, NewsReader, extract_text, parse_feed, source_of
from generator.sources.sim import world_from_options
from generator.sources.sim_news import FEED_URL, Newsroom, parse_url
from generator.store.csvio import read_table
from generator.store.files import load_settings
from generator.store.hub import Hub
from generator.store.newstexts import NewsTexts, text_sha256
from generator.timeutil import parse_ts

from helpers import DATA, write_hub

NEWS_DATA = DATA / "oracle_news"
BASE = "https://news.example.org"


def page(name: str) -> bytes:
    return (NEWS_DATA / "pages" / "a" / name).read_bytes()


# -- parsing (pure) ---------------------------------------------------------------------------------


def test_rss_links_are_made_absolute_and_times_read_in_utc():
    items = parse_feed((NEWS_DATA / "world.xml").read_bytes(), f"{BASE}/feeds/world.xml")
    assert [i.url for i in items][:2] == [f"{BASE}/a/tram.html", f"{BASE}/a/airline.html"]
    assert items[0].title == "Harbor City council approves tram extension to the airport"
    assert items[0].published_at == parse_ts("2026-11-24T09:15:00Z")


def test_atom_is_read_too():
    items = parse_feed((NEWS_DATA / "atom.xml").read_bytes(), f"{BASE}/atom.xml")
    assert [i.url.rsplit("/", 1)[1] for i in items] == ["evacuation.html", "airline.html", "rates.html"]
    assert items[0].published_at == parse_ts("2026-11-23T08:00:00Z")


@pytest.mark.parametrize(
    "data",
    [(NEWS_DATA / "garbage.xml").read_bytes(), b"", b"<html><body>a page</body></html>", b'{"items": []}'],
)
def test_what_is_no_feed_is_refused_with_its_code(data):
    with pytest.raises(NewsError) as refused:
        parse_feed(data, f"{BASE}/x.xml")
    assert refused.value.code == "feed-unreadable" and "x.xml" in str(refused.value)


def test_a_feed_cut_short_yields_what_it_holds_and_nothing_made_up():
    items = parse_feed(b"<rss><channel><item><title>cut short", f"{BASE}/x.xml")
    assert len(items) == 1 and all(i.url.startswith(BASE) for i in items)


def test_items_that_link_nowhere_safe_are_left_out():
    feed = (
        b'<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>'
        b"<item><title>a</title><link>javascript:alert(1)</link></item>"
        b"<item><title>b</title><link>/b.html</link></item><item><title>b again</title><link>/b.html</link></item>"
        b"</channel></rss>"
    )
    assert [i.url for i in parse_feed(feed, f"{BASE}/f.xml")] == [f"{BASE}/b.html"]


def test_the_article_text_is_extracted_without_the_page_around_it():
    text = extract_text(page("tram.html"), f"{BASE}/a/tram.html")
    assert text.startswith("Harbor City council approves tram extension") and "310 million euros" in text
    assert "Home · World" not in text and "a fixture of Prescient's tests" not in text
    with pytest.raises(NewsError) as caught:
        extract_text(b"<html><body><nav>menu</nav><p>Subscribe.</p></body></html>", f"{BASE}/x")
    assert caught.value.code == "article-no-text"


def test_source_is_the_feeds_host():
    assert source_of("https://feeds.example.org/world.xml") == "feeds.example.org" and source_of("sim:news") == "sim"


# -- the reader: rate per host, size cap, User-Agent ----------------------------------------------


class Clock:
    def __init__(self):
        self.now = 0.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def test_one_host_is_asked_at_the_configured_rate_and_a_large_page_is_refused():
    clock = Clock()
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.url.path == "/huge.html":
            return httpx.Response(200, headers={"Content-Type": "text/html"}, content=b"x" * 5000)
        return httpx.Response(200, headers={"Content-Type": "text/html"}, content=page("rates.html"))

    client = httpx.Client(transport=httpx.MockTransport(handler), headers={"User-Agent": "prescient-news/test (hub)"})
    reader = NewsReader(client, rate=0.5, max_article_bytes=4000, options={"retries": 0}, sleep=clock.sleep, clock=clock)
    for _ in range(3):
        assert "4.5%" in reader.article(f"{BASE}/a/rates.html")
    assert clock.slept == [2.0, 2.0, 2.0]  # robots.txt, then the page three times, at 0.5 requests a second: two seconds apart
    assert [r.url.path for r in seen] == ["/robots.txt"] + ["/a/rates.html"] * 3  # robots.txt read once a run
    with pytest.raises(NewsError) as caught:
        reader.article(f"{BASE}/huge.html")
    assert caught.value.code == "article-too-large"
    assert {r.headers["User-Agent"] for r in seen} == {"prescient-news/test (hub)"}


def test_a_page_that_is_not_html_has_no_text():
    client = httpx.Client(
        transport=httpx.MockTransport(lambda r: httpx.Response(200, headers={"Content-Type": "application/pdf"}, content=b"%PDF-1.7 " * 100))
    )
    with pytest.raises(NewsError) as caught:
        NewsReader(client, rate=100, max_article_bytes=10**6, options={}).article(f"{BASE}/a.pdf")
    assert caught.value.code == "article-no-text"


def test_the_user_agent_names_the_hub(tmp_path):
    settings = load_settings(
        write_hub(
            tmp_path / "hub", '[hub]\ntitle = "Acme hub"\nrepo_url = "https://example.org/acme"\n[rounds]\nfirst_due = "2027-01-03T00:00:00Z"\n'
        )
    )
    agent = user_agent(settings)
    assert agent.startswith("prescient-news/") and "Acme hub" in agent and "+https://example.org/acme" in agent


# -- intake into the ledger ---------------------------------------------------------------------

FEED_HUB = f"""\
[rounds]
first_due = "2027-01-03T00:00:00Z"

[oracle]
feeds = ["{BASE}/world.xml", "{BASE}/atom.xml", "{BASE}/down.xml"]
host_rate_per_second = 1000

[http]
retries = 0
"""


def serve(request: httpx.Request) -> httpx.Response:
    path = request.url.path
    if path == "/down.xml":
        return httpx.Response(503)
    if path.endswith(".xml"):
        return httpx.Response(200, headers={"Content-Type": "application/rss+xml"}, content=(NEWS_DATA / path.lstrip("/")).read_bytes())
    name = path.rsplit("/", 1)[1]
    if path == "/a/huge.html":
        return httpx.Response(200, headers={"Content-Type": "text/html"}, content=b"<p>" + b"x" * (3 * 2**20) + b"</p>")
    file = NEWS_DATA / "pages" / "a" / name
    return httpx.Response(200, headers={"Content-Type": "text/html"}, content=file.read_bytes()) if file.is_file() else httpx.Response(404)


def test_intake_records_new_articles_once_and_reports_each_failure(tmp_path):
    root = write_hub(tmp_path / "hub", FEED_HUB)
    texts = NewsTexts(tmp_path / "texts")
    client = httpx.Client(transport=httpx.MockTransport(serve))
    report = fetch_news(Hub.load(root), parse_ts("2026-11-26T00:00:00Z"), texts, client=client, sleep=lambda s: None)
    codes = sorted(p.code for p in report.problems)
    assert codes == ["article-too-large", "feed-failed"]  # the down feed (503) and the 3 MB page (2 MiB cap)
    news = read_table(root / "data/news/2026-11.csv", NEWS)
    assert len(news) == 7 and news["url"].is_unique and news["text_sha256"].is_unique  # the syndicated copy left out
    world, atom = report.feeds[0], report.feeds[1]
    assert (world.new, atom.new, atom.known, atom.same_text) == (6, 1, 1, 1)
    for row in news.itertuples():
        assert text_sha256(texts.get(row.text_sha256)) == row.text_sha256 and row.text_chars == len(texts.get(row.text_sha256))
    again = fetch_news(Hub.load(root), parse_ts("2026-11-27T00:00:00Z"), texts, client=client, sleep=lambda s: None)
    assert again.new == 0 and not again.written and len(read_table(root / "data/news/2026-11.csv", NEWS)) == 7


def test_a_lost_or_damaged_text_is_a_miss(tmp_path):
    texts = NewsTexts(tmp_path)
    sha = texts.put("Some article text.")
    assert texts.get(sha) == "Some article text." and texts.get("../../etc/passwd") is None
    (tmp_path / sha[:2] / f"{sha}.txt").write_text("Changed.")
    assert texts.get(sha) is None and texts.get("0" * 64) is None


def test_the_current_version_of_an_article_is_its_summary_once_made():
    import pandas as pd

    rows = pd.DataFrame(
        {"url": ["u1", "u1", "u2"], "recorded_at": ["2026-11-26T00:00:00Z"] * 3, "summarized_by": ["", "m", ""], "summary": ["", "made", ""]}
    )
    assert current_news(rows).set_index("url").loc["u1", "summary"] == "made"
    assert current_news(rows, "2026-11-25T00:00:00Z").empty


# -- the [oracle] table ---------------------------------------------------------------------------


def test_the_oracle_table_is_checked_with_every_problem_named(tmp_path):
    root = write_hub(
        tmp_path / "hub",
        '[rounds]\nfirst_due = "2027-01-03T00:00:00Z"\n[oracle]\n'
        'question_set = "Bad Name"\nfeeds = ["ftp://x"]\nmaker = "gpt"\nmin_score = 15\nbogus = 1\n',
    )
    with pytest.raises(ConfigError) as caught:
        load_settings(root)
    keys = sorted(p.column for p in caught.value.problems)
    assert keys == ["oracle.bogus", "oracle.feeds", "oracle.maker", "oracle.min_score", "oracle.question_set"]
    plain = write_hub(tmp_path / "plain", '[rounds]\nfirst_due = "2027-01-03T00:00:00Z"\n')
    assert load_settings(plain).oracle is None  # no table: the stage is off
    on = write_hub(tmp_path / "on", '[rounds]\nfirst_due = "2027-01-03T00:00:00Z"\n[oracle]\nfeeds = ["sim:news"]\n')
    oracle = load_settings(on).oracle
    assert oracle is not None and (oracle.question_set, oracle.min_score, oracle.random_articles, oracle.hot_topics) == ("daily-news", 13, 3, 3)


# -- the Sim Wire --------------------------------------------------------------------------------


def test_the_sim_wire_is_offline_deterministic_and_writes_about_the_worlds_events():
    world = world_from_options({"seed": 7, "markets": 260, "span_days": 200})
    room = Newsroom(world, parse_ts("2026-06-01T00:00:00Z"))
    as_of = parse_ts("2026-06-20T00:00:00Z")
    items = parse_feed(room.client(as_of).get(FEED_URL).content, FEED_URL)
    assert items and all(i.published_at is not None and i.published_at < as_of for i in items)
    again = parse_feed(Newsroom(world, parse_ts("2026-06-01T00:00:00Z")).client(as_of).get(FEED_URL).content, FEED_URL)
    assert again == items
    text = extract_text(room.client(as_of).get(items[0].url).content, items[0].url)
    day, kind, market = parse_url(items[0].url)
    assert f"event #{market}" in text and kind in ("resolved", "opened") and "no real event" in text
    assert room.client(as_of).get(items[0].url.replace(".html", "-x.html")).status_code == 404
    assert Newsroom(world, parse_ts("2026-07-01T00:00:00Z")).published(as_of) == []  # before its start: nothing
