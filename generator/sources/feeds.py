"""News feeds (RSS and Atom) and their articles: the oracle's intake.

``parse_feed`` (pure, ``feedparser`` over the bytes, never a URL) turns a feed into its items;
``extract_text`` (pure, ``trafilatura``) an article's page into its text. ``NewsReader`` fetches
both through the hub's httpx client (``sources.http.get_bytes``: retries, a total deadline per
request, the size cap), one request at a time per host at ``[oracle] host_rate_per_second``, with a
User-Agent naming the hub. A failure is a ``NewsError`` carrying its problem code, so the caller
can report it and go on with the next feed or article.
"""

from __future__ import annotations

import calendar
import io
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urljoin, urlsplit

import feedparser
import httpx
import trafilatura

from ..errors import SourceError
from .addresses import AddressBlocked
from .http import Budget, FetchError, RateLimiter, RequestLimits, ResponseTooLarge, get_bytes
from .robots import Robots

MIN_TEXT_CHARS = 200  # a page yielding less text than this is not an article (a paywall, an index page)


class NewsError(SourceError):
    """A feed or an article that could not be read; ``code`` is its problem code."""

    code: str

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class FeedItem:
    url: str
    title: str
    published_at: datetime | None


def source_of(feed: str) -> str:
    """The ``source`` a feed's articles are recorded under: its host (``sim`` for the sim world's)."""
    return "sim" if feed.startswith("sim:") else (urlsplit(feed).hostname or feed)


def parse_feed(data: bytes, feed_url: str) -> list[FeedItem]:
    """The items of an RSS or Atom feed, in feed order, each link made absolute against ``feed_url``;
    NewsError ``feed-unreadable`` when the bytes are no feed at all."""
    parsed = feedparser.parse(io.BytesIO(data), sanitize_html=True, resolve_relative_uris=False)
    if not parsed.get("version") and not parsed.entries:
        reason = parsed.get("bozo_exception") or "no RSS or Atom element"
        raise NewsError("feed-unreadable", f"{feed_url}: not an RSS or Atom feed ({_first_line(reason)})")
    items, seen = [], set()
    for entry in parsed.entries:
        link = urljoin(feed_url, str(entry.get("link") or "").strip())
        if urlsplit(link).scheme not in ("http", "https") or link in seen:
            continue
        seen.add(link)
        items.append(FeedItem(link, " ".join(str(entry.get("title") or "").split()), _published(entry)))
    return items


def _published(entry: Mapping[str, Any]) -> datetime | None:
    """The entry's publication time (else its update time) in UTC; None when the feed gives neither."""
    for key in ("published_parsed", "updated_parsed"):
        value = entry.get(key)
        if value:
            return datetime.fromtimestamp(calendar.timegm(value), tz=UTC)
    return None


def _first_line(reason: object) -> str:
    text = str(reason).strip().splitlines()
    return text[0][:200] if text else type(reason).__name__


def extract_text(page: bytes, url: str) -> str:
    """The article text of an HTML page (trafilatura, comments and tables left out), whitespace kept
    as paragraphs; NewsError ``article-no-text`` when there is none worth the name."""
    try:
        text = trafilatura.extract(page, url=url, include_comments=False, include_tables=False, deduplicate=False)
    except Exception as exc:  # trafilatura on hostile markup: any failure is "no text", never a crash
        raise NewsError("article-no-text", f"{url}: no article text ({type(exc).__name__})") from None
    text = "\n".join(" ".join(line.split()) for line in (text or "").splitlines() if line.strip())
    if len(text) < MIN_TEXT_CHARS:
        raise NewsError("article-no-text", f"{url}: the page holds no article text ({len(text)} characters extracted)")
    return text


class NewsReader:
    """Fetches feeds and article pages: per-host rate, retries, deadline, size caps, one time budget.

    ``transports`` serves given hosts in-process (the sim world's feed); every other host goes
    through ``client`` (the intake's is ``sources.addresses.guarded_client``: a connection to an
    address that is not public raises ``AddressBlocked``, reported as ``fetch-blocked``). An article
    is read only where its host's robots.txt allows it (``sources.robots``; ``robots-disallowed``)."""

    def __init__(
        self,
        client: httpx.Client,
        *,
        rate: float,
        max_article_bytes: int,
        options: Mapping[str, Any],
        transports: Mapping[str, httpx.Client] | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.client, self.rate, self.sleep, self.clock = client, rate, sleep, clock
        self.transports = dict(transports or {})
        self.feed_limits = RequestLimits.from_options(options)
        self.article_limits = RequestLimits(min(max_article_bytes, self.feed_limits.max_bytes), self.feed_limits.seconds)
        self.retries, self.backoff = int(options.get("retries", 3)), float(options.get("backoff", 0.5))
        self.budget = Budget.from_options(options)
        self._limiters: dict[str, RateLimiter] = {}
        self._lock = threading.Lock()
        agent = str(client.headers.get("User-Agent", "")) or "prescient-news"
        self.robots = Robots(lambda url: self._get(url, self.feed_limits, "robots-failed")[1], agent)

    def _limiter(self, host: str) -> RateLimiter:
        with self._lock:
            return self._limiters.setdefault(host, RateLimiter(self.rate, clock=self.clock, sleep=self.sleep))

    def _get(self, url: str, limits: RequestLimits, code: str) -> tuple[str, bytes]:
        host = urlsplit(url).hostname or ""
        try:
            return get_bytes(
                self.transports.get(host, self.client),
                url,
                retries=self.retries,
                backoff=self.backoff,
                sleep=self.sleep,
                throttle=self._limiter(host).wait,
                budget=self.budget,
                limits=limits,
            )
        except ResponseTooLarge as exc:
            raise NewsError("article-too-large" if code == "article-failed" else code, str(exc)) from None
        except FetchError as exc:
            if code == "robots-failed":
                raise  # ``Robots`` tells an absent robots.txt (4xx) from one that could not be read
            raise NewsError(code, str(exc)) from None
        except AddressBlocked as exc:
            raise NewsError("fetch-blocked", f"{url}: {exc}") from None

    def feed(self, feed_url: str) -> list[FeedItem]:
        return parse_feed(self._get(feed_url, self.feed_limits, "feed-failed")[1], feed_url)

    def article(self, url: str) -> str:
        """The text of the article at ``url``."""
        if (urlsplit(url).hostname or "") not in self.transports:  # the sim world's wire is no one's site
            refusal = self.robots.refusal(url)
            if refusal is not None:
                raise NewsError(refusal[0], f"{url}: {refusal[1]}")
        content_type, page = self._get(url, self.article_limits, "article-failed")
        if content_type and not any(t in content_type.lower() for t in ("html", "xml", "text/plain")):
            raise NewsError("article-no-text", f"{url}: a {content_type.split(';')[0]} page, not HTML")
        return extract_text(page, url)
