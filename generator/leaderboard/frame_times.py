"""What a board's filters by time read of a frame of SCORES rows, to digest them without a row each. Pure.

``digest.inputs_digest`` digests the rows a board may read: those resolved by ``as_of`` in rounds
old enough (step 1 of ``fb_board``). A frame's rows that pass are fixed by its content and, per
round of it, how many of its distinct ``resolved_at`` times are at or before ``as_of``; so a caller
that knows its frames by a token of their rows (a nightly's rounds, most of them unchanged from one
night to the next) keeps each frame's ``FrameTimes`` and has the mask from a bisection per round
instead of comparing every row's times again (``times_marks``).
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

import pandas as pd


@dataclass(frozen=True)
class FrameTimes:
    """Per round of a frame (sorted), the sorted distinct ``resolved_at`` of its rows. Rows with no
    round or no time are left out: no filter by time ever keeps them."""

    rounds: tuple[tuple[str, tuple[str, ...]], ...]

    @classmethod
    def of(cls, frame: pd.DataFrame) -> FrameTimes | None:
        """The frame's times; None when a round or a time is not text (then only the rows' own
        comparisons say which pass, as ``fb_board.timely_mask`` makes them)."""
        by_round: dict[str, set[str]] = {}
        for round_, resolved in set(
            zip(frame["round"].to_numpy(dtype=object).tolist(), frame["resolved_at"].to_numpy(dtype=object).tolist(), strict=True)
        ):
            if not isinstance(round_, str) or not isinstance(resolved, str):
                if pd.isna(round_) or pd.isna(resolved):
                    continue
                return None
            by_round.setdefault(round_, set()).add(resolved)
        return cls(tuple((r, tuple(sorted(times))) for r, times in sorted(by_round.items())))


def times_marks(times: FrameTimes, stamp: str, cutoff: str | None) -> tuple[tuple[str, int], ...]:
    """Which rows of the frame of ``times`` are resolved at or before ``stamp`` in a round at or
    before ``cutoff`` (None: any round): per such round with any, how many of its distinct times
    are. Equal marks of one frame's times mean the same rows, and different marks different rows."""
    marks = []
    for round_, resolved in times.rounds:
        if cutoff is not None and round_ > cutoff:
            break  # the rounds are sorted
        count = bisect_right(resolved, stamp)
        if count:
            marks.append((round_, count))
    return tuple(marks)
