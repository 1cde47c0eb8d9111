"""How long the README's first command takes: `prescient demo` (a season of nightly runs on the
offline sim world, then the site), split into the nightly runs and the site build.

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

from generator.pipeline.demo import run_demo, season
from generator.site.build import build_site


def one_run() -> tuple[float, float, int]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "demo"
        nights = season()
        start = time.perf_counter()
        run_demo(root, nights=nights, build=False)
        nightly = time.perf_counter() - start
        start = time.perf_counter()
        build_site(root, nights[-1])
        return nightly, time.perf_counter() - start, len(nights)


def cpu_model() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    runs = [one_run() for _ in range(parser.parse_args().runs)]
    for nightly, build, nights in runs:
        print(f"nightly runs {nightly:.1f} s ({nightly / nights * 1000:.0f} ms/night over {nights} nights), site {build:.1f} s")
    print(f"median: nightly {statistics.median(r[0] for r in runs):.1f} s, site {statistics.median(r[1] for r in runs):.1f} s")
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB; {os.cpu_count()} CPUs, {cpu_model()}")


if __name__ == "__main__":
    main()
