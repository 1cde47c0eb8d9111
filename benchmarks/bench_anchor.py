"""Benchmark: the anchored audit's time against the nights before the anchor (``verify --git --anchor``).

On a demo hub (``prescient demo DIR``: one nightly commit per night, the teams' pull requests merged
between), for each of several nights T of the season it takes the head H = the nightly commit of night T
and the anchor A = the nightly commit ``--since`` nights earlier, so the commits after the anchor are
about the same for every T while the nights before it grow. It times, ``--repeat`` times each (median):

- ``anchored``: what ``--anchor`` adds, ``audit.anchor.check(A, H)`` (the two trees compared) plus the git
  walk from the anchor (``audit.git.audit_history(H, start=A)``, as ``verify`` calls it);
- ``full``: the git walk from the first commit at H (``verify --git --full``'s walk), for scale.

The anchored time should stay flat as T grows; the full walk's grows with the history. Both find no problem
on an honest demo (checked). Run from the repository root:
``python -m benchmarks.bench_anchor DEMO_DIR [--nights 30 60 90 120] [--since 5] [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from generator.audit import anchor
from generator.audit import git as audit_git
from generator.store import git


def nightly_commits(repo: Path) -> list[str]:
    """The demo's nightly commits on main's first-parent line, oldest first."""
    out = git.run_git(repo, "log", "--first-parent", "--reverse", "--format=%H %s", "HEAD").decode()
    return [line.split(" ", 1)[0] for line in out.splitlines() if " nightly: data as of " in f" {line.split(' ', 1)[1]}"]


def timed(repeat: int, action) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        began = time.perf_counter()
        result = action()
        times.append(time.perf_counter() - began)
    return statistics.median(times), result


def anchored(repo: Path, at: str, head: str) -> list:
    found = anchor.check(repo, at, head)
    assert found.start is not None and found.start.start is not None, found.note
    _changes, problems = audit_git.audit_history(repo, head, start=found.start.start)
    return found.problems + [p for p in problems if p.severity == "error"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("demo", type=Path)
    parser.add_argument("--nights", type=int, nargs="+", default=[30, 60, 90, 120])
    parser.add_argument("--since", type=int, default=5, help="nights between the anchor and the head")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    nights = nightly_commits(args.demo)
    print(f"{len(nights)} nightly commits; anchor {args.since} night(s) before the head; median of {args.repeat}")
    print(f"{'night':>6} {'commits since anchor':>21} {'anchored s':>11} {'full walk s':>12}")
    for t in args.nights:
        head, at = nights[t - 1], nights[t - 1 - args.since]
        since = int(git.run_git(args.demo, "rev-list", "--count", f"{at}..{head}").decode())
        took, problems = timed(args.repeat, lambda at=at, head=head: anchored(args.demo, at, head))
        assert not problems, problems
        full, (_c, found) = timed(args.repeat, lambda head=head: audit_git.audit_history(args.demo, head))
        assert not [p for p in found if p.severity == "error"], found
        print(f"{t:>6} {since:>21} {took:>11.2f} {full:>12.2f}")


if __name__ == "__main__":
    main()
