"""``resolve.known_by`` sorts on fewer columns when the rows are in recording order already; its
result must be the general stable sort's, row for row and index for index."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from generator.scoring import resolve


def ledger(seed: int, in_recording_order: bool) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n = 400
    frame = pd.DataFrame(
        {
            "question_id": rng.choice(["a:1", "a:10", "a:2", "b,1", 'q"x', "ü:1"], n),
            "observed_at": rng.choice([f"2026-01-0{d}T00:00:00Z" for d in range(1, 6)], n),
            "recorded_at": rng.choice([f"2026-01-0{d}T00:00:00Z" for d in range(1, 8)], n),  # ties on every key
            "value": rng.random(n),
            "status": "open",
        }
    )
    if in_recording_order:
        frame = frame.sort_values("recorded_at", kind="mergesort").reset_index(drop=True)
    return frame


def general(obs: pd.DataFrame, as_of: str) -> pd.DataFrame:
    seen = obs[obs["recorded_at"] <= as_of]
    return seen.sort_values(["question_id", "observed_at", "recorded_at"], kind="mergesort")


@pytest.mark.parametrize("text", [object, pd.StringDtype("python", na_value=np.nan)])  # the latter: as a ledger is read
@pytest.mark.parametrize("in_order", [True, False])
@pytest.mark.parametrize("as_of", ["2026-01-04T00:00:00Z", "2026-01-07T00:00:00Z", "2026-02-01T00:00:00Z", "2025-12-31T00:00:00Z"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_known_by_is_the_general_stable_sort(seed: int, in_order: bool, as_of: str, text):
    obs = ledger(seed, in_order).astype({c: text for c in ("question_id", "observed_at", "recorded_at", "status")})
    pd.testing.assert_frame_equal(resolve.known_by(obs, as_of), general(obs, as_of))
    view, reference = resolve.ledger_view(obs, as_of), general(obs, as_of)
    pd.testing.assert_frame_equal(view.states, resolve.market_states(reference))


def test_known_by_of_no_rows():
    empty = ledger(1, True).iloc[:0]
    pd.testing.assert_frame_equal(resolve.known_by(empty, "2026-01-04T00:00:00Z"), general(empty, "2026-01-04T00:00:00Z"))


def test_the_coded_sort_leaves_a_missing_text_to_sort_values():
    frame = pd.DataFrame({"question_id": ["b", None, "a", "b"], "observed_at": ["2", "1", "1", "1"]})
    for keys in (["question_id", "observed_at"], ["observed_at", "question_id"]):
        pd.testing.assert_frame_equal(resolve.stable_sorted(frame, keys), frame.sort_values(keys, kind="mergesort"))
