"""Resolved markets are read again for a window: `reread_days` and `reread_max` of a market
source. A recorded Manifold market, served through a mock transport, resolves YES and later NO at the
source: the nightly records the change as a new row, which is a re-resolution on the Changes page;
each night reads at most `reread_max` resolved markets, in turn, and none once the window has passed."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import httpx
import pandas as pd
import pytest

from generator.pipeline.nightly import nightly
from generator.scoring.corrections import corrections
from generator.timeutil import parse_ts

from helpers import MANIFOLD_API, MANIFOLD_HUB, write_hub

pytestmark = pytest.mark.e2e

RESOLVED_AT = 1786000000000  # 2026-08-06T07:06:40Z, in Manifold's milliseconds


class Source:
    """Manifold as the recorded payloads say, its markets resolved YES from ``resolved`` on, the first one NO
    from ``flipped`` on (fields changed by name: isResolved, resolution, resolutionTime); counts the reads."""

    def __init__(self):
        self.search = json.loads((MANIFOLD_API / "search_markets_binary_open_2026-08.json").read_text())
        self.state, self.reads = "open", Counter()

    def client(self) -> httpx.Client:
        def handler(request: httpx.Request) -> httpx.Response:
            if request.url.path.endswith("/search-markets"):
                first = int(request.url.params.get("offset", "0")) == 0
                return httpx.Response(200, json=self.search if first and self.state == "open" else [])
            for i, market in enumerate(self.search):
                if request.url.path.endswith(f"/market/{market['id']}"):
                    self.reads[market["id"]] += 1
                    if self.state == "open":
                        return httpx.Response(200, json=market)
                    answer = "NO" if self.state == "flipped" and i == 0 else "YES"
                    return httpx.Response(200, json=dict(market, isResolved=True, resolution=answer, resolutionTime=RESOLVED_AT))
            return httpx.Response(404, json={"message": "not found"})

        return httpx.Client(transport=httpx.MockTransport(handler))

    def night(self, root: Path, at: str) -> Counter:
        self.reads = Counter()
        nightly(root, parse_ts(at), client=self.client(), env={})
        return self.reads


def observations(root: Path) -> pd.DataFrame:
    from generator.store.hub import Hub
    from generator.store.readers import load_observations

    return load_observations(Hub.load(root))


def test_a_changed_outcome_in_the_window_is_a_correction_read_in_turn_at_a_bounded_cost_and_not_after(tmp_path):
    root = write_hub(tmp_path / "hub", MANIFOLD_HUB + "reread_days = 3\nreread_max = 1\n")
    source = Source()
    ids = [m["id"] for m in source.search]
    source.night(root, "2026-08-05T12:00:00Z")
    source.state = "resolved"
    assert set(source.night(root, "2026-08-06T12:00:00Z")) == set(ids), "open markets missing from discovery are read"
    assert (observations(root)["status"] == "resolved").sum() == 3

    source.state = "flipped"  # the source resolves the first market the other way
    nights = ["2026-08-07T12:00:00Z", "2026-08-08T12:00:00Z", "2026-08-09T12:00:00Z"]
    reads = [source.night(root, at) for at in nights]
    assert all(sum(r.values()) == 1 for r in reads), f"at most reread_max resolved markets a night: {reads}"
    assert {i for r in reads for i in r} == set(ids), "taken in turn, every one is read again within the window"

    found = corrections(observations(root), nights[-1])
    assert len(found) == 1, found
    fixed = found.iloc[0]
    assert (fixed["question_id"], fixed["kind"]) == (f"manifold:{ids[0]}", "re-resolution")
    assert (fixed["old_outcome"], fixed["new_outcome"]) == (1.0, 0.0)

    assert not source.night(root, "2026-08-10T12:00:00Z"), "after the window a resolved market is never read again"


def test_no_window_reads_no_resolved_market(tmp_path):
    root = write_hub(tmp_path / "hub", MANIFOLD_HUB + "reread_days = 0\n")
    source = Source()
    source.night(root, "2026-08-05T12:00:00Z")
    source.state = "resolved"
    source.night(root, "2026-08-06T12:00:00Z")
    source.state = "flipped"
    assert not source.night(root, "2026-08-07T12:00:00Z")
    assert corrections(observations(root), "2026-08-07T12:00:00Z").empty
