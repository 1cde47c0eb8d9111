"""Polymarket (no key). Discovery: Gamma ``GET /markets?active=true&closed=false`` by volume,
paging until ``max_markets`` qualify and every tracked id is seen (or ``max_pages``); tracked
markets still unseen: ``GET /markets/{id}``. Price history: CLOB
``GET /prices-history?market=<token id>`` (``fetch_price_history``/``parse_price_history``).

``outcomes``, ``outcomePrices`` and ``clobTokenIds`` are JSON strings inside JSON. ``value`` is
the price of the "Yes" outcome. Resolution needs ``closed`` and final prices exactly 1/0 (or 0/1),
with ``umaResolutionStatus`` "resolved" or absent (a resolved market may lack the flag); a
proposed or disputed UMA status keeps the market open. Void: final prices 0/0 (2020 legacy),
50/50, any other final split, and any market whose outcomes are not Yes/No.

Options (``[sources.polymarket]``): base_url (Gamma), min_liquidity (1000),
min_volume (10000), max_markets (500), page_size (100), max_pages (20), plus the http.py keys
(concurrency (4), rate_per_second (10), ...).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from ..vocabulary import MARKET
from ._util import ParseError, item_hash, json_list, list_at, number_or, parse_time, require, s_to_dt, to_float
from .base import Observation, Question
from .http import Http
from .shell import MarketSource  # fmt: skip

NAME = "polymarket"
BASE_URL = "https://gamma-api.polymarket.com"
CLOB_URL = "https://clob.polymarket.com"
DEFAULTS = {"concurrency": 4, "rate_per_second": 10, "max_pages": 20}
PENDING_UMA = {"proposed", "disputed", "challenged"}


def yes_no_prices(item: Mapping[str, Any]) -> tuple[float, float] | None:
    """(P(yes), P(no)) for a Yes/No market; None when the outcomes are anything else."""
    outcomes = json_list(item, "outcomes")
    prices = json_list(item, "outcomePrices")
    if sorted(map(str, outcomes)) != ["No", "Yes"]:
        return None
    if len(prices) != 2:
        raise ParseError(f"outcomePrices has {len(prices)} entries for 2 outcomes")
    yes = outcomes.index("Yes")
    return to_float(prices[yes], "outcomePrices"), to_float(prices[1 - yes], "outcomePrices")


def parse_status(item: Mapping[str, Any], yes: float, no: float) -> tuple[str, float | None]:
    """(status, outcome) of a Yes/No market from ``closed``, UMA status and final prices."""
    uma = str(item.get("umaResolutionStatus") or "").lower()
    if not item.get("closed") or uma in PENDING_UMA:
        return "open", None
    if (yes, no) in ((1.0, 0.0), (0.0, 1.0)):
        return "resolved", yes
    if uma == "resolved" or (yes, no) in ((0.0, 0.0), (0.5, 0.5)):
        return "void", None
    return "open", None  # closed, prices not final yet, no resolution recorded


def _event(item: Mapping[str, Any]) -> Mapping[str, Any]:
    events = item.get("events") or []
    return events[0] if events and isinstance(events[0], Mapping) else {}


def category(item: Mapping[str, Any]) -> str:
    event = _event(item)
    tags = [t.get("label") for t in event.get("tags") or [] if isinstance(t, Mapping)]
    return str(item.get("category") or event.get("category") or next(filter(None, tags), ""))


def market_url(item: Mapping[str, Any]) -> str:
    event_slug, slug = _event(item).get("slug"), item.get("slug")
    if event_slug:
        return f"https://polymarket.com/event/{event_slug}"
    return f"https://polymarket.com/market/{slug}" if slug else ""


def parse_question(item: Mapping[str, Any]) -> Question:
    criteria = str(item.get("description") or "")
    if item.get("resolutionSource"):
        criteria += f"\n\nResolution source: {item['resolutionSource']}"
    return Question(
        id=f"{NAME}:{require(item, 'id')}", source=NAME, kind=MARKET,
        text=str(require(item, "question")), background=str(_event(item).get("title") or ""),
        resolution_criteria=criteria.strip(), url=market_url(item), category=category(item),
        open_time=parse_time(item.get("startDate") or item.get("createdAt")),
        close_time=parse_time(item.get("endDate")),
    )  # fmt: skip


def parse_market(item: Mapping[str, Any], as_of: datetime) -> tuple[Question, Observation]:
    """One Gamma market → (Question, Observation at ``as_of``). Pure."""
    question = parse_question(item)
    prices = yes_no_prices(item)
    if prices is None:
        return question, Observation(question.id, as_of, None, "void", None, item_hash(item))
    status, outcome = parse_status(item, *prices)
    return question, Observation(question.id, as_of, prices[0], status, outcome, item_hash(item))


def qualifies(item: Mapping[str, Any], opts: Mapping[str, Any], as_of: datetime | None = None) -> bool:
    """Open, Yes/No, and above the liquidity and volume floors."""
    try:
        binary = yes_no_prices(item) is not None
    except ParseError:
        return False
    return (
        binary and bool(item.get("active")) and not item.get("closed")
        and number_or(item, "liquidityNum") >= float(opts.get("min_liquidity", 1000))
        and number_or(item, "volumeNum") >= float(opts.get("min_volume", 10000))
    )  # fmt: skip


def fetch_page(http: Http, base_url: str, opts: Mapping[str, Any], offset: int):
    """One Gamma page of open markets by volume, floors applied server-side too."""
    size = int(opts.get("page_size", 100))
    params = {
        "active": "true", "closed": "false", "order": "volumeNum", "ascending": "false",
        "liquidity_num_min": opts.get("min_liquidity", 1000),
        "volume_num_min": opts.get("min_volume", 10000), "limit": size, "offset": offset,
    }  # fmt: skip
    payload, _ = http.get(f"{base_url}/markets", params)
    items = list_at(payload, "polymarket gamma markets")
    return items, (offset + size if len(items) >= size else None)


def fetch_market(http: Http, base_url: str, market_id: str) -> Mapping[str, Any]:
    payload, _ = http.get(f"{base_url}/markets/{market_id}")
    return payload


def fetch_price_history(
    http: Http, token_id: str, *, start_ts: int, end_ts: int, fidelity: int = 60,
    clob_url: str = CLOB_URL,
) -> Any:  # fmt: skip
    """CLOB price history of one outcome token (``fidelity`` in minutes)."""
    params = {"market": token_id, "startTs": start_ts, "endTs": end_ts, "fidelity": fidelity}
    payload, _ = http.get(f"{clob_url.rstrip('/')}/prices-history", params)
    return payload


def parse_price_history(payload: Any, question_id: str) -> list[Observation]:
    """``{"history": [{"t": unix s, "p": price}]}`` → open observations, oldest first. Pure."""
    points = payload.get("history") if isinstance(payload, Mapping) else None
    if not isinstance(points, list):
        raise ParseError("missing history")
    return sorted(
        (
            Observation(question_id, s_to_dt(require(pt, "t")), to_float(require(pt, "p"), "p"),
                        "open", None, item_hash(pt))
            for pt in points
        ),
        key=lambda obs: obs.observed_at,
    )  # fmt: skip


class PolymarketSource(MarketSource):
    name, label, base_url, defaults = NAME, "polymarket market", BASE_URL, DEFAULTS
    qualifies = staticmethod(qualifies)
    parse = staticmethod(parse_market)
    fetch_page = staticmethod(fetch_page)
    read_one = staticmethod(fetch_market)
