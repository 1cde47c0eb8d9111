"""A board's question fixed effects (``attrs["difficulty"]`` of ``fb_board.selection_board``'s board):
each unit of its fit with its difficulty ``b``, which the site's API publishes."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

DIFFICULTY = ["round", "question_id", "resolution_date", "kind", "b"]


@dataclass(frozen=True, eq=False)
class QuestionEffects:
    """``attrs["difficulty"]`` of a board: ``frame`` (``DIFFICULTY``) holds each unit of the board's fit
    (round, question, resolution date) with its question fixed effect ``b`` on the Brier scale
    (``fixed_effects``: the expected Brier of the estimation sample on it; a crowd board's markets:
    the crowd's Brier at the due date; an orphan: the average of its type), in the fit's unit order,
    NaN where the fit dropped the unit. Read-only, and copied as itself: pandas deep-copies a frame's
    attrs into every column and frame taken from it, which for ~37,000 units at ForecastBench scale
    would cost more than the pages that read the board."""

    frame: pd.DataFrame

    def __deepcopy__(self, memo: dict) -> QuestionEffects:
        return self


def question_effects(units: pd.DataFrame, b: np.ndarray) -> QuestionEffects:
    """The board's ``QuestionEffects`` from its fit's ``units`` and their ``b``."""
    return QuestionEffects(
        pd.DataFrame(
            {
                "round": units["round"].to_numpy(),
                "question_id": units["question_id"].to_numpy(),
                "resolution_date": units["resolution_date"].to_numpy(),
                "kind": units["kind"].to_numpy(),
                "b": np.asarray(b, dtype=float),
            },
            columns=DIFFICULTY,
        )
    )
