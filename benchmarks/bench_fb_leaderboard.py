"""Benchmark: a ForecastBench-scale hub from FB files to the difficulty-adjusted board.

Workload: ``/work/shared/tools/synth_fb.py --rounds 14 --models 100 --seed 1`` (synthetic forecast
sets over the real FB question and resolution sets, ~3.3 million forecast rows with FB's baselines
and two human-median stand-ins), written once to a temporary folder (not timed). Each run, in a
fresh process and a fresh hub: ``import_forecastbench`` (all real FB sets + the forecast sets) →
``pipeline.recompute.write_round_scores`` (every round scored with the stated resolutions, ``data/scores`` written) →
``fb_board`` with FB's tournament options and 1,999 bootstrap replicates, as of 2026-08-21.

Run from the repository root: ``python -m benchmarks.bench_fb_leaderboard [--repeats 3]``.
Prints a Markdown block for benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from generator.vocabulary import REPLICATES

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
SYNTH = SHARED / "tools" / "synth_fb.py"
FB = SHARED / "forecastbench"
AS_OF = "2026-08-21T00:00:00Z"
DATE = "2026-11-23"


def one_run(synth: Path, hub: Path, replicates: int) -> dict:
    """Import, score and build the board once; return the phase timings (wall clock, and the
    process's CPU seconds, which a machine shared with other jobs inflates far less) and sizes."""
    import numpy as np

    from generator.interop.forecastbench.importer import import_forecastbench
    from generator.leaderboard.fb_board import FB_TOURNAMENT, FBOptions, fb_board
    from generator.pipeline.recompute import hub_view, write_round_scores
    from generator.store import readers
    from generator.store.hub import Hub
    from generator.timeutil import parse_ts

    t0, c0 = time.perf_counter(), time.process_time()
    files = Hub(hub)  # one command's read cache: the scoring reads the files the import wrote from it
    report = import_forecastbench(files, FB, synth / "forecast_sets", as_of=AS_OF)
    t1, c1 = time.perf_counter(), time.process_time()
    view = hub_view(files, readers.load_observations(files), parse_ts(AS_OF))
    scores, _ = write_round_scores(files, view, 0.5)
    t2, c2 = time.perf_counter(), time.process_time()
    options = FBOptions(**{**FB_TOURNAMENT.__dict__, "replicates": replicates})
    board = fb_board(scores, readers.load_models(Hub(hub)), parse_ts(AS_OF), np.random.default_rng(1), options)
    t3, c3 = time.perf_counter(), time.process_time()
    return {
        "import": t1 - t0,
        "score": t2 - t1,
        "board": t3 - t2,
        "total": t3 - t0,
        "cpu_import": c1 - c0,
        "cpu_score": c2 - c1,
        "cpu_board": c3 - c2,
        "cpu_total": c3 - c0,
        "forecast_files": report.forecast_files,
        "scored_rows": len(scores),
        "board_rows": len(board),
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def _child(args) -> None:
    print(json.dumps(one_run(Path(args.synth), Path(args.hub), args.replicates)))


def _runs(synth: Path, repeats: int, replicates: int) -> list[dict]:
    out = []
    for i in range(repeats):
        with tempfile.TemporaryDirectory(prefix="fbhub-") as hub:
            cmd = [
                sys.executable,
                "-m",
                "benchmarks.bench_fb_leaderboard",
                "--child",
                "--synth",
                str(synth),
                "--hub",
                hub,
                "--replicates",
                str(replicates),
            ]
            done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True)
            out.append(json.loads(done.stdout.strip().splitlines()[-1]))
            print(f"run {i + 1}: {out[-1]}", file=sys.stderr)
    return out


def _machine() -> str:
    cpu = next(
        (line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("model name")),
        platform.processor(),
    )
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{os.cpu_count()} CPUs ({cpu}), {mem:.0f} GB RAM, Python {platform.python_version()}"


def _markdown(runs: list[dict], replicates: int, load: str) -> str:
    med = {k: statistics.median(r[k] for r in runs) for k in ("import", "score", "board", "total")}
    cpu = {k: statistics.median(r[f"cpu_{k}"] for r in runs) for k in ("import", "score", "board", "total")}
    cells = " | ".join(f"{r['total']:.1f} s" for r in runs)
    first = runs[0]
    return f"""
## ForecastBench import → score → board

Date {DATE}. Machine: {_machine()}. Load average at the start: {load}.
Command: `python -m benchmarks.bench_fb_leaderboard --repeats {len(runs)}`. Workload:
`synth_fb.py --rounds 14 --models 100 --seed 1` over the real FB sets (written once, not timed);
each run in a fresh process and hub: import all 35 FB rounds + {first["forecast_files"]} forecast files
(incl. the hub's 3 baselines per round), score every round ({first["scored_rows"]:,} scored rows),
then `fb_board` with FB's tournament options as of {AS_OF} and {replicates:,} bootstrap replicates
({first["board_rows"]} models).

| phase | wall clock, median of {len(runs)} | CPU, median |
|---|---|---|
| import (`import_forecastbench`) | {med["import"]:.1f} s | {cpu["import"]:.1f} s |
| score (`recompute.write_round_scores`: read, resolve, score, write `data/scores`) | {med["score"]:.1f} s | {cpu["score"]:.1f} s |
| board (`fb_board`: panel, fit, {replicates:,} replicates, summary) | {med["board"]:.1f} s | {cpu["board"]:.1f} s |
| **total** | **{med["total"]:.1f} s** ({cells}) | {cpu["total"]:.1f} s |

Peak RSS (largest of the runs): {max(r["peak_rss_mb"] for r in runs):,.0f} MB. Targets: ≤60 s, ≤4 GB.
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--replicates", type=int, default=REPLICATES)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--synth", help="an existing synth_fb.py output folder (default: generate one)")
    parser.add_argument("--hub", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return _child(args)
    load = "{:.1f} {:.1f} {:.1f}".format(*os.getloadavg())
    with tempfile.TemporaryDirectory(prefix="synth-fb-") as tmp:
        synth = Path(args.synth) if args.synth else Path(tmp) / "synth"
        if not args.synth:
            subprocess.run(
                [sys.executable, str(SYNTH), "--rounds", "14", "--models", "100", "--seed", "1", "--out", str(synth)], check=True, capture_output=True
            )
        print(_markdown(_runs(synth, args.repeats, args.replicates), args.replicates, load))


if __name__ == "__main__":
    main()
