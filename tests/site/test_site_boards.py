"""The site's boards made in a worker process and kept in the disk cache (``site.boards``) are the
boards ``configured_boards`` makes in the main process: the same frames, dtypes and attrs, so the same pages.

The worker is only a way to use the second core: whatever goes wrong in it (an exception, a result
that cannot be sent back) ends with the value, or the error, that the main process alone gives.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

from generator.leaderboard.hub_boards import configured_boards
from generator.site import boards as site_boards_module
from generator.site.boards import FRAME_ATTRS, boards_key, load_boards, save_boards
from generator.site.build import gather
from generator.site.render import render_site
from generator.store import readers
from generator.store.cache import ReadCache
from generator.store.cache.disk import DiskCache
from generator.store.hub import Hub
from generator.timeutil import parse_ts

AS_OF = parse_ts("2026-07-19T00:00:00Z")
HOSTILE = ['a "quoted", name', "two\nlines\r\nand a CR\r", "ünïcödé ✓ 模型 🙂", "", "=1+1", "back\\slash\t"]


def _hub(demo_hub: Path, tmp_path: Path) -> Hub:
    root = tmp_path / "demo"
    shutil.copytree(demo_hub, root, symlinks=True, ignore=shutil.ignore_patterns("site", "site_src"))
    return Hub.load(root, ReadCache(disk=DiskCache.open(tmp_path / "cache", root)))


def _inputs(hub: Hub):
    asked = pd.concat([readers.load_round(hub, d) for d in readers.round_dues(hub)], ignore_index=True)
    return readers.load_scores(hub), readers.load_models(hub), asked, readers.load_observations(hub)


def _assert_same_boards(got: dict, expected: dict) -> None:
    assert list(got) == list(expected)
    for pair, board in expected.items():
        pd.testing.assert_frame_equal(got[pair], board, check_exact=True)
        assert list(got[pair].attrs) == list(board.attrs)
        pd.testing.assert_frame_equal(got[pair].attrs["unranked"], board.attrs["unranked"], check_exact=True)
        pd.testing.assert_frame_equal(got[pair].attrs["difficulty"].frame, board.attrs["difficulty"].frame, check_exact=True)
        assert {k: v for k, v in got[pair].attrs.items() if k not in FRAME_ATTRS} == {k: v for k, v in board.attrs.items() if k not in FRAME_ATTRS}


def test_kept_boards_read_back_exactly_hostile_names_included(demo_hub: Path, tmp_path: Path):
    hub = _hub(demo_hub, tmp_path)
    scores, models, asked, obs = _inputs(hub)
    boards = configured_boards(scores, models, AS_OF, hub.settings, asked, observations=obs)
    for board in boards.values():  # names as a submitter may write them
        if len(board):
            board["name"] = [HOSTILE[i % len(HOSTILE)] for i in range(len(board))]
    disk = hub.cache.disk
    assert disk is not None
    save_boards(disk, "k1", boards)
    _assert_same_boards(load_boards(disk, "k1") or {}, boards)
    assert load_boards(disk, "another key") is None
    assert load_boards(DiskCache.open(tmp_path / "cache", tmp_path / "elsewhere"), "k1") is None  # another hub's


def test_a_board_the_cache_cannot_hold_is_not_kept(demo_hub: Path, tmp_path: Path):
    hub = _hub(demo_hub, tmp_path)
    scores, models, asked, obs = _inputs(hub)
    boards = configured_boards(scores, models, AS_OF, hub.settings, asked, observations=obs)
    first = next(iter(boards))
    boards[first] = boards[first].assign(name=None)  # a missing text value: not a frame the cache holds
    disk = hub.cache.disk
    assert disk is not None
    save_boards(disk, "k", boards)
    assert load_boards(disk, "k") is None


def test_the_key_follows_what_the_boards_read(demo_hub: Path, tmp_path: Path):
    hub = _hub(demo_hub, tmp_path)
    scores, models, asked, obs = _inputs(hub)
    key = boards_key(hub, scores, models, AS_OF, hub.settings, asked, obs)
    assert key == boards_key(hub, scores, models, AS_OF, hub.settings, asked, obs)
    fewer = dict(list(models.items())[1:])
    assert key != boards_key(hub, scores, fewer, AS_OF, hub.settings, asked, obs)
    assert key != boards_key(hub, scores, models, parse_ts("2026-05-01T00:00:00Z"), hub.settings, asked, obs)
    score_file = readers.score_files(hub.layout)[0]  # one with rows (the newest holds only its header)
    for data, same in ((score_file.read_bytes(), True), (score_file.read_bytes().replace(b"0.", b"1.", 1), False)):
        replaced = score_file.with_suffix(".new")  # a new file in its place, as git and the nightly write
        replaced.write_bytes(data)
        replaced.replace(score_file)
        assert (key == boards_key(hub, scores, models, AS_OF, hub.settings, asked, obs)) is same


@pytest.mark.parametrize("min_rows", [0, 10**9])  # every build in the worker; none
def test_the_pages_are_the_same_made_here_in_the_worker_or_kept(demo_hub: Path, tmp_path: Path, monkeypatch, min_rows: int):
    monkeypatch.setattr(site_boards_module, "WORKER_MIN_ROWS", min_rows)
    root = tmp_path / "demo"
    shutil.copytree(demo_hub, root, symlinks=True, ignore=shutil.ignore_patterns("site", "site_src"))
    alone = render_site(gather(Hub.load(root), AS_OF))  # no disk cache: made here (or in the worker), not kept
    for _ in range(2):  # made and kept, then taken from the cache
        cached = Hub.load(root, ReadCache(disk=DiskCache.open(tmp_path / "cache", root)))
        assert render_site(gather(cached, AS_OF)) == alone
        cached.cache.close()
    assert (
        load_boards(DiskCache.open(tmp_path / "cache", root), boards_key(cached, *_inputs(cached)[:2], AS_OF, cached.settings, *_inputs(cached)[2:]))
        is not None
    )


@pytest.mark.parametrize("in_worker", [True, False])
def test_the_pages_rendered_with_a_worker_are_the_plain_methods_pages(demo_hub: Path, monkeypatch, in_worker: bool):
    """``render_pages`` (the question pages in a forked worker meanwhile) gives ``render_site``'s bytes,
    path for path in the same order. The demo has fewer question pages than ``QUESTIONS_IN_WORKER``:
    with the limit at 0 they are rendered in the forked worker (or here, where forking is not sound)."""
    from generator.site import render as render_module

    data = gather(Hub.load(demo_hub), AS_OF)
    plain = render_site(data)
    forked, in_background = [], render_module.in_background

    def counted(make, worth=True):
        if worth:
            forked.append(make)
        return in_background(make, worth)

    monkeypatch.setattr(render_module, "QUESTIONS_IN_WORKER", 0 if in_worker else 10**9)
    monkeypatch.setattr(render_module, "in_background", counted)
    fast = render_module.render_pages(data)()
    assert list(fast) == list(plain) and fast == plain
    assert len(forked) == int(in_worker) and any(p.startswith("generated/question-pages/") for p in plain)


def test_the_pairs_are_shared_by_rows_each_once_in_configuration_order():
    from generator.site.boards import board_shares

    scores = pd.DataFrame({"kind": ["dataset"] * 90 + ["binary"] * 10})
    pairs = [(b, v) for b in ("tournament", "baseline", "preliminary") for v in ("overall", "dataset", "market")]
    shares = board_shares(scores, pairs, 2)
    assert len(shares) == 2 and sorted(p for s in shares for p in s) == sorted(pairs)
    assert all(s == [p for p in pairs if p in s] for s in shares)  # each share in the pairs' order
    rows = {"overall": 100, "dataset": 90, "market": 10}
    loads = [sum(rows[v] for _, v in s) for s in shares]
    assert loads == [300, 300]  # the largest first, each to the lighter share: 600 rows split evenly
    assert board_shares(scores, pairs, 1) == [pairs]
    assert board_shares(scores, pairs[:1], 2) == [pairs[:1]]  # no empty share


def test_a_worker_per_share_and_the_boards_made_here_are_the_same(demo_hub: Path, tmp_path: Path, monkeypatch):
    from generator.site.boards import site_boards

    hub = Hub.load(demo_hub)
    scores, models, asked, obs = _inputs(hub)
    expected = configured_boards(scores, models, AS_OF, hub.settings, asked, observations=obs)
    started = []

    def counted(make):
        started.append(make)
        return site_boards_module.in_background.__wrapped__(make)

    counted.__wrapped__ = site_boards_module.in_background
    monkeypatch.setattr(site_boards_module, "WORKER_MIN_ROWS", 0)
    monkeypatch.setattr(site_boards_module, "default_processes", lambda: 2)
    monkeypatch.setattr(site_boards_module, "in_background", counted)
    got = site_boards(hub, scores, models, AS_OF, hub.settings, asked, obs)()
    assert len(started) == 2  # one forked worker (or, where forking is not sound, one call here) per share
    _assert_same_boards(got, expected)


def test_boards_are_made_with_one_blas_thread_and_the_process_keeps_its_own(demo_hub: Path, monkeypatch):
    from threadpoolctl import threadpool_info, threadpool_limits

    from generator.leaderboard import hub_boards

    seen, made = [], hub_boards.selection_board

    def recorded(*args, **kwargs):
        seen.append({i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"})
        return made(*args, **kwargs)

    monkeypatch.setattr(hub_boards, "selection_board", recorded)
    hub = Hub.load(demo_hub)
    scores, models, asked, obs = _inputs(hub)
    with threadpool_limits(limits=2, user_api="blas"):
        before = {i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"}
        configured_boards(scores, models, AS_OF, hub.settings, asked, observations=obs, replicates=20)
        after = {i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"}
    assert seen and all(s == {1} for s in seen)
    assert after == before


@pytest.mark.parametrize("min_rows", [0, 10**9])  # the round boards and the Arena in workers; here
def test_the_round_boards_and_the_arena_are_the_same_made_in_a_worker(demo_hub: Path, tmp_path: Path, monkeypatch, min_rows: int):
    """``gather`` makes each round's board, the Arena and the Changes page's diffs in forked workers, and has
    the score files parsed by forked processes, at ForecastBench's scale: the same frames as made here, and a
    broken bet file the worker meets is in the quarantine, where and as the main process alone puts it
    (before the oracle's answers, which the downloads' list then leaves out)."""
    from generator.site import build as build_module

    root = tmp_path / "demo"
    shutil.copytree(demo_hub, root, symlinks=True, ignore=shutil.ignore_patterns("site", "site_src"))
    hub = Hub.load(root)
    past = [d for d in readers.round_dues(hub) if d <= AS_OF][0]
    broken = hub.layout.bets(past, "team.bets")
    broken.parent.mkdir(parents=True, exist_ok=True)
    broken.write_bytes(b"\x00\xffnot,a\nbet file\n")
    monkeypatch.setattr(build_module, "WORKER_MIN_ROWS", 10**9)
    alone_quarantine: list = []
    alone = gather(Hub.load(root), AS_OF, alone_quarantine)
    forked, in_background = [], build_module.in_background

    def counted(make, worth=True):
        if worth:
            forked.append(make)
        return in_background(make, worth)

    shared, forked_map = [], build_module.forked_map

    def sharing(work, items, processes, carry=None):
        shared.append(items)
        return forked_map(work, items, processes, carry)

    monkeypatch.setattr(build_module, "WORKER_MIN_ROWS", min_rows)
    monkeypatch.setattr(build_module, "SHARED_READ_BYTES", 0 if min_rows == 0 else 10**12)
    monkeypatch.setattr(build_module, "in_background", counted)
    monkeypatch.setattr(build_module, "forked_map", sharing)
    quarantine: list = []
    data = gather(Hub.load(root), AS_OF, quarantine)
    assert len(forked) == (3 if min_rows == 0 else 0)
    files = [len(readers.score_files(hub.layout)), len(hub.layout.observation_files())]
    assert [len(items) for items in shared] == ([n for n in files if n > 1] if min_rows == 0 else []) and files[0] > 1
    assert data.changes == alone.changes and len(alone.changes), "the Changes page's nights, the same and some"
    assert quarantine == alone_quarantine and hub.layout.relative(broken) in [p.file for p in quarantine]
    assert [r.due for r in data.rounds] == [r.due for r in alone.rounds]
    assert sum(r.board is not None for r in alone.rounds) >= 2
    for got, expected in zip(data.rounds, alone.rounds, strict=True):
        assert (got.board is None) == (expected.board is None)
        if expected.board is not None:
            pd.testing.assert_frame_equal(got.board, expected.board, check_exact=True)
    for name in ("arena", "arena_curves", "arena_brier", "arena_decisions"):
        assert len(getattr(alone, name)), name
        pd.testing.assert_frame_equal(getattr(data, name), getattr(alone, name), check_exact=True)
    assert render_site(data) == render_site(alone)


def test_the_arena_reads_no_question_set_or_observation_file_the_build_has_read(demo_hub: Path, tmp_path: Path, monkeypatch):
    """The site's Arena (``build._arena``, in a forked worker at scale) takes the question sets and the
    observations from the build's own cache (~2 s of parsing at six months of ForecastBench's density), and
    makes the same cohorts as from a fresh read of the folder."""
    from generator.arena.gather import load_cohorts
    from generator.site import build as build_module
    from generator.store.cache import reads

    hub = _hub(demo_hub, tmp_path)
    dues = [d for d in readers.round_dues(hub) if d <= AS_OF]
    read = {d.strftime("%Y-%m-%d"): readers.load_forecasts(hub, d, []) for d in dues}
    for due in readers.round_dues(hub):
        readers.load_round(hub, due)
    readers.load_observations(hub)
    parsed, read_table = [], reads.csvio.read_table
    monkeypatch.setattr(reads.csvio, "read_table", lambda path, *a, **k: parsed.append(Path(path)) or read_table(path, *a, **k))
    made, _ = build_module._arena(hub, AS_OF, read)
    again = {hub.layout.relative(p) for p in parsed} & {
        hub.layout.relative(p) for p in [*hub.layout.observation_files(), *map(hub.layout.round_questions, dues)]
    }
    assert not again, again
    assert len(made["arena_curves"])
    fresh = load_cohorts(hub.root, AS_OF, quarantine=[])
    pd.testing.assert_frame_equal(load_cohorts(hub, AS_OF, quarantine=[]).positions, fresh.positions, check_exact=True)
