"""A nightly run over live sources, served recorded payloads through a mock transport: the pipeline
cannot tell them from the network, quiet nights add nothing, and a resolution is a new row."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pandas as pd
import pytest

from generator.pipeline.nightly import nightly
from generator.timeutil import parse_ts

from helpers import MANIFOLD_API, MANIFOLD_HUB, tree_bytes, write_hub

pytestmark = pytest.mark.e2e


def transport(resolved: bool) -> httpx.Client:
    search = json.loads((MANIFOLD_API / "search_markets_binary_open_2026-08.json").read_text())
    target = search[0]["id"]

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/search-markets"):
            offset = int(request.url.params.get("offset", "0"))
            items = [m for m in search if not (resolved and m["id"] == target)] if offset == 0 else []
            return httpx.Response(200, json=items)
        if request.url.path.endswith(f"/market/{target}"):
            item = dict(search[0], isResolved=True, resolution="YES", resolutionTime=1786000000000)
            return httpx.Response(200, json=item)
        return httpx.Response(404, json={"message": "not found"})

    return httpx.Client(transport=httpx.MockTransport(handler))


def test_live_source_nightly_is_idempotent_and_records_a_resolution_as_a_new_row(tmp_path: Path):
    root = write_hub(tmp_path / "hub", MANIFOLD_HUB)
    first = nightly(root, parse_ts("2026-08-05T12:00:00Z"), client=transport(False), env={})
    assert first.sources[0].new_questions == 3 and first.sources[0].new_observations == 3
    assert first.rounds_opened == []  # the round due 2026-08-16 opens on 2026-08-06
    before = tree_bytes(root)
    nightly(root, parse_ts("2026-08-05T12:00:00Z"), client=transport(False), env={})
    assert tree_bytes(root) == before

    quiet = nightly(root, parse_ts("2026-08-06T12:00:00Z"), client=transport(False), env={})
    assert quiet.sources[0].new_observations == 0  # unchanged values are not appended again
    assert quiet.rounds_opened == ["2026-08-16"]

    later = nightly(root, parse_ts("2026-08-07T12:00:00Z"), client=transport(True), env={})
    assert later.sources[0].resolved == 1
    obs = pd.read_csv(next((root / "data/observations/manifold").glob("*.csv")), keep_default_na=False)
    assert len(obs) == 4 and obs["status"].tolist().count("resolved") == 1
    assert all(len(h) == 64 for h in obs["payload_sha256"])
    assert tree_bytes(root)["data/observations/manifold/2026-08.csv"].startswith(before["data/observations/manifold/2026-08.csv"])


FAULTY_HUB = (
    MANIFOLD_HUB
    + """
[sources.dbnomics]
enabled = true
series = ["ECB/EXR/D.USD.EUR.SP00.A"]
retries = 1
backoff = 0
"""
)


def faulty_transport(search_status: int = 200, broken_item: bool = False) -> httpx.Client:
    """Manifold answers (one item malformed if asked); DBnomics is down for the whole run."""
    search = json.loads((MANIFOLD_API / "search_markets_binary_open_2026-08.json").read_text())
    if broken_item:
        search = [dict(search[0], probability="not a number")] + search[1:]

    def handler(request: httpx.Request) -> httpx.Response:
        if "db.nomics" in request.url.host:
            return httpx.Response(503, text="maintenance")
        if request.url.path.endswith("/search-markets"):
            offset = int(request.url.params.get("offset", "0"))
            return httpx.Response(search_status, json=search if offset == 0 else [])
        return httpx.Response(404, json={"message": "not found"})

    return httpx.Client(transport=httpx.MockTransport(handler))


def test_an_outage_and_a_malformed_item_lose_nothing_else(tmp_path: Path):
    import pytest

    from generator.errors import PartialFailure

    root = write_hub(tmp_path / "hub", FAULTY_HUB)
    with pytest.raises(PartialFailure) as info:
        nightly(root, parse_ts("2026-08-05T12:00:00Z"), client=faulty_transport(broken_item=True), env={})
    by_name = {s.name: s for s in info.value.run_report.sources}
    assert by_name["dbnomics"].error and "503" in by_name["dbnomics"].error
    assert by_name["manifold"].new_observations == 2
    assert [f.split(":")[0] for f in by_name["manifold"].failures] == ["manifold market lqtROphAhp"]
    obs = pd.read_csv(root / "data/observations/manifold/2026-08.csv", keep_default_na=False)
    assert sorted(obs["question_id"]) == ["manifold:2IyO0gUAUd", "manifold:udAUupudlE"]
    assert not (root / "data/observations/dbnomics").exists()
    assert not (root / "data/questions/dbnomics.csv").exists()

    with pytest.raises(PartialFailure):  # the next night the broken item is fine: it is added, nothing else
        nightly(root, parse_ts("2026-08-06T12:00:00Z"), client=faulty_transport(), env={})
    obs = pd.read_csv(root / "data/observations/manifold/2026-08.csv", keep_default_na=False)
    assert len(obs) == 3 and obs["question_id"].nunique() == 3
