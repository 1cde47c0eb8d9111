"""Every platform parser fed garbage: wrong types, missing keys, null everywhere, NaN, huge numbers,
HTML instead of JSON. A bad item must become a named per-item Failure (the shells catch ParseError
and shape errors, nothing else), a bad page a SourceError with a clear message, and no value the
ledger refuses (NaN, infinity) may reach an Observation: one such value used to make the nightly
write of the whole source raise.

Payloads are the recorded ones in tests/data/api/, mutated here field by field.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

import httpx
import pytest

from generator.errors import SourceError
from generator.schemas import OBSERVATIONS
from generator.sources import dbnomics, fred, kalshi, manifold, metaculus, polymarket
from generator.sources._util import ParseError
from generator.sources.base import FetchContext
from generator.sources.manifold import ManifoldSource
from generator.sources.shell import SHAPE_ERRORS
from generator.store.csvio import to_csv_bytes
from generator.store.ingest import observation_frame

from helpers import API_DATA

API = API_DATA
AS_OF = datetime(2026, 1, 1, tzinfo=UTC)
CAUGHT = (ParseError, SourceError, *SHAPE_ERRORS)  # what MarketSource/SeriesSource turn into a Failure
GARBAGE = [None, [], {}, "<html><body>oops</body></html>", "NaN", "1e400", 10**30, True, [None]]


def load(rel: str):
    return json.loads((API / rel).read_text(encoding="utf-8"))


def variants(item: dict):
    """``item`` with each key dropped, and with each key set to each garbage value."""
    for key in item:
        yield {k: v for k, v in item.items() if k != key}
        for junk in GARBAGE:
            yield {**item, key: junk}


def outcome(parse, payload):
    """None when parsed, else the exception; anything the shells would not catch is re-raised."""
    try:
        result = parse(payload)
    except CAUGHT as exc:
        return exc
    return result


def observations_of(result) -> list:
    if isinstance(result, tuple) and len(result) == 2 and isinstance(result[1], list):
        return result[1]  # series: (question, [observations])
    if isinstance(result, tuple):
        return [o for o in result[1:] if o is not None]
    return list(result) if isinstance(result, list) else []


_MARKET = load("manifold/market_binary_resolved_yes_2022-06.json")
_GAMMA = load("polymarket/gamma_market_closed_resolved_no_2026-03.json")
_HISTORY = load("polymarket/clob_prices_history_2026-05.json")
_KALSHI = load("kalshi/historical_market_finalized_no_closed_early_2026-02.json")["market"]
_POST = load("metaculus/post_578_binary_open_with_cp_2025-08.json")
_POST["question"]["aggregations"] = {"recency_weighted": {"latest": _POST["question"]["aggregations"]["recency_weighted"]["latest"]}}
_FRED_INFO, _FRED_OBS = load("fred/series_GDP_2024-12.json"), load("fred/series_observations_GDP_2024-12.json")
_DB = load("dbnomics/series_dataset_CEPII_CHELEM-TRADE-CHEL_2024-09_trimmed.json")
_DOC = _DB["series"]["docs"][0]

PARSERS = {  # name: (parse(payload), the recorded payload to mutate)
    "manifold": (lambda i: manifold.parse_market(i, AS_OF), _MARKET),
    "polymarket": (lambda i: polymarket.parse_market(i, AS_OF), _GAMMA),
    "polymarket-history-point": (lambda pt: polymarket.parse_price_history({"history": [pt]}, "polymarket:1"), _HISTORY["history"][0]),
    "kalshi": (lambda i: kalshi.parse_market(i, AS_OF), _KALSHI),
    "metaculus-question": (lambda q: metaculus.parse_market({**_POST, "question": q}, AS_OF), _POST["question"]),
    "metaculus-aggregate": (
        lambda a: metaculus.parse_market({**_POST, "question": {**_POST["question"], "aggregations": {"recency_weighted": {"latest": a}}}}, AS_OF),
        _POST["question"]["aggregations"]["recency_weighted"]["latest"],
    ),
    "fred-series": (lambda r: fred.parse_series("GDP", ({"seriess": [r]}, _FRED_OBS)), _FRED_INFO["seriess"][0]),
    "fred-observation": (lambda r: fred.parse_series("GDP", (_FRED_INFO, {"observations": [r]})), _FRED_OBS["observations"][0]),
    "dbnomics-doc": (lambda d: dbnomics.parse_series("CEPII/X/Y", {"series": {"docs": [d]}}), _DOC),
}


@pytest.mark.parametrize("name", sorted(PARSERS))
def test_every_mutated_payload_parses_or_fails_as_one_item(name):
    parse, recorded = PARSERS[name]
    assert not isinstance(outcome(parse, recorded), Exception)  # the recorded payload itself parses
    failures, parsed = 0, []
    for payload in variants(recorded):
        result = outcome(parse, payload)
        if isinstance(result, Exception):
            failures += 1
            assert str(result), f"{name}: an empty failure message for {payload!r:.200}"
        else:
            parsed += observations_of(result)
    assert failures > 0 and parsed
    frame = observation_frame(parsed, AS_OF).drop_duplicates(["question_id", "observed_at", "recorded_at"])
    to_csv_bytes(frame, OBSERVATIONS)  # the ledger write accepts every value that was parsed


@pytest.mark.parametrize(
    "parse",
    [p for n, (p, _) in PARSERS.items() if n != "metaculus-aggregate"]
    + [
        lambda p: fred.parse_series("GDP", (p, p)),
        lambda p: dbnomics.parse_series("A/B/C", p),
        lambda p: polymarket.parse_price_history(p, "polymarket:1"),
    ],
)
def test_whole_payloads_of_the_wrong_shape_fail_as_one_item(parse):
    for payload in [*GARBAGE, [_MARKET], {"data": [_MARKET]}]:
        assert isinstance(outcome(parse, payload), Exception) or payload == {}


@pytest.mark.parametrize(
    "value, reason",
    [("NaN", "not a finite number"), ("Infinity", "not a finite number"), (1e308 * 10, "not a finite number"), ("1e400", "not a finite number")],
)
def test_a_non_finite_probability_is_a_named_failure(value, reason):
    with pytest.raises(ParseError, match=reason):
        manifold.parse_market({**_MARKET, "probability": value}, AS_OF)


@pytest.mark.parametrize("stamp", [1e308, 10**30, -1e20, "NaN"])
def test_an_impossible_timestamp_is_a_named_failure(stamp):
    with pytest.raises(ParseError, match="timestamp"):
        manifold.parse_market({**_MARKET, "createdTime": stamp}, AS_OF)
    with pytest.raises(ParseError, match="timestamp"):
        polymarket.parse_price_history({"history": [{"t": stamp, "p": 0.5}]}, "polymarket:1")


# -- through the shell: a fetch with garbage in it ----------------------------------------------------


def _client(search: bytes, single: dict[str, bytes], content_type: str = "application/json") -> httpx.Client:
    def handler(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path.endswith("/search-markets"):
            return httpx.Response(200, content=search, headers={"Content-Type": content_type})
        nid = path.rsplit("/", 1)[-1]
        return httpx.Response(200, content=single[nid]) if nid in single else httpx.Response(404)

    return httpx.Client(transport=httpx.MockTransport(handler))


def _fetch(client: httpx.Client, tracked: set[str]):
    source = ManifoldSource({"retries": 0, "rate_per_second": 0, "min_bettors": 0, "min_liquidity": 0}, sleep=lambda s: None)
    return source.fetch(FetchContext(as_of=AS_OF, options={}, tracked=frozenset(tracked), client=client))


def test_garbage_markets_become_named_failures_and_good_ones_still_arrive():
    good = dict(_MARKET, id="good", isResolved=False, closeTime=None)
    page = [
        good,
        dict(good, id="nan", probability="NaN"),
        dict(good, id="far", createdTime=1e300),
        dict(good, id="nulls", **{k: None for k in good if k != "id"}),
        "a string",
        None,
        [1, 2],
        dict(good, id=None),
    ]
    single = {"gone": b"<!doctype html><title>502</title>", "listy": b"[1, 2, 3]", "nested": json.dumps({"id": {"a": [None]}}).encode()}
    tracked = {f"manifold:{i}" for i in ("nan", "far", "nulls", "gone", "listy", "nested")}
    result = _fetch(_client(json.dumps(page).encode(), single), tracked)
    assert [q.id for q in result.questions] == ["manifold:good"]
    assert [o.question_id for o in result.observations] == ["manifold:good"]
    reasons = {f.item: f.reason for f in result.failures}
    assert "not a finite number" in reasons["manifold market nan"]
    assert "timestamp" in reasons["manifold market far"]
    assert "malformed JSON" in reasons["manifold market gone"]
    assert "manifold market nulls" in reasons and len(result.failures) == 10  # 4 bad ids + 3 bad markets + 3 bad reads
    assert all(f.item.startswith("manifold market ") and f.reason for f in result.failures)
    to_csv_bytes(observation_frame(result.observations, AS_OF), OBSERVATIONS)


def test_a_market_value_outside_0_1_is_a_named_failure_not_a_ledger_row():
    """A probability of 1.5 or -0.2 would become a freeze value, a crowd forecast and a proxy outcome."""
    good = dict(_MARKET, id="good", isResolved=False, closeTime=None)
    page = [good, dict(good, id="high", probability=1.5), dict(good, id="low", probability=-0.2), dict(good, id="one", probability=1)]
    result = _fetch(_client(json.dumps(page).encode(), {}), set())
    assert [o.question_id for o in result.observations] == ["manifold:good", "manifold:one"]
    reasons = {f.item: f.reason for f in result.failures}
    assert reasons == {
        "manifold market high": "market value 1.5 is not a probability in [0, 1]",
        "manifold market low": "market value -0.2 is not a probability in [0, 1]",
    }


@pytest.mark.parametrize(
    "body, words",
    [
        (b"<!doctype html><html><body>Cloudflare: checking your browser</body></html>", "malformed JSON"),
        (b"", "malformed JSON"),
        (b"[" * 100_000, "malformed JSON"),
        (json.dumps({"markets": []}).encode(), "no list"),
        (b"null", "no list"),
    ],
)
def test_a_page_that_is_not_a_list_of_markets_is_one_clear_source_error(body, words):
    with pytest.raises(SourceError, match=words) as info:
        _fetch(_client(body, {}, "text/html"), set())
    assert "search-markets" in str(info.value)


def test_an_empty_page_is_no_data_not_an_error():
    result = _fetch(_client(b"[]", {}), set())
    assert (result.questions, result.observations, result.failures) == ([], [], [])
