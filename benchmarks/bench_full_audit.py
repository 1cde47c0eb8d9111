"""Benchmark: the nightly's full audit (``verify --git --full``) at N and 2N nights.

The hub is the demo's (``pipeline.demo.run_demo``: the offline sim world, the synthetic teams' pull
requests merged into ``main``, one bot commit a night), with the audit's checkpoint recorded every
night as the nightly workflow records it: after the night's commit, a row of
``data/metadata/checkpoints.csv`` for that commit (``audit.checkpoint.row_for``, appended by
``store.checkpoints.append``, the functions ``verify --record-checkpoint`` calls), committed by the
hub's bot. The full walk that the workflow runs before recording is left out while the hub is built
(it would make the build grow with the square of its length); the audits timed below walk every one
of those commits and find them green.

For each length the hub is cloned at that night's checkpoint commit, and ``prescient verify --git
--full --as-of NIGHT`` is timed there as a fresh process (CPU seconds of the process and its children,
median of ``--repeat``); ``--base REV`` times the code of another revision on the same clones,
interleaved (exported with ``git archive``, run with it first on ``PYTHONPATH``; ``--head REV`` the same
for the code measured against it, by default this checkout's files), so that before and after are
measured in one run. The ratio of the longer history's time to the shorter's is the figure to read:
the target is at most 2.3 for twice the nights.

Run from the repository root:
``python -m benchmarks.bench_full_audit [--nights 90 180] [--repeat 3] [--base REV] [--head REV] [--work DIR]``
(``--work`` keeps the hub, and a later run with the same ``--work`` reuses it).
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
from datetime import datetime, timedelta
from pathlib import Path

from benchmarks.bench_demo import cpu_model
from benchmarks.compare_revisions import export

ROOT = Path(__file__).resolve().parents[1]
AUDIT_AFTER = timedelta(minutes=30)  # the checkpoint's commit, after the night's (its pull requests come an hour later)


def build(hub_dir: Path, nights: int, log=print) -> dict[int, str]:
    """The demo hub of ``nights`` nights with a checkpoint committed each night; night → its checkpoint commit."""
    from generator.audit import checkpoint
    from generator.pipeline import demo
    from generator.store import checkpoints, git
    from generator.store.hub import Hub
    from generator.timeutil import days, format_ts

    made: dict[int, str] = {}

    class CheckpointedCommits(demo.NightlyCommits):
        def nightly(self, as_of: datetime) -> bool:
            if not super().nightly(as_of):
                return False
            commit = self.checkpoint()
            walked = int(git.run_git(self.root, "rev-list", "--first-parent", "--count", commit, "--", "data/").decode())
            row = checkpoint.row_for(self.root, commit, format_ts(as_of), walked, 0)
            checkpoints.append(Hub.load(self.root), row)
            self.commit(as_of + AUDIT_AFTER, "nightly: the audit's checkpoint")
            made[len(made) + 1] = self.checkpoint()
            if len(made) % 30 == 0:
                log(f"night {len(made)} ({as_of:%Y-%m-%d}) committed with its checkpoint")
            return True

    plain, demo.NightlyCommits = demo.NightlyCommits, CheckpointedCommits  # type: ignore[misc]
    try:
        demo.run_demo(hub_dir, nights=demo.season(end=demo.SEASON_START + days(nights - 1)), build=False)
    finally:
        demo.NightlyCommits = plain  # type: ignore[misc]
    return made


def as_of(night: int) -> str:
    """The night's time (the demo's clock: a hub past today's date is audited as of its last night, not now)."""
    from generator.pipeline.demo import SEASON_START
    from generator.timeutil import days, format_ts

    return format_ts(SEASON_START + days(night - 1))


def cpu_of(args: list[str], code: Path | None) -> dict:
    """One command as a fresh process (``code``: the revision exported there, else this checkout): CPU and wall seconds, exit code."""
    env = {**os.environ, **({"PYTHONPATH": str(code), "PYTHONSAFEPATH": "1"} if code else {})}
    began = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        child = subprocess.Popen([sys.executable, "-m", "generator", *args], cwd=code or ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(child.pid, 0)
        out.seek(0)
        text = out.read().decode(errors="replace")
    code_ = os.waitstatus_to_exitcode(status)
    if code_ not in (0, 10):
        raise SystemExit(f"prescient {' '.join(args)} exited {code_}: {text[-2000:]}")
    return {
        "cpu": usage.ru_utime + usage.ru_stime,
        "wall": time.perf_counter() - began,
        "exit": code_,
        "git": next((line.strip() for line in text.splitlines() if "git" in line.lower()), ""),
    }


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nights", type=int, nargs="+", default=[90, 180], help="history lengths to audit at (the demo's season has 197)")
    parser.add_argument("--repeat", type=int, default=3, help="timings of each command at each length (the median is reported)")
    parser.add_argument("--base", help="also time this revision's code on the same clones (before/after in one run)")
    parser.add_argument("--head", help="time this revision's code rather than this checkout's files")
    parser.add_argument("--work", help="keep the hub and the clones here (default: a temporary folder); reused when it holds them")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-full-audit-") as tmp:
        work = Path(args.work or tmp)
        work.mkdir(parents=True, exist_ok=True)
        hub_dir, made_file = work / "hub", work / "checkpoints.json"
        if made_file.is_file():
            made = {int(k): v for k, v in json.loads(made_file.read_text()).items()}
        else:
            began = time.perf_counter()
            made = build(hub_dir, max(args.nights), log=lambda s: print(s, file=sys.stderr, flush=True))
            made_file.write_text(json.dumps(made))
            print(f"built {len(made)} nights in {time.perf_counter() - began:.0f} s", file=sys.stderr)
        codes: dict[str, Path | None] = (
            {f"head {args.head}": export(args.head, work / f"head-{time.time_ns()}")} if args.head else {"this checkout": None}
        )
        if args.base:
            codes = {f"base {args.base}": export(args.base, work / f"base-{time.time_ns()}"), **codes}
        clones = {}
        for n in args.nights:
            clone = work / f"at-{n}"
            if not clone.is_dir():
                subprocess.run(["git", "clone", "-q", "--no-local", str(hub_dir), str(clone)], check=True)
                subprocess.run(["git", "-C", str(clone), "checkout", "-q", "-B", "main", made[n]], check=True)
            clones[n] = clone
        times: dict[str, dict[int, list[dict]]] = {name: {n: [] for n in args.nights} for name in codes}
        for _ in range(args.repeat):
            for n, clone in clones.items():
                for name, code in codes.items():
                    times[name][n].append(cpu_of(["verify", "--hub", str(clone), "--as-of", as_of(n), "--git", "--full"], code))
        result: dict = {
            "machine": f"{cpu_model()}, {os.cpu_count()} CPUs",
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "load": os.getloadavg(),
            "codes": {},
        }
        for name, by_night in times.items():
            medians = {n: statistics.median(t["cpu"] for t in runs) for n, runs in by_night.items()}
            exits = {n: sorted({t["exit"] for t in runs}) for n, runs in by_night.items()}
            first, last = min(medians), max(medians)
            ratio = medians[last] / medians[first]
            result["codes"][name] = {"cpu": medians, "exit": exits, "ratio": ratio}
            print(
                f"{name}: verify --git --full, median CPU s of {args.repeat}: "
                + ", ".join(f"{n} nights {s:.2f} (exit {exits[n]})" for n, s in medians.items())
                + f"; {last} / {first} nights: {ratio:.2f}x (for {last / first:.2g}x the nights)"
            )
        print(f"{result['machine']}; {result['date']}; load {' '.join(f'{x:.1f}' for x in result['load'])}")
    return result


if __name__ == "__main__":
    main()
