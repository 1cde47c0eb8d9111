"""DBnomics v22 (no key). One dataset Question per configured ``PROVIDER/DATASET/SERIES`` code
(``dbnomics:<code>``), read with ``GET /series/<code>?observations=1``; the series is
``series.docs[0]`` whose ``period_start_day`` and ``value`` are parallel arrays. ``"NA"`` and
null values are skipped. ``observed_at`` is the period's first day at 00:00 UTC.

Options (``[sources.dbnomics]``): series (list of codes, required), base_url,
category ("economics"), plus the http.py keys (concurrency (4), rate_per_second (4)).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..vocabulary import DATASET
from ._util import ParseError, date_to_dt, item_hash, require, to_float
from .base import Observation, Question
from .http import Http
from .shell import SeriesSource

NAME = "dbnomics"
BASE_URL = "https://api.db.nomics.world/v22"
DEFAULTS = {"concurrency": 4, "rate_per_second": 4}
MISSING = (None, "NA")


def series_doc(payload: Any) -> Mapping[str, Any]:
    docs = (payload.get("series") or {}).get("docs") if isinstance(payload, Mapping) else None
    if not docs or not isinstance(docs[0], Mapping):
        raise ParseError("missing series.docs")
    return docs[0]


def parse_question(code: str, doc: Mapping[str, Any], category: str = "economics") -> Question:
    dataset = str(doc.get("dataset_name") or doc.get("dataset_code") or "")
    provider = str(doc.get("provider_code") or code.split("/")[0])
    return Question(
        id=f"{NAME}:{code}", source=NAME, kind=DATASET,
        text=str(doc.get("series_name") or require(doc, "series_code")),
        background=f"{dataset} ({provider}), frequency {doc.get('@frequency', 'unknown')}.",
        url=f"https://db.nomics.world/{code}", category=category,
    )  # fmt: skip


def parse_observations(code: str, doc: Mapping[str, Any]) -> list[Observation]:
    """Zip ``period_start_day`` with ``value`` into open observations; NA/null are skipped."""
    days, values = require(doc, "period_start_day"), require(doc, "value")
    periods = doc.get("period") or [None] * len(days)
    if not len(days) == len(values) == len(periods):
        raise ParseError(f"period_start_day ({len(days)}) and value ({len(values)}) differ in length")
    qid = f"{NAME}:{code}"
    return [
        Observation(qid, date_to_dt(day), to_float(value, "value"), "open", None,
                    item_hash({"series": code, "period": period, "period_start_day": day,
                               "value": value}))
        for day, value, period in zip(days, values, periods, strict=True)
        if value not in MISSING
    ]  # fmt: skip


def parse_series(code: str, payload: Any, category: str = "economics"):
    doc = series_doc(payload)
    return parse_question(code, doc, category), parse_observations(code, doc)


def fetch_series(http: Http, base_url: str, opts: Mapping[str, Any], env: Mapping[str, str], code: str):
    payload, _ = http.get(f"{base_url}/series/{code}", {"observations": 1, "format": "json"})
    return payload


class DbnomicsSource(SeriesSource):
    name, base_url, defaults = NAME, BASE_URL, DEFAULTS
    read = staticmethod(fetch_series)
    parse = staticmethod(parse_series)
