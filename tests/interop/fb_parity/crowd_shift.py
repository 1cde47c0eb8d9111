"""How far the crowd value an import uses moves a tournament board (Methodology, "ForecastBench,
rule by rule"): ForecastBench fixes a market's difficulty at the crowd's Brier at the due date
(``market_value_on_due_date``, in its processed files, which are not public); an import knows the
question set's freeze value, taken up to 10 days before. The public sets give the same market's
value at a later time wherever a later round asks it again: its freeze value there. This script
ranks an imported hub's tournament board twice, with each market's own freeze value and with the
freeze value of its next asking within ``--days`` days (a move of at least the freeze-to-due gap),
and prints the largest change of any model's market and overall Brier Index.

    python tests/interop/fb_parity/crowd_shift.py --hub HUB --as-of 2026-08-21T00:00:00Z
"""

from __future__ import annotations

import argparse
from datetime import date

import numpy as np
import pandas as pd

from generator.leaderboard.fb_board import board_options, fb_board
from generator.pipeline.recompute import hub_crowd
from generator.store import readers
from generator.store.hub import Hub
from generator.timeutil import parse_ts


def later_values(crowd: pd.DataFrame, days: int) -> tuple[pd.DataFrame, int]:
    """``crowd`` with each market's value replaced by its value at its next asking within ``days``."""
    out = crowd.copy()
    by_question = crowd.sort_values("round").groupby("question_id")
    moved = 0
    for _, group in by_question:
        rounds, values, index = group["round"].tolist(), group["probability"].tolist(), group.index.tolist()
        for k in range(len(rounds) - 1):
            gap = (date.fromisoformat(rounds[k + 1][:10]) - date.fromisoformat(rounds[k][:10])).days
            if gap <= days:
                out.loc[index[k], "probability"] = values[k + 1]
                moved += 1
    return out, moved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hub", required=True)
    parser.add_argument("--as-of", required=True)
    parser.add_argument("--days", type=int, default=14)
    args = parser.parse_args()
    hub = Hub(args.hub)
    as_of = parse_ts(args.as_of)
    scores, models, crowd = readers.load_scores(hub), readers.load_models(hub, as_of), hub_crowd(hub)
    options = board_options(hub.settings.scoring, hub.settings.leaderboard, replicates=0)
    later, moved = later_values(crowd, args.days)
    a = fb_board(scores, models, as_of, np.random.default_rng(0), options, crowd).set_index("model")
    b = fb_board(scores, models, as_of, np.random.default_rng(0), options, later).set_index("model")
    on_board = a["n_market"] > 0
    print(f"markets given a later value: {moved:,} of {len(crowd):,}; board markets: {int(a['n_market'].max()):,}")
    for col in ("market", "overall"):
        delta = (b.loc[a.index[on_board], col] - a.loc[on_board, col]).abs()
        print(f"{col}: largest change {delta.max():.2f} BI ({delta.idxmax()}), median {delta.median():.2f}")


if __name__ == "__main__":
    main()
