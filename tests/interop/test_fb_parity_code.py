"""An import's tournament board equals ForecastBench's own leaderboard code on the same
input, also on a partial import (2 rounds of forecast sets over 35 rounds of real question sets).

The fixture ``fb_parity/fb_tournament.csv`` is what ForecastBench's ``make_leaderboard`` (tournament
board, ``MARKET_BRIER`` market rule, its bootstrap) printed for the forecast sets that
``../shared/tools/synth_fb.py --rounds 2 --models 8 --seed 1`` writes; ``fb_parity/README.md`` gives
the recipe (FB's commit, the harness, the command). Here the same sets are imported with
``prescient import forecastbench`` and ranked with the import's default settings: every
ForecastBench model's dataset, market and overall Brier Index within 1e-4 of FB's, each end of its
95% interval within 1.0. Skipped, with the reason, where ``../shared`` (the real sets and the
generator) is absent. Under 0.13.3 the market view was off by up to 9.9 points (FB's ``Always 0.5``
at 44.8 instead of 50) and the hub's own ``Always 0.5`` sat beside FB's under the same name."""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from helpers import ROOT

SHARED = ROOT.parent / "shared"
FB = SHARED / "forecastbench"
SYNTH = SHARED / "tools" / "synth_fb.py"
HERE = Path(__file__).resolve().parent / "fb_parity"
RECIPE = json.loads((HERE / "recipe.json").read_text())
AS_OF = RECIPE["as_of"]
TYPES = ("dataset", "market", "overall")

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(
        not ((FB / "datasets").is_dir() and SYNTH.is_file()), reason=f"the real ForecastBench sets and synth_fb.py not found under {SHARED}"
    ),
]


def input_digest(forecast_sets: Path) -> str:
    """sha256 over the forecast sets' relative paths and bytes, in path order (the recipe records it)."""
    h = hashlib.sha256()
    for p in sorted(forecast_sets.rglob("*.json")):
        h.update(p.relative_to(forecast_sets).as_posix().encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


@pytest.fixture(scope="module")
def boards(tmp_path_factory):
    work = tmp_path_factory.mktemp("fbparity")
    subprocess.run([sys.executable, str(SYNTH), *RECIPE["synth_args"], "--out", str(work / "synth")], check=True, capture_output=True, text=True)
    sets = work / "synth" / "forecast_sets"
    assert input_digest(sets) == RECIPE["input_sha256"], "synth_fb.py no longer writes the fixture's input"
    hub = work / "hub"
    run = [sys.executable, "-m", "generator"]
    env = {**os.environ, "PRESCIENT_CACHE_DIR": str(work / "cache")}
    subprocess.run(
        [*run, "import", "forecastbench", str(FB), "--forecasts", str(sets), "--hub", str(hub), "--as-of", AS_OF],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )
    done = subprocess.run(
        [*run, "leaderboard", "--hub", str(hub), "--as-of", AS_OF, "--format", "csv"], check=True, capture_output=True, text=True, env=env
    )
    ours = pd.read_csv(io.StringIO(done.stdout), keep_default_na=False, na_values=[""])
    theirs = pd.read_csv(HERE / "fb_tournament.csv")
    return ours, theirs


def test_every_forecastbench_model_scores_what_forecastbench_code_gives(boards):
    ours, theirs = boards
    assert ours["name"].is_unique, "a display name shown twice on the board"
    ours = ours.set_index("name")
    assert set(theirs["model"]) <= set(ours.index)
    for _, fb in theirs.iterrows():
        row = ours.loc[fb["model"]]
        assert (row["n_dataset"], row["n_market"]) == (fb["n_dataset"], fb["n_market"]), fb["model"]
        for t in TYPES:
            assert abs(row[t] - fb[f"brier_index_{t}"]) <= 1e-4, (fb["model"], t, row[t], fb[f"brier_index_{t}"])
            assert abs(row[f"{t}_ci_low"] - fb[f"brier_index_{t}_ci_lower"]) <= 1.0, (fb["model"], t, "low")
            assert abs(row[f"{t}_ci_high"] - fb[f"brier_index_{t}_ci_upper"]) <= 1.0, (fb["model"], t, "high")


def test_always_half_is_fifty_and_the_hubs_own_baselines_are_named_apart(boards):
    ours, _ = boards
    half = ours[ours["model"].str.endswith("always-0.5")].set_index("model")
    assert set(half.index) == {"forecastbench.always-0.5", "prescient.always-0.5"}
    for t in TYPES:
        assert half[t].tolist() == pytest.approx([50.0, 50.0], abs=1e-9)
    assert half.loc["forecastbench.always-0.5", "name"] == "Always 0.5"
    assert half.loc["prescient.always-0.5", "name"] == "Always 0.5 (hub)"
