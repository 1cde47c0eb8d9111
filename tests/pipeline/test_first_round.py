"""A hub whose first fetch comes after its first round's freeze time opens that round all the same,
frozen at that run; too close to the due time, it says when the next one opens."""

from __future__ import annotations

import pandas as pd
import pytest

from generator.pipeline.nightly import nightly
from generator.timeutil import parse_ts

from helpers import PRESCIENT, SMALL_HUB, write_hub

pytestmark = pytest.mark.e2e

MARKETS_ONLY = SMALL_HUB.replace("dataset_questions = 4", "dataset_questions = 0")  # the sim's markets are observed at each run


def test_the_first_round_opens_at_the_first_run_after_its_freeze_time(tmp_path):
    root = write_hub(tmp_path / "hub", MARKETS_ONLY)
    report = nightly(root, parse_ts("2026-01-20T02:23:00Z"))  # round 2026-01-25 froze on 2026-01-15: nothing was known then
    assert report.rounds_opened == ["2026-01-25"] and report.rounds_waiting == []
    questions = pd.read_csv(root / "data/rounds/2026-01-25/questions.csv", dtype=str, keep_default_na=False)
    assert len(questions) == 12 and set(questions["freeze_time"]) == {"2026-01-20T02:23:00Z"}
    assert questions["freeze_value"].ne("").all(), "the freeze values are the markets' values at the run that froze it"
    assert report.round_notes == [
        "round 2026-01-25: nothing was eligible at its freeze time, so it is frozen now, 2026-01-20T02:23:00Z (the first run with eligible questions)"
    ]
    again = nightly(root, parse_ts("2026-01-21T02:23:00Z"))
    assert again.rounds_opened == [] and again.round_notes == [], "a published round is frozen"
    baselines = sorted(p.name for p in (root / "data/forecasts/2026-01-25").iterdir())
    assert "prescient.always-0.5.csv" in baselines


def test_a_round_too_close_to_its_due_time_waits_and_the_message_says_when_the_next_opens(tmp_path):
    root = write_hub(tmp_path / "hub", MARKETS_ONLY)
    done = _cli("nightly", "--hub", str(root), "--as-of", "2026-01-24T12:00:00Z")
    assert done.returncode == 0, done.stderr
    assert (
        "round 2026-01-25: not opened, no eligible question before its due time; the next round is due "
        "2026-02-08T00:00:00Z and opens at the first nightly from 2026-01-29T00:00:00Z that has eligible questions"
    ) in done.stdout
    assert not (root / "data/rounds/2026-01-25").exists()
    early = write_hub(tmp_path / "quiet", MARKETS_ONLY.replace("[sources.sim]\nenabled = true", "[sources.sim]\nenabled = false"))
    done = _cli("nightly", "--hub", str(early), "--as-of", "2026-01-16T00:00:00Z")
    assert "round 2026-01-25: not opened, no eligible question yet; each nightly until 2026-01-24T00:00:00Z tries again" in done.stdout


def test_check_config_says_a_round_whose_freeze_time_passed_opens_at_the_next_nightly(tmp_path):
    root = write_hub(tmp_path / "hub", MARKETS_ONLY)
    done = _cli("check-config", "--hub", str(root), "--as-of", "2026-01-20T00:00:00Z")
    assert "the next is due 2026-01-25T00:00:00Z (frozen and published 2026-01-15T00:00:00Z) (its freeze time has passed" in done.stdout, done.stdout


def _cli(*args: str):
    import subprocess

    return subprocess.run([PRESCIENT, *args], capture_output=True, text=True, timeout=300, check=False)
