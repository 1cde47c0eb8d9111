"""Does a night cost more as the hub's history grows? Nights at 5, 25 and 50 past rounds.

A synthetic hub on the offline sim world (a round every other day, horizons of 1 and 2 days, 24
market and 4 series questions per round, the hub's baselines and 4 synthetic forecasters) runs one
night after another in one process, as the demo does (one command's read cache, so the nightly's
incremental derive applies). When 5, 25 and 50 rounds are past due, two nights are timed:
- "new data": the next night, with the sim world's new values, resolutions and rounds;
- "nothing new": the same night run again (nothing to fetch that is not recorded, nothing to write).
CPU seconds of this process (``time.process_time``) are reported besides wall seconds: on a shared
machine wall time measures the neighbours as much as the code.

Usage: python -m benchmarks.bench_nightly_flat [--runs 3]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from generator.forecasters.synthetic import synthetic_forecasts, synthetic_models
from generator.pipeline.nightly import nightly
from generator.sources.sim import SimSource, world_from_options
from generator.store.hub import Hub
from generator.store.layout import Layout
from generator.timeutil import days, parse_ts

HUB = """\
[hub]
title = "Flat-night benchmark"

[rounds]
first_due = "2026-01-08T00:00:00Z"
cadence_days = 2
open_days_before_due = 1
market_questions = 24
dataset_questions = 4
horizons = [1, 2]

[scoring]
min_resolved = 5
min_age_days = 4

[leaderboard]
boards = ["tournament", "baseline"]
views = ["overall"]

[sources.sim]
enabled = true
seed = 11
start = "2026-01-01T00:00:00Z"
markets = 400
series = 12
span_days = 200
"""
CHECKPOINTS = (5, 25, 50)


def past_rounds(layout: Layout, night) -> int:
    return sum(1 for p in layout.round_dirs() if parse_ts(p.name) <= night)


def one_run() -> dict[tuple[int, str], tuple[float, float]]:
    """(past rounds, night kind) -> (wall s, CPU s)."""
    out: dict[tuple[int, str], tuple[float, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "hub"
        (root / "data").mkdir(parents=True)
        (root / "data/hub.toml").write_text(HUB, encoding="utf-8")
        hub = Hub.load(root)
        options = dict(next(s for s in hub.settings.sources if s.name == "sim").options)
        sim = SimSource(options, world_from_options(options))

        def run(night) -> tuple[float, float]:
            wall, cpu = time.perf_counter(), time.process_time()
            nightly(hub, night, extra=lambda q: synthetic_forecasts(sim.world, q), extra_models=synthetic_models(), env={}, sources={"sim": sim})
            return time.perf_counter() - wall, time.process_time() - cpu

        night = parse_ts("2026-01-05T00:00:00Z")
        for goal in CHECKPOINTS:
            while past_rounds(hub.layout, night) < goal:
                run(night)
                night += days(1)
            out[(goal, "new data")] = run(night)
            out[(goal, "nothing new")] = run(night)
            night += days(1)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    runs = [one_run() for _ in range(parser.parse_args().runs)]
    print("| past rounds | night | wall (median) | CPU (median) | CPU per run |")
    print("|---|---|---|---|---|")
    for key in runs[0]:
        walls, cpus = [r[key][0] for r in runs], [r[key][1] for r in runs]
        print(
            f"| {key[0]} | {key[1]} | {statistics.median(walls):.2f} s | {statistics.median(cpus):.2f} s | "
            + ", ".join(f"{c:.2f}" for c in cpus)
            + " |"
        )
    for kind in ("new data", "nothing new"):
        ratio = statistics.median(r[(50, kind)][1] for r in runs) / statistics.median(r[(5, kind)][1] for r in runs)
        print(f"{kind}: the 50-round night costs {ratio:.2f}x the 5-round night (CPU)")


if __name__ == "__main__":
    main()
