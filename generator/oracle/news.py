"""``prescient oracle fetch-news``: the news intake of the ``[oracle]`` stage.

Every feed of ``[oracle] feeds`` is read (``sources.feeds``: RSS or Atom, through the hub's httpx
client at a robots-friendly rate per host, with a User-Agent naming the hub), then the page of each
item the news ledger does not know (by address), at most ``per_feed`` a feed. Each page's text is
extracted; a text already recorded under another address (a syndicated copy) is left out. What
is new is appended to the news ledger (``data/news/<YYYY-MM>.csv``: address, source, title,
publication and fetch times, the text's sha256) and its text is kept outside the repository
(``store.newstexts``). A feed or an article that fails is reported with its code and the others go
on: nothing read is lost, and what failed is tried again by the next run.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import httpx

from .. import __version__
from ..codes import reported
from ..config import Settings
from ..errors import Problem
from ..schemas import NEWS
from ..sources.addresses import guarded_client
from ..sources.feeds import FeedItem, NewsError, NewsReader, source_of
from ..sources.http import fetch_many
from ..sources.sim import SimWorld, world_from_options
from ..sources.sim_news import FEED_URL, HOST, Newsroom
from ..store import ledger, readers
from ..store.hub import Hub
from ..store.lock import hub_lock
from ..store.newstexts import NewsTexts
from ..timeutil import format_ts
from .ledgers import oracle_settings, typed

CONCURRENCY = 4  # feeds, then pages, read at once (one host still gets host_rate_per_second)


def user_agent(settings: Settings) -> str:
    """The User-Agent of the intake: the program, and the hub that runs it (its repository when known)."""
    contact = f"+{settings.repo_url}; " if settings.repo_url else ""
    return f"prescient-news/{__version__} ({contact}{settings.title}: forecasting questions from the day's news)"


@dataclass
class FeedResult:
    feed: str
    listed: int = 0  # items the feed lists
    known: int = 0  # already in the ledger (or listed by an earlier feed this run)
    new: int = 0  # recorded now
    same_text: int = 0  # a new address whose text was already recorded
    problems: list[Problem] = field(default_factory=list)


@dataclass
class NewsReport:
    as_of: datetime
    feeds: list[FeedResult] = field(default_factory=list)
    written: list[str] = field(default_factory=list)
    pruned: int = 0  # article texts deleted from the cache folder, older than [oracle] text_days

    @property
    def problems(self) -> list[Problem]:
        return [p for f in self.feeds for p in f.problems]

    @property
    def new(self) -> int:
        return sum(f.new for f in self.feeds)


def fetch_news(
    hub: Hub,
    as_of: datetime,
    texts: NewsTexts,
    *,
    client: httpx.Client | None = None,
    world: SimWorld | None = None,
    sleep: Callable[[float], None] = time.sleep,
    allow: frozenset[tuple[str, int]] = frozenset(),
) -> NewsReport:
    """Read the feeds and record the new articles at ``as_of`` (see the module docstring). ``client``
    replaces the intake's own (tests pass one over a mock transport); the intake's own reaches public
    addresses only (``sources.addresses``), ``allow`` naming the ``(address, port)`` pairs reachable
    anyway (``PRESCIENT_FETCH_ALLOW``, which the tests set and the workflows never do)."""
    settings = oracle_settings(hub.settings)
    layout = hub.layout
    with hub_lock(layout.data, f"prescient oracle fetch-news --as-of {format_ts(as_of)}"):
        readers.check_as_of(hub, format_ts(as_of))
        news = readers.load_news(hub)
        report = NewsReport(as_of, [FeedResult(f) for f in settings.feeds])
        options = {**hub.settings.http, "user_agent": user_agent(hub.settings), "concurrency": CONCURRENCY}
        transports = {HOST: _sim_room(hub.settings, world).client(as_of)} if "sim:news" in settings.feeds else {}
        offline = all(f == "sim:news" for f in settings.feeds)  # no real client (nor its TLS setup) is needed
        given = client or (transports[HOST] if offline and transports else None)
        with contextlib.nullcontext(given) if given is not None else guarded_client(options, allow) as http:
            reader = NewsReader(
                http,
                rate=settings.host_rate_per_second,
                max_article_bytes=settings.max_article_bytes,
                options=options,
                transports=transports,
                sleep=sleep,
            )
            todo = _new_items(reader, report, set(news["url"]), settings.per_feed)
            pages = fetch_many(lambda job: reader.article(job[1].url), todo, concurrency=CONCURRENCY)
        rows = _rows(todo, pages, set(news["text_sha256"]), texts, as_of)
        if rows:
            path = layout.news(as_of)
            ledger.append(path, typed(rows, NEWS), NEWS, layout.relative(path), hub.cache)
            report.written.append(layout.relative(path))
        report.pruned = texts.prune(_texts_kept(readers.load_news(hub) if rows else news, as_of, settings.text_days))
    return report


def _texts_kept(news, as_of: datetime, text_days: int) -> set[str]:
    """The texts of the articles recorded in the last ``text_days`` days before ``as_of``: the others are deleted."""
    since = format_ts(as_of - timedelta(days=text_days))
    return set(news.loc[news["recorded_at"].astype(str) >= since, "text_sha256"].astype(str))


def _sim_room(settings: Settings, world: SimWorld | None) -> Newsroom:
    options = next((dict(s.options) for s in settings.sources if s.name == "sim"), {})
    return Newsroom.of(world if world is not None else world_from_options(options), options)


def _new_items(reader: NewsReader, report: NewsReport, known: set[str], per_feed: int) -> list[tuple[FeedResult, FeedItem]]:
    """The items to read, feed by feed in configured order: those whose address is new, ``per_feed`` a feed."""
    listed = fetch_many(lambda f: reader.feed(FEED_URL if f == "sim:news" else f), [r.feed for r in report.feeds], concurrency=CONCURRENCY)
    todo, seen = [], set(known)
    for result, items in zip(report.feeds, listed, strict=True):
        if isinstance(items, NewsError):
            result.problems.append(reported(items.code, result.feed, None, None, str(items)))
            continue
        if not isinstance(items, list):  # another SourceError (fetch_many returns them): the feed failed
            result.problems.append(reported("feed-failed", result.feed, None, None, str(items)))
            continue
        unseen = [i for i in items if i.url not in seen]
        result.listed, result.known = len(items), len(items) - len(unseen)
        fresh = unseen[:per_feed]  # the rest waits for the next run
        seen.update(i.url for i in fresh)
        todo += [(result, item) for item in fresh]
    return todo


def _rows(todo: list[tuple[FeedResult, FeedItem]], pages: list, known_texts: set[str], texts: NewsTexts, as_of: datetime) -> list[dict]:
    rows, stamp = [], format_ts(as_of)
    for (result, item), text in zip(todo, pages, strict=True):
        if not isinstance(text, str):
            code = text.code if isinstance(text, NewsError) else "article-failed"
            result.problems.append(reported(code, item.url, None, None, str(text)))
            continue
        sha = texts.put(text)
        if sha in known_texts:
            result.same_text += 1
            continue
        known_texts.add(sha)
        result.new += 1
        rows.append(
            {
                "url": item.url,
                "recorded_at": stamp,
                "source": source_of(result.feed),
                "feed": result.feed,
                "title": item.title,
                "published_at": format_ts(item.published_at) if item.published_at else "",
                "fetched_at": stamp,
                "text_sha256": sha,
                "text_chars": str(len(text)),
                "summary": "",
                "summarized_by": "",
                "new_event": "",
            }
        )
    return rows
