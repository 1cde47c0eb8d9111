"""Kalshi trade API v2 (no key for reads). Discovery: ``GET /events?status=open&
with_nested_markets=true`` (cursor paging, same stop rule as Manifold; the event gives the
category); tracked markets still unseen: ``GET /markets/{ticker}``, falling back to
``GET /historical/markets/{ticker}`` on 404 (markets settled before the historical cutoff).

Only the current string fields are read (``*_dollars`` prices, ``*_fp`` sizes); the integer-cent
fields were removed in 2026, so a payload that only has them fails with a named error.
``value`` is the midpoint of ``yes_bid_dollars``/``yes_ask_dollars`` when both are strictly
inside (0, 1), otherwise ``last_price_dollars``. Resolution: ``status`` finalized/settled with
``result`` yes → 1, no → 0, anything else → void.

Discovered items carry their event under ``_event``; the payload hash excludes that key, so it
hashes exactly the market object the API sent.

Options (``[sources.kalshi]``): base_url, min_volume (1000 contracts), max_markets (500),
page_size (200), max_pages (25), plus the http.py keys (concurrency (4), rate_per_second (10)).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from ..vocabulary import MARKET
from ._util import ParseError, item_hash, list_at, number_or, parse_time, require, to_float, unwrap
from .base import Observation, Question
from .http import FetchError, Http
from .shell import MarketSource  # fmt: skip

NAME = "kalshi"
BASE_URL = "https://api.elections.kalshi.com/trade-api/v2"
DEFAULTS = {"concurrency": 4, "rate_per_second": 10, "max_pages": 25}
SETTLED = ("finalized", "settled")
OPEN = ("active", "open")


def yes_probability(item: Mapping[str, Any]) -> float:
    """Bid/ask midpoint when both quotes are live, else the last traded price."""
    bid, ask = item.get("yes_bid_dollars"), item.get("yes_ask_dollars")
    if bid is not None and ask is not None:
        low, high = to_float(bid, "yes_bid_dollars"), to_float(ask, "yes_ask_dollars")
        if 0.0 < low <= high < 1.0:
            return round((low + high) / 2, 6)
    if item.get("last_price_dollars") is None:
        raise ParseError("missing last_price_dollars (and no live yes_bid/yes_ask_dollars)")
    return to_float(item["last_price_dollars"], "last_price_dollars")


def parse_status(item: Mapping[str, Any]) -> tuple[str, float | None]:
    status = str(require(item, "status"))
    if status not in SETTLED:
        return "open", None
    result = str(item.get("result") or "")
    if result in ("yes", "no"):
        return "resolved", 1.0 if result == "yes" else 0.0
    return "void", None


def series_ticker(item: Mapping[str, Any]) -> str:
    event = item.get("_event") or {}
    return str(event.get("series_ticker") or str(item.get("event_ticker", "")).split("-")[0])


def parse_question(item: Mapping[str, Any]) -> Question:
    event = item.get("_event") or {}
    rules = "\n\n".join(str(item[k]) for k in ("rules_primary", "rules_secondary") if item.get(k))
    series = series_ticker(item)
    return Question(
        id=f"{NAME}:{require(item, 'ticker')}", source=NAME, kind=MARKET,
        text=str(require(item, "title")), background=str(event.get("title") or ""),
        resolution_criteria=rules, category=str(event.get("category") or ""),
        url=f"https://kalshi.com/markets/{series.lower()}" if series else "",
        open_time=parse_time(item.get("open_time")), close_time=parse_time(item.get("close_time")),
    )  # fmt: skip


def parse_market(item: Mapping[str, Any], as_of: datetime) -> tuple[Question, Observation]:
    """One market object → (Question, Observation at ``as_of``). Pure."""
    kind = item.get("market_type", "binary")
    if kind != "binary":
        raise ParseError(f"not a binary market ({kind})")
    question = parse_question(item)
    status, outcome = parse_status(item)
    digest = item_hash({k: v for k, v in item.items() if k != "_event"})
    return question, Observation(question.id, as_of, yes_probability(item), status, outcome, digest)


def qualifies(item: Mapping[str, Any], opts: Mapping[str, Any], as_of: datetime) -> bool:
    """An active binary market, trading enough, that has not closed."""
    try:
        closes = parse_time(item.get("close_time"))
    except ParseError:
        return False
    return (
        item.get("market_type", "binary") == "binary" and item.get("status") in OPEN
        and number_or(item, "volume_fp") >= float(opts.get("min_volume", 1000))
        and (closes is None or closes > as_of)
    )  # fmt: skip


def event_markets(events: list[Any]) -> list[dict[str, Any]]:
    """Flatten ``/events?with_nested_markets=true`` into markets that carry their event."""
    keep = ("category", "title", "sub_title", "series_ticker", "event_ticker")
    flat = []
    for event in events:
        if isinstance(event, Mapping):
            context = {k: event[k] for k in keep if k in event}
            markets = [m for m in event.get("markets") or [] if isinstance(m, Mapping)]
            flat += [{**m, "_event": context} for m in markets]
    return flat


def fetch_page(http: Http, base_url: str, opts: Mapping[str, Any], cursor: str):
    """One page of open events with nested markets: (markets, next cursor or None)."""
    params = {"status": "open", "with_nested_markets": "true", "limit": int(opts.get("page_size", 200))}
    payload, _ = http.get(f"{base_url}/events", {**params, **({"cursor": cursor} if cursor else {})})
    markets = event_markets(list_at(payload, "kalshi events", "events"))
    return markets, (payload.get("cursor") or None)


def fetch_market(http: Http, base_url: str, ticker: str) -> Mapping[str, Any]:
    try:
        payload, _ = http.get(f"{base_url}/markets/{ticker}")
    except FetchError as exc:
        if exc.status != 404:
            raise
        payload, _ = http.get(f"{base_url}/historical/markets/{ticker}")
    return unwrap(payload, "market")


class KalshiSource(MarketSource):
    name, label, base_url, defaults = NAME, "kalshi market", BASE_URL, DEFAULTS
    id_key, first_page = "ticker", ""
    qualifies = staticmethod(qualifies)
    parse = staticmethod(parse_market)
    fetch_page = staticmethod(fetch_page)
    read_one = staticmethod(fetch_market)
