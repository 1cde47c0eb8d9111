"""``scoring.resolve.latest``: the ledgers' one rule for "the current row of each key"."""

from __future__ import annotations

import pandas as pd

from generator.scoring.resolve import latest


def test_the_current_row_is_the_last_recorded_and_a_tie_goes_to_the_row_written_last():
    rows = pd.DataFrame(
        {"id": ["a", "b", "a", "b", "a"], "recorded_at": ["2", "1", "1", "3", "2"], "v": ["a-second", "b-first", "a-first", "b-second", "a-third"]}
    )
    current = latest(rows, "id")
    assert dict(zip(current["id"], current["v"], strict=True)) == {"a": "a-third", "b": "b-second"}
    assert list(current["recorded_at"]) == sorted(current["recorded_at"]), "rows in the order's order"


def test_an_order_with_the_key_lists_the_rows_by_key_within_a_time():
    rows = pd.DataFrame({"id": ["z", "y", "z"], "recorded_at": ["1", "1", "1"], "v": ["z1", "y1", "z2"]})
    assert list(latest(rows, "id", ("recorded_at", "id"))["v"]) == ["y1", "z2"]
