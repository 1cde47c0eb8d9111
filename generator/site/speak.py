"""What the boards say in words: one sentence under each board, and the Changes page's nights with
the moves inside the boards' own uncertainty set apart. Pure: frames in, text and records out.

A board's uncertainty is its 95% rank intervals (``rank_low``–``rank_high``, from the bootstrap).
Two forecasters are *not clearly apart* when their rank intervals overlap; the sentence names those
the leader is not clearly ahead of. The history records ranks, not intervals, so the Changes page
judges a night's move by the model's interval on the current board: a move from rank a to rank b
with both inside that interval is a reshuffle within the noise, listed apart and not as news.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from ..leaderboard.diff import Change, NightChanges

CHANGES_NIGHTS = 90  # nights compared on the Changes page (the history keeps them all)
MAX_NAMED = 3  # contenders a sentence names before it says "and N others"


def _ranked(frame: pd.DataFrame, headline: str) -> pd.DataFrame:
    """The ranked rows (not provisional, with a rank and a headline score), best first."""
    if not len(frame) or "rank" not in frame:
        return frame.iloc[:0]
    rows = frame[frame["rank"].notna() & frame[headline].notna()]
    return rows.sort_values(["rank", headline, "model"], ascending=[True, False, True])


def _names(rows: pd.DataFrame) -> list[str]:
    return [str(n) for n in (rows["name"] if "name" in rows else rows["model"])]


def _listed(names: Sequence[str]) -> str:
    """'A', 'A or B', 'A, B or C', 'A, B, C or 4 others'."""
    shown, rest = list(names[:MAX_NAMED]), len(names) - MAX_NAMED
    if rest > 0:
        return f"{', '.join(shown)} or {rest} other{'s' if rest > 1 else ''}"
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"


def board_sentence(frame: pd.DataFrame, headline: str, label: str = "Brier Index") -> str:
    """One sentence on how sure the board is of its leader, e.g. "X leads (Brier Index 71.2
    [69.0, 73.4]); it is not clearly ahead of Y or Z: their 95% rank intervals overlap its own."."""
    ranked = _ranked(frame, headline)
    if not len(ranked):
        return "No forecaster is ranked on this board yet: it fills in as questions resolve and rounds pass the stability rule."
    top = ranked.iloc[0]
    tied = ranked[ranked["rank"] == top["rank"]]
    score = f"{label} {top[headline]:.1f}"
    low, high = top.get(f"{headline}_ci_low"), top.get(f"{headline}_ci_high")
    if low is not None and pd.notna(low) and pd.notna(high):
        score += f" [{low:.1f}, {high:.1f}]"
    if len(tied) > 1:
        return f"{_listed(_names(tied))} share the lead ({score})."
    lead = f"{_names(tied)[0]} leads ({score})"
    if len(ranked) == 1:
        return f"{lead}; it is the only ranked forecaster so far."
    if "rank_low" not in ranked or pd.isna(top.get("rank_high")):
        return f"{lead}; this board has no rank intervals (too few bootstrap replicates) to say how sure that is."
    others = ranked.iloc[1:]
    close = others[others["rank_low"].notna() & (others["rank_low"] <= top["rank_high"])]
    if not len(close):
        return f"{lead}, clearly: no other forecaster's 95% rank interval overlaps its own ({int(top['rank_low'])}–{int(top['rank_high'])})."
    return f"{lead}; it is not clearly ahead of {_listed(_names(close))}: their 95% rank intervals overlap its own."


@dataclass(frozen=True)
class Night:
    """One night of one board on the Changes page: the news (entries, departures, moves beyond the
    noise) and the reshuffles within the models' rank intervals."""

    as_of: str
    previous: str
    board: str
    news: tuple[Change, ...]
    noise: tuple[Change, ...]


def within_noise(change: Change, intervals: Mapping[str, tuple[float, float]]) -> bool:
    """A move whose ranks before and after both lie inside the model's 95% rank interval."""
    if change.what != "moved" or change.before is None or change.after is None or change.model not in intervals:
        return False
    low, high = intervals[change.model]
    return low <= change.before <= high and low <= change.after <= high


def rank_intervals(board: pd.DataFrame | None) -> dict[str, tuple[float, float]]:
    """model -> (rank_low, rank_high) of a board's rows that have them."""
    if board is None or not len(board) or "rank_low" not in board:
        return {}
    rows = board[board["rank_low"].notna() & board["rank_high"].notna()]
    return {str(m): (float(lo), float(hi)) for m, lo, hi in zip(rows["model"], rows["rank_low"], rows["rank_high"], strict=True)}


def nights(changes: Sequence[NightChanges], boards: Mapping[str, pd.DataFrame]) -> list[Night]:
    """``changes`` (newest first) with each board's moves split by ``within_noise`` against that
    board's current rank intervals (``boards``: board name -> its overall view)."""
    out = []
    for c in changes:
        intervals = rank_intervals(boards.get(c.board))
        items = c.items or ()
        out.append(
            Night(
                c.as_of,
                c.previous,
                c.board,
                tuple(i for i in items if not within_noise(i, intervals)),
                tuple(i for i in items if within_noise(i, intervals)),
            )
        )
    return out


def since_last_night(all_nights: Sequence[str], said: Sequence[Night]) -> str:
    """The Changes page's first sentence: what the latest night changed, or how long the boards have
    held still. ``all_nights`` are the history's nights compared (oldest first)."""
    if len(all_nights) < 2:
        return "The boards have only one night of history so far: nothing to compare yet."
    latest = all_nights[-1]
    news = [n for n in said if n.news]
    if any(n.as_of == latest for n in news):
        count = sum(len(n.news) for n in news if n.as_of == latest)
        return f"Since the previous night ({all_nights[-2][:10]}), {count} change{'s' if count != 1 else ''} on the boards beyond the noise:"
    quiet = len(all_nights) - 1 if not news else sum(1 for night in all_nights if night > news[0].as_of)
    since = f"since {news[0].as_of[:10]}" if news else f"in the last {quiet} night{'s' if quiet != 1 else ''}"
    shuffled = " (only reshuffles inside overlapping rank intervals, listed below)" if any(n.noise for n in said if n.as_of == latest) else ""
    return f"No rank changed beyond the noise {since}{f' ({quiet} nights)' if news else ''}{shuffled}."
