"""How long the README's first command takes: `prescient demo` (a season of nightly runs on the
offline sim world, then the site), split into the nightly runs and the site build, and what the
demo's git history costs of the nightly runs (``pipeline.demo_git``: this process's time in its
commits, and the CPU of its ``git fast-import``).

Usage: python benchmarks/bench_demo.py [--runs 3]
Prints one line per run and the medians; record them in benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import statistics
import tempfile
import time
from pathlib import Path

from generator.pipeline import demo_git
from generator.pipeline.demo import run_demo, season
from generator.site.build import build_site

GIT = {"cpu": 0.0, "fast_import": 0.0}


def _timed(commit):
    def timed(self, *args, **kwargs):
        cpu = time.process_time()
        try:
            return commit(self, *args, **kwargs)
        finally:
            GIT["cpu"] += time.process_time() - cpu

    return timed


def _counted(leave):
    def counted(self, *exc):
        leave(self, *exc)
        GIT["fast_import"] += self.git_cpu

    return counted


demo_git.NightlyCommits.commit = _timed(demo_git.NightlyCommits.commit)  # type: ignore[method-assign]
demo_git.NightlyCommits.__exit__ = _counted(demo_git.NightlyCommits.__exit__)  # type: ignore[method-assign]


def one_run() -> tuple[float, float, int, float]:
    """Wall seconds of the nightly runs and of the site, the nights, and the nightly runs' CPU
    seconds (this process's ``time.process_time``: on a shared machine, wall time also measures
    the neighbours)."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "demo"
        nights = season()
        start, cpu = time.perf_counter(), time.process_time()
        GIT.update(cpu=0.0, fast_import=0.0)
        run_demo(root, nights=nights, build=False)
        nightly, cpu = time.perf_counter() - start, time.process_time() - cpu
        start = time.perf_counter()
        build_site(root, nights[-1])
        return nightly, time.perf_counter() - start, len(nights), cpu


def cpu_model() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    runs = [one_run() for _ in range(parser.parse_args().runs)]
    for nightly, build, nights, cpu in runs:
        print(f"nightly runs {nightly:.1f} s ({nightly / nights * 1000:.0f} ms/night over {nights} nights; CPU {cpu:.1f} s), site {build:.1f} s")
    print(f"last run's git history: {GIT['cpu']:.2f} CPU s in this process's commits, {GIT['fast_import']:.2f} CPU s in git fast-import")
    print(
        f"median: nightly {statistics.median(r[0] for r in runs):.1f} s (CPU {statistics.median(r[3] for r in runs):.1f} s), "
        f"site {statistics.median(r[1] for r in runs):.1f} s"
    )
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB; {os.cpu_count()} CPUs, {cpu_model()}")


if __name__ == "__main__":
    main()
