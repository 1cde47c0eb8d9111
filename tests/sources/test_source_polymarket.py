"""Polymarket adapter: Gamma parse on recorded payloads, CLOB price history, fetch faults."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import httpx
import pytest

from generator.errors import SourceError
from generator.sources._util import ParseError, item_hash
from generator.sources.base import Failure, FetchContext
from generator.sources.http import http_for
from generator.sources.polymarket import (
    PolymarketSource,
    fetch_price_history,
    parse_market,
    parse_price_history,
    qualifies,
)  # fmt: skip

from helpers import API_DATA

DATA = API_DATA / "polymarket"
AS_OF = datetime(2026, 11, 22, tzinfo=UTC)


def load(name: str):
    return json.loads((DATA / name).read_text(encoding="utf-8"))


def utc(*args):
    return datetime(*args, tzinfo=UTC)


def parsed(name_or_item):
    item = load(name_or_item) if isinstance(name_or_item, str) else name_or_item
    return parse_market(item, AS_OF)


class Sleeps(list):
    def __call__(self, seconds):
        self.append(seconds)


# --- parse -------------------------------------------------------------------------------------


def test_open_negrisk_market():
    question, obs = parsed("gamma_market_open_negrisk_2026-06.json")
    assert question.id == "polymarket:559652"
    assert question.text == "Will Gavin Newsom win the 2028 Democratic presidential nomination?"
    assert question.url == "https://polymarket.com/event/democratic-presidential-nominee-2028"
    assert question.background == "Democratic Presidential Nominee 2028"
    assert question.resolution_criteria.startswith("This market will resolve to “Yes” if the named individual")
    assert question.open_time == utc(2025, 7, 11, 18, 35, 56, 805000)
    assert question.close_time == utc(2028, 11, 7)
    assert (obs.value, obs.status, obs.outcome) == (0.2325, "open", None)
    assert obs.payload_sha256 == item_hash(load("gamma_market_open_negrisk_2026-06.json"))


def test_closed_resolved_no():
    _, obs = parsed("gamma_market_closed_resolved_no_2026-03.json")
    assert (obs.value, obs.status, obs.outcome) == (0.0, "resolved", 0.0)


def test_resolved_yes_without_uma_flag_and_still_accepting_orders():
    question, obs = parsed("gamma_market_closed_resolved_yes_acceptingOrders_true_2026-05.json")
    assert question.close_time == utc(2027, 12, 31)
    assert (obs.value, obs.status, obs.outcome) == (1.0, "resolved", 1.0)


def test_legacy_zero_zero_is_void():
    question, obs = parsed("gamma_market_legacy_2020_closed_outcomePrices_0_0.json")
    assert question.category == "US-current-affairs"
    assert (obs.status, obs.outcome) == ("void", None)


def test_scalar_long_short_is_void():
    _, obs = parsed("gamma_market_legacy_2020_scalar_long_short.json")
    assert (obs.value, obs.status, obs.outcome) == (None, "void", None)


def test_sports_non_yes_no_outcomes_are_void():
    event = load("gamma_event_sports_non_yes_no_outcomes_2026-07.json")
    _, obs = parsed(event["markets"][0])
    assert (obs.value, obs.status, obs.outcome) == (None, "void", None)


def test_negrisk_event_markets_resolve_individually():
    markets = load("gamma_event_negrisk_resolved_2026-10.json")["markets"]
    got = [(parse_market(m, AS_OF)[1].status, parse_market(m, AS_OF)[1].outcome) for m in markets]
    assert got == [("resolved", 1.0), ("resolved", 0.0), ("resolved", 0.0)]


def test_fifty_fifty_is_void():
    # Built from the real resolved-NO market with outcomePrices set to 50/50 (see README.md).
    item = dict(load("gamma_market_closed_resolved_no_2026-03.json"), outcomePrices='["0.5", "0.5"]')
    assert parsed(item)[1].status == "void"


def test_pending_uma_proposal_keeps_a_closed_market_open():
    item = dict(load("gamma_market_closed_resolved_no_2026-03.json"), umaResolutionStatus="proposed")
    assert (parsed(item)[1].status, parsed(item)[1].value) == ("open", 0.0)


def test_missing_outcome_prices_is_named():
    item = load("gamma_market_open_negrisk_2026-06.json")
    del item["outcomePrices"]
    with pytest.raises(ParseError, match="missing outcomePrices"):
        parse_market(item, AS_OF)


def test_qualifies():
    events = load("gamma_events_list_open_negrisk_2026-03.json")
    assert [qualifies(m, {}) for m in events[0]["markets"]] == [True, True]
    assert not qualifies(events[0]["markets"][0], {"min_liquidity": 10**7})
    assert not qualifies(load("gamma_market_closed_resolved_no_2026-03.json"), {})
    assert not qualifies(load("gamma_event_sports_non_yes_no_outcomes_2026-07.json")["markets"][0], {"min_liquidity": 0})


def test_parse_price_history():
    obs = parse_price_history(load("clob_prices_history_2026-05.json"), "polymarket:2063128")
    assert len(obs) == 12
    assert (obs[0].observed_at, obs[0].value) == (utc(2026, 5, 22, 16, 0, 15), 0.9705)
    assert (obs[-1].observed_at, obs[-1].value) == (datetime.fromtimestamp(1779505206, UTC), 0.9695)
    assert {o.status for o in obs} == {"open"}
    with pytest.raises(ParseError, match="missing history"):
        parse_price_history({"error": "bad token"}, "polymarket:1")


def test_fetch_price_history_sends_token_and_window():
    seen = []

    def handler(request):
        seen.append(request.url)
        return httpx.Response(200, json=load("clob_prices_history_2026-05.json"))

    http = http_for(httpx.Client(transport=httpx.MockTransport(handler)), {"rate_per_second": 0})
    payload = fetch_price_history(http, "9413", start_ts=1, end_ts=2, fidelity=60)
    assert len(payload["history"]) == 12
    assert seen[0].path == "/prices-history"
    assert dict(seen[0].params) == {"market": "9413", "startTs": "1", "endTs": "2", "fidelity": "60"}


# --- fetch -------------------------------------------------------------------------------------


def fetch(routes, tracked=(), options=None, sleeps=None):
    calls = []

    def handler(request):
        calls.append(request.url.path)
        route = routes.get(request.url.path)
        if isinstance(route, list):
            route = route.pop(0) if len(route) > 1 else route[0]
        if isinstance(route, Exception):
            raise route
        return route or httpx.Response(404)

    source = PolymarketSource({"rate_per_second": 0, **(options or {})}, sleep=sleeps if sleeps is not None else Sleeps())
    client = httpx.Client(transport=httpx.MockTransport(handler))
    return source.fetch(FetchContext(AS_OF, {}, frozenset(tracked), client)), calls


def listing():
    return httpx.Response(200, json=load("gamma_events_list_open_negrisk_2026-03.json")[0]["markets"])


def test_fetch_discovery_and_tracked_resolution():
    resolved = load("gamma_market_closed_resolved_no_2026-03.json")
    routes = {"/markets": listing(), "/markets/1460332": httpx.Response(200, json=resolved)}
    result, calls = fetch(routes, {"polymarket:1460332", "polymarket:559657"})
    assert [q.id for q in result.questions] == ["polymarket:559657", "polymarket:559659"]
    got = [(o.question_id, o.value, o.status, o.outcome) for o in result.observations]
    assert got == [
        ("polymarket:559657", 0.0105, "open", None),
        ("polymarket:559659", 0.0145, "open", None),
        ("polymarket:1460332", 0.0, "resolved", 0.0),
    ]
    assert calls == ["/markets", "/markets/1460332"]
    assert result.questions[0].category == ""  # list items carry no category or events here


def test_fetch_malformed_market_is_a_failure_and_others_proceed():
    markets = load("gamma_events_list_open_negrisk_2026-03.json")[0]["markets"]
    broken = dict(markets[1], outcomePrices="[0.5, ")
    routes = {"/markets": httpx.Response(200, json=[markets[0]]), "/markets/559659": httpx.Response(200, json=broken)}
    result, _ = fetch(routes, {"polymarket:559659"})
    assert [o.question_id for o in result.observations] == ["polymarket:559657"]
    assert result.failures == [Failure("polymarket market 559659", "outcomePrices is not valid JSON: '[0.5, '")]


def test_fetch_dropped_field_in_a_tracked_market():
    item = load("gamma_market_closed_resolved_yes_acceptingOrders_true_2026-05.json")
    del item["outcomePrices"]
    result, _ = fetch({"/markets": listing(), "/markets/1812085": httpx.Response(200, json=item)}, {"polymarket:1812085"})
    assert result.failures == [Failure("polymarket market 1812085", "missing outcomePrices")]
    assert len(result.observations) == 2


def test_fetch_outage_raises_after_retries():
    sleeps = Sleeps()
    with pytest.raises(SourceError, match=r"gave up after 2 attempts \(ConnectError"):
        fetch({"/markets": httpx.ConnectError("down")}, options={"retries": 1}, sleeps=sleeps)
    assert len(sleeps) == 1


def test_fetch_retry_after_on_a_tracked_market():
    resolved = load("gamma_market_closed_resolved_no_2026-03.json")
    routes = {
        "/markets": listing(),
        "/markets/1460332": [httpx.Response(429, headers={"Retry-After": "1"}), httpx.Response(200, json=resolved)],
    }
    sleeps = Sleeps()
    result, _ = fetch(routes, {"polymarket:1460332"}, sleeps=sleeps)
    assert sleeps == [1.0]
    assert result.observations[-1].status == "resolved"
