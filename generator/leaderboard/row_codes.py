"""Integer codes of a frame of SCORES rows, made once for every board ranked on subsets of it. Pure.

A board codes its rows' models and rounds (sorted, ``panel.sorted_codes``) and their units (in order
of first appearance, ``fb_board.unit_codes``). The six board × view combinations of a night are
subsets of one frame, and hashing its 1.6 M ids again for each cost the nightly's headline boards
more than their fit at ForecastBench scale. ``RowCodes`` holds the codes of the whole frame once; a
subset's codes are then integer work on them (``take``), equal to coding the subset's own values
(tests/leaderboard/test_row_codes.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from .panel import counted_unique, sorted_codes


@dataclass(frozen=True)
class RowCodes:
    """Per row of a frame: the index of its model among ``models`` and of its round among ``rounds``
    (the frame's distinct values, sorted), and a code of its (round, question_id, resolution_date)
    unit (equal codes: equal units; any numbering), or None until ``with_units`` gives them: a
    selection needs none, only a board made. ``text_units``: the frame's unit columns are all text
    (``secondary.units_as_text``)."""

    models: np.ndarray
    model: np.ndarray
    rounds: np.ndarray
    round_: np.ndarray
    unit: np.ndarray | None = None
    text_units: bool = False

    @classmethod
    def of(cls, rows: pd.DataFrame) -> RowCodes | None:
        """The codes of ``rows``' models and rounds; None when their ids cannot be sorted together
        (a missing model or round among text: each subset is then coded on its own)."""
        try:
            models, model = sorted_codes(rows["model"].to_numpy())
            rounds, round_ = sorted_codes(rows["round"].to_numpy())
        except TypeError:
            return None
        return cls(models, model, rounds, round_)

    def with_units(self, unit: np.ndarray, text_units: bool) -> RowCodes:
        """These codes with the rows' ``unit`` codes, and whether the frame's unit columns are all text."""
        return replace(self, unit=np.asarray(unit, dtype=np.int64), text_units=text_units)

    def take(self, keep: np.ndarray) -> RowCodes:
        """The codes of the rows ``keep`` (a boolean mask or positions) selects, in its order."""
        return RowCodes(
            self.models, self.model[keep], self.rounds, self.round_[keep], None if self.unit is None else self.unit[keep], self.text_units
        )

    def model_codes(self) -> tuple[np.ndarray, np.ndarray]:
        """``sorted_codes`` of these rows' models."""
        return _present(self.models, self.model)

    def round_codes(self) -> tuple[np.ndarray, np.ndarray]:
        """``sorted_codes`` of these rows' rounds."""
        return _present(self.rounds, self.round_)

    def unit_codes(self) -> tuple[np.ndarray, np.ndarray] | None:
        """``fb_board.unit_codes`` of these rows: each row's unit numbered in order of first
        appearance, and whether the row is the first of its unit; None without units."""
        return None if self.unit is None else first_appearance(self.unit)


def first_appearance(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row: its key numbered in order of first appearance, and whether the row is the first with it.
    Numbered so, a row is the first of its key exactly when its code exceeds every earlier row's: one
    running maximum, where ``np.unique(return_index=True)`` sorted every row (a tenth of the nightly's
    boards at three years' size)."""
    unit, _ = pd.factorize(keys)
    first = np.ones(len(unit), dtype=bool)
    if len(unit) > 1:
        first[1:] = unit[1:] > np.maximum.accumulate(unit[:-1])
    return unit, first


def first_appearance_codes(rows: pd.DataFrame, names: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Per row: the code of its values in the columns ``names``, numbered in order of first
    appearance, and whether the row is the first with them. The same as factorizing the
    MultiIndex of the columns (tests/store/test_fast_paths.py), by combining per-column codes."""
    columns = [rows[c] for c in names]
    factorized = [pd.factorize(c) for c in columns]
    sizes = [max(len(u), 1) for _, u in factorized]
    if any((codes < 0).any() for codes, _ in factorized) or math.prod(sizes) >= 2**62:  # a missing cell (code -1): the MultiIndex's own rules
        keys = pd.MultiIndex.from_frame(rows[names])
        return pd.factorize(keys)[0], ~keys.duplicated()
    combined = np.zeros(len(rows), dtype=np.int64)
    for (codes, _), size in zip(factorized, sizes, strict=True):
        combined = combined * size + codes
    return first_appearance(combined)


def _present(names: np.ndarray, code: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The ``names`` some row's ``code`` points to (still sorted), and each row's index among them."""
    kept, index = counted_unique(code, len(names))
    return names[kept], index
