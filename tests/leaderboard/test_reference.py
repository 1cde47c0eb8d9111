"""The p-value reference row is the model ``[leaderboard] reference`` names, by its exact id.

It used to be found by a suffix match (any id ending ``.superforecaster-median-forecast``), so a
newcomer could register ``evil.superforecaster-median-forecast`` and become the row every other
forecaster is compared with. A name never chooses the reference now: a configured id that is not on
the board gives that board no reference (every row says so), and nothing configured means the top
model.
"""

from __future__ import annotations

import numpy as np
import pytest

from generator.leaderboard.fb_board import NO_REFERENCE, FBOptions, fb_board
from generator.models import ModelMeta
from generator.timeutil import parse_ts

from helpers import score_rows

AS_OF = parse_ts("2026-03-01T00:00:00Z")
OUTCOME = {"d1": 1.0, "d2": 0.0, "m1": 1.0, "m2": 0.0}
SQUATTER = "evil.superforecaster-median-forecast"
FORECASTS = {
    "a.x": {"d1": 0.9, "d2": 0.1, "m1": 0.8, "m2": 0.2},  # the best
    "b.y": {"d1": 0.6, "d2": 0.5, "m1": 0.6, "m2": 0.4},
    "evil.prescient.naive": {"d1": 0.5, "d2": 0.5, "m1": 0.5, "m2": 0.5},
    SQUATTER: {"d1": 0.2, "d2": 0.8, "m1": 0.3, "m2": 0.7},
}  # the worst
MODELS = {m: ModelMeta(m, m, "Org", "llm") for m in FORECASTS}


def board(reference: str | None):
    scores = score_rows(FORECASTS, OUTCOME, "2026-01-04", ())
    out = fb_board(scores, MODELS, AS_OF, np.random.default_rng(0), FBOptions(replicates=40, reference=reference))
    return out.set_index("model")


def reference_rows(frame) -> list[str]:
    """The rows compared with nobody: the reference (p-values are NaN on its own row only)."""
    return sorted(frame.index[frame["p_value"].isna()])


def test_a_model_named_like_the_superforecaster_median_is_not_the_default_reference():
    out = board(None)
    assert reference_rows(out) == ["a.x"], "nothing configured: the top model, never a look-alike id"
    assert np.isfinite(out.loc[SQUATTER, "p_value"])


@pytest.mark.parametrize(
    "configured", ["forecastbench.superforecaster-median-forecast", "prescient.naive", "naive", "superforecaster-median-forecast", "A.X", "a.x "]
)
def test_a_configured_id_matches_exactly_or_the_board_has_no_reference(configured):
    out = board(configured)
    assert reference_rows(out) == sorted(FORECASTS), "no row may stand in for a missing reference"
    assert set(out["p_label"]) == {NO_REFERENCE} and set(out["p_display"]) == {"—"}


def test_the_configured_id_is_the_reference():
    out = board("b.y")
    assert reference_rows(out) == ["b.y"] and NO_REFERENCE not in set(out["p_label"])
    assert board("evil.prescient.naive").pipe(reference_rows) == ["evil.prescient.naive"]
