"""Validation of an Arena bet file, ``data/bets/<due>/<team>.<model>.csv``. Pure: bytes in, problems out.

The file is read by the forecast parser (encoding, line endings, CSV syntax), then every row is
checked against the ``schemas.BETS`` columns and the round (collect-all). The 25% limit is
checked by replaying the file's bets in (placed_at, question_id) order from the $10,000 start;
every bet with a readable time and amount takes its stake out of the cash, even one that fails.
"""

from __future__ import annotations

import math
import re
from collections import Counter

from ..errors import Problem
from ..schemas import BET_SIDES, BETS
from ..sources.base import MARKET
from ..submissions.codes import problem
from ..submissions.content import RoundSet
from ..submissions.parse import Parsed, Row, parse_forecast
from .bets import START_CASH, cash_before, max_bet, over_limit

_TS = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")
REQUIRED = tuple(c.name for c in BETS.columns if not c.nullable)


def check_bet_file(data: bytes, label: str, rnd: RoundSet | None) -> list[Problem]:
    """Every problem of a bet file; checks that need the round are skipped when it is unknown."""
    parsed = parse_forecast(data, label, "csv")
    if not parsed.columns:
        return parsed.problems
    problems = parsed.problems + check_bet_columns(parsed)
    if any(p.code == "missing-column" for p in problems):
        return problems
    for row in parsed.rows:
        problems += check_bet_row(parsed.label, row, rnd)
    problems += check_duplicate_bets(parsed) + check_limit(parsed)
    if not parsed.records:
        problems.append(problem("no-forecasts", label, None, None, "the file has no bets"))
    return problems


def check_bet_columns(parsed: Parsed) -> list[Problem]:
    label, columns = parsed.label, parsed.columns
    out = [problem("missing-column", label, 1, name, f"required column {name!r} is missing; the header is "
                   + ",".join(BETS.names)) for name in REQUIRED if name not in columns]
    out += [problem("unknown-column", label, 1, name, f"column {name!r} is not one of " + ", ".join(BETS.names))
            for name in columns if name not in BETS.names]
    out += [problem("duplicate-column", label, 1, name, f"column {name!r} appears {n} times in the header")
            for name, n in sorted(Counter(columns).items()) if n > 1]
    return out


def check_bet_row(label: str, row: Row, rnd: RoundSet | None) -> list[Problem]:
    return (_question(label, row, rnd) + _placed_at(label, row, rnd) + _side(label, row)
            + ([] if amount_of(row) is not None else [_amount_problem(label, row)]))


def _question(label: str, row: Row, rnd: RoundSet | None) -> list[Problem]:
    qid = row.cells.get("question_id", "").strip()
    if not qid:
        return [problem("empty-value", label, row.number, "question_id", "the question id is empty")]
    if rnd is None:
        return []
    if qid not in rnd.kinds:
        return [problem("unknown-question", label, row.number, "question_id", f"{qid!r} is not in the question set of round {rnd.due}")]
    if rnd.kinds[qid] != MARKET:
        return [problem("bet-not-market", label, row.number, "question_id",
                        f"{qid!r} is a {rnd.kinds[qid]} question; only market (binary) questions can be bet on")]
    return []


def _placed_at(label: str, row: Row, rnd: RoundSet | None) -> list[Problem]:
    text = row.cells.get("placed_at", "")
    if not _TS.match(text):
        return [problem("bad-bet-time", label, row.number, "placed_at",
                        f"{text!r} is not a UTC timestamp written as YYYY-MM-DDTHH:MM:SSZ")]
    if rnd is not None and text > rnd.due_ts:
        return [problem("bet-after-due", label, row.number, "placed_at",
                        f"the bet was placed at {text}, after the round's due time {rnd.due_ts}")]
    return []


def _side(label: str, row: Row) -> list[Problem]:
    side = row.cells.get("side", "")
    if side in BET_SIDES:
        return []
    return [problem("bad-bet-side", label, row.number, "side", f"{side!r} is not YES or NO (upper case)")]


def amount_of(row: Row) -> float | None:
    """The stake as a number, or None when it is not a finite number greater than 0."""
    text = row.cells.get("amount", "").strip()
    if not _NUMBER.match(text):
        return None
    value = float(text)
    return value if math.isfinite(value) and value > 0 else None


def _amount_problem(label: str, row: Row) -> Problem:
    text = row.cells.get("amount", "")
    return problem("bad-bet-amount", label, row.number, "amount",
                   f"{text!r} is not an amount of dollars greater than 0 (a plain number with a dot, e.g. 250.50)")


def check_duplicate_bets(parsed: Parsed) -> list[Problem]:
    first: dict[tuple[str, str], int] = {}
    out = []
    for row in parsed.rows:
        key = (row.cells.get("question_id", ""), row.cells.get("placed_at", ""))
        if key in first and key[0]:
            out.append(problem("duplicate-bet", parsed.label, row.number, "placed_at",
                               f"a bet on {key[0]!r} at {key[1]} is already in row {first[key]}"))
        first.setdefault(key, row.number)
    return out


def check_limit(parsed: Parsed) -> list[Problem]:
    """Replay the readable bets in time order; report each bet over 25% of the cash left."""
    readable = [(row.cells["placed_at"], row.cells.get("question_id", ""), amount_of(row), row) for row in parsed.rows
                if _TS.match(row.cells.get("placed_at", "")) and amount_of(row) is not None]
    readable.sort(key=lambda r: (r[0], r[1], r[3].number))
    cash = cash_before([r[2] for r in readable], START_CASH)
    return [problem("bet-over-limit", parsed.label, row.number, "amount",
                    f"${amount:,.2f} is over the limit of ${max_bet(left):,.2f}: 25% of the ${left:,.2f} cash left at {placed}")
            for (placed, _, amount, row), left in zip(readable, cash) if over_limit(amount, left)]
