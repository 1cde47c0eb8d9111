"""Benchmark: the Arena's P/L curves as a hub ages.

A cohort is marked every night from its first bet for as long as one of its positions is open, so an old
hub's first cohorts have long curves: ``arena.portfolio.pnl_curves`` once evaluated every position at every
mark, work that grows with the square of the hub's age, which a line through two lengths of history does
not show. This script loads a hub's cohorts once (``arena.gather.load_cohorts`` at ``--as-of``) and times
``pnl_curves`` on them as they are, then with their ``as_of`` moved ``--ahead`` days later: the same
positions, every open one marked that many more nights (no new observation: each keeps its last price).

Run from the repository root, on a ``bench_years`` hub (its ``work/hub``, or a clone of a checkpoint):
    python -m benchmarks.bench_arena_curves --hub H --as-of 2026-07-09T00:00:00Z [--ahead 0 365] [--base TREE]

``--copies K --every D``: a longer hub's cohorts, made from these: K copies of every cohort, copy i with its
dates (cohort, placements, settlements, the observations of its markets) D·i days later and its question ids
its own, and the as_of D·(K − 1) days later. With the six-month hub's 13 cohorts, ``--copies 6 --every 182``
is 78 cohorts of every age up to three years, each marked until its markets settle.

``--base TREE``: each is measured first with the ``generator`` package of TREE (another checkout, e.g.
``git archive 9c74e6e generator | tar -x -C TREE``), then with this one's, each in a fresh process; the
curves must agree to the cent (the site's charts show cents and whole dollars), or the run stops.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def later(cohorts, copies: int, every: int):
    """``copies`` copies of the cohorts, copy i ``every``·i days later with question ids of its own (above)."""
    import pandas as pd

    from generator.arena.portfolio import Cohorts

    def moved(stamps: pd.Series, days: int, form: str = "%Y-%m-%dT%H:%M:%SZ") -> pd.Series:
        text = stamps.astype(str)
        when = pd.to_datetime(text.where(text != "", None), utc=True) + pd.Timedelta(days=days)
        return when.dt.strftime(form).fillna("")

    positions, known = [], []
    for i in range(copies):
        days, mark = every * i, f"~{i}" if i else ""
        p = cohorts.positions
        positions.append(
            p.assign(
                cohort=moved(p["cohort"], days, "%Y-%m-%d"),
                round=moved(p["round"], days, "%Y-%m-%d"),
                placed_at=moved(p["placed_at"], days),
                settle_at=moved(p["settle_at"], days),
                question_id=p["question_id"] + mark,
            )
        )
        k = cohorts.known
        known.append(k.assign(observed_at=moved(k["observed_at"], days), question_id=k["question_id"] + mark))
    seen = pd.concat(known, ignore_index=True).sort_values("observed_at", kind="mergesort").reset_index(drop=True)
    as_of = moved(pd.Series([cohorts.as_of]), every * (copies - 1)).iloc[0]
    return Cohorts(as_of, pd.concat(positions, ignore_index=True), seen)


def measure(hub: str, as_of: str, ahead: list[int], repeat: int, copies: int = 1, every: int = 0) -> list[dict]:
    """Time ``pnl_curves`` on the hub's cohorts, in this process: the median of ``repeat`` runs each."""
    import dataclasses
    import hashlib
    import statistics
    import time

    import pandas as pd

    import generator
    from generator.arena.gather import load_cohorts
    from generator.arena.portfolio import pnl_curves
    from generator.timeutil import format_ts, parse_ts

    cohorts = load_cohorts(Path(hub), parse_ts(as_of), quarantine=[])
    if copies > 1:
        cohorts = later(cohorts, copies, every)
        as_of = cohorts.as_of
    positions = cohorts.positions
    out = []
    for days in ahead:
        moved = dataclasses.replace(cohorts, as_of=format_ts(parse_ts(as_of) + pd.Timedelta(days=days)))
        times = []
        for _ in range(repeat):
            start = time.process_time()
            curves = pnl_curves(moved)
            times.append(time.process_time() - start)
        cents = curves[["cohort", "model", "view", "at"]].assign(pnl=curves["pnl"].round(2)).to_csv(index=False)
        out.append(
            {
                "ahead_days": days,
                "as_of": moved.as_of,
                "positions": len(positions),
                "open": int((positions["status"] == "open").sum()),
                "cohorts": int(positions["cohort"].nunique()),
                "curve_rows": len(curves),
                "cpu_s": round(statistics.median(times), 3),
                "cents_sha256": hashlib.sha256(cents.encode()).hexdigest(),
                "generator": str(Path(generator.__file__).resolve().parents[1]),
            }
        )
    return out


def run(hub: str, as_of: str, ahead: list[int], repeat: int, copies: int, every: int, tree: Path | None = None) -> list[dict]:
    """``measure`` in a fresh process, with TREE's ``generator`` if given."""
    paths = [str(tree), str(ROOT)] if tree else [str(ROOT)]  # TREE first: its generator, this one's benchmarks
    code = (
        f"import sys, json; sys.path[:0] = {paths!r}; from benchmarks.bench_arena_curves import measure; "
        f"print(json.dumps(measure({hub!r}, {as_of!r}, {ahead!r}, {repeat}, {copies}, {every})))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"the measurement failed{f' ({tree})' if tree else ''}:\n{done.stderr}")
    return [dict(r, code="base" if tree else "this", load=round(os.getloadavg()[0], 1)) for r in json.loads(done.stdout.strip().splitlines()[-1])]


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hub", required=True, help="a bench_years hub (its work/hub folder, or a clone of a checkpoint)")
    parser.add_argument("--as-of", required=True, help="the hub's night, e.g. 2026-07-09T00:00:00Z")
    parser.add_argument("--ahead", type=int, nargs="+", default=[0, 365], help="days to move the cohorts' as_of")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each, their median taken")
    parser.add_argument("--copies", type=int, default=1, help="copies of every cohort, each --every days later")
    parser.add_argument("--every", type=int, default=182, help="days between two copies")
    parser.add_argument("--base", type=Path, help="another tree whose generator package to measure first")
    args = parser.parse_args(argv)
    shape = (args.hub, args.as_of, args.ahead, args.repeat, args.copies, args.every)
    base = run(*shape, args.base.resolve()) if args.base else []
    this = run(*shape)
    for a, b in zip(base, this, strict=True):
        if a["cents_sha256"] != b["cents_sha256"]:
            raise SystemExit(f"{a['ahead_days']} days ahead: the curves differ to the cent between {args.base} and this tree")
    rows = [*base, *this]
    print("| as_of | cohorts | positions (open) | curve rows | code | CPU s | load |\n|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['as_of']} | {r['cohorts']} | {r['positions']:,} ({r['open']:,}) | {r['curve_rows']:,} | {r['code']} | {r['cpu_s']} | {r['load']} |"
        )
    return rows


if __name__ == "__main__":
    main()
