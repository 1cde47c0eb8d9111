"""FRED adapter: series observations ("." skipped), key handling, per-series isolation."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import httpx
import pytest

from generator.errors import SourceError
from generator.sources._util import ParseError, item_hash
from generator.sources.base import FetchContext
from generator.sources.fred import FredSource, parse_info, parse_observations
from generator.vocabulary import DATASET

from helpers import API_DATA

DATA = API_DATA / "fred"
AS_OF = datetime(2026, 11, 22, tzinfo=UTC)
ENV = {"FRED_API_KEY": "k3y"}


def load(name: str):
    return json.loads((DATA / name).read_text(encoding="utf-8"))


class Sleeps(list):
    def __call__(self, seconds):
        self.append(seconds)


def test_parse_observations_skips_dots():
    payload = load("series_observations_GDP_2024-12.json")
    obs = parse_observations("GDP", payload)
    dots = sum(row["value"] == "." for row in payload["observations"])
    assert dots == 4 and len(obs) == 315 - dots
    assert (obs[0].observed_at, obs[0].value) == (datetime(1947, 1, 1, tzinfo=UTC), 243.164)
    assert (obs[-1].observed_at, obs[-1].value) == (datetime(2024, 7, 1, tzinfo=UTC), 29374.914)
    assert {(o.question_id, o.status, o.outcome) for o in obs} == {("fred:GDP", "open", None)}
    assert obs[-1].payload_sha256 == item_hash(payload["observations"][-1])


def test_parse_info():
    question = parse_info("GDP", load("series_GDP_2024-12.json"))
    assert (question.id, question.kind, question.text) == ("fred:GDP", DATASET, "Gross Domestic Product")
    assert question.url == "https://fred.stlouisfed.org/series/GDP"
    assert question.background.startswith(
        "Gross Domestic Product (Billions of Dollars; Quarterly; Seasonally Adjusted Annual Rate).\n\nBEA Account Code"
    )
    assert question.category == "economics"


def test_bad_values_are_named():
    with pytest.raises(ParseError, match="value is not a number: 'n/a'"):
        parse_observations("X", {"observations": [{"date": "2024-01-01", "value": "n/a"}]})
    with pytest.raises(ParseError, match="missing observations"):
        parse_observations("X", {"error_message": "Bad Request"})
    with pytest.raises(ParseError, match="missing seriess"):
        parse_info("X", {"series": []})


def fetch(routes, options, env=ENV, tracked=()):
    seen = []

    def handler(request):
        seen.append(request)
        series = request.url.params.get("series_id")
        route = routes.get((request.url.path, series))
        if isinstance(route, list):
            route = route.pop(0) if len(route) > 1 else route[0]
        if isinstance(route, Exception):
            raise route
        return route or httpx.Response(400, json={"error_code": 400, "error_message": "Bad Request."})

    client = httpx.Client(transport=httpx.MockTransport(handler))
    source = FredSource({"rate_per_second": 0, **options}, sleep=Sleeps())
    return source.fetch(FetchContext(AS_OF, {}, frozenset(tracked), client, env)), seen


GDP_ROUTES = {
    ("/fred/series", "GDP"): httpx.Response(200, json=load("series_GDP_2024-12.json")),
    ("/fred/series/observations", "GDP"): httpx.Response(200, json=load("series_observations_GDP_2024-12.json")),
}


def test_no_key_is_skipped():
    result, seen = fetch({}, {"series": ["GDP"]}, env={})
    assert result.skipped == "FRED_API_KEY is not set; FRED requires a (free) API key"
    assert seen == [] and result.observations == []


def test_fetch_one_question_per_series_and_isolates_a_bad_series():
    result, seen = fetch(dict(GDP_ROUTES), {"series": ["GDP", "NOPE"], "observation_start": "2024-01-01"})
    assert [q.id for q in result.questions] == ["fred:GDP"]
    assert len(result.observations) == 311
    assert [f.item for f in result.failures] == ["fred series NOPE"]
    assert result.failures[0].reason == "GET https://api.stlouisfed.org/fred/series: HTTP 400 Bad Request"
    assert "k3y" not in result.failures[0].reason
    assert all(r.url.params["api_key"] == "k3y" and r.url.params["file_type"] == "json" for r in seen)
    observations_request = next(r for r in seen if r.url.path.endswith("/observations"))
    assert observations_request.url.params["observation_start"] == "2024-01-01"


def test_fetch_tracked_series_not_configured_is_still_read():
    result, _ = fetch(dict(GDP_ROUTES), {"series": []}, tracked={"fred:GDP"})
    assert [q.id for q in result.questions] == ["fred:GDP"]


def test_fetch_all_series_down_is_an_outage():
    routes = {("/fred/series", "GDP"): httpx.ReadTimeout("slow"), ("/fred/series", "UNRATE"): httpx.Response(503)}
    with pytest.raises(SourceError, match="fred: all 2 reads failed"):
        fetch(routes, {"series": ["GDP", "UNRATE"], "retries": 1})
