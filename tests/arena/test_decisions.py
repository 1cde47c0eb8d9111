"""Each Arena decision with its reasoning, beside what the replay made of it (generator/arena/decisions.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from generator.arena.decisions import DECISIONS, decision_rows
from generator.arena.portfolio import POSITIONS


def _bets(rows: list[tuple]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["question_id", "placed_at", "action", "side", "amount", "reasoning"])


def _position(round_, question, placed, status, payout, price=0.4, cohort="2026-01-04") -> dict:
    row = dict.fromkeys(POSITIONS, np.nan)
    row.update(
        cohort=cohort,
        round=round_,
        model="t.m",
        view="bets",
        question_id=question,
        placed_at=placed,
        side="YES",
        amount=100.0,
        price=price,
        f_yes=0.7,
        status=status,
        outcome=1.0,
        payout=payout,
    )
    return row


def test_every_bet_file_row_keeps_its_reasoning_and_a_buy_gets_its_position() -> None:
    bets = {
        "2026-01-04": {
            "t.m": _bets(
                [("q:1", "2026-01-02T00:00:00Z", None, "YES", 100.0, "cheap at 0.4"), ("q:2", "2026-01-03T00:00:00Z", "buy", "NO", 50.0, None)]
            )
        },
        "2026-01-18": {"t.m": _bets([("q:1", "2026-01-16T00:00:00Z", "sell", "YES", 40.0, "take profit")])},
    }
    positions = pd.DataFrame(
        [
            _position("2026-01-04", "q:1", "2026-01-02T00:00:00Z", "resolved", 150.0),
            _position("2026-01-04", "q:1", "2026-01-02T00:00:00Z", "sold", 60.0),  # the part sold
            _position("2026-01-04", "q:2", "2026-01-03T00:00:00Z", "open", np.nan, price=0.3),
        ]
    )
    out = decision_rows(positions, bets)
    assert list(out.columns) == DECISIONS
    assert out["action"].tolist() == ["buy", "buy", "sell"]
    assert out["reasoning"].tolist() == ["cheap at 0.4", "", "take profit"]
    first = out.iloc[0]
    assert (first["status"], first["price"], first["payout"]) == ("resolved", 0.4, 210.0)  # the sold part's proceeds too
    assert out.iloc[1]["status"] == "open" and np.isnan(out.iloc[1]["payout"])
    sale = out.iloc[2]
    assert sale["status"] == "" and np.isnan(sale["price"]) and sale["cohort"] == ""  # a sale has no position of its own


def test_no_bet_files_no_decisions() -> None:
    assert decision_rows(pd.DataFrame(columns=POSITIONS), {}).empty
