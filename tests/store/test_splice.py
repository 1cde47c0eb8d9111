"""``splice.spliced`` gives a canonical file's bytes from its old bytes and the rows that changed.

The nightly splices a round's score file when a night touches a few of its units
(``incremental._write_scores``); the bytes must be those ``csvio.to_csv_bytes`` writes for the new
frame, for any texts a plain file can hold (ids with characters that sort before the comma, non-ASCII
text, empty resolution dates), and ``spliced`` must refuse (None: the file is written whole) whatever
it cannot splice soundly.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.schemas import FORECASTS, HISTORY, SCORES
from generator.store import splice
from generator.store.csvio import to_csv_bytes

# texts that sort around the comma and the separator the keys use, and beyond ASCII
ID_TEXT = st.text(st.sampled_from(list("ab!+ -.:_Zé語")), min_size=1, max_size=4).filter(lambda t: not t.endswith(" "))


def _scores(keys: list[tuple[str, str, str]], seed: int) -> pd.DataFrame:
    """A SCORES frame of one round with these (model, question_id, resolution_date) keys."""
    rng = np.random.default_rng(seed)
    probability = rng.integers(0, 1_000_001, len(keys)) / 1_000_000
    outcome = rng.integers(0, 2, len(keys)).astype(float)
    return pd.DataFrame(
        {
            "round": "2026-01-04",
            "model": [f"t.{m}" for m, _, _ in keys],
            "question_id": [f"q{q}" for _, q, _ in keys],
            "resolution_date": [d for _, _, d in keys],
            "source": "sim",
            "kind": ["dataset" if d else "binary" for _, _, d in keys],
            "category": "Économie",
            "probability": probability,
            "imputed": rng.integers(0, 2, len(keys)),
            "outcome": outcome,
            "resolved_at": "2026-02-01T00:00:00Z",
            "brier": (probability - outcome) ** 2,
            "proxy": np.nan,
        },
        columns=list(SCORES.names),
    )


UNIT = ("question_id", "resolution_date")
UNITS = st.lists(st.tuples(ID_TEXT, st.sampled_from(["", "2026-01-10", "2026-02-01"])), min_size=1, max_size=12, unique=True)


@settings(max_examples=150, deadline=None)
@given(models=st.lists(ID_TEXT, min_size=1, max_size=5, unique=True), units=UNITS, data=st.data())
def test_a_spliced_file_is_the_canonical_file_of_the_new_frame(models, units, data):
    old_units = data.draw(st.lists(st.sampled_from(units), unique=True), label="units of the old file")
    new_units = data.draw(st.lists(st.sampled_from(units), unique=True), label="units of the new one")
    named = data.draw(st.sets(st.sampled_from([q for q, _ in units])), label="questions touched")
    dates = data.draw(st.sets(st.sampled_from(["2026-01-10", "2026-02-01", "2026-03-01"])), label="dates passed")
    touched = lambda q, d: q in named or d in dates  # noqa: E731
    # the rows of units not touched are the same in both; the touched ones may go, come or change
    old = _scores([(m, q, d) for q, d in old_units for m in models], seed=1)
    new = _scores([(m, q, d) for q, d in new_units for m in models], seed=2)
    rest = old[[not touched(q[1:], d) for q, d in zip(old["question_id"], old["resolution_date"], strict=True)]]
    changed = new[[touched(q[1:], d) for q, d in zip(new["question_id"], new["resolution_date"], strict=True)]]
    gone = {(f"q{q}", d) for q, d in units if touched(q, d)}
    got = splice.spliced(to_csv_bytes(old, SCORES), SCORES, changed.sample(frac=1, random_state=3), UNIT, gone, len(old) - len(rest))
    assert got == to_csv_bytes(pd.concat([rest, changed]), SCORES)


def test_what_cannot_be_spliced_soundly_is_refused():
    old = _scores([("a", "1", ""), ("a", "2", ""), ("b", "1", ""), ("b", "2", "")], seed=1)
    data, q2 = to_csv_bytes(old, SCORES), (UNIT, {("q2", "")})  # the columns named, and the unit dropped
    changed = _scores([("a", "2", ""), ("b", "2", "")], seed=2)
    assert splice.spliced(data, SCORES, changed, *q2, 2) == to_csv_bytes(pd.concat([old.iloc[[0, 2]], changed]), SCORES)
    assert splice.spliced(data, SCORES, changed, *q2, 3) is None, "a count of lines dropped not the caller's"
    assert splice.spliced(data, SCORES, old.iloc[[0]], *q2, 2) is None, "a new row with the key of a line kept"
    quoted = to_csv_bytes(old.assign(category="Economy, trade"), SCORES)
    assert b'"' in quoted and splice.spliced(quoted, SCORES, changed, *q2, 2) is None, "a file with quoted cells"
    assert splice.spliced(data, SCORES, changed.assign(category="a, b"), *q2, 2) is None, "new lines with quoted cells"
    assert splice.spliced(data.replace(b"round,", b"Round,", 1), SCORES, changed, *q2, 2) is None, "another header"
    lines = data.split(b"\n")
    first, rest = lines[2].split(b",", 1)
    torn = b"\n".join([lines[0], lines[1] + b"," + first, rest, *lines[3:]])  # a line with a cell too many, the next one less
    assert torn.count(b",") == data.count(b",") and splice.spliced(torn, SCORES, changed, *q2, 2) is None, "a torn line"
    assert splice.spliced(data, HISTORY, changed, *q2, 2) is None, "a table whose sort is not its first columns"
    forecasts = to_csv_bytes(pd.DataFrame({"question_id": ["q1"], "resolution_date": [""], "probability": [0.5], "reasoning": [""]}), FORECASTS)
    assert splice.spliced(forecasts, FORECASTS, pd.DataFrame(columns=list(FORECASTS.names)), UNIT, {("q1", "")}, 1) == to_csv_bytes(
        pd.DataFrame(columns=list(FORECASTS.names)), FORECASTS
    )
