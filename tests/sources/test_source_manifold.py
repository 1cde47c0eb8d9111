"""Manifold adapter: parse on recorded payloads, and fetch through a mock transport."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import httpx
import pytest

from generator.errors import SourceError
from generator.sources._util import ParseError, item_hash
from generator.sources.base import Failure, FetchContext
from generator.sources.manifold import ManifoldSource, parse_market, qualifies

from helpers import API_DATA, InFlight

DATA = API_DATA / "manifold"
AS_OF = datetime(2026, 8, 5, 12, 0, tzinfo=UTC)
BASE = "https://api.manifold.markets/v0"
LOOSE = {"min_bettors": 5, "min_liquidity": 100, "rate_per_second": 0}  # 0: no rate limit


def load(name: str):
    return json.loads((DATA / name).read_text(encoding="utf-8"))


def by_id(items, market_id):
    return next(m for m in items if m["id"] == market_id)


def utc(*args):
    return datetime(*args, tzinfo=UTC)


class Sleeps(list):
    def __call__(self, seconds):
        self.append(seconds)


def serve(routes):
    """MockTransport over ``{path: response | [responses...] | callable}``; unknown paths 404."""
    calls: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        calls.append(path)
        route = routes.get(path)
        if isinstance(route, list):
            route = route.pop(0) if len(route) > 1 else route[0]
        if callable(route):
            route = route(request)
        if isinstance(route, Exception):
            raise route
        return route if route is not None else httpx.Response(404, json={"message": "not found"})

    return httpx.Client(transport=httpx.MockTransport(handler)), calls


def fetch(routes, tracked=(), options=None, sleeps=None):
    client, calls = serve(routes)
    source = ManifoldSource({**LOOSE, **(options or {})}, sleep=sleeps if sleeps is not None else Sleeps())
    ctx = FetchContext(as_of=AS_OF, options={}, tracked=frozenset(tracked), client=client)
    return source.fetch(ctx), calls


# --- parse -------------------------------------------------------------------------------------


def test_parse_resolved_yes_2022():
    item = load("market_binary_resolved_yes_2022-06.json")
    question, obs = parse_market(item, AS_OF)
    assert question.id == "manifold:rIR6mWqaO9xKLifr6cLL"
    assert question.text == "Will Bitcoin's price fall below $25k for at least one day in 2022?"
    assert question.url == "https://manifold.markets/bcongdon/will-bitcoins-price-fall-below-25k"
    assert question.category == "Crypto"
    assert question.background.startswith("Using data source: https://coinmarketcap.com")
    assert question.open_time == utc(2022, 5, 10, 1, 8, 19, 261000)
    assert question.close_time == utc(2022, 6, 15, 13, 17, 6, 599000)
    assert (obs.value, obs.status, obs.outcome) == (0.9911535861392651, "resolved", 1.0)
    assert obs.observed_at == AS_OF and obs.question_id == question.id
    assert obs.payload_sha256 == item_hash(item)


def test_parse_open_2022():
    question, obs = parse_market(load("market_binary_open_2022-10.json"), AS_OF)
    assert (obs.value, obs.status, obs.outcome) == (0.5049750012375624, "open", None)
    assert question.close_time == utc(2022, 10, 19, 3, 59)


def test_parse_resolved_yes_2026_uses_group_and_text_description():
    question, obs = parse_market(load("market_binary_resolved_yes_2026-10_scrubbed.json"), AS_OF)
    assert question.category == "ai"
    assert question.background.startswith("The service allows anyone")
    assert question.url == ""  # scrubbed sample: no url and no creatorUsername
    assert (obs.value, obs.status, obs.outcome) == (0.7622505137354175, "resolved", 1.0)


@pytest.mark.parametrize(
    "market_id, status, outcome",
    [
        ("4glpCEM84dYQSq6Nwvle", "resolved", 0.0),  # NO
        ("OxHMC9gyZOd8Q9QZIXAP", "resolved", 1.0),  # YES
        ("mTv9PIRnmigXD7mDgKVI", "void", None),  # CANCEL (resolutionProbability 0.5 ignored)
        ("TaOWd6RLq4npElKPhJOS", "void", None),  # MKT at 0.33
        ("8gUQD1g6X4BuWZwT4CpZ", "open", None),
    ],
)
def test_parse_resolutions_in_the_2022_list(market_id, status, outcome):
    _, obs = parse_market(by_id(load("markets_list_2022-10_trimmed.json"), market_id), AS_OF)
    assert (obs.status, obs.outcome) == (status, outcome)


@pytest.mark.parametrize("final, status, outcome", [(1, "resolved", 1.0), (0.0, "resolved", 0.0), (0.999, "void", None)])
def test_mkt_counts_only_when_exactly_zero_or_one(final, status, outcome):
    # Built from the real BINARY MKT row, with resolutionProbability changed (see README.md).
    item = dict(by_id(load("markets_list_2022-10_trimmed.json"), "TaOWd6RLq4npElKPhJOS"), resolutionProbability=final)
    _, obs = parse_market(item, AS_OF)
    assert (obs.status, obs.outcome) == (status, outcome)


def test_pseudo_numeric_is_rejected_by_name():
    rows = load("search_markets_pseudo_numeric_resolved_mkt_and_cancel_2026-08.json")["search_log_scale"]
    with pytest.raises(ParseError, match=r"not a binary market \(PSEUDO_NUMERIC\)"):
        parse_market(rows[0], AS_OF)


def test_qualifies_uses_thresholds():
    items = load("search_markets_binary_open_2026-08.json")
    assert [qualifies(m, LOOSE, AS_OF) for m in items] == [True, True, True]
    assert [qualifies(m, {}, AS_OF) for m in items] == [False, False, False]  # FB: 17 bettors, 120
    assert not qualifies(items[0], LOOSE, utc(2026, 10, 1))  # closed by then
    lite = load("markets_lite_2026-10_scrubbed.json")
    assert not any(qualifies(m, LOOSE, AS_OF) for m in lite)  # 0 bettors


# --- fetch -------------------------------------------------------------------------------------

SEARCH = "/v0/search-markets"


def search_ok():
    return httpx.Response(200, json=load("search_markets_binary_open_2026-08.json"))


def test_fetch_discovers_and_rereads_tracked_markets():
    resolved = load("market_binary_resolved_yes_2026-10_scrubbed.json")
    routes = {SEARCH: search_ok(), "/v0/market/gx18r8g6AM5sXGJ0lpSQ": httpx.Response(200, json=resolved)}
    tracked = {"manifold:lqtROphAhp", "manifold:gx18r8g6AM5sXGJ0lpSQ", "manifold:gone", "polymarket:1"}
    result, calls = fetch(routes, tracked)
    assert result.source == "manifold" and result.skipped is None
    assert [q.id for q in result.questions] == ["manifold:lqtROphAhp", "manifold:2IyO0gUAUd", "manifold:udAUupudlE"]
    got = {(o.question_id, o.value, o.status, o.outcome) for o in result.observations}
    assert got == {
        ("manifold:lqtROphAhp", 0.009999999999999978, "open", None),
        ("manifold:2IyO0gUAUd", 0.0899310450769466, "open", None),
        ("manifold:udAUupudlE", 0.14874265459714586, "open", None),
        ("manifold:gx18r8g6AM5sXGJ0lpSQ", 0.7622505137354175, "resolved", 1.0),
    }
    assert result.failures == [Failure("manifold market gone", f"GET {BASE}/market/gone: HTTP 404 Not Found")]
    assert calls.count("/v0/market/lqtROphAhp") == 0  # discovered: not re-read


def test_fetch_missing_field_is_a_named_failure_and_others_proceed():
    items = load("search_markets_binary_open_2026-08.json")
    del items[1]["probability"]
    result, _ = fetch({SEARCH: httpx.Response(200, json=items)})
    assert result.failures == [Failure("manifold market 2IyO0gUAUd", "missing probability")]
    assert [o.question_id for o in result.observations] == ["manifold:lqtROphAhp", "manifold:udAUupudlE"]


def test_fetch_malformed_json_for_one_market():
    routes = {SEARCH: search_ok(), "/v0/market/bad": httpx.Response(200, content=b"{not json")}
    result, _ = fetch(routes, {"manifold:bad"})
    assert len(result.observations) == 3
    assert [f.item for f in result.failures] == ["manifold market bad"]
    assert "malformed JSON" in result.failures[0].reason


def test_fetch_timeout_then_success():
    resolved = load("market_binary_resolved_yes_2026-10_scrubbed.json")
    path = "/v0/market/gx18r8g6AM5sXGJ0lpSQ"
    routes = {SEARCH: search_ok(), path: [httpx.ReadTimeout("slow"), httpx.Response(200, json=resolved)]}
    sleeps = Sleeps()
    result, calls = fetch(routes, {"manifold:gx18r8g6AM5sXGJ0lpSQ"}, sleeps=sleeps)
    assert calls.count(path) == 2 and len(sleeps) == 1
    assert ("manifold:gx18r8g6AM5sXGJ0lpSQ", "resolved", 1.0) in {(o.question_id, o.status, o.outcome) for o in result.observations}
    assert result.failures == []


def test_fetch_429_with_retry_after_sleeps_that_long():
    routes = {SEARCH: [httpx.Response(429, headers={"Retry-After": "2"}), search_ok()]}
    sleeps = Sleeps()
    result, calls = fetch(routes, sleeps=sleeps)
    assert 2.0 in sleeps
    assert calls.count(SEARCH) == 2 and len(result.observations) == 3


def test_fetch_500_then_success_on_discovery():
    sleeps = Sleeps()
    result, _ = fetch({SEARCH: [httpx.Response(500), search_ok()]}, sleeps=sleeps)
    assert len(result.observations) == 3 and len(sleeps) == 1


def test_whole_source_outage_raises_source_error():
    with pytest.raises(SourceError, match="gave up after 4 attempts"):
        fetch({SEARCH: httpx.Response(503)})


def test_partial_outage_isolates_failed_markets():
    ok_market = load("market_binary_open_2022-10.json")
    routes = {
        SEARCH: search_ok(),
        "/v0/market/down1": httpx.Response(503),
        "/v0/market/down2": httpx.ConnectError("refused"),
        "/v0/market/l6jsJPhOWSztXtzqhpU7": httpx.Response(200, json=ok_market),
    }
    tracked = {"manifold:down1", "manifold:down2", "manifold:l6jsJPhOWSztXtzqhpU7"}
    result, _ = fetch(routes, tracked, options={"retries": 1})
    assert sorted(f.item for f in result.failures) == ["manifold market down1", "manifold market down2"]
    assert "gave up after 2 attempts" in result.failures[0].reason
    assert {o.question_id for o in result.observations} == {
        "manifold:lqtROphAhp",
        "manifold:2IyO0gUAUd",
        "manifold:udAUupudlE",
        "manifold:l6jsJPhOWSztXtzqhpU7",
    }


def test_tracked_reads_are_concurrent_and_bounded():
    template = load("market_binary_open_2022-10.json")
    market = InFlight(lambda request: httpx.Response(200, json=dict(template, id=request.url.path.rsplit("/", 1)[1])))

    client, _ = serve({SEARCH: httpx.Response(200, json=[])})
    handler = client._transport.handler  # type: ignore[attr-defined]
    routed = httpx.MockTransport(lambda r: market(r) if "/market/" in r.url.path else handler(r))
    client = httpx.Client(transport=routed)
    tracked = frozenset(f"manifold:m{i:03d}" for i in range(40))
    source = ManifoldSource({"concurrency": 5, "rate_per_second": None}, sleep=Sleeps())
    result = source.fetch(FetchContext(as_of=AS_OF, options={}, tracked=tracked, client=client))
    assert len(result.observations) == 40 and result.failures == []
    assert 1 < market.max <= 5


def test_discovery_stops_at_max_markets():
    items = load("search_markets_binary_open_2026-08.json")
    result, calls = fetch({SEARCH: httpx.Response(200, json=items)}, options={"max_markets": 2, "page_size": 3})
    assert [q.id for q in result.questions] == ["manifold:lqtROphAhp", "manifold:2IyO0gUAUd"]
    assert calls.count(SEARCH) == 1


def test_discovery_pages_until_a_short_page():
    items = load("search_markets_binary_open_2026-08.json")
    pages = [httpx.Response(200, json=items[:2]), httpx.Response(200, json=items[2:])]
    result, calls = fetch({SEARCH: pages}, options={"page_size": 2})
    assert calls.count(SEARCH) == 2 and len(result.questions) == 3


def test_discovery_schema_change_is_a_source_error():
    with pytest.raises(SourceError, match="no list at top level"):
        fetch({SEARCH: httpx.Response(200, json={"data": []})})


def test_discovery_keeps_paging_while_tracked_markets_are_unseen():
    items = load("search_markets_binary_open_2026-08.json")
    pages = [httpx.Response(200, json=items[:2]), httpx.Response(200, json=items[2:])]
    options = {"max_markets": 1, "page_size": 2}
    result, calls = fetch({SEARCH: pages}, tracked={"manifold:udAUupudlE"}, options=options)
    assert calls == [SEARCH, SEARCH]  # the second page was cheaper than a per-market read
    assert [q.id for q in result.questions] == ["manifold:lqtROphAhp"]
    assert [o.question_id for o in result.observations] == ["manifold:lqtROphAhp", "manifold:udAUupudlE"]
