"""Benchmark: the CLI at ForecastBench scale, each command a fresh process as in CI.

Workload: ``/work/shared/tools/synth_fb.py --rounds 14 --models 100 --seed 1``
(written once, not timed) imported with every real FB round (14 rounds × 100 models + 21 imported
rounds), as of 2026-08-21. In a fresh hub folder and a fresh cache folder, one after the other:

1. ``prescient import forecastbench`` (imports and scores every round);
2. the first ``prescient nightly`` after it (writes the hub's after-due baselines, scores again);
3. ``prescient nightly`` with nothing new (the same as-of again), ``--nights`` times.

The import and the nightlies share one cache folder (``--cache-dir``), as they share
``~/.cache/prescient`` on a maintainer's machine or a CI runner.

Each command runs as its own process (``os.wait4``: wall clock, the process's user + system CPU
seconds and its peak RSS). ``--code DIR`` runs another tree of the package (``git archive REV``
unpacked there) to measure it the same way; a tree whose command takes no ``--cache-dir`` (its
``--help`` says) gets none. The load average is sampled before and after each command: the machine is shared.

Run from the repository root: ``python -m benchmarks.bench_fb_nightly [--runs 1] [--nights 3]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
SYNTH = SHARED / "tools" / "synth_fb.py"
FB = SHARED / "forecastbench"
AS_OF = "2026-08-21T00:00:00Z"


def _run(args: list[str], code: Path | None) -> dict:
    env = dict(os.environ, PYTHONPATH=str(code)) if code else dict(os.environ)
    load = os.getloadavg()[0]
    start = time.perf_counter()
    with tempfile.TemporaryFile() as stderr:
        child = subprocess.Popen(
            [sys.executable, "-m", "generator", *args], cwd=tempfile.gettempdir(), env=env, stdout=subprocess.DEVNULL, stderr=stderr
        )
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        stderr.seek(0)
        err = stderr.read().decode(errors="replace")
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{' '.join(args[:2])} failed: {err[-2000:]}")
    return {
        "wall": round(wall, 2),
        "cpu": round(usage.ru_utime + usage.ru_stime, 2),
        "rss_mb": round(usage.ru_maxrss / 1024),
        "load": f"{load:.1f}→{os.getloadavg()[0]:.1f}",
    }


def _takes_cache_dir(command: list[str], code: Path | None) -> bool:
    """Whether the tree's ``prescient COMMAND`` has the ``--cache-dir`` option (its ``--help`` lists it)."""
    env = dict(os.environ, PYTHONPATH=str(code)) if code else dict(os.environ)
    shown = subprocess.run(
        [sys.executable, "-m", "generator", *command, "--help"], cwd=tempfile.gettempdir(), env=env, capture_output=True, text=True
    )
    return "--cache-dir" in shown.stdout


def one_run(synth: Path, work: Path, code: Path | None, nights: int) -> dict:
    hub, cache = work / "hub", work / "cache"
    cached = ["--cache-dir", str(cache)] if _takes_cache_dir(["nightly"], code) else []
    imports_cached = cached if _takes_cache_dir(["import", "forecastbench"], code) else []
    result = {
        "import": _run(
            ["import", "forecastbench", str(FB), "--forecasts", str(synth / "forecast_sets"), "--hub", str(hub), "--as-of", AS_OF, *imports_cached],
            code,
        )
    }
    print(f"import: {result['import']}", file=sys.stderr)
    result["first"] = _run(["nightly", "--hub", str(hub), "--as-of", AS_OF, *cached], code)
    print(f"first nightly: {result['first']}", file=sys.stderr)
    result["nothing"] = []
    for _ in range(nights):
        result["nothing"].append(_run(["nightly", "--hub", str(hub), "--as-of", AS_OF, *cached], code))
        print(f"nothing new: {result['nothing'][-1]}", file=sys.stderr)
    return result


def _median(runs: list[dict]) -> str:
    return (
        f"{statistics.median(r['wall'] for r in runs):.1f} s / {statistics.median(r['cpu'] for r in runs):.1f} s / "
        f"{max(r['rss_mb'] for r in runs):,.0f} MB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1, help="fresh hubs, each imported once")
    parser.add_argument("--nights", type=int, default=3, help="nothing-new nights per hub")
    parser.add_argument("--synth", help="an existing synth_fb.py output folder (default: generate one)")
    parser.add_argument("--code", help="a tree holding the package to measure instead of this one")
    parser.add_argument("--work", help="keep the hubs here (default: a temporary folder)")
    args = parser.parse_args()
    code = Path(args.code).resolve() if args.code else None
    with tempfile.TemporaryDirectory(prefix="fb-nightly-") as tmp:
        synth = Path(args.synth) if args.synth else Path(tmp) / "synth"
        if not args.synth:
            subprocess.run(
                [sys.executable, str(SYNTH), "--rounds", "14", "--models", "100", "--seed", "1", "--out", str(synth)], check=True, capture_output=True
            )
        base = Path(args.work) if args.work else Path(tmp)
        runs = [one_run(synth, base / f"run{i}", code, args.nights) for i in range(args.runs)]
    imports, firsts = [r["import"] for r in runs], [r["first"] for r in runs]
    nothing = [n for r in runs for n in r["nothing"]]
    print(json.dumps(runs, indent=1))
    print(
        f"\n| command (wall / CPU / peak RSS) | median |\n|---|---|\n"
        f"| `prescient import forecastbench` ({len(imports)} run(s)) | {_median(imports)} |\n"
        f"| first nightly after the import ({len(firsts)}) | {_median(firsts)} |\n"
        f"| nightly with nothing new ({len(nothing)}) | {_median(nothing)} |"
    )


if __name__ == "__main__":
    main()
