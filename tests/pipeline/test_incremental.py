"""The nightly's incremental derive (``pipeline.incremental``) writes what a full recompute writes.

Two hubs live through the same random season: hub A runs every night with one ``Hub`` (one
command's read cache, so each night scores only the rounds that what changed can affect), hub B
loads a fresh ``Hub`` every night (an empty memo: every round scored from scratch, as the first
night of any command does). After every night both ``data/`` trees must be identical byte for byte,
and A's score files must equal ``recompute.scores_by_round`` (what ``prescient verify`` recomputes).
The seasons hold new questions, market moves, resolutions, voids, reopenings (corrections), new
and revised series values, forecast files added late to rounds already due, stated resolutions,
and quiet nights.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.pipeline import incremental, memo_store
from generator.pipeline.nightly import nightly
from generator.pipeline.recompute import hub_view, scores_by_round
from generator.schemas import OBSERVATIONS, QUESTIONS, RESOLUTIONS, SCORES
from generator.sources.base import Observation, Question
from generator.store import ledger, readers, splice
from generator.store.csvio import to_csv_bytes
from generator.store.hub import Hub
from generator.store.ingest import ObservationState, observation_frame, question_frame
from generator.timeutil import days, format_ts
from generator.vocabulary import MARKET

from helpers import WORLD_EVENT, WORLD_FAR, WORLD_HUB, WORLD_START, World, apply_event, data_bytes

pytestmark = pytest.mark.e2e


@settings(max_examples=6, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(WORLD_EVENT, max_size=5), min_size=6, max_size=9))
def test_incremental_nights_write_the_bytes_of_a_full_recompute(tmp_path_factory, season: list[list[tuple]]):
    roots = [tmp_path_factory.mktemp("incremental"), tmp_path_factory.mktemp("full"), tmp_path_factory.mktemp("commands")]
    for root in roots:
        (root / "data").mkdir()
        (root / "data/hub.toml").write_text(WORLD_HUB, encoding="utf-8")
    world = World(
        {f"sim:m{i}": (0.5, "open", None) for i in range(5)},
        {f"sim:s{i}": {WORLD_START - days(2): 1.0, WORLD_START - days(1): 2.0} for i in range(2)},
    )
    kept = Hub.load(roots[0])  # hub A: one command's cache through the season
    disk = tmp_path_factory.mktemp("disk-cache")  # hub C: a command a night, with the disk cache between them
    taken, load_forecasts = [], memo_store.load_forecasts

    def counted(*args):
        table = load_forecasts(*args)
        taken.append(table is not None)
        return table

    memo_store.load_forecasts = counted
    try:
        for n, events in enumerate(season):
            night = WORLD_START + days(n)
            for event in events:
                apply_event(world, event, night, roots, n)
            nightly(kept, night, env={}, sources={"sim": world})
            nightly(Hub.load(roots[1]), night, env={}, sources={"sim": world})
            with Hub.opened(roots[2], disk) as command:
                nightly(command, night, env={}, sources={"sim": world})
            assert data_bytes(roots[0]) == data_bytes(roots[1]), f"night {n}: incremental and full recompute differ"
            assert data_bytes(roots[2]) == data_bytes(roots[1]), f"night {n}: the commands with a disk cache and the full recompute differ"
    finally:
        memo_store.load_forecasts = load_forecasts
        fresh = Hub.load(roots[0])
        view = hub_view(fresh, readers.load_observations(fresh), night)
        for due, scores in scores_by_round(fresh, view, fresh.settings.scoring.impute_value).items():
            assert fresh.layout.scores(due).read_bytes() == to_csv_bytes(scores, SCORES)
    assert incremental.memo_of(kept).rounds, "hub A's nights never used the memo"
    assert any(taken), "hub C never scored a round again from the forecasts its disk cache kept"


def test_a_night_that_resolves_a_few_units_splices_their_rows_into_the_score_files(tmp_path: Path, monkeypatch):
    """A round scored again because a market resolved, a resolution date passed or a series value came
    keeps its score file's other lines as bytes (``incremental._write_scores``, ``splice.spliced``): one
    command a night with the disk cache, as the nightly runs, writes after every night the bytes of a
    full recompute, and did splice (every round here: nothing but those changes happens). Series s1's
    values are all known from the first night, so its units resolve on the nights their dates pass."""
    (tmp_path / "data").mkdir()
    (tmp_path / "data/hub.toml").write_text(WORLD_HUB, encoding="utf-8")
    world = World(
        {f"sim:m{i}": (0.5, "open", None) for i in range(5)},
        {"sim:s0": {WORLD_START - days(2): 1.0, WORLD_START - days(1): 2.0}, "sim:s1": {WORLD_START + days(d): 1.0 + d / 10 for d in range(-2, 20)}},
    )  # known ahead: dates passing resolve it
    spliced, whole = [], []
    splice_bytes, write_whole = splice.spliced, incremental.write_table
    monkeypatch.setattr(splice, "spliced", lambda *args: spliced.append(splice_bytes(*args)) or spliced[-1])
    monkeypatch.setattr(incremental, "write_table", lambda *args: whole.append(args[0].name) or write_whole(*args))
    for n in range(12):
        night = WORLD_START + days(n)
        if n in (4, 6, 8):  # markets m4, m1 and m3 resolve
            world.markets[f"sim:m{n % 5}"] = (1.0, "resolved", 1.0)
        world.series["sim:s0"][night - days(1)] = 2.0 + n / 10  # a value a night, dated the day before
        with Hub.opened(tmp_path, tmp_path / "cache") as hub:
            nightly(hub, night, env={}, sources={"sim": world})
        fresh = Hub.load(tmp_path)
        view = hub_view(fresh, readers.load_observations(fresh), night)
        for due, scores in scores_by_round(fresh, view, fresh.settings.scoring.impute_value).items():
            assert fresh.layout.scores(due).read_bytes() == to_csv_bytes(scores, SCORES), f"night {n}: {due}"
    assert len(spliced) >= 5 and all(data is not None for data in spliced), "the touched rounds were not spliced"
    assert len(whole) == len({*whole}), "a round's score file was written whole again after its first night"


def test_appended_rows_sees_an_append_an_unchanged_file_and_a_rewrite(tmp_path: Path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data/hub.toml").write_text(WORLD_HUB, encoding="utf-8")
    hub = Hub.load(tmp_path)
    layout = hub.layout
    path = layout.data / "resolutions" / "stated.csv"

    def row(q: str, at: str) -> pd.DataFrame:
        return pd.DataFrame(
            [
                {
                    "round": "",
                    "question_id": q,
                    "resolution_date": "",
                    "recorded_at": at,
                    "status": "void",
                    "outcome": np.nan,
                    "resolved_at": "",
                    "value": np.nan,
                    "payload_sha256": "",
                }
            ]
        )

    ledger.append(path, row("sim:a", "2026-01-02T00:00:00Z"), RESOLUTIONS, layout.relative(path), hub.cache)
    mark, rows = readers.appended_rows(hub, path, RESOLUTIONS, None)
    assert rows is not None and rows["question_id"].tolist() == ["sim:a"]
    same, rows = readers.appended_rows(hub, path, RESOLUTIONS, mark)
    assert same == mark and rows is not None and rows.empty
    ledger.append(path, row("sim:b", "2026-01-03T00:00:00Z"), RESOLUTIONS, layout.relative(path), hub.cache)
    mark, rows = readers.appended_rows(hub, path, RESOLUTIONS, mark)
    assert rows is not None and rows["question_id"].tolist() == ["sim:b"]
    path.write_bytes(path.read_bytes().replace(b"sim:a", b"sim:c"))  # history edited in place, not appended
    assert readers.appended_rows(hub, path, RESOLUTIONS, mark)[1] is None


def test_the_fetch_sees_an_observation_ledger_changed_behind_the_commands_back(tmp_path: Path):
    """The nightly keeps the observation ledger's state between nights (``fetch.fetch_stage``);
    a file another process wrote in between must be read again, not judged by the kept state."""
    (tmp_path / "data").mkdir()
    (tmp_path / "data/hub.toml").write_text(WORLD_HUB, encoding="utf-8")
    world = World({"sim:m0": (0.5, "open", None)}, {})
    kept = Hub.load(tmp_path)
    nightly(kept, WORLD_START, env={}, sources={"sim": world})
    path = kept.layout.observations("sim", WORLD_START)
    moved = observation_frame([Observation("sim:m0", WORLD_START + days(0.5), 0.7)], WORLD_START + days(0.5))
    ledger.append(path, moved, OBSERVATIONS, kept.layout.relative(path))  # another command, its own cache
    world.markets["sim:m0"] = (0.7, "open", None)
    nightly(kept, WORLD_START + days(1), env={}, sources={"sim": world})
    recorded = readers.load_observations(Hub.load(tmp_path))["recorded_at"]
    assert format_ts(WORLD_START + days(1)) not in set(recorded), "the move already recorded was recorded again"


def test_the_fetch_sees_a_question_bank_changed_behind_the_commands_back(tmp_path: Path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data/hub.toml").write_text(WORLD_HUB, encoding="utf-8")
    world = World({"sim:m0": (0.5, "open", None)}, {})
    kept = Hub.load(tmp_path)
    nightly(kept, WORLD_START, env={}, sources={"sim": world})
    path = kept.layout.questions("sim")
    edited = question_frame(
        [Question("sim:m0", "sim", MARKET, "Edited?", category="c", open_time=WORLD_START, close_time=WORLD_FAR)], WORLD_START + days(0.5)
    )
    ledger.append(path, edited, QUESTIONS, kept.layout.relative(path))  # another command, its own cache
    nightly(kept, WORLD_START + days(1), env={}, sources={"sim": world})
    bank = readers.load_bank(Hub.load(tmp_path))
    assert bank["text"].tolist() == ["Market sim:m0?", "Edited?", "Market sim:m0?"], "the edit back was not recorded"


def test_a_forecast_file_rewritten_in_place_is_scored_and_recorded_again(tmp_path: Path):
    """The derive keeps each round's key, and the manifest each round folder's hashes, while the
    files' stats are the same (``layout.forecast_stats``): a forecast file rewritten in place (the
    same inode) between two nights of one command must be scored and recorded again."""
    from generator.store import manifest

    (tmp_path / "data").mkdir()
    (tmp_path / "data/hub.toml").write_text(WORLD_HUB, encoding="utf-8")
    world = World(
        {f"sim:m{i}": (0.5, "open", None) for i in range(5)},
        {f"sim:s{i}": {WORLD_START - days(2): 1.0, WORLD_START - days(1): 2.0} for i in range(2)},
    )
    kept = Hub.load(tmp_path)
    for n in range(5):
        world.markets["sim:m0"] = (1.0, "resolved", 1.0) if n == 4 else (0.5, "open", None)
        nightly(kept, WORLD_START + days(n), env={}, sources={"sim": world})
    due = readers.round_dues(kept)[0]
    path = kept.layout.forecast(due, "prescient.always-1")
    inode, before = path.stat().st_ino, kept.layout.scores(due).read_bytes()
    path.write_bytes(path.read_bytes().replace(b"1.000000", b"0.900000"))  # in place: same inode, same size
    assert path.stat().st_ino == inode
    night = WORLD_START + days(5)
    nightly(kept, night, env={}, sources={"sim": world})
    fresh = Hub.load(tmp_path)
    view = hub_view(fresh, readers.load_observations(fresh), night)
    scores = scores_by_round(fresh, view, fresh.settings.scoring.impute_value)[due]
    assert kept.layout.scores(due).read_bytes() == to_csv_bytes(scores, SCORES) != before
    recorded = manifest.load_manifest(fresh)
    assert (kept.layout.relative(path), manifest.sha256(path.read_bytes())) in set(zip(recorded["path"], recorded["sha256"], strict=True))


def test_the_observation_state_kept_between_commands_is_the_whole_ledgers(tmp_path: Path, monkeypatch):
    """Each command starts from the state the last one kept (``memo_store.load_observation_state``)
    and reads only the rows appended since: the state it gets equals one built from the whole ledger,
    after appends and a new month's file (without building it whole), and after a file appended out
    of order or rewritten (both read whole again)."""
    (tmp_path / "data").mkdir()
    (tmp_path / "data/hub.toml").write_text(WORLD_HUB, encoding="utf-8")
    world = World({f"sim:m{i}": (0.5, "open", None) for i in range(3)}, {"sim:s0": {WORLD_START - days(2): 1.0, WORLD_START - days(1): 2.0}})
    cache = tmp_path / "cache"

    def kept_equals_whole(whole_allowed: bool) -> ObservationState:
        with Hub.opened(tmp_path, cache) as hub, monkeypatch.context() as patch:
            if not whole_allowed:  # the kept state, brought up to date, never the whole ledger's
                patch.setattr(ObservationState, "of", classmethod(lambda cls, rows: pytest.fail("built from the whole ledger")))
            kept = memo_store.load_observation_state(hub)
            patch.undo()
            whole = ObservationState.of(readers.load_observations(hub))
            assert (kept.market, kept.series, kept.recorded, kept.closed_at) == (whole.market, whole.series, whole.recorded, whole.closed_at)
            assert set(kept.files) == {hub.layout.relative(p) for p in hub.layout.observation_files()}
            return kept

    nights = [WORLD_START + days(n) for n in (0, 1, 2, 40)]  # the last one in the next month: a new file
    for n, night in enumerate(nights):
        world.markets["sim:m0"] = (0.5 + 0.1 * n, "open", None)
        if n == 2:
            world.markets["sim:m1"] = (1.0, "resolved", 1.0)
        world.series["sim:s0"][night - days(1)] = 3.0 + n
        with Hub.opened(tmp_path, cache) as hub:  # one command: it keeps the state it leaves
            nightly(hub, night, env={}, sources={"sim": world})
        kept = kept_equals_whole(whole_allowed=False)
    assert len(kept.files) == 2, "the season should span two months' files"
    with Hub.opened(tmp_path, cache) as hub:
        first, last = hub.layout.observation_files()
        moved = observation_frame([Observation("sim:m0", nights[-1] + days(0.5), 0.2)], nights[-1] + days(0.5))
        ledger.append(last, moved, OBSERVATIONS, hub.layout.relative(last))  # another command's rows, in order
    assert kept_equals_whole(whole_allowed=False).market["sim:m0"][1][0] == "0.2"
    with Hub.opened(tmp_path, cache) as hub:
        late = observation_frame([Observation("sim:m2", WORLD_START + days(3), 0.9)], WORLD_START + days(3))
        ledger.append(first, late, OBSERVATIONS, hub.layout.relative(first))  # the older file, out of order
    kept_equals_whole(whole_allowed=True)
    rows = pd.read_csv(last, dtype=str, keep_default_na=False)
    last.write_text(rows.iloc[:-1].to_csv(index=False, lineterminator="\n"), encoding="utf-8")  # rewritten
    kept_equals_whole(whole_allowed=True)
