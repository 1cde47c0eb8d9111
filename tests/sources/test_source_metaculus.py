"""Metaculus adapter: community aggregate, resolutions, token handling."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime

import httpx
import pytest

from generator.errors import SourceError
from generator.sources._util import ParseError, item_hash
from generator.sources.base import Failure, FetchContext
from generator.sources.metaculus import MetaculusSource, parse_market, qualifies

from helpers import API_DATA

DATA = API_DATA / "metaculus"
AS_OF = datetime(2026, 11, 22, tzinfo=UTC)
ENV = {"METACULUS_TOKEN": "tok-123"}


def load(name: str):
    return json.loads((DATA / name).read_text(encoding="utf-8"))


def post_578():
    return load("post_578_binary_open_with_cp_2025-08.json")


def resolved(resolution):
    """The real open post 578 with a resolution set, as the API docs describe (see README.md)."""
    post = post_578()
    post["status"], post["resolved"] = "resolved", True
    post["question"]["status"], post["question"]["resolution"] = "resolved", resolution
    return post


class Sleeps(list):
    def __call__(self, seconds):
        self.append(seconds)


def test_open_post_with_community_prediction():
    post = post_578()
    question, obs = parse_market(post, AS_OF)
    assert question.id == "metaculus:578"
    assert question.text == "Will humans go extinct before 2100?"
    assert question.url == "https://www.metaculus.com/questions/578/"
    assert question.category == "Technology"  # projects.category[0]
    assert question.resolution_criteria.startswith("This question will resolve as **Yes** if there are no known humans")
    assert question.background.startswith("While the general feeling of most people")
    assert question.open_time == datetime(2017, 11, 12, 8, tzinfo=UTC)
    assert question.close_time == datetime(2100, 1, 2, tzinfo=UTC)
    assert (obs.value, obs.status, obs.outcome) == (0.01, "open", None)
    assert obs.payload_sha256 == item_hash(post)


@pytest.mark.parametrize(
    "resolution, status, outcome",
    [("yes", "resolved", 1.0), ("no", "resolved", 0.0), ("annulled", "void", None), ("ambiguous", "void", None)],
)
def test_resolutions(resolution, status, outcome):
    _, obs = parse_market(resolved(resolution), AS_OF)
    assert (obs.status, obs.outcome) == (status, outcome)


def test_hidden_aggregate_gives_no_observation_but_a_question():
    binary = load("posts_list_open_no_cp_2025-09_trimmed.json")["results"][1]
    question, obs = parse_market(binary, AS_OF)
    assert question.id == f"metaculus:{binary['id']}" and question.category == "Geopolitics"
    assert obs is None
    assert not qualifies(binary, {})


def test_non_binary_and_unknown_resolution_are_named():
    multiple_choice = load("posts_list_open_no_cp_2025-09_trimmed.json")["results"][0]
    with pytest.raises(ParseError, match=r"not a binary question \(multiple_choice\)"):
        parse_market(multiple_choice, AS_OF)
    with pytest.raises(ParseError, match="unknown resolution 'below_lower_bound'"):
        parse_market(resolved("below_lower_bound"), AS_OF)


def test_qualifies_needs_forecasters():
    assert qualifies(post_578(), {})
    assert not qualifies(post_578(), {"min_forecasters": 10**6})


# --- fetch -------------------------------------------------------------------------------------


def fetch(routes, tracked=(), env=ENV, options=None):
    seen = []

    def handler(request):
        seen.append(request)
        route = routes.get(request.url.path)
        if isinstance(route, Exception):
            raise route
        return route or httpx.Response(404, json={"detail": "Not found."})

    client = httpx.Client(transport=httpx.MockTransport(handler))
    source = MetaculusSource({"rate_per_second": 0, **(options or {})}, sleep=Sleeps())
    return source.fetch(FetchContext(AS_OF, {}, frozenset(tracked), client, env)), seen


def test_no_token_is_skipped_without_any_request():
    result, seen = fetch({}, env={})
    assert result.skipped == "METACULUS_TOKEN is not set; Metaculus requires an API token"
    assert (result.questions, result.observations, result.failures, seen) == ([], [], [], [])


def test_fetch_sends_token_and_reads_tracked_posts():
    listing = {"next": None, "results": [post_578(), load("posts_list_open_no_cp_2025-09_trimmed.json")["results"][0]]}
    routes = {"/api/posts/": httpx.Response(200, json=listing), "/api/posts/99/": httpx.Response(200, json=resolved("annulled"))}
    result, seen = fetch(routes, {"metaculus:99", "metaculus:578"})
    assert {r.headers["Authorization"] for r in seen} == {"Token tok-123"}
    assert dict(seen[0].url.params)["with_cp"] == "true"
    assert [q.id for q in result.questions] == ["metaculus:578"]
    assert [(o.question_id, o.value, o.status) for o in result.observations] == [
        ("metaculus:578", 0.01, "open"),
        ("metaculus:578", 0.01, "void"),
    ]
    assert result.failures == []


def test_fetch_rejected_token_is_a_clear_source_error():
    with pytest.raises(SourceError, match=r"METACULUS_TOKEN was rejected \(HTTP 401\)"):
        fetch({"/api/posts/": httpx.Response(401, json={"detail": "Invalid token."})})


def test_fetch_group_post_is_a_failure():
    group = copy.deepcopy(post_578())
    group["id"] = 7
    del group["question"]
    routes = {"/api/posts/": httpx.Response(200, json={"results": []}), "/api/posts/7/": httpx.Response(200, json=group)}
    result, _ = fetch(routes, {"metaculus:7"})
    assert result.failures == [Failure("metaculus post 7", "missing question (group or conditional post)")]
