"""Manifold Markets (no key). Discovery: ``GET /search-markets`` (open BINARY markets, by
liquidity), paging until ``max_markets`` qualify and every tracked id has been seen (or
``max_pages``); tracked markets still unseen (e.g. resolved since): ``GET /market/{id}``.

Resolution: YES → 1, NO → 0, MKT → 0/1 only when ``resolutionProbability`` is exactly 0 or 1
(else void), CANCEL → void. Timestamps are milliseconds. ``value`` is ``probability``.

Options (``[sources.manifold]``): base_url, min_bettors (17), min_liquidity (120),
max_markets (500), page_size (1000, the API maximum), max_pages (10), include_cash (false), plus the http.py
keys (timeout, user_agent, retries, backoff, max_wait, concurrency (4), rate_per_second (8)).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from ..vocabulary import MARKET
from ._util import ParseError, item_hash, list_at, ms_to_dt, number_or, require, to_float
from .base import Observation, Question
from .http import Http
from .shell import MarketSource  # fmt: skip

NAME = "manifold"
BASE_URL = "https://api.manifold.markets/v0"
DEFAULTS = {"concurrency": 4, "rate_per_second": 8}


def parse_status(item: Mapping[str, Any]) -> tuple[str, float | None]:
    """(status, outcome) from ``isResolved``/``resolution``/``resolutionProbability``."""
    if not item.get("isResolved"):
        return "open", None
    resolution = require(item, "resolution")
    if resolution in ("YES", "NO"):
        return "resolved", 1.0 if resolution == "YES" else 0.0
    if resolution == "MKT":
        final = item.get("resolutionProbability")
        return ("resolved", float(final)) if final in (0, 1) else ("void", None)
    if resolution == "CANCEL":
        return "void", None
    raise ParseError(f"unknown resolution {resolution!r}")


def market_url(item: Mapping[str, Any]) -> str:
    if item.get("url"):
        return str(item["url"])
    user, slug = item.get("creatorUsername"), item.get("slug")
    return f"https://manifold.markets/{user}/{slug}" if user and slug else ""


def category(item: Mapping[str, Any]) -> str:
    groups = item.get("groupSlugs") or item.get("tags") or []
    return str(groups[0]) if groups else ""


def parse_question(item: Mapping[str, Any]) -> Question:
    description = item.get("textDescription") or item.get("description")
    return Question(
        id=f"{NAME}:{require(item, 'id')}", source=NAME, kind=MARKET,
        text=str(require(item, "question")),
        background=description if isinstance(description, str) else "",
        url=market_url(item), category=category(item),
        open_time=ms_to_dt(item.get("createdTime")), close_time=ms_to_dt(item.get("closeTime")),
    )  # fmt: skip


def parse_market(item: Mapping[str, Any], as_of: datetime) -> tuple[Question, Observation]:
    """One market payload → (Question, Observation at ``as_of``). Pure."""
    kind = require(item, "outcomeType")
    if kind != "BINARY":
        raise ParseError(f"not a binary market ({kind})")
    question = parse_question(item)
    status, outcome = parse_status(item)
    value = to_float(require(item, "probability"), "probability")
    observation = Observation(question.id, as_of, value, status, outcome, item_hash(item))
    return question, observation


def qualifies(item: Mapping[str, Any], opts: Mapping[str, Any], as_of: datetime) -> bool:
    """An open, binary, liquid-enough market with enough distinct bettors."""
    close_ms = number_or(item, "closeTime", float("inf"))
    return (
        item.get("outcomeType") == "BINARY" and not item.get("isResolved")
        and (opts.get("include_cash", False) or item.get("token", "MANA") != "CASH")
        and number_or(item, "uniqueBettorCount") >= float(opts.get("min_bettors", 17))
        and number_or(item, "totalLiquidity") >= float(opts.get("min_liquidity", 120))
        and close_ms > as_of.timestamp() * 1000
    )  # fmt: skip


def fetch_page(http: Http, base_url: str, opts: Mapping[str, Any], offset: int):
    """One page of open BINARY markets by liquidity: (items, next offset or None)."""
    size = int(opts.get("page_size", 1000))
    params = {"term": "", "filter": "open", "contractType": "BINARY", "sort": "liquidity"}
    payload, _ = http.get(f"{base_url}/search-markets", {**params, "limit": size, "offset": offset})
    items = list_at(payload, "manifold search-markets")
    return items, (offset + size if len(items) >= size else None)


def fetch_market(http: Http, base_url: str, market_id: str) -> Mapping[str, Any]:
    payload, _ = http.get(f"{base_url}/market/{market_id}")
    return payload


class ManifoldSource(MarketSource):
    name, label, base_url, defaults = NAME, "manifold market", BASE_URL, DEFAULTS
    qualifies = staticmethod(qualifies)
    parse = staticmethod(parse_market)
    fetch_page = staticmethod(fetch_page)
    read_one = staticmethod(fetch_market)
