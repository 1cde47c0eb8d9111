"""The Sim Wire: a small daily news feed about the offline world's own events, for the oracle stage
of the demo (``[oracle] feeds = ["sim:news"]``). Pure and offline, like ``sim``.

Each day from ``[sources.sim] news_start`` (default: the world's start) the newsroom writes about
the markets that settle that day and those that open: the day's first settlement is covered by
three desks (a hot topic), every other event by one, and on Mondays one desk adds a column that
reports no new event. The feed lists what was published in the ``FEED_DAYS`` days before the
time it is read. Everything is served in-process (``client``: an httpx client over a transport
that answers ``http://sim.invalid/news/...``; ``.invalid`` never resolves, so nothing reaches a
network), through the same fetching and parsing code as any real feed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime, time
from email.utils import format_datetime
from functools import cached_property
from pathlib import Path
from typing import Any

import httpx
import jinja2

from ..timeutil import UTC, days, format_date, parse_ts
from .sim import CATEGORIES, SimMarket, SimWorld

HOST = "sim.invalid"
HOME = f"http://{HOST}/news/"
FEED_URL = f"{HOME}feed.xml"
FEED_DAYS = 3
MAX_PER_DAY = 6
DESKS = ("The Sim Herald", "The Sim Courier", "The Sim Ledger")
RESOLVED, OPENED, COLUMN = "resolved", "opened", "column"
_TEMPLATES = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"), autoescape=True, undefined=jinja2.StrictUndefined
)


@dataclass(frozen=True)
class SimArticle:
    day: str
    kind: str  # resolved | opened | column
    market: int | None
    desk: str
    published_at: datetime
    category: str
    title: str
    paragraphs: tuple[str, ...]

    @property
    def slug(self) -> str:
        subject = f"m{self.market:04d}" if self.market is not None else self.category
        return f"{subject}-{self.kind}-{DESKS.index(self.desk) + 1}"

    @property
    def url(self) -> str:
        return f"{HOME}{self.day}/{self.slug}.html"

    @property
    def rfc822(self) -> str:
        return format_datetime(self.published_at, usegmt=True)


def parse_url(url: str) -> tuple[str, str, int | None] | None:
    """(day, kind, market index or None) of a Sim Wire article's address; None for any other."""
    if not url.startswith(HOME):
        return None
    parts = url[len(HOME) :].removesuffix(".html").split("/")
    if len(parts) != 2 or parts[1].count("-") < 2:
        return None
    subject, kind, _desk = parts[1].rsplit("-", 2)
    market = int(subject[1:]) if subject.startswith("m") and subject[1:].isdigit() else None
    return parts[0], kind, market


def outcome_words(m: SimMarket) -> str:
    return "was declared void" if m.void else "happened" if m.outcome == 1.0 else "did not happen"


class Newsroom:
    """The articles of a SimWorld, by day."""

    def __init__(self, world: SimWorld, start: datetime | None = None):
        self.world, self.start = world, start or world.start

    @classmethod
    def of(cls, world: SimWorld, options: Mapping[str, Any]) -> Newsroom:
        start = options.get("news_start")
        return cls(world, parse_ts(str(start)) if start else None)

    @cached_property
    def _events(self) -> dict[str, tuple[list[SimMarket], list[SimMarket]]]:
        out: dict[str, tuple[list[SimMarket], list[SimMarket]]] = {}
        for m in self.world.markets:
            out.setdefault(format_date(m.close_time), ([], []))[0].append(m)
            out.setdefault(format_date(m.open_time), ([], []))[1].append(m)
        return out

    def day(self, day: date) -> list[SimArticle]:
        """The articles published on ``day`` (none before the newsroom's start)."""
        name = day.isoformat()
        if datetime.combine(day, time(), tzinfo=UTC) < self.start.replace(hour=0, minute=0, second=0):
            return []
        settled, opened = self._events.get(name, ([], []))
        stories = [(RESOLVED, m, d) for i, m in enumerate(settled) for d in (DESKS if i == 0 else DESKS[m.index % 3 :][:1])]
        stories += [(OPENED, m, DESKS[m.index % 3]) for m in opened]
        articles = [self._article(name, kind, m, desk, k) for k, (kind, m, desk) in enumerate(stories[: MAX_PER_DAY - 1])]
        if day.weekday() == 0:
            articles.append(self._column(name, len(articles)))
        return articles

    def published(self, as_of: datetime) -> list[SimArticle]:
        """What the feed lists at ``as_of``: the articles of the last FEED_DAYS days published before it, newest first."""
        today = as_of.astimezone(UTC).date()
        found = [a for n in range(FEED_DAYS + 1) for a in self.day(today - days(n)) if a.published_at < as_of]
        return sorted(found, key=lambda a: (a.published_at, a.url), reverse=True)

    def _when(self, day: str, k: int) -> datetime:
        return parse_ts(day) + days((6 * 60 + 37 * k) / 1440)

    def _article(self, day: str, kind: str, m: SimMarket, desk: str, k: int) -> SimArticle:
        n, topic = m.index, m.category
        if kind == RESOLVED:
            last = m.price(max(len(m.path) - 2, 0))
            title = {
                DESKS[0]: f"Simulated event #{n} ({topic}) {outcome_words(m)}",
                DESKS[1]: f"Market on simulated event #{n} settles: it {outcome_words(m)}",
                DESKS[2]: f"Settled today: simulated {topic} event #{n} {outcome_words(m)}",
            }[desk]
            body = (
                f"The simulated {topic} market on event #{n} settled on {day}. Event #{n} {outcome_words(m)}, "
                f"so the market {'was void' if m.void else 'resolved YES' if m.outcome == 1.0 else 'resolved NO'}.",
                f"The market on simulated event #{n} opened on {format_date(m.open_time)}, and its last published "
                f"price before it closed on {day} was {last:.0%}.",
                f"Traders of the simulated {topic} market on event #{n} had followed its price for "
                f"{len(m.path) - 1} days, as it moved with the hidden score of the offline world.",
            )
        else:
            first = m.price(0)
            title = f"New simulated {topic} market opens on event #{n}"
            body = (
                f"A simulated {topic} market on event #{n} opened on {day}. It asks whether event #{n} "
                f"happens by {format_date(m.close_time)}, when the market closes.",
                f"Its first published price was {first:.0%}. The simulated world's traders will move it every "
                f"day until the close on {format_date(m.close_time)}.",
                f"Event #{n} is one of the offline world's {topic} questions; its outcome is drawn from a hidden score that follows a random walk.",
            )
        lead = {
            DESKS[0]: "From the Herald's markets desk.",
            DESKS[1]: "The Courier's morning market report.",
            DESKS[2]: "The Ledger's record of the day.",
        }[desk]
        note = "This article is written by Prescient's offline newsroom from the simulated world's records; no real event is described."
        return SimArticle(day, kind, n, desk, self._when(day, k), topic, title, (lead, *body, note))

    def _column(self, day: str, k: int) -> SimArticle:
        topic = CATEGORIES[date.fromisoformat(day).toordinal() // 7 % len(CATEGORIES)]
        body = (
            f"The Ledger's weekly column on the simulated {topic} markets looks back rather than forward.",
            f"Nothing new was reported in simulated {topic} today. The column recalls how the offline world's "
            "markets are made: each follows a hidden score, and prices drift with it until the close.",
            "Readers asked how long the simulated markets stay open; most run for a few weeks to several months.",
            "This column is written by Prescient's offline newsroom; no real event is described.",
        )
        return SimArticle(day, COLUMN, None, DESKS[2], self._when(day, k), topic, f"Column: a quiet week in simulated {topic}", body)

    def client(self, as_of: datetime) -> httpx.Client:
        """An httpx client that serves the feed as it reads at ``as_of`` and its articles, in-process."""
        return httpx.Client(transport=httpx.MockTransport(lambda request: self._serve(request, as_of)))

    def _serve(self, request: httpx.Request, as_of: datetime) -> httpx.Response:
        url = str(request.url)
        if url == FEED_URL:
            body = _TEMPLATES.get_template("sim_feed.xml.j2").render(home=HOME, items=self.published(as_of))
            return httpx.Response(200, headers={"Content-Type": "application/rss+xml; charset=utf-8"}, text=body)
        where = parse_url(url)
        try:
            found = [a for a in self.day(date.fromisoformat(where[0])) if a.url == url] if where else []
        except ValueError:  # not a date
            found = []
        if not found or found[0].published_at >= as_of:
            return httpx.Response(404, text="not found")
        body = _TEMPLATES.get_template("sim_article.html.j2").render(home=HOME, article=found[0])
        return httpx.Response(200, headers={"Content-Type": "text/html; charset=utf-8"}, text=body)
