"""Metaculus (token from env ``METACULUS_TOKEN``, sent as ``Authorization: Token <token>``).
Discovery: ``GET /posts/?forecast_type=binary&statuses=open&with_cp=true`` (same paging stop rule
as Manifold); tracked posts still unseen: ``GET /posts/{post_id}/``. Question ids use the post
id (``metaculus:<post id>``).

``value`` is the community aggregate ``question.aggregations.recency_weighted.latest.centers[0]``
(P(yes); ``forecast_values[1]`` as a fallback). While the community prediction is hidden
(``latest`` null) an open question has no observation. Resolution: ``question.resolution``
yes → 1, no → 0, annulled/ambiguous → void. Without a token the source is skipped, not failed.

Options (``[sources.metaculus]``): base_url, min_forecasters (20), max_markets (500),
page_size (100), max_pages (10), plus the http.py keys (concurrency (2), rate_per_second (2)).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from ..errors import SourceError
from ..vocabulary import MARKET
from ._util import ParseError, item_hash, list_at, number_or, parse_time, require, to_float
from .base import FetchResult, Observation, Question
from .http import FetchError, Http
from .shell import MarketSource  # fmt: skip

NAME = "metaculus"
BASE_URL = "https://www.metaculus.com/api"
TOKEN_ENV = "METACULUS_TOKEN"
DEFAULTS = {"concurrency": 2, "rate_per_second": 2}
VOID = ("annulled", "ambiguous")


def single_question(post: Mapping[str, Any]) -> Mapping[str, Any]:
    question = post.get("question")
    if not isinstance(question, Mapping):
        raise ParseError("missing question (group or conditional post)")
    if question.get("type") != "binary":
        raise ParseError(f"not a binary question ({question.get('type')})")
    return question


def community_yes(question: Mapping[str, Any]) -> float | None:
    """P(yes) from the recency-weighted community aggregate; None while hidden."""
    aggregations = require(question, "aggregations")
    latest = (aggregations.get("recency_weighted") or {}).get("latest")
    if not latest:
        return None
    if latest.get("centers"):
        return to_float(latest["centers"][0], "centers[0]")
    return to_float(require(latest, "forecast_values")[1], "forecast_values[1]")


def parse_status(question: Mapping[str, Any]) -> tuple[str, float | None]:
    resolution = question.get("resolution")
    if resolution in (None, ""):
        return "open", None
    resolution = str(resolution).lower()
    if resolution in ("yes", "no"):
        return "resolved", 1.0 if resolution == "yes" else 0.0
    if resolution in VOID:
        return "void", None
    raise ParseError(f"unknown resolution {resolution!r}")


def category(post: Mapping[str, Any]) -> str:
    projects = post.get("projects") or {}
    for kind in ("category", "topic"):
        names = [p.get("name") for p in projects.get(kind) or [] if isinstance(p, Mapping)]
        if any(names):
            return str(next(filter(None, names)))
    return ""


def parse_question(post: Mapping[str, Any], question: Mapping[str, Any]) -> Question:
    post_id = require(post, "id")
    keys = ("resolution_criteria", "fine_print")
    criteria = "\n\n".join(str(question[k]) for k in keys if question.get(k))
    return Question(
        id=f"{NAME}:{post_id}", source=NAME, kind=MARKET,
        text=str(question.get("title") or require(post, "title")),
        background=str(question.get("description") or ""), resolution_criteria=criteria,
        url=f"https://www.metaculus.com/questions/{post_id}/", category=category(post),
        open_time=parse_time(question.get("open_time") or post.get("open_time")),
        close_time=parse_time(question.get("scheduled_close_time") or post.get("scheduled_close_time")),
    )  # fmt: skip


def parse_market(post: Mapping[str, Any], as_of: datetime) -> tuple[Question, Observation | None]:
    """One post → (Question, Observation or None while the aggregate is hidden). Pure."""
    question = single_question(post)
    parsed = parse_question(post, question)
    status, outcome = parse_status(question)
    value = community_yes(question)
    if value is None and status == "open":
        return parsed, None
    return parsed, Observation(parsed.id, as_of, value, status, outcome, item_hash(post))


def qualifies(post: Mapping[str, Any], opts: Mapping[str, Any], as_of: datetime | None = None) -> bool:
    """An open binary question with a visible aggregate and enough forecasters."""
    try:
        question = single_question(post)
        visible = community_yes(question) is not None
    except ParseError:
        return False
    return (
        visible and post.get("status") == "open" and question.get("resolution") in (None, "")
        and number_or(post, "nr_forecasters") >= float(opts.get("min_forecasters", 20))
    )  # fmt: skip


def fetch_page(http: Http, base_url: str, opts: Mapping[str, Any], offset: int):
    """One page of open binary posts with the community prediction included."""
    size = int(opts.get("page_size", 100))
    params = {"forecast_type": "binary", "statuses": "open", "with_cp": "true", "order_by": "-hotness"}
    payload, _ = http.get(f"{base_url}/posts/", {**params, "limit": size, "offset": offset})
    items = list_at(payload, "metaculus posts", "results")
    return items, (offset + size if len(items) >= size else None)


def fetch_post(http: Http, base_url: str, post_id: str) -> Mapping[str, Any]:
    payload, _ = http.get(f"{base_url}/posts/{post_id}/")
    return payload


class MetaculusSource(MarketSource):
    name, label, base_url, defaults = NAME, "metaculus post", BASE_URL, DEFAULTS
    qualifies = staticmethod(qualifies)
    parse = staticmethod(parse_market)
    fetch_page = staticmethod(fetch_page)
    read_one = staticmethod(fetch_post)

    def skip_reason(self, env: Mapping[str, str]) -> str | None:
        if str(env.get(TOKEN_ENV, "")).strip():
            return None
        return f"{TOKEN_ENV} is not set; Metaculus requires an API token"

    def headers(self, env: Mapping[str, str]) -> dict[str, str]:
        return {"Authorization": f"Token {str(env[TOKEN_ENV]).strip()}"}

    def collect(self, http, base_url, opts, ctx) -> FetchResult:
        try:
            return super().collect(http, base_url, opts, ctx)
        except FetchError as exc:
            if exc.status in (401, 403):
                raise SourceError(f"metaculus: {TOKEN_ENV} was rejected (HTTP {exc.status})") from exc
            raise
