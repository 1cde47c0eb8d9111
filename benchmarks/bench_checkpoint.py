"""Benchmark: `verify --git` from the nightly's checkpoint against the full walk from the first commit.

On a copy of a demo hub (``prescient demo DIR``: one git commit per night), the nightly's step is played
as the workflow runs it: ``prescient verify --git --full --record-checkpoint`` on the last night's commit,
then the checkpoint row committed by the hub's bot (the next night's commit), then a pull request's merge
adding one forecast file. On that tip it times, ``--repeat`` times each, the git walk alone
(``audit.git.audit_history`` full and from the checkpoint, as ``verify`` calls it) and the whole command
(``prescient verify --git`` against ``--git --full``), and checks that both find the same problems.

Run from the repository root: ``python -m benchmarks.bench_checkpoint DEMO_DIR [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from generator.audit import checkpoint
from generator.audit import git as audit_git
from generator.config import BOT_EMAIL

PRESCIENT = str(Path(sys.executable).with_name("prescient"))


def run(*args: str, cwd: Path, email: str = BOT_EMAIL, when: str | None = None) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "bench",
        "GIT_AUTHOR_EMAIL": email,
        "GIT_COMMITTER_NAME": "bench",
        "GIT_COMMITTER_EMAIL": email,
        **({"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when} if when else {}),
    }
    done = subprocess.run(list(args), cwd=cwd, env=env, capture_output=True, text=True, check=False)
    if done.returncode not in (0, 10):
        raise SystemExit(f"{' '.join(args)} exited {done.returncode}: {done.stderr}")
    return done.stdout


def timed(repeat: int, action) -> float:
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        action()
        times.append(time.perf_counter() - began)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("demo", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        hub = Path(shutil.copytree(args.demo, Path(folder) / "hub", symlinks=True))
        last = int(run("git", "log", "-1", "--format=%ct", cwd=hub))
        began = time.perf_counter()
        out = run(PRESCIENT, "verify", "--hub", ".", "--git", "--full", "--record-checkpoint", cwd=hub)
        recording = time.perf_counter() - began
        assert "checkpoint recorded" in out, out
        run("git", "add", "-A", "data", cwd=hub)
        run("git", "commit", "-qm", "nightly: the audit's checkpoint", cwd=hub, when=f"@{last + 3600} +0000")
        run("git", "checkout", "-q", "-b", "pr", cwd=hub)
        forecasts = sorted((hub / "data" / "forecasts").glob("*/prescient.always-0.5.csv"))[-1]
        shutil.copy(forecasts, forecasts.with_name("team.late.csv"))
        run("git", "add", "-A", "data", cwd=hub)
        run("git", "commit", "-qm", "a pull request", cwd=hub, email="team@example.org", when=f"@{last + 7200} +0000")
        run("git", "checkout", "-q", "main", cwd=hub)
        run("git", "merge", "-q", "--no-ff", "-m", "merge the pull request", "pr", cwd=hub, when=f"@{last + 7300} +0000")
        found = checkpoint.find(hub, run("git", "rev-parse", "HEAD", cwd=hub).strip())
        assert found.start is not None, found.why
        full = audit_git.audit_history(hub)
        since = audit_git.audit_history(hub, start=found.start)
        assert full[1] == since[1], "the two walks differ"
        walk_full = timed(args.repeat, lambda: audit_git.audit_history(hub))
        walk_since = timed(args.repeat, lambda: audit_git.audit_history(hub, start=found.start))
        cli_full = timed(args.repeat, lambda: run(PRESCIENT, "verify", "--hub", ".", "--git", "--full", cwd=hub))
        cli_since = timed(args.repeat, lambda: run(PRESCIENT, "verify", "--hub", ".", "--git", cwd=hub))
        commits = len({c.commit for c in full[0]})
        print(
            f"demo: {commits} commit(s) touching data/; checkpoint {found.start.commit[:12]}; "
            f"{len({c.commit for c in since[0]})} commit(s) after it; {len(full[1])} problem(s) either way"
        )
        print(f"recording the checkpoint (verify --git --full --record-checkpoint): {recording:.2f} s")
        print(
            f"git walk alone, median of {args.repeat}: full {walk_full:.2f} s, from the checkpoint {walk_since:.2f} s ({walk_full / walk_since:.0f}x)"
        )
        print(f"prescient verify --git, median of {args.repeat}: --full {cli_full:.2f} s, checkpointed {cli_since:.2f} s")
        print(os.popen("uptime").read().strip())


if __name__ == "__main__":
    main()
