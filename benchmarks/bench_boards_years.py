"""Benchmark: the nightly's headline boards on a three-year hub's score rows.

``bench_years`` grows a ForecastBench-density hub for months and fits its growth to three years;
its nightlies at 1–3 months score 3–7 rounds, so the boards' cost at 78 rounds is an
extrapolation. This script measures it directly: it takes the resolved score rows of a
``bench_years`` hub (``--hub``: its ``work/hub``, grown to at least its third round's due date),
copies the rows of its first two scored rounds into ``R`` fortnightly rounds (alternately, each copy
under the new round's due date, so every copy is a unit set of its own), ``--copies`` times per
round with distinct question ids (more resolved units a round: the rows a round holds once most of
its horizons have passed), and times what the nightly does with them whenever a score changed:
``recompute.headline_rows`` (every configured board × view, point estimates, the hub's own settings
and models). Each size runs in a fresh process (``os.wait4``: CPU seconds of the process and peak
RSS), since the point is how much memory a runner needs.

How many rows a round holds at three years: 100 team models and the hub's baselines forecast every
unit (250 markets + 231 series × 8 horizons); by three years most markets have resolved and a round
of age A has the horizons ≤ A resolved — averaged over rounds aged 0 to 3 years, about 4.4 of the 8
horizons — so ~110 models × (225 + 231 × 4.4) ≈ 136,000 rows a round, ~10.6 M rows for 78 rounds.

Run from the repository root:
    python -m benchmarks.bench_years --months 1.7 --work W   # once, or any longer run's work folder
    python -m benchmarks.bench_boards_years --hub W/hub [--rounds 7 20 40 78] [--copies 2] [--base TREE]

``--replicates N``: time the site's boards instead (``hub_boards.configured_boards``, every board × view
with N bootstrap replicates: what ``prescient build`` makes in its workers, the hub's seed), the boards'
frames, every column, compared between the two trees; their cost is a point fit plus N replicates, so
the hub's 1,999 scale from two values of N.

``--base TREE``: each size is measured twice, on the same synthetic rows: first with the ``generator``
package of TREE (another checkout, e.g. ``git archive main generator | tar -x -C TREE``), then with
this one's, so a change's before and after come from one run at one load; the two must make the
same history rows, byte for byte (the run stops otherwise).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def measure(hub: str, rounds: int, copies: int, replicates: int | None = None) -> dict:
    """Build the synthetic score set and time the headline boards, in this process."""
    from datetime import timedelta

    import pandas as pd

    import generator
    from generator.pipeline.recompute import headline_rows
    from generator.store import readers
    from generator.store.hub import Hub
    from generator.timeutil import format_date, parse_ts

    the_hub = Hub.load(Path(hub))
    scores = readers.load_scores(the_hub)
    firsts = sorted(pd.unique(scores["round"]))[:2]  # its two oldest scored rounds, taken in turn (or its only one)
    if not firsts:
        raise SystemExit(f"{hub}: no score rows yet (grow the bench_years hub past its first round's due date)")
    sources = [scores[scores["round"] == r] for r in firsts]
    start = parse_ts(f"{firsts[0]}T00:00:00Z")
    parts = []
    for k in range(rounds):
        for x in range(copies):
            part = sources[k % len(sources)].copy()
            part["round"] = format_date(start + timedelta(days=14 * k))
            if x:
                part["question_id"] = part["question_id"] + f"~{x}"
            parts.append(part)
    rows = pd.concat(parts, ignore_index=True)
    del parts, scores, sources
    as_of = start + timedelta(days=14 * rounds + 10)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    wall, cpu = time.perf_counter(), time.process_time()
    if replicates is None:
        history = headline_rows(the_hub, rows, as_of)
        made = history.to_csv(index=False)
    else:  # the site's bootstrapped boards, one BLAS thread as configured_boards takes it
        from generator.leaderboard.hub_boards import configured_boards

        boards = configured_boards(rows, readers.load_models(the_hub, as_of), as_of, the_hub.settings, replicates=replicates)
        history = pd.concat(
            [pd.DataFrame(frame.to_dict("list")).assign(pair=repr(pair)) for pair, frame in boards.items()], ignore_index=True
        )  # without the attrs (frames that concat cannot compare)
        made = history.to_csv(index=False, float_format="%r")  # every float to its last bit
    cpu_s, wall_s = time.process_time() - cpu, time.perf_counter() - wall
    history_sha256 = hashlib.sha256(made.encode()).hexdigest()
    return {
        "rounds": rounds,
        "copies": copies,
        "replicates": replicates,
        "score_rows": len(rows),
        "models": int(rows["model"].nunique()),
        "boards_cpu_s": round(cpu_s, 2),
        "boards_wall_s": round(wall_s, 2),
        "rss_before_boards_gb": round(before / 1e6, 2),
        "history_rows": len(history),
        "history_sha256": history_sha256,
        "generator": str(Path(generator.__file__).resolve().parents[1]),
    }


def one_size(hub: str, rounds: int, copies: int, tree: Path | None = None, replicates: int | None = None) -> dict:
    """``measure`` in a fresh process (its CPU seconds and peak RSS), with TREE's ``generator`` if given."""
    paths = [str(tree), str(ROOT)] if tree else [str(ROOT)]  # TREE first: its generator, this one's benchmarks
    code = (
        f"import sys, json; sys.path[:0] = {paths!r}; from benchmarks.bench_boards_years import measure; "
        f"print(json.dumps(measure({hub!r}, {rounds}, {copies}, {replicates!r})))"
    )
    child = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(child.pid, 0)
    output = child.stdout.read()
    child.stdout.close()
    if status:
        raise SystemExit(f"{rounds} rounds{f' ({tree})' if tree else ''}: the measurement failed ({status})")
    result = json.loads(output.strip().splitlines()[-1])
    result.update(
        code="base" if tree else "this",
        process_cpu_s=round(usage.ru_utime + usage.ru_stime, 1),
        peak_rss_gb=round(usage.ru_maxrss / 1e6, 2),
        load=round(os.getloadavg()[0], 1),
    )
    return result


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hub", required=True, help="a bench_years hub (its work/hub folder)")
    parser.add_argument("--rounds", type=int, nargs="+", default=[7, 20, 40, 78])
    parser.add_argument("--copies", type=int, default=2, help="copies of each round's rows (distinct question ids)")
    parser.add_argument("--replicates", type=int, help="time the site's bootstrapped boards with this many replicates")
    parser.add_argument("--base", type=Path, help="another tree whose generator package to measure first, on the same rows")
    args = parser.parse_args(argv)
    out = []
    for r in args.rounds:
        pair = [one_size(args.hub, r, args.copies, args.base.resolve(), args.replicates)] if args.base else []
        pair.append(one_size(args.hub, r, args.copies, replicates=args.replicates))
        for result in pair:
            print(json.dumps(result), flush=True)
        if len({p["history_sha256"] for p in pair}) > 1:
            made = "boards" if args.replicates is not None else "history rows"
            raise SystemExit(f"{r} rounds: the {made} differ between {args.base} and this tree")
        out.extend(pair)
    timed = "boards" if args.replicates is not None else "headline boards"
    print(f"\n| rounds | score rows | code | {timed} CPU s (wall) | peak RSS GB | load |\n|---|---|---|---|---|---|")
    for r in out:
        print(
            f"| {r['rounds']} | {r['score_rows']:,} | {r['code']} | {r['boards_cpu_s']} ({r['boards_wall_s']}) | {r['peak_rss_gb']} | {r['load']} |"
        )
    return out


if __name__ == "__main__":
    main()
