"""Validation of an Arena bet file, ``data/bets/<due>/<team>.<model>.csv``. Pure: bytes in, problems out.

The file is read by the forecast parser (encoding, line endings, CSV syntax), then every row is
checked against the ``schemas.BETS`` columns and the round (collect-all). The file's rows are then
replayed in (placed_at, question_id) order from what the forecaster carries into the round
(``arena.cohorts.Books``: $10,000 and nothing held in the first round of a cohort): every buy placed
takes its stake out of the cash and adds it to what is held; a sale may close at most the stake held
in that market and side. A row refused (by any check: over the 25% limit, a sale of what is not held,
a market not in the round, a duplicate...) is not placed and costs nothing, so one refused row never
makes a later legal one refused too.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from itertools import chain

from ..arena.bets import max_bet, over_limit
from ..arena.cohorts import SELL, Books
from ..codes import problem
from ..errors import Problem
from ..schemas import BET_ACTIONS, BET_SIDES, BETS
from ..store.forecast_file import Parsed, Row, parse_forecast
from ..vocabulary import MARKET
from .content import RoundSet, check_header, plain_number
from .reading import has_errors, reader_problems, reader_values

_TS = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z")  # fullmatch: no trailing newline
REQUIRED = tuple(c.name for c in BETS.columns if not c.nullable)


def check_bet_file(data: bytes, label: str, rnd: RoundSet | None, carried: Books | None = None) -> list[Problem]:
    """Every problem of a bet file (at most MAX_PROBLEMS and a count of the rest); checks that need
    the round are skipped when it is unknown. Amounts are taken as the hub's reader converts them.
    ``carried``: what the forecaster carries into the round (None: a cohort's first round)."""
    parsed = parse_forecast(data, label, "csv")
    if not parsed.columns:
        return parsed.problems + parsed.summary()
    problems = parsed.problems + parsed.keep(check_bet_columns(parsed))
    if any(p.code == "missing-column" for p in problems):
        return problems + parsed.summary()
    amounts = dict(zip((row.number for row in parsed.rows), bet_amounts(parsed), strict=True))
    found = [p for row in parsed.rows for p in check_bet_row(parsed.label, row, rnd, amounts[row.number])]
    found += check_duplicate_bets(parsed)
    refused = {p.row for p in found if p.severity == "error"}
    problems += parsed.keep(chain(found, check_limit(parsed, amounts, carried or Books(), refused)))
    if not parsed.records:
        problems += parsed.keep([problem("no-forecasts", label, None, None, "the file has no bets")])
    if not has_errors(problems):
        problems += parsed.keep(reader_problems(parsed, BETS))
    return problems + parsed.summary()


def bet_amounts(parsed: Parsed) -> list[float | None]:
    """Each row's stake as the reader converts it; None unless a plain ASCII number, finite and > 0."""
    values = reader_values(parsed, BETS, "amount")
    return [
        value if plain_number(row.cells.get("amount", "")) is not None and math.isfinite(value) and value > 0 else None
        for row, value in zip(parsed.rows, values, strict=True)
    ]


def check_bet_columns(parsed: Parsed) -> list[Problem]:
    return check_header(parsed, BETS, REQUIRED)


def check_bet_row(label: str, row: Row, rnd: RoundSet | None, amount: float | None) -> list[Problem]:
    return (
        _question(label, row, rnd)
        + _placed_at(label, row, rnd)
        + _action(label, row)
        + _side(label, row)
        + ([] if amount is not None else [_amount_problem(label, row)])
    )


def _question(label: str, row: Row, rnd: RoundSet | None) -> list[Problem]:
    qid = row.cells.get("question_id", "").strip()
    if not qid:
        return [problem("empty-value", label, row.number, "question_id", "the question id is empty")]
    if rnd is None or _is_sale(row):  # a sale's market is one held in the cohort (check_limit), of any of its rounds
        return []
    if qid not in rnd.kinds:
        return [problem("unknown-question", label, row.number, "question_id", f"{qid!r} is not in the question set of round {rnd.due}")]
    if rnd.kinds[qid] != MARKET:
        return [
            problem(
                "bet-not-market",
                label,
                row.number,
                "question_id",
                f"{qid!r} is a {rnd.kinds[qid]} question; only market (binary) questions can be bet on",
            )
        ]
    return []


def _placed_at(label: str, row: Row, rnd: RoundSet | None) -> list[Problem]:
    text = row.cells.get("placed_at", "")
    if not _TS.fullmatch(text):
        return [problem("bad-bet-time", label, row.number, "placed_at", f"{text!r} is not a UTC timestamp written as YYYY-MM-DDTHH:MM:SSZ")]
    if rnd is not None and text > rnd.due_ts:
        return [problem("bet-after-due", label, row.number, "placed_at", f"the bet was placed at {text}, after the round's due time {rnd.due_ts}")]
    return []


def _is_sale(row: Row) -> bool:
    return row.cells.get("action", "") == SELL


def _action(label: str, row: Row) -> list[Problem]:
    action = row.cells.get("action", "")
    if action in ("", *BET_ACTIONS):
        return []
    return [problem("bad-bet-action", label, row.number, "action", f"{action!r} is not buy or sell (lower case; empty means buy)")]


def _side(label: str, row: Row) -> list[Problem]:
    side = row.cells.get("side", "")
    if side in BET_SIDES:
        return []
    return [problem("bad-bet-side", label, row.number, "side", f"{side!r} is not YES or NO (upper case)")]


def _amount_problem(label: str, row: Row) -> Problem:
    text = row.cells.get("amount", "")
    return problem(
        "bad-bet-amount", label, row.number, "amount", f"{text!r} is not an amount of dollars greater than 0 (a plain number with a dot, e.g. 250.50)"
    )


def check_duplicate_bets(parsed: Parsed) -> Iterator[Problem]:
    first: dict[tuple[str, str], int] = {}
    for row in parsed.rows:
        key = (row.cells.get("question_id", ""), row.cells.get("placed_at", ""))
        if key in first and key[0]:
            yield problem("duplicate-bet", parsed.label, row.number, "placed_at", f"a bet on {key[0]!r} at {key[1]} is already in row {first[key]}")
        first.setdefault(key, row.number)


def check_limit(
    parsed: Parsed, amounts: dict[int, float | None], carried: Books, refused: set[int | None] | frozenset[int | None] = frozenset()
) -> list[Problem]:
    """Replay the rows placed, in time order, from what is ``carried`` into the round: report each buy over
    25% of the cash left, and each sale of more than the stake held in its market and side. A row refused
    (``refused``: row numbers already refused by another check; or refused here) is not placed and costs
    nothing: a later row is judged against the cash and stakes of the rows actually placed before it."""
    readable = [
        (row.cells["placed_at"], row.cells.get("question_id", ""), value, row)
        for row in parsed.rows
        if row.number not in refused
        and _TS.fullmatch(row.cells.get("placed_at", ""))
        and (value := amounts[row.number]) is not None
        and row.cells.get("action", "") in ("", *BET_ACTIONS)
        and row.cells.get("side", "") in BET_SIDES
    ]
    readable.sort(key=lambda r: (r[0], r[1], r[3].number))
    cash, held, problems = carried.cash, dict(carried.held), []
    for placed, qid, amount, row in readable:
        key = (qid, row.cells["side"])
        if _is_sale(row):
            sale = _sale_problem(parsed.label, row, key, amount, held.get(key, 0.0))
            problems += sale
            if not sale:
                held[key] = max(held.get(key, 0.0) - amount, 0.0)
        elif over_limit(amount, cash):
            problems.append(
                problem(
                    "bet-over-limit",
                    parsed.label,
                    row.number,
                    "amount",
                    f"${amount:,.2f} is over the limit of ${max_bet(cash):,.2f}: 25% of the ${cash:,.2f} cash left at {placed}",
                )
            )
        else:
            cash -= amount
            held[key] = held.get(key, 0.0) + amount
    return problems


def _sale_problem(label: str, row: Row, key: tuple[str, str], amount: float, stake: float) -> list[Problem]:
    if stake <= 0:
        return [
            problem(
                "sell-not-held",
                label,
                row.number,
                "question_id",
                f"no {key[1]} position in {key[0]!r} is held in the cohort at {row.cells['placed_at']}",
            )
        ]
    if amount > stake * (1 + 1e-12):
        return [
            problem(
                "sell-over-held",
                label,
                row.number,
                "amount",
                f"${amount:,.2f} is more than the ${stake:,.2f} stake held in {key[1]} of {key[0]!r} at {row.cells['placed_at']}",
            )
        ]
    return []
