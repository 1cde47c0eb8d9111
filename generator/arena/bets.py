"""The bet arithmetic of the Arena view (Forecaster Arena's method). Pure scalar functions.

A cohort is one round: every forecaster starts it with ``START_CASH`` dollars. A bet stakes an
amount on one side of a market question and buys shares at that side's price; a share pays $1 if
its side wins and $0 otherwise. The largest bet allowed is ``MAX_BET_SHARE`` of the cash left.
"""

from __future__ import annotations

YES, NO = "YES", "NO"
START_CASH = 10_000.0
MAX_BET_SHARE = 0.25
MIN_PRICE = 0.01  # a side priced below 1 cent is bought at 1 cent (no infinite share counts)
SIM_STAKE = 100.0  # the simulated portfolio's stake per market (probability forecasts)


def max_bet(cash: float) -> float:
    """The largest amount that may be staked with ``cash`` left."""
    return MAX_BET_SHARE * max(cash, 0.0)


def over_limit(amount: float, cash: float) -> bool:
    return amount > max_bet(cash)


def implied_confidence(amount: float, cash: float) -> float:
    """c = min(a / (0.25 · cash), 1): a maximum bet means full confidence."""
    limit = max_bet(cash)
    return 1.0 if limit <= 0 else min(amount / limit, 1.0)


def f_yes(side: str, confidence: float) -> float:
    """The bet's implied probability of YES: c for a YES bet, 1 − c for a NO bet."""
    return confidence if side == YES else 1.0 - confidence


def side_price(side: str, yes_price: float) -> float:
    """What one share of ``side`` costs when YES trades at ``yes_price`` (at least ``MIN_PRICE``)."""
    price = yes_price if side == YES else 1.0 - yes_price
    return max(price, MIN_PRICE)


def shares(amount: float, price: float) -> float:
    return amount / price


def payout(side: str, n_shares: float, outcome: float) -> float:
    """Settlement: $1 per share of the side that won, $0 per share of the side that lost."""
    won = outcome == 1.0 if side == YES else outcome == 0.0
    return n_shares if won else 0.0


def return_pct(total_value, start=START_CASH):
    """(total − start) / start, in percent; of numbers or of aligned arrays alike."""
    return (total_value - start) * 100.0 / start


def cash_before(amounts: list[float], start: float = START_CASH) -> list[float]:
    """The cash left before each bet of a cohort, bets given in replay order (placed_at, question_id)."""
    out, cash = [], start
    for amount in amounts:
        out.append(cash)
        cash -= amount
    return out
