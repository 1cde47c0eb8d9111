"""Kalshi adapter: *_dollars parsing, settlement, events discovery, historical fallback."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import httpx
import pytest

from generator.errors import SourceError
from generator.sources._util import ParseError, item_hash
from generator.sources.base import Failure, FetchContext
from generator.sources.kalshi import KalshiSource, event_markets, parse_market, qualifies, yes_probability

from helpers import API_DATA

DATA = API_DATA / "kalshi"
AS_OF = datetime(2026, 9, 30, tzinfo=UTC)
BASE = "/trade-api/v2"


def load(name: str):
    return json.loads((DATA / name).read_text(encoding="utf-8"))


def utc(*args):
    return datetime(*args, tzinfo=UTC)


def market(name: str, ticker: str):
    payload = load(name)
    markets = payload.get("markets") or [m for e in payload.get("events", []) for m in e.get("markets", [])]
    return next(m for m in markets if m["ticker"] == ticker)


class Sleeps(list):
    def __call__(self, seconds):
        self.append(seconds)


def test_open_market_uses_bid_ask_midpoint():
    item = market("markets_open_by_event_2026-09.json", "KXNFLGAME-26OCT08TBDAL-DAL")
    question, obs = parse_market(item, AS_OF)
    assert question.id == "kalshi:KXNFLGAME-26OCT08TBDAL-DAL"
    assert question.text == "Dallas wins"
    assert question.resolution_criteria.startswith("If Dallas wins the TB Buccaneers vs DAL Cowboys")
    assert question.url == "https://kalshi.com/markets/kxnflgame"
    assert question.close_time == utc(2026, 10, 11, 0, 15)
    assert question.open_time == utc(2026, 9, 29, 4, 5)
    assert (obs.value, obs.status, obs.outcome) == (0.805, "open", None)
    assert obs.payload_sha256 == item_hash(item)


def test_event_context_gives_category_and_background_but_not_the_hash():
    events = load("events_open_with_nested_markets_2026-08.json")["events"]
    [item] = event_markets(events)
    question, obs = parse_market(item, AS_OF)
    assert question.category == "World"
    assert question.background == "Will Elon Musk visit Mars in his lifetime?"
    assert obs.value == 0.105
    assert obs.payload_sha256 == item_hash(events[0]["markets"][0])


@pytest.mark.parametrize(
    "name, ticker, value, outcome",
    [
        ("events_settled_with_nested_markets_fed_2026-09.json", "KXFEDDECISION-26SEP-C26", 0.01, 0.0),
        ("events_settled_with_nested_markets_fed_2026-09.json", "KXFEDDECISION-26SEP-H0", 0.12, 0.0),
        ("historical_markets_finalized_fed_2026-07.json", "KXFEDDECISION-26JUL-H0", 0.82, 1.0),
        ("historical_markets_finalized_fed_2026-07.json", "KXFEDDECISION-26JUL-H25", 0.18, 0.0),
    ],
)
def test_finalized_markets_resolve_yes_or_no(name, ticker, value, outcome):
    _, obs = parse_market(market(name, ticker), AS_OF)
    assert (obs.value, obs.status, obs.outcome) == (value, "resolved", outcome)


def test_closed_early_market_keeps_its_actual_close_time():
    question, obs = parse_market(load("historical_market_finalized_no_closed_early_2026-02.json")["market"], AS_OF)
    assert question.close_time == utc(2026, 2, 4, 15)
    assert (obs.status, obs.outcome) == ("resolved", 0.0)


def test_settled_without_clean_result_is_void():
    item = dict(market("historical_markets_finalized_fed_2026-07.json", "KXFEDDECISION-26JUL-H0"), result="")
    assert parse_market(item, AS_OF)[1].status == "void"


def test_integer_cent_fields_alone_are_a_named_error():
    # The removed pre-2026 shape (built by hand: cents instead of *_dollars; see README.md).
    item = market("markets_open_by_event_2026-09.json", "KXNFLGAME-26OCT08TBDAL-DAL")
    legacy = {k: v for k, v in item.items() if not k.endswith("_dollars")}
    legacy.update(yes_bid=80, yes_ask=81, last_price=81)
    with pytest.raises(ParseError, match="missing last_price_dollars"):
        yes_probability(legacy)


def test_qualifies():
    items = load("markets_open_by_event_2026-09.json")["markets"]
    assert [qualifies(m, {}, AS_OF) for m in items] == [True, True]
    assert not qualifies(items[0], {"min_volume": 10**6}, AS_OF)
    assert not qualifies(items[0], {}, utc(2026, 10, 12))
    settled = market("historical_markets_finalized_fed_2026-07.json", "KXFEDDECISION-26JUL-H0")
    assert not qualifies(settled, {}, AS_OF)


# --- fetch -------------------------------------------------------------------------------------


def fetch(routes, tracked=(), options=None, sleeps=None):
    calls = []

    def handler(request):
        calls.append((request.url.path, dict(request.url.params)))
        route = routes.get(request.url.path)
        if isinstance(route, list):
            route = route.pop(0) if len(route) > 1 else route[0]
        if isinstance(route, Exception):
            raise route
        return route or httpx.Response(404, json={"error": {"code": "not_found"}})

    source = KalshiSource({"rate_per_second": 0, **(options or {})}, sleep=sleeps if sleeps is not None else Sleeps())
    client = httpx.Client(transport=httpx.MockTransport(handler))
    return source.fetch(FetchContext(AS_OF, {}, frozenset(tracked), client)), calls


def test_fetch_pages_events_and_falls_back_to_historical_for_tracked():
    open_page = {"events": load("events_open_with_nested_markets_2026-08.json")["events"], "cursor": "next1"}
    second = {
        "events": [
            {
                "event_ticker": "KXNFLGAME-26OCT08TBDAL",
                "category": "Sports",
                "title": "TB at DAL",
                "series_ticker": "KXNFLGAME",
                "markets": load("markets_open_by_event_2026-09.json")["markets"],
            }
        ],
        "cursor": "",
    }
    historical = load("historical_market_finalized_no_closed_early_2026-02.json")
    routes = {
        f"{BASE}/events": [httpx.Response(200, json=open_page), httpx.Response(200, json=second)],
        f"{BASE}/historical/markets/KXGOVSHUTLENGTH-26FEB28-4D": httpx.Response(200, json=historical),
    }
    result, calls = fetch(routes, {"kalshi:KXGOVSHUTLENGTH-26FEB28-4D"})
    assert [q.id for q in result.questions] == [
        "kalshi:KXELONMARS-99",
        "kalshi:KXNFLGAME-26OCT08TBDAL-DAL",
        "kalshi:KXNFLGAME-26OCT08TBDAL-TB",
    ]
    assert [q.category for q in result.questions] == ["World", "Sports", "Sports"]
    got = [(o.question_id, o.value, o.status, o.outcome) for o in result.observations]
    assert got[-1] == ("kalshi:KXGOVSHUTLENGTH-26FEB28-4D", 0.01, "resolved", 0.0)
    assert calls[1] == (f"{BASE}/events", {"status": "open", "with_nested_markets": "true", "limit": "200", "cursor": "next1"})
    assert [c[0] for c in calls[2:]] == [
        f"{BASE}/markets/KXGOVSHUTLENGTH-26FEB28-4D",
        f"{BASE}/historical/markets/KXGOVSHUTLENGTH-26FEB28-4D",
    ]
    assert result.failures == []


def test_fetch_drifted_market_is_isolated():
    page = load("events_open_with_nested_markets_2026-08.json")
    nfl = load("markets_open_by_event_2026-09.json")["markets"][0]
    drifted = {k: v for k, v in nfl.items() if k not in ("last_price_dollars", "yes_bid_dollars")}
    routes = {
        f"{BASE}/events": httpx.Response(200, json={**page, "cursor": ""}),
        f"{BASE}/markets/{nfl['ticker']}": httpx.Response(200, json={"market": drifted}),
        f"{BASE}/markets/WRAPPED": httpx.Response(200, json={"markets": []}),
    }
    result, _ = fetch(routes, {f"kalshi:{nfl['ticker']}", "kalshi:WRAPPED"})
    assert [o.question_id for o in result.observations] == ["kalshi:KXELONMARS-99"]
    assert result.failures == [
        Failure("kalshi market KXNFLGAME-26OCT08TBDAL-DAL", "missing last_price_dollars (and no live yes_bid/yes_ask_dollars)"),
        Failure("kalshi market WRAPPED", "response has no 'market' object"),
    ]


def test_fetch_500_then_success_and_outage():
    page = {**load("events_open_with_nested_markets_2026-08.json"), "cursor": ""}
    sleeps = Sleeps()
    result, _ = fetch({f"{BASE}/events": [httpx.Response(502), httpx.Response(200, json=page)]}, sleeps=sleeps)
    assert len(result.observations) == 1 and len(sleeps) == 1
    with pytest.raises(SourceError, match="HTTP 500"):
        fetch({f"{BASE}/events": httpx.Response(500)})
