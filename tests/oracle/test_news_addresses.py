"""The news intake reaches public addresses only, honours robots.txt and prunes its article texts.

A feed on 127.0.0.1 whose items link to another 127.0.0.1 port, directly and through a redirect, is
served by two real HTTP servers and read by the real `prescient oracle fetch-news`: without
``PRESCIENT_FETCH_ALLOW`` nothing is fetched at all; with the feed's own port allowed, the feed and its
page on that port are read and nothing on the other port ever is (``fetch-blocked``, exit 6, the
rest recorded). The address rule itself is checked on a resolver's answers."""

from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from generator.oracle.news import fetch_news
from generator.schemas import NEWS
from generator.sources.addresses import ALLOW_ENV, AddressBlocked, checked_addresses, is_public, parse_allow
from generator.store.csvio import read_table
from generator.store.hub import Hub
from generator.store.newstexts import NewsTexts
from generator.timeutil import parse_ts

from helpers import PRESCIENT, write_hub

ARTICLE = (
    "<html><body><article><h1>{title}</h1><p>{body}</p>"
    + "".join(f"<p>Paragraph {n}: the council met for the {n}th time this year to discuss the matter at length.</p>" for n in range(1, 7))
    + "</article></body></html>"
)


@pytest.mark.parametrize(
    ("address", "public"),
    [
        ("127.0.0.1", False),
        ("10.1.2.3", False),
        ("172.16.0.1", False),
        ("192.168.1.1", False),
        ("169.254.169.254", False),  # a cloud's metadata service
        ("100.64.0.1", False),  # shared address space
        ("0.0.0.0", False),
        ("224.0.0.1", False),
        ("240.0.0.1", False),
        ("::1", False),
        ("fe80::1", False),
        ("fc00::1", False),
        ("::ffff:127.0.0.1", False),
        ("ff02::1", False),
        ("93.184.216.34", True),
        ("2606:2800:220:1:248:1893:25c8:1946", True),
    ],
)
def test_only_global_unicast_addresses_are_public(address, public):
    assert is_public(address) is public


def test_a_name_is_judged_by_every_address_it_resolves_to():
    names = {"news.example.org": ["93.184.216.34"], "sneaky.example.org": ["93.184.216.34", "10.0.0.5"]}
    resolver = lambda host, port: names[host]  # noqa: E731
    assert checked_addresses("news.example.org", 443, resolver=resolver) == ["93.184.216.34"]
    with pytest.raises(AddressBlocked, match="10.0.0.5"):
        checked_addresses("sneaky.example.org", 443, resolver=resolver)
    with pytest.raises(AddressBlocked):
        checked_addresses("127.0.0.1", 8080)
    assert checked_addresses("127.0.0.1", 8080, allow=parse_allow("127.0.0.1:8080")) == ["127.0.0.1"]
    with pytest.raises(AddressBlocked):  # the pair, not the address: another port stays closed
        checked_addresses("127.0.0.1", 8081, allow=parse_allow("127.0.0.1:8080, nonsense, localhost:1"))


class Site:
    """One HTTP server on 127.0.0.1, answering from ``pages`` (path → (status, headers, body)) and counting hits."""

    def __init__(self) -> None:
        self.pages: dict[str, tuple[int, dict[str, str], bytes]] = {}
        self.hits: list[str] = []
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                site.hits.append(self.path)
                status, headers, body = site.pages.get(self.path, (404, {}, b""))
                self.send_response(status)
                for name, value in {"Content-Length": str(len(body)), **headers}.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"

    def html(self, path: str, title: str, body: str) -> None:
        self.pages[path] = (200, {"Content-Type": "text/html; charset=utf-8"}, ARTICLE.format(title=title, body=body).encode())


@contextmanager
def sites() -> Iterator[tuple[Site, Site]]:
    """The feed's site and an internal service on another port."""
    feed, internal = Site(), Site()
    internal.html("/secret", "Internal admin", "The secret token is hunter2.")
    items = [("Direct link to the service", f"{internal.url}/secret"), ("A redirect", f"{feed.url}/moved"), ("A story", f"{feed.url}/story")]
    items.append(("A page robots.txt keeps out", f"{feed.url}/private/story"))
    rss = "".join(f"<item><title>{title}</title><link>{link}</link></item>" for title, link in items)
    feed.pages["/feed.xml"] = (
        200,
        {"Content-Type": "application/rss+xml"},
        f'<rss version="2.0"><channel><title>t</title>{rss}</channel></rss>'.encode(),
    )
    feed.pages["/moved"] = (302, {"Location": f"{internal.url}/secret"}, b"")
    feed.pages["/robots.txt"] = (200, {"Content-Type": "text/plain"}, b"User-agent: *\nDisallow: /private/\n")
    feed.html("/story", "Harbor tram approved", "The harbor tram extension was approved.")
    feed.html("/private/story", "Private", "Kept out by robots.txt.")
    threads = [threading.Thread(target=s.server.serve_forever, daemon=True) for s in (feed, internal)]
    for thread in threads:
        thread.start()
    try:
        yield feed, internal
    finally:
        for s in (feed, internal):
            s.server.shutdown()
            s.server.server_close()


def hub_reading(tmp_path: Path, feed: Site) -> Path:
    return write_hub(
        tmp_path / "hub",
        f'[rounds]\nfirst_due = "2027-01-03T00:00:00Z"\n\n[oracle]\nfeeds = ["{feed.url}/feed.xml"]\nhost_rate_per_second = 1000\n'
        "\n[http]\nretries = 0\n",
    )


def fetch(hub: Path, tmp_path: Path, allow: str | None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in (ALLOW_ENV, "SOURCE_DATE_EPOCH")}
    env.update({ALLOW_ENV: allow} if allow is not None else {})
    command = [PRESCIENT, "oracle", "fetch-news", "--hub", str(hub), "--as-of", "2026-11-26T00:00:00Z", "--cache-dir", str(tmp_path / "cache")]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120, check=False)
    assert "Traceback" not in done.stderr, done.stderr
    return done


@pytest.mark.e2e
def test_a_feed_on_loopback_is_not_fetched_without_the_explicit_setting(tmp_path):
    with sites() as (feed, internal):
        hub = hub_reading(tmp_path, feed)
        done = fetch(hub, tmp_path, None)
        assert done.returncode == 6, (done.stdout, done.stderr)
        assert "[fetch-blocked]" in done.stderr and f"127.0.0.1:{feed.port}" in done.stderr, done.stderr
        assert feed.hits == [] and internal.hits == [], "nothing on 127.0.0.1 was asked"
    assert not (hub / "data/news").exists()


@pytest.mark.e2e
def test_with_the_feeds_port_allowed_links_and_redirects_to_another_port_are_refused_and_the_rest_recorded(tmp_path):
    with sites() as (feed, internal):
        hub = hub_reading(tmp_path, feed)
        done = fetch(hub, tmp_path, f"127.0.0.1:{feed.port}")
        assert done.returncode == 6, (done.stdout, done.stderr)
        blocked = [line for line in done.stderr.splitlines() if "[fetch-blocked]" in line]
        assert len(blocked) == 2 and all(f"127.0.0.1:{internal.port}" in line for line in blocked), done.stderr
        assert "[robots-disallowed]" in done.stderr and "/private/story" in done.stderr, done.stderr
        assert internal.hits == [], "neither the link nor the redirect reached the other port"
        assert "/private/story" not in feed.hits and "/robots.txt" in feed.hits
    news = read_table(next((hub / "data/news").glob("*.csv")), NEWS)
    assert list(news["url"]) == [f"{feed.url}/story"]
    texts = list((tmp_path / "cache").rglob("*.txt"))
    assert len(texts) == 1 and "hunter2" not in texts[0].read_text()


def test_article_texts_older_than_text_days_are_pruned(tmp_path):
    import httpx

    pages = {"/feed.xml": None}

    def serve(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/feed.xml":
            day = pages["/feed.xml"]
            rss = f'<rss version="2.0"><channel><title>t</title><item><title>Day {day}</title><link>https://news.example.org/{day}</link></item></channel></rss>'
            return httpx.Response(200, headers={"Content-Type": "application/rss+xml"}, content=rss.encode())
        if request.url.path == "/robots.txt":
            return httpx.Response(404)
        body = ARTICLE.format(title=f"Story of {request.url.path}", body=f"Events of {request.url.path}.")
        return httpx.Response(200, headers={"Content-Type": "text/html"}, content=body.encode())

    root = write_hub(
        tmp_path / "hub",
        '[rounds]\nfirst_due = "2027-01-03T00:00:00Z"\n\n[oracle]\nfeeds = ["https://news.example.org/feed.xml"]\n'
        "host_rate_per_second = 1000\ntext_days = 10\n",
    )
    texts = NewsTexts(tmp_path / "texts")
    client = httpx.Client(transport=httpx.MockTransport(serve))
    for day in ("2026-11-01", "2026-11-05", "2026-11-14"):
        pages["/feed.xml"] = day
        report = fetch_news(Hub.load(root), parse_ts(f"{day}T00:00:00Z"), texts, client=client, sleep=lambda s: None)
        assert report.new == 1
    kept = sorted(p.stem for p in (tmp_path / "texts").rglob("*.txt"))
    news = read_table(root / "data/news/2026-11.csv", NEWS)
    recent = news.loc[news["recorded_at"].astype(str) >= "2026-11-04T00:00:00Z", "text_sha256"]
    assert kept == sorted(recent) and len(kept) == 2 and report.pruned == 1, "the 1 November text is gone, the others kept"
