"""How a board's rows are named and ordered. Pure.

- ``distinct_names``: each display name once on a board (an import's ``Always 1`` beside the hub's own);
- ``board_order``: rank, then score, then model id, NaN last.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from ..models import DEFAULT_OWN, is_own

HUB_SUFFIX = " (hub)"


def distinct_names(ids, names: list[str], own: str = DEFAULT_OWN) -> list[str]:
    """The display names of a board's rows (model ``ids``), each shown once: where two rows carry the
    same name (an import's ForecastBench ``Always 1`` beside the hub's own), the hub's own forecaster
    (``<own>.*``, ``[hub] own_prefix``) is named apart with `` (hub)``, and any name still shared carries its model id.
    The model ids (the board's ``model`` column, the API, the CSV) are untouched."""
    names = list(names)
    counts = Counter(names)
    if all(n == 1 for n in counts.values()):
        return names
    names = [n + HUB_SUFFIX if counts[n] > 1 and is_own(str(m), own) else n for m, n in zip(ids, names, strict=True)]
    counts = Counter(names)
    return [f"{n} ({m})" if counts[n] > 1 else n for m, n in zip(ids, names, strict=True)]


def board_order(rank: np.ndarray, score: np.ndarray) -> np.ndarray:
    """The order of a board whose rows are its models sorted by id: rank ascending, then ``score``
    descending, then model id, NaN last in each; the order of pandas' ``sort_values`` on the three
    columns (tests/leaderboard/test_fb_board.py) from one ``np.lexsort`` (keys least significant first)."""
    return np.lexsort(
        (np.arange(rank.size), np.where(np.isnan(score), 0.0, -score), np.isnan(score), np.where(np.isnan(rank), 0.0, rank), np.isnan(rank))
    )
