"""The site's bootstrapped boards: made in a worker process while the rest is gathered, and kept.

Every configured board × view with its bootstrap (``hub_boards.configured_boards``) is more CPU time than
the rest of a ForecastBench-scale build, and the rest of ``site.build.gather`` does not need them.
``site_boards`` therefore makes them in forked worker processes (``parallel.in_background``) while the main
process reads, gathers and renders the rest: the pairs shared among ``parallel.default_processes()``
workers in shares of about equal size (``board_shares``: by the rows of each pair's view), so that a
first build waits for half of the boards, not for all of them in one worker. The boards are the same
whichever process makes them, and whichever share a board is in (each draws from its own
``numpy.random.default_rng(seed)``, never from a shared stream).

With a disk cache (``store.cache.disk``, the nightly's), the boards are also kept under a digest of
everything they read (``boards_key``): a build with nothing new takes them again instead of making
them. A board is kept as a cache frame, its ``attrs["unranked"]`` and ``attrs["difficulty"]`` as others, the rest of its attrs
in one small JSON document with the digest; any miss (another digest, a frame not kept, a type the
frame format does not hold) makes the boards again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import datetime

import pandas as pd

from ..config import Settings
from ..leaderboard.crowd import crowd_from_rounds
from ..leaderboard.digest import inputs_digest
from ..leaderboard.fb_board import board_options
from ..leaderboard.hub_boards import configured_boards, configured_pairs
from ..leaderboard.question_effects import QuestionEffects
from ..leaderboard.views import view_mask
from ..models import ModelMeta
from ..parallel import default_processes, in_background
from ..store import readers
from ..store.cache import DiskCache
from ..store.hub import Hub

Boards = dict[tuple[str, str], pd.DataFrame]
KEPT = "site-boards"  # the JSON document (and the prefix of the frames) of the kept boards
# in the key: boards kept by older code are made again (2: BLAS on every core, ``parallel.one_blas_thread``;
# 1: no ``explore.PARITY_ATTR`` in their attrs)
KEPT_FORMAT = "3"
FRAME_ATTRS = ("unranked", "difficulty")  # a board's attrs kept as frames of their own (``fb_board``; difficulty's frame)
WORKER_MIN_ROWS = 2_000  # fewer scored rows: the boards take less than a worker costs to start (~6 ms)


def site_boards(
    hub: Hub,
    scores: pd.DataFrame,
    models: dict[str, ModelMeta],
    as_of: datetime,
    settings: Settings,
    asked: pd.DataFrame | None,
    observations: pd.DataFrame,
) -> Callable[[], Boards]:
    """``configured_boards(scores, models, as_of, settings, asked, observations=observations)``, to be taken
    by calling the function returned: the boards kept in the hub's disk cache when nothing they
    read has changed, else made in the background (``in_background``, one worker per share of
    ``board_shares``) and then kept."""
    disk = hub.cache.disk
    key = boards_key(hub, scores, models, as_of, settings, asked, observations) if disk is not None else ""
    kept = load_boards(disk, key) if disk is not None else None
    if kept is not None:
        return lambda: kept

    def make(share: list[tuple[str, str]]) -> Callable[[], Boards]:
        return lambda: configured_boards(scores, models, as_of, settings, asked, observations=observations, pairs=share)

    pairs = configured_pairs(settings)
    pending = (
        [in_background(make(share)) for share in board_shares(scores, pairs, default_processes())]
        if len(scores) >= WORKER_MIN_ROWS
        else [make(pairs)]
    )

    def taken() -> Boards:
        made: Boards = {}
        for share in pending:
            made.update(share())
        boards = {pair: made[pair] for pair in pairs}  # configuration order, whatever the shares
        if disk is not None:
            save_boards(disk, key, boards)
        return boards

    return taken


def board_shares(scores: pd.DataFrame, pairs: list[tuple[str, str]], processes: int) -> list[list[tuple[str, str]]]:
    """``pairs`` in at most ``processes`` shares of about equal work, each in the pairs' order: the largest
    first, each to the share with the least so far (a board's bootstrap grows with the rows of its
    view, every board of a view reading them). No empty share."""
    rows = {view: int(view_mask(scores, view).sum()) for view in dict.fromkeys(v for _, v in pairs)}
    shares: list[list[int]] = [[] for _ in range(max(1, min(processes, len(pairs))))]
    load = [0] * len(shares)
    for i in sorted(range(len(pairs)), key=lambda i: -rows[pairs[i][1]]):  # stable: ties in configuration order
        least = load.index(min(load))
        shares[least].append(i)
        load[least] += rows[pairs[i][1]]
    return [[pairs[i] for i in sorted(share)] for share in shares if share]


def boards_key(
    hub: Hub,
    scores: pd.DataFrame,
    models: dict[str, ModelMeta],
    as_of: datetime,
    settings: Settings,
    asked: pd.DataFrame | None,
    observations: pd.DataFrame,
) -> str:
    """A digest of all that ``configured_boards`` reads: the rows of the score files as ``inputs_digest`` sees
    them at ``as_of`` (the files known by their bytes' digests, as the nightly's kept boards know
    them), the models' metadata, the scoring and leaderboard settings (every board, view, option,
    replicate count and seed), and the crowd values when a board reads them."""
    files = tuple((p.name, hub.cache.fingerprint(p)) for p in readers.score_files(hub.layout))
    options = board_options(settings.scoring, settings.leaderboard, settings.own_prefix)
    digest = hashlib.sha256(inputs_digest([scores], as_of, options, parts=[(files, len(scores))]).encode())
    digest.update(repr((KEPT_FORMAT, sorted(models.items()), settings.scoring, settings.leaderboard, settings.own_prefix)).encode())
    if settings.leaderboard.market_difficulty == "crowd" and asked is not None and len(asked):
        crowd = crowd_from_rounds(asked, observations)
        digest.update(pd.util.hash_pandas_object(crowd, index=False).to_numpy().tobytes())
    return digest.hexdigest()


def save_boards(disk: DiskCache, key: str, boards: Boards) -> None:
    """Keep ``boards`` under ``key``; nothing when a board holds a type the cache's frames do not."""
    attrs, order = [], []
    for i, board in enumerate(boards.values()):
        effects = board.attrs.get("difficulty")
        frames = {"unranked": board.attrs.get("unranked"), "difficulty": effects.frame if isinstance(effects, QuestionEffects) else None}
        rest = {k: v for k, v in board.attrs.items() if k not in FRAME_ATTRS}
        if (
            not all(isinstance(f, pd.DataFrame) for f in frames.values())
            or not disk.save_frame(f"{KEPT}/{i}", key, board)
            or not all(disk.save_frame(f"{KEPT}/{i}/{name}", key, f) for name, f in frames.items())
        ):
            return
        attrs.append(rest)
        order.append(list(board.attrs))
    disk.save_json(KEPT, {"key": key, "pairs": [list(pair) for pair in boards], "attrs": attrs, "order": order})


def load_boards(disk: DiskCache, key: str) -> Boards | None:
    """The boards kept under ``key`` (``save_boards``), attrs included; None on any miss."""
    doc = disk.load_json(KEPT)
    if not isinstance(doc, dict) or doc.get("key") != key or "order" not in doc:
        return None
    out: Boards = {}
    for i, (pair, attrs, order) in enumerate(zip(doc["pairs"], doc["attrs"], doc["order"], strict=True)):
        board = disk.load_frame(f"{KEPT}/{i}", key)
        frames = {name: disk.load_frame(f"{KEPT}/{i}/{name}", key) for name in FRAME_ATTRS}
        if board is None or any(f is None for f in frames.values()):
            return None
        frames["difficulty"] = QuestionEffects(frames["difficulty"])
        board.attrs.update({name: frames[name] if name in frames else attrs[name] for name in order})
        out[(pair[0], pair[1])] = board
    return out
