"""How long the README's first command takes: `prescient demo` (a season of nightly runs on the
offline sim world, then the site), split into the nightly runs and the site build, and what the
demo's git history costs of the nightly runs (``pipeline.demo_git``: this process's time in its
commits, and the CPU of its ``git fast-import``).

Usage: python benchmarks/bench_demo.py [--runs 3]
Prints one line per run and the medians; record them in benchmarks/RESULTS.md.

Against another revision, from the repository root:
    python -m benchmarks.bench_demo --base 11a6a31 [--head REV] [--runs 4]
times the whole `prescient demo` command (site included) of the base revision and of this working
tree (or ``--head``), each exported into its own folder and run as ``python -m generator demo`` with
that folder first on ``PYTHONPATH``, interleaved A/B/B/A/A/B… on the same machine, so a neighbour's
load falls on both alike. Prints each run's wall and CPU seconds (the command and its children: git,
mkdocs, forked workers), the medians, and the ratio head/base of the medians.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
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


def timed_demo(code: Path, out: Path) -> tuple[float, float]:
    """Wall and CPU seconds (this child and its children) of ``python -m generator demo out`` run from ``code``."""
    env = {**os.environ, "PYTHONPATH": str(code), "PYTHONSAFEPATH": "1"}
    env.pop("SOURCE_DATE_EPOCH", None)
    out.parent.mkdir(parents=True, exist_ok=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "generator", "demo", str(out)], cwd=out.parent, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        raise SystemExit(f"{code}: prescient demo exited {result.returncode}\n{result.stderr[-2000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def compare_with(base_rev: str, head_rev: str | None, runs: int) -> None:
    """The demo of ``base_rev`` and of the working tree (or ``head_rev``), interleaved: base, head, head, base, …"""
    from benchmarks.compare_revisions import ROOT, export

    times: dict[str, list[tuple[float, float]]] = {"base": [], "head": []}
    with tempfile.TemporaryDirectory(prefix="prescient-bench-demo-") as folder:
        work = Path(folder)
        code = {"base": export(base_rev, work / "code-base"), "head": export(head_rev, work / "code-head") if head_rev else ROOT}
        print(f"base {base_rev}, head {head_rev or 'the working tree'}; load {os.getloadavg()[0]:.1f}")
        for i in range(runs):
            for name in ("base", "head") if i % 2 == 0 else ("head", "base"):
                wall, cpu = timed_demo(code[name], work / f"{name}-{i}" / "demo")
                times[name].append((wall, cpu))
                print(f"run {i + 1} {name}: {wall:.1f} s wall, {cpu:.1f} CPU s (load {os.getloadavg()[0]:.1f})", flush=True)
                shutil.rmtree(work / f"{name}-{i}")
    wall = {n: statistics.median(w for w, _ in t) for n, t in times.items()}
    cpu = {n: statistics.median(c for _, c in t) for n, t in times.items()}
    print(f"median wall: base {wall['base']:.1f} s, head {wall['head']:.1f} s: head/base {wall['head'] / wall['base']:.2f}")
    print(f"median CPU: base {cpu['base']:.1f} s, head {cpu['head']:.1f} s: head/base {cpu['head'] / cpu['base']:.2f}")
    print(f"{os.cpu_count()} CPUs, {cpu_model()}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--base", metavar="REV", help="time this revision's demo against the working tree's (or --head's), interleaved")
    parser.add_argument("--head", metavar="REV", help="with --base: the revision to time instead of the working tree")
    args = parser.parse_args()
    if args.base:
        compare_with(args.base, args.head, args.runs)
        return
    runs = [one_run() for _ in range(args.runs)]
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
