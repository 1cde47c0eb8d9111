"""The fetch's fast paths (``ingest.fetched_questions``, ``ObservationState.fetched_rows``) drop the
fetched rows that surely add nothing before any frame is built; what the general path then finds new
must be exactly what it finds in the whole fetch, on hostile text and awkward numbers."""

from __future__ import annotations

import itertools
import math
from datetime import UTC, datetime, timedelta

import pandas as pd
import pytest

from generator.sources.base import Observation, Question
from generator.store import ingest

AS_OF = datetime(2026, 2, 1, tzinfo=UTC)
BEFORE = AS_OF - timedelta(days=1)
TEXTS = ["plain", "a, comma", 'say "hi"', "two\nlines", "bare\rCR", "crlf\r\n", " edge ", "ünï — ✓ 日本",
         "nul\x00here", "lone \ud800 surrogate", "\u2028", "=1+1"]


def question(i: int, text: str, **changes) -> Question:
    base = dict(id=f"sim:{i}", source="sim", kind="binary", text=text, background=text[::-1], resolution_criteria=text,
                url="https://example.org", category=text, open_time=BEFORE - timedelta(days=i), close_time=None)
    return Question(**{**base, **changes})


def fetch_of_questions() -> tuple[list[Question], list[Question]]:
    """(recorded earlier, fetched tonight): unchanged, changed, new, and ids fetched twice."""
    recorded = [question(i, t) for i, t in enumerate(TEXTS)]
    tonight = [question(i, t) for i, t in enumerate(TEXTS)]
    tonight[1] = question(1, TEXTS[1] + "!")  # changed text
    tonight[4] = question(4, TEXTS[4], close_time=AS_OF)  # changed time
    tonight += [question(50, "new"), question(51, "\ud800 new too")]
    tonight += [question(2, "changed then back"), question(2, TEXTS[2])]  # the last of an id decides
    tonight += [question(3, TEXTS[3]), question(3, "changed last")]
    return recorded, tonight


def test_the_fetched_questions_find_what_the_whole_frame_finds():
    recorded, tonight = fetch_of_questions()
    bank = ingest.question_frame(recorded, BEFORE)
    latest = ingest.latest_contents(bank)
    whole = ingest.new_questions(bank, ingest.question_frame(tonight, AS_OF), dict(latest))
    fast = ingest.new_questions(bank, ingest.fetched_questions(tonight, AS_OF, latest), latest)
    pd.testing.assert_frame_equal(fast, whole)
    assert sorted(set(whole["id"])) == ["sim:1", "sim:3", "sim:4", "sim:50", "sim:51"]
    assert len(ingest.fetched_questions(recorded, AS_OF, latest)) == 0  # an unchanged fetch builds nothing
    nothing = ingest.new_questions(bank, ingest.fetched_questions([], AS_OF, latest), latest)
    pd.testing.assert_frame_equal(nothing, ingest.new_questions(bank, ingest.question_frame([], AS_OF), latest))


VALUES = [0.5, -0.0, 0.0, 1 / 3, 1e-20, 123456789.123456, float("inf"), float("nan"), None, 0.1 + 0.2, 2.0, 7]


def observation(q: str, day: int, value, status: str = "open", outcome=None) -> Observation:
    return Observation(question_id=q, observed_at=AS_OF - timedelta(days=day), value=value, status=status, outcome=outcome,
                       payload_sha256="h")


def test_the_fetched_observations_find_what_the_whole_frame_finds():
    kinds = {f"m:{i}": "binary" for i in range(20)} | {f"s:{i}": "dataset" for i in range(20)}
    earlier = [observation(f"m:{i}", 2, v) for i, v in enumerate(VALUES)]
    earlier += [observation(f"s:{i}", d, v) for (i, v), d in itertools.product(enumerate(VALUES), (1, 2))]
    state = ingest.ObservationState.of(ingest.observation_frame(earlier, BEFORE))
    tonight = [observation(f"m:{i}", 0, v) for i, v in enumerate(VALUES)]  # same values, a later snapshot
    tonight += [observation("m:0", 0, 0.5, "resolved", 1.0), observation("m:1", 0, 0.0),  # resolved; -0.0 → 0.0
                observation("m:2", 0, 0.25), observation("m:2", 0, 0.0),  # changed, then back: the last decides
                observation("m:3", 0, 1 / 3 + 1e-12), observation("m:19", 0, math.pi)]  # below %.10g; a new question
    tonight += [observation(f"s:{i}", 2, v) for i, v in enumerate(VALUES)]  # the same dates, unchanged
    tonight += [observation("s:0", 1, 0.75), observation("s:5", 3, 1.0), observation("s:6", 2, float("-inf"))]
    whole = state.new_rows(ingest.observation_frame(tonight, AS_OF), kinds)
    fast = state.new_rows(state.fetched_rows(tonight, AS_OF, kinds), kinds)
    pd.testing.assert_frame_equal(fast, whole)
    assert len(whole) == 5
    assert len(state.fetched_rows(earlier[:12], AS_OF, kinds)) == 0


@pytest.mark.parametrize("value", VALUES)
def test_a_value_read_back_is_written_as_the_text_it_was_compared_as(value):
    """The fast path compares a fetched value's text before any frame; the general path writes it,
    reads it back typed, and writes it again: the text must not move."""
    row = [observation("m:1", 0, value)]
    frame = ingest.observation_frame(row, AS_OF)
    texts = ingest._column_texts(ingest._observation_rows(row, AS_OF), ["value"], ingest.OBSERVATIONS)
    assert texts == [ingest.as_text(frame, ingest.OBSERVATIONS)["value"].tolist()]
