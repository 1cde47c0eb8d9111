"""FRED (key from env ``FRED_API_KEY``). One dataset Question per configured series id
(``fred:<SERIES>``), from ``GET /fred/series``; observations from ``GET /fred/series/observations``
(value strings; ``"."`` means missing and that date is skipped). ``observed_at`` is the
observation date at 00:00 UTC. Without a key the source is skipped, not failed.

Options (``[sources.fred]``): series (list of ids, required), base_url, observation_start
(``YYYY-MM-DD``, optional), category ("economics"), plus the http.py keys (concurrency (2),
rate_per_second (2)). The key is sent as a query parameter and never appears in error messages.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..vocabulary import DATASET
from ._util import ParseError, date_to_dt, item_hash, require, to_float
from .base import Observation, Question
from .http import Http
from .shell import SeriesSource

NAME = "fred"
BASE_URL = "https://api.stlouisfed.org/fred"
KEY_ENV = "FRED_API_KEY"
DEFAULTS = {"concurrency": 2, "rate_per_second": 2}
MISSING = "."


def parse_info(series_id: str, info: Any, category: str = "economics") -> Question:
    """``/fred/series`` (note the key ``seriess``) → the dataset Question. Pure."""
    rows = info.get("seriess") if isinstance(info, Mapping) else None
    if not rows or not isinstance(rows[0], Mapping):
        raise ParseError("missing seriess")
    row = rows[0]
    title = str(require(row, "title"))
    facts = "; ".join(str(row[k]) for k in ("units", "frequency", "seasonal_adjustment") if row.get(k))
    parts = (f"{title} ({facts})." if facts else "", str(row.get("notes") or ""))
    background = "\n\n".join(part for part in parts if part)
    return Question(
        id=f"{NAME}:{series_id}", source=NAME, kind=DATASET, text=title, background=background,
        url=f"https://fred.stlouisfed.org/series/{series_id}", category=category,
    )  # fmt: skip


def parse_observations(series_id: str, payload: Any) -> list[Observation]:
    """``/fred/series/observations`` → one open Observation per dated value; "." is skipped."""
    rows = payload.get("observations") if isinstance(payload, Mapping) else None
    if not isinstance(rows, list):
        raise ParseError("missing observations")
    qid = f"{NAME}:{series_id}"
    return [
        Observation(qid, date_to_dt(require(row, "date")), to_float(row["value"], "value"),
                    "open", None, item_hash(row))
        for row in rows
        if require(row, "value") != MISSING
    ]  # fmt: skip


def parse_series(series_id: str, payloads: tuple[Any, Any], category: str = "economics"):
    info, observations = payloads
    return parse_info(series_id, info, category), parse_observations(series_id, observations)


def fetch_series(http: Http, base_url: str, opts: Mapping[str, Any], env: Mapping[str, str], series_id):
    """Series metadata and observations; the key goes in the query string only."""
    params = {"series_id": series_id, "api_key": str(env[KEY_ENV]).strip(), "file_type": "json"}
    info, _ = http.get(f"{base_url}/series", params)
    extra = {"observation_start": opts["observation_start"]} if opts.get("observation_start") else {}
    observations, _ = http.get(f"{base_url}/series/observations", {**params, **extra})
    return info, observations


class FredSource(SeriesSource):
    name, base_url, defaults = NAME, BASE_URL, DEFAULTS
    read = staticmethod(fetch_series)
    parse = staticmethod(parse_series)

    def skip_reason(self, env: Mapping[str, str]) -> str | None:
        if str(env.get(KEY_ENV, "")).strip():
            return None
        return f"{KEY_ENV} is not set; FRED requires a (free) API key"
