"""The demo's fetch lane (``pipeline.fetch_lane``): each night's fetch made in a forked process while
the night before is scored, committed and submitted to, with the same history, commit for commit."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from generator.errors import PrescientError
from generator.pipeline import fetch_lane
from generator.pipeline.demo import run_demo, season
from generator.sources.sim import SimSource
from generator.store.hub import Hub

NIGHTS = season()[:60]  # rounds opened, due, sealed and scored; pull requests merged; receipts recorded


def refs(root: Path) -> str:
    listing = ["git", "-C", str(root), "for-each-ref", "--format=%(objectname) %(refname)"]
    return subprocess.run(listing, capture_output=True, text=True, check=True).stdout


@pytest.mark.slow
def test_the_lane_gives_the_plain_seasons_history_commit_for_commit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    forked: list[bool] = []
    made = fetch_lane.FetchLane.__init__

    def noting(self, *args, **kwargs):
        made(self, *args, **kwargs)
        forked.append(self.companion.process is not None)

    monkeypatch.setattr(fetch_lane.FetchLane, "__init__", noting)
    run_demo(tmp_path / "plain", nights=NIGHTS, build=False, fetch_lane=False)
    run_demo(tmp_path / "lane", nights=NIGHTS, build=False)
    assert forked == [True]  # the lane's fetches ran in their own process
    plain, lane = refs(tmp_path / "plain"), refs(tmp_path / "lane")
    assert "refs/heads/main" in plain and "refs/pull/" in plain and "refs/heads/prescient-receipts" in plain
    assert lane == plain  # every commit's tree, parents, author and date: every byte of every night


@pytest.mark.parametrize("step", ["read", "write"])
@pytest.mark.parametrize("ahead", [True, False])
def test_a_failed_fetch_in_the_lane_is_the_demos_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: str, ahead: bool):
    """A fetch that fails in the lane, whether reading the sources (told ahead, its failure raised when
    the night asks for its fetch) or writing the rows, stops the demo with the night and the cause."""
    run_demo(tmp_path / "demo", nights=NIGHTS[:1], build=False)
    hub = Hub.load(tmp_path / "demo")

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(fetch_lane.NightFetch, step, broken)
    with fetch_lane.FetchLane(hub, {"sim": SimSource({})}, {}) as lane, pytest.raises(PrescientError, match="2026-01-05.*disk full"):
        if ahead:
            lane.read_ahead(NIGHTS[1])
        lane.fetch(NIGHTS[1])


def test_a_night_read_ahead_is_the_one_written(tmp_path: Path):
    """The lane's rows read ahead belong to that night: asked for another, it refuses rather than
    write them as that night's."""
    run_demo(tmp_path / "demo", nights=NIGHTS[:1], build=False)
    hub = Hub.load(tmp_path / "demo")
    with fetch_lane.FetchLane(hub, {"sim": SimSource({})}, {}) as lane, pytest.raises(PrescientError, match="read the night of 2026-01-06.*ahead"):
        lane.read_ahead(NIGHTS[2])
        lane.fetch(NIGHTS[1])
