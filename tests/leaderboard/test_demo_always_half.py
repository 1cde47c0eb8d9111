"""``Always 0.5`` scores exactly 50 on every view of every board, in both
market modes, at the season's last night (the demo as ``prescient demo`` builds it: the
``demo_hub`` fixture, or ``PRESCIENT_TEST_DEMO``), with its bootstrap interval at 50 too, and in
every row the nightly recorded in ``history.csv``. The demo's rounds each hold estimation-sample
forecasts, so 0.13.3 already gave 50 here: this guards the demo while the property test
(test_always_half.py) holds the rule on hubs where it failed."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from generator.leaderboard.crowd import crowd_from_rounds
from generator.leaderboard.fb_board import board_options, fb_board
from generator.leaderboard.views import horizon_days, view_rows
from generator.store import readers
from generator.store.hub import Hub
from generator.timeutil import parse_ts
from generator.vocabulary import BOARDS

HALF = "prescient.always-0.5"
COLUMNS = [f"{t}{end}" for t in ("dataset", "market", "overall") for end in ("", "_ci_low", "_ci_high")]


def test_always_half_is_fifty_on_every_view_of_every_board_of_the_demo(demo_hub):
    hub = Hub(demo_hub)
    scores = readers.load_scores(hub)
    history = (
        pd.read_csv(demo_hub / "data" / "history.csv", dtype=str, keep_default_na=False) if (demo_hub / "data" / "history.csv").is_file() else None
    )
    as_of = parse_ts(max(history["as_of"])) if history is not None and len(history) else parse_ts(max(scores["resolved_at"]))
    models = readers.load_models(hub, as_of)
    rounds = pd.concat([readers.load_round(hub, d) for d in readers.round_dues(hub)])
    crowd = crowd_from_rounds(rounds, readers.load_observations(hub))
    views = [
        "overall",
        "dataset",
        "market",
        "resolved-only",
        *(f"source:{s}" for s in sorted(scores["source"].unique())),
        *(f"horizon:{h}" for h in sorted(horizon_days(scores).dropna().unique())),
    ]
    checked = 0
    for board in BOARDS:
        for market_difficulty in ("estimated", "crowd"):
            options = board_options(hub.settings.scoring, hub.settings.leaderboard, board=board, replicates=20, market_difficulty=market_difficulty)
            for view in views:
                rows = view_rows(scores, view)
                if rows.empty:
                    continue
                out = fb_board(rows, models, as_of, np.random.default_rng(0), options, crowd)
                half = out[out["model"] == HALF]
                for col in COLUMNS:
                    for value in half[col].astype(float):
                        if np.isfinite(value):
                            checked += 1
                            assert value == pytest.approx(50.0, abs=1e-9), (board, market_difficulty, view, col, value)
    assert checked > 0
    if history is not None:  # what the nightly recorded, every night, board and view
        recorded = history[history["model"] == HALF]
        for col in ("overall", "dataset", "market"):
            values = pd.to_numeric(recorded[col], errors="coerce").dropna()
            assert np.allclose(values, 50.0, atol=1e-6), (col, sorted(set(values.round(4)))[:5])
