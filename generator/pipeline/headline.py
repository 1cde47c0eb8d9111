"""The night's headline: the leaderboard history rows a nightly appends and the lines naming what the
first board leaves off, kept from the command's last night while nothing the boards read changed."""

from __future__ import annotations

from datetime import datetime

import pandas as pd

from ..leaderboard.digest import inputs_digest
from ..leaderboard.fb_board import board_options, unranked_rounds
from ..leaderboard.hub_boards import KeptBoards
from ..schemas import HISTORY
from ..store import ledger, manifest, readers
from ..store.cache import Slot
from ..store.hub import Hub
from ..timeutil import format_ts
from . import memo_store
from .recompute import concat_scores, history_for

# What the headline keeps in its command's cache (``store.cache.ReadCache``) from night to night.
HEADLINE: Slot[tuple[tuple[str, ...], tuple[str, ...], pd.DataFrame] | None] = Slot(
    "derive: the night's headline (key, unranked lines, history rows)",
    lambda cache: memo_store.load_headline(cache.disk) if cache.disk is not None else None,
)
BOARDS: Slot[KeptBoards] = Slot("derive: the boards of the last headline", lambda cache: KeptBoards())


def append_history(hub: Hub, frames: list[pd.DataFrame], as_of, report, known=None) -> None:
    report.unranked, rows = _headline(hub, frames, as_of, *(known or (None, None)))
    layout = hub.layout
    rows = rows.assign(ledger_digest=manifest.ledger_digest(hub))  # the anchor of tonight's ledgers
    if len(ledger.append(layout.history, rows, HISTORY, layout.relative(layout.history), hub.cache)):
        report.written.append(layout.relative(layout.history))


def _headline(hub: Hub, frames: list[pd.DataFrame], as_of: datetime, parts=None, times=None) -> tuple[list[str], pd.DataFrame]:
    """Tonight's ``unranked_lines`` and history rows (``recompute.history_for``). They are kept from
    this command's last night while all the boards read is unchanged: the rows and rounds of the
    rounds' score ``frames`` that ``digest.inputs_digest`` covers (time enters a board only there;
    ``parts`` and ``times``, ``incremental.score_parts``, spare it hashing the rows and comparing
    their times), the models' metadata and the settings; the kept rows then only take tonight's
    time. The frames are concatenated only when the boards are made again."""
    settings, cache = hub.settings, hub.cache
    options = board_options(settings.scoring, settings.leaderboard, settings.own_prefix)
    key = (
        inputs_digest(frames, as_of, options, parts, times),
        repr(sorted(readers.load_models(hub, as_of).items())),
        repr(settings.scoring),
        repr(settings.leaderboard),
    )
    kept = cache.state(HEADLINE)  # with a disk cache, a fresh process starts from what the last command kept
    if kept is not None and kept[0] == key:
        return list(kept[1]), kept[2].assign(as_of=format_ts(as_of))
    scores = concat_scores(frames)
    boards = _kept_boards(hub, frames, parts)
    rows = history_for(hub, as_of, scores, boards)
    lines = unranked_lines(hub, scores, as_of, boards.made)
    cache.put(HEADLINE, (key, tuple(lines), rows))
    if cache.disk is not None:
        memo_store.save_headline(cache.disk, key, tuple(lines), rows)
    return lines, rows


def _kept_boards(hub: Hub, frames: list[pd.DataFrame], parts) -> KeptBoards:
    """The boards of this command's last headline (``hub_boards.KeptBoards``), each taken again while
    nothing it reads changed; tonight's scores, the rounds' ``frames`` concatenated, are known by
    their ``parts`` (none when they do not describe the frames: nothing is then taken)."""
    kept = hub.cache.state(BOARDS)
    kept.parts = parts if parts is not None and [n for _, n in parts] == [len(f) for f in frames] else None
    return kept


def unranked_lines(hub: Hub, scores: pd.DataFrame, as_of: datetime, made: dict[tuple[str, str], pd.DataFrame] | None = None) -> list[str]:
    """What tonight's first board leaves off by the imputation rule, one line per model and round;
    ``made``: tonight's boards by (board, view), if made already (the first board's overall view
    then carries them: ``fb_board.selection_board``'s ``attrs["unranked"]``)."""
    settings = hub.settings
    first = (settings.leaderboard.boards[0], "overall")
    if made is not None and first in made:
        left = made[first].attrs["unranked"]
    else:
        options = board_options(settings.scoring, settings.leaderboard, settings.own_prefix)
        left = unranked_rounds(scores, readers.load_models(hub, as_of), as_of, options)
    return [f"{m} · round {r}: {why}" for m, r, why in zip(left["model"], left["round"], left["reason"], strict=True)]
