"""The Arena's P/L curves (``portfolio.pnl_curves``) on random cohorts: every point equals the summary of
the positions marked at that time (``summarise(mark(...))``, the table's own arithmetic), however the
positions are placed, priced, settled, sold or never priced, and whatever the prices observed (none, late,
two at the same time, an empty value). The curves are summed by groups of positions held over the same
marks, so these cohorts mix groups: several positions settled on one day, one placed at a mark's 00:00,
one settled the instant it was placed, one settled before it was placed."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from generator.arena import bets as b
from generator.arena.portfolio import COHORT, POSITIONS, Cohorts, mark, pnl_curves, priced, summarise

DAY0 = pd.Timestamp("2026-03-01T00:00:00Z")


def _stamp(rng: np.random.Generator, within_days: float, on_the_hour: bool = False) -> str:
    hours = int(rng.integers(0, int(within_days * 24)))
    at = DAY0 + pd.Timedelta(hours=hours if not on_the_hour else hours - hours % 24)
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


def _cohorts(seed: int) -> Cohorts:
    rng = np.random.default_rng(seed)
    questions = [f"sim:m{i}" for i in range(int(rng.integers(2, 8)))]
    rows = []
    for cohort in ("2026-03-01", "2026-03-15")[: int(rng.integers(1, 3))]:
        for model in ("acme.a", "acme.b", "zed.c")[: int(rng.integers(1, 4))]:
            for view in ("bets", "simulated"):
                settle_days = rng.uniform(1, 30, size=2)  # a few settlement times shared by many positions
                for _ in range(int(rng.integers(0, 9))):
                    placed = _stamp(rng, 10, on_the_hour=bool(rng.random() < 0.3))
                    yes_price = np.nan if rng.random() < 0.1 else float(rng.uniform(0.001, 0.999))
                    # a position never priced is void (``settle``: refunded), open until its market settles
                    status = str(rng.choice(["open", "void"] if np.isnan(yes_price) else ["open", "resolved", "void", "sold"]))
                    if status == "open":
                        settle = ""
                    elif rng.random() < 0.1:
                        settle = placed  # settled as soon as placed (a sale in the same instant)
                    elif rng.random() < 0.05:
                        settle = DAY0.strftime("%Y-%m-%dT%H:%M:%SZ")  # before it was placed: settled once placed
                    else:
                        settle = max(placed, (DAY0 + pd.Timedelta(days=float(rng.choice(settle_days)))).strftime("%Y-%m-%dT%H:%M:%SZ"))
                    rows.append(
                        dict(
                            cohort=cohort,
                            round=cohort,
                            model=model,
                            view=view,
                            start=b.START_CASH,
                            question_id=str(rng.choice(questions)),
                            placed_at=placed,
                            side=str(rng.choice([b.YES, b.NO])),
                            amount=float(rng.uniform(1, 2_500)),
                            cash_before=b.START_CASH,
                            confidence=0.5,
                            f_yes=0.5,
                            yes_price=yes_price,
                            status=status,
                            settle_at=settle,
                        )
                    )
    frame = priced(pd.DataFrame(rows, columns=[c for c in POSITIONS if c not in ("price", "shares", "outcome", "payout")]))
    outcome = np.where(frame["status"] == "resolved", rng.integers(0, 2, len(frame)), np.nan)
    won = (outcome == 1) == (frame["side"] == b.YES).to_numpy()
    payout = np.select(
        [frame["status"] == "resolved", frame["status"] == "void", frame["status"] == "sold"],
        [np.where(won, frame["shares"], 0.0), frame["amount"], frame["amount"] * rng.uniform(0, 2, len(frame))],
        0.0,
    )
    positions = frame.assign(outcome=outcome, payout=payout)[POSITIONS]
    known = pd.DataFrame(
        {
            "question_id": rng.choice(questions, size=40),
            "observed_at": [_stamp(rng, 40) for _ in range(40)],
            "value": np.where(rng.random(40) < 0.05, np.nan, rng.uniform(0, 1, 40)),
        }
    )
    known = pd.concat([known, known.iloc[:5].assign(value=rng.uniform(0, 1, 5))])  # two values at one time: the later row
    known = known.sort_values("observed_at", kind="mergesort").reset_index(drop=True)
    as_of = _stamp(rng, 45)
    return Cohorts(as_of, positions, known[known["observed_at"] <= as_of])


@pytest.mark.parametrize("seed", range(40))
def test_every_point_of_random_cohorts_equals_their_summary_marked_then(seed):
    cohorts = _cohorts(seed)
    curve = pnl_curves(cohorts)
    if cohorts.positions.empty or cohorts.positions["placed_at"].min() > cohorts.as_of:
        assert curve.empty
        return
    assert len(curve) and curve["at"].max() <= cohorts.as_of
    for at, rows in curve.groupby("at"):
        started = cohorts.positions.groupby(COHORT)["placed_at"].transform("min") <= at
        shown = cohorts.positions["cohort"].isin(rows["cohort"])  # a settled cohort's curve ends after its last settlement
        direct = summarise(mark(cohorts.positions[started & shown], cohorts.known, at)).set_index(COHORT)
        got = rows.set_index(COHORT)
        assert sorted(got.index) == sorted(direct.index), at
        for column in ("cash", "positions_value", "total_value", "return_pct"):
            assert got[column].to_numpy() == pytest.approx(direct.loc[got.index, column].to_numpy(), rel=1e-12, abs=1e-7), (at, column)
