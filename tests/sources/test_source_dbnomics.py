"""DBnomics adapter: parallel period/value arrays, NA handling, fetch."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import httpx
import pytest

from generator.sources._util import ParseError
from generator.sources.base import Failure, FetchContext
from generator.sources.dbnomics import DbnomicsSource, parse_series
from generator.vocabulary import DATASET

from helpers import API_DATA

DATA = API_DATA / "dbnomics"
AS_OF = datetime(2026, 11, 22, tzinfo=UTC)
CODE = "CEPII/CHELEM-TRADE-CHEL/AES.AES.CAT.BA"


def sample():
    return json.loads((DATA / "series_dataset_CEPII_CHELEM-TRADE-CHEL_2024-09_trimmed.json").read_text(encoding="utf-8"))


def single(doc_index=0):
    """A single-series response: the same envelope with one doc (see README.md)."""
    payload = sample()
    payload["series"]["docs"] = [payload["series"]["docs"][doc_index]]
    return payload


class Sleeps(list):
    def __call__(self, seconds):
        self.append(seconds)


def test_parse_series():
    question, obs = parse_series(CODE, single())
    assert (question.id, question.kind) == (f"dbnomics:{CODE}", DATASET)
    assert question.text == "Exports from South-East Asia to South-East Asia - Category - BA - Cement, million US dollars"
    assert question.url == f"https://db.nomics.world/{CODE}"
    assert question.background.startswith("CHELEM - International Trade (CHELEM sectoral classification) (CEPII)")
    assert len(obs) == 55
    assert (obs[0].observed_at, obs[0].value) == (datetime(1967, 1, 1, tzinfo=UTC), 4.4180715605)
    assert obs[-1].observed_at == datetime(2021, 1, 1, tzinfo=UTC)
    assert {o.status for o in obs} == {"open"}


def test_na_and_null_values_are_skipped():
    payload = single()
    payload["series"]["docs"][0]["value"][0] = "NA"
    payload["series"]["docs"][0]["value"][1] = None
    _, obs = parse_series(CODE, payload)
    assert len(obs) == 53 and obs[0].observed_at == datetime(1969, 1, 1, tzinfo=UTC)


def test_mismatched_arrays_and_missing_docs_are_named():
    payload = single()
    payload["series"]["docs"][0]["value"].pop()
    with pytest.raises(ParseError, match="differ in length"):
        parse_series(CODE, payload)
    with pytest.raises(ParseError, match="missing series.docs"):
        parse_series(CODE, {"series": {"docs": []}})


def test_fetch_reads_each_code_and_isolates_failures():
    seen = []

    def handler(request):
        seen.append(request.url)
        if request.url.path == f"/v22/series/{CODE}":
            return httpx.Response(200, json=single())
        return httpx.Response(404, json={"message": "series not found"})

    client = httpx.Client(transport=httpx.MockTransport(handler))
    source = DbnomicsSource({"series": [CODE, "X/Y/Z"], "rate_per_second": 0}, sleep=Sleeps())
    result = source.fetch(FetchContext(AS_OF, {}, frozenset(), client))
    assert [q.id for q in result.questions] == [f"dbnomics:{CODE}"]
    assert len(result.observations) == 55
    assert result.failures == [Failure("dbnomics series X/Y/Z", "GET https://api.db.nomics.world/v22/series/X/Y/Z: HTTP 404 Not Found")]
    assert dict(seen[0].params) == {"observations": "1", "format": "json"}
