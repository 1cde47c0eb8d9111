"""Cohorts of the Arena view: which rounds share one portfolio, and the replay of one forecaster's bets
over its cohort (Forecaster Arena's method). Pure: frames in, frames out.

**Cohorts** (``cohort_labels``). ``[arena] cohort_rounds`` rounds make a cohort (1, the default: each
round is its own). Rounds are taken in due order; a cohort starts at a round with fresh balances of
``START_CASH`` and takes the next rounds while it holds fewer than ``cohort_rounds`` and the next one
falls due less than ``cohort_rounds × cadence_days`` days after its first. A cohort is named by its
first round's due date.

**Replay** (``replay``). One forecaster's rows of every round of its cohort, in (round, placed_at,
question_id) order, the bet files' own order of replay:
- the *books* of a round close when it is published (its freeze time): the cash the forecaster may bet
  in that round is the start, less the stakes of every earlier buy of the cohort, plus what came back
  before the books closed: sales, and settlements the hub had recorded (``credit_at``). Money that comes
  back later is bet from the next round on, so the cash of a round never depends on a price or a
  resolution the ledgers learn after the round opened, and the bet-file check can replay it exactly;
- a buy stakes its amount from that cash; its implied confidence is amount / (0.25 × cash). A buy over
  25% of the cash left is one the bet-file check refuses: it is not placed and costs nothing, so the
  rows after it are replayed against the buys actually placed;
- a sale of amount a closes the share f = min(a / stake held, 1) of every lot of that market and side
  still open when the sale is priced: each lot's shares and stake shrink by f, and the part sold
  becomes a position of its own, status ``sold``, paid f × shares × the side's price at the sale's
  pricing time (the lot's own price when the market was never priced) and settled then. A lot whose
  market had settled by then is not sold.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

import numpy as np
import pandas as pd

from ..timeutil import parse_ts
from . import bets as b

SELL = "sell"
# What ``replay`` reads per row: the round (its label), the bet, its pricing (``priced_at``, the YES
# price then) and, for a buy, its settlement (``portfolio.settle``) and when the money came back.
ROWS = ["round", "question_id", "placed_at", "action", "side", "amount", "priced_at", "yes_price", "status", "outcome", "settle_at", "credit_at"]
PARTS = [
    "round",
    "question_id",
    "placed_at",
    "side",
    "amount",
    "cash_before",
    "confidence",
    "f_yes",
    "yes_price",
    "price",
    "shares",
    "status",
    "outcome",
    "settle_at",
    "payout",
]


def cohort_labels(dues: list[str], cohort_rounds: int = 1, cadence_days: int = 14) -> dict[str, str]:
    """Each round's cohort, by due date (``YYYY-MM-DD``); ``dues``: the rounds' due times or dates."""
    out: dict[str, str] = {}
    first, count = None, 0
    for due in sorted(d[:10] for d in dues):
        if first is not None and count < cohort_rounds and (_day(due) - _day(first)).days < cohort_rounds * cadence_days:
            count += 1
        else:
            first, count = due, 1
        out[due] = first
    return out


def _day(date: str) -> datetime:
    return parse_ts(date[:10])


@dataclass
class Books:
    """What a forecaster carries into one round of its cohort when its books close: the cash it may bet
    there, and the stake (dollars) it holds per (question id, side) in lots still open."""

    cash: float = b.START_CASH
    held: dict[tuple[str, str], float] = field(default_factory=dict)


@dataclass
class _Lot:
    row: dict
    shares: float
    amount: float
    credited: bool = False


@dataclass
class _Replay:
    cash: float = b.START_CASH
    lots: list[_Lot] = field(default_factory=list)
    sold: list[dict] = field(default_factory=list)
    returns: list[tuple[str, float]] = field(default_factory=list)  # (time, dollars) of sales not credited yet

    def close_books(self, at: str) -> Books:
        """Credit what came back before ``at`` (sales; settlements recorded by then) and say what is carried."""
        for lot in self.lots:
            if not lot.credited and lot.row["credit_at"] and lot.row["credit_at"] < at:
                lot.credited = True
                self.cash += _settled_value(lot)
        waiting = []
        for when, dollars in self.returns:
            if when < at:
                self.cash += dollars
            else:
                waiting.append((when, dollars))
        self.returns = waiting
        held: dict[tuple[str, str], float] = {}
        for lot in self.lots:
            if not lot.credited and lot.shares > 0:
                key = (lot.row["question_id"], lot.row["side"])
                held[key] = held.get(key, 0.0) + lot.amount
        return Books(self.cash, held)

    def buy(self, row: dict) -> None:
        amount = float(row["amount"])
        if b.over_limit(amount, self.cash):  # refused by the bet-file check: never placed, it costs nothing
            return
        confidence = b.implied_confidence(amount, self.cash)
        price = b.side_price(row["side"], row["yes_price"]) if row["yes_price"] == row["yes_price"] else np.nan
        part = {**row, "cash_before": self.cash, "confidence": confidence, "f_yes": b.f_yes(row["side"], confidence), "price": price}
        self.cash -= amount
        self.lots.append(_Lot(part, amount / price if price == price else np.nan, amount))

    def sell(self, row: dict) -> None:
        when, side = row["priced_at"], row["side"]
        open_lots = [
            lot
            for lot in self.lots
            if lot.row["question_id"] == row["question_id"]
            and lot.row["side"] == side
            and not lot.credited
            and lot.shares > 0
            and (lot.row["status"] == "open" or lot.row["settle_at"] > when)
        ]
        stake = sum(lot.amount for lot in open_lots)
        if stake <= 0:
            return
        share = min(float(row["amount"]) / stake, 1.0)
        for lot in open_lots:
            price = b.side_price(side, row["yes_price"]) if row["yes_price"] == row["yes_price"] else lot.row["price"]
            shares, amount = share * lot.shares, share * lot.amount
            proceeds = shares * price
            self.sold.append(
                {
                    **lot.row,
                    "amount": amount,
                    "shares": shares,
                    "cash_before": np.nan,
                    "confidence": np.nan,
                    "f_yes": np.nan,
                    "status": "sold",
                    "outcome": np.nan,
                    "settle_at": when,
                    "payout": proceeds,
                }
            )
            self.returns.append((when, proceeds))
            lot.shares, lot.amount = lot.shares - shares, lot.amount - amount


def _settled_value(lot: _Lot) -> float:
    """What a settled lot pays: its shares on the winning side, its stake back when void."""
    status, row = lot.row["status"], lot.row
    if status == "void":
        return lot.amount
    return b.payout(row["side"], lot.shares, float(row["outcome"])) if status == "resolved" else 0.0


def replay(rows: pd.DataFrame, rounds: list[tuple[str, str]]) -> tuple[pd.DataFrame, dict[str, Books]]:
    """One forecaster's cohort: ``rows`` (``ROWS`` columns) of its ``rounds`` ((label, books-close time),
    in order). Returns its positions (``PARTS`` columns: each buy with what is left of it, each part sold)
    and the ``Books`` it carried into each round."""
    state, books = _Replay(), {}
    order = {label: i for i, (label, _) in enumerate(rounds)}
    ordered = rows.assign(_r=rows["round"].map(order)).sort_values(["_r", "placed_at", "question_id"], kind="mergesort")
    by_round = {label: group.to_dict("records") for label, group in ordered.groupby("round", sort=False)}
    for label, closes in rounds:
        books[label] = state.close_books(closes)
        for row in by_round.get(label, []):
            (state.sell if row.get("action") == SELL else state.buy)(row)
    kept = [{**lot.row, "amount": lot.amount, "shares": lot.shares, "payout": _payout(lot)} for lot in state.lots]
    parts = pd.DataFrame(kept + state.sold, columns=PARTS)
    return parts, books


def _payout(lot: _Lot) -> float:
    """A lot's payout as ``portfolio.settle`` states it: NaN while open."""
    return np.nan if lot.row["status"] == "open" else _settled_value(lot)
