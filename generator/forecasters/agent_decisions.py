"""The hub's Arena agents, pure parts: what an agent is shown, how its answer is read, and how its
decisions become an ordinary bet file under the bet-file rules (Forecaster Arena's method).

An agent is asked once per round with its cash, its open positions in the cohort with their marks,
and every market of the round with its current YES price (``prompts/arena.j2``). It answers with JSON
decisions: ``BUY_YES``, ``BUY_NO``, ``SELL`` (with the side of the position) or ``HOLD``, each with an
amount and a reason. ``judge`` turns them into bet rows placed at the run's time and checks them
with ``submissions.bets.check_bet_file``, the very check of a submitted bet file, from what the agent
carries into the round: a decision the check refuses (over 25% of the cash left, a sale of what is not
held, a market not in the round...) is kept in the log with that code as its status and never becomes
a bet; nothing is rounded, clipped or invented.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import asdict, dataclass
from typing import Any

import pandas as pd

from ..arena.bets import NO, YES, max_bet
from ..arena.cohorts import SELL, Books
from ..schemas import BETS
from ..store.csvio import to_csv_bytes
from ..submissions.bets import check_bet_file
from ..submissions.content import RoundSet

ACTIONS = {"BUY_YES": ("buy", YES), "BUY_NO": ("buy", NO), "SELL": (SELL, ""), "SELL_YES": (SELL, YES), "SELL_NO": (SELL, NO), "HOLD": ("hold", "")}
BET, HOLD, MALFORMED = "bet", "hold", "malformed"  # a decision's status, else the bet-file check's code
MAX_REASON = 2000  # characters of a reason copied into the bet file (the log keeps all)
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S | re.I)


@dataclass(frozen=True)
class Decision:
    """One decision of an answer, as judged: ``number`` its place in the answer (1-based)."""

    number: int
    market: str
    action: str  # buy | sell | hold | "" when unreadable
    side: str
    amount: float | None
    reason: str
    status: str  # bet | hold | malformed | a bet-file problem code
    column: str = ""  # what was wrong with it (market, action, side, amount)
    detail: str = ""


def money(value: float) -> str:
    return f"{value:,.2f}"


def price(value: float) -> str:
    return f"{value:.4g}"


def prompt_context(due: str, now: str, books: Books, positions: list[dict], markets: list[dict]) -> dict:
    """What the template may use: the round, the cash and its limit, positions and markets (already formatted)."""
    return {"due": due, "now": now, "cash": money(books.cash), "max_bet": money(max_bet(books.cash)), "positions": positions, "markets": markets}


def read_json(text: str) -> Any:
    """The JSON of an answer: the whole text, a fenced block, or the outermost ``{...}``; None if none parses."""
    candidates = [text.strip(), *(m.strip() for m in _FENCE.findall(text))]
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start : end + 1])
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except ValueError:
            continue
    return None


def decisions_of(text: str) -> list | None:
    """The answer's list of decisions (``{"decisions": [...]}`` or a bare list), else None."""
    found = read_json(text)
    if isinstance(found, dict) and isinstance(found.get("decisions"), list):
        return found["decisions"]
    return found if isinstance(found, list) else None


def read_decision(number: int, raw: Any, held: dict[tuple[str, str], float]) -> Decision:
    """One decision's shape: a market id, a known action, a side for a sale, a finite positive amount."""
    if not isinstance(raw, dict):
        return Decision(number, "", "", "", None, "", MALFORMED, "decision", "a decision is not a JSON object")
    market, reason = str(raw.get("market") or "").strip(), str(raw.get("reason") or "").strip()
    action = str(raw.get("action") or "").strip().upper().replace(" ", "_")

    def bad(column: str, detail: str) -> Decision:
        return Decision(number, market, action.lower(), "", None, reason, MALFORMED, column, detail)

    if not market:
        return bad("market", "no market id")
    if action not in ACTIONS:
        return bad("action", f"{action or 'no action'!r} is not BUY_YES, BUY_NO, SELL or HOLD")
    kind, side = ACTIONS[action]
    if kind == HOLD:
        return Decision(number, market, HOLD, "", None, reason, HOLD)
    if kind == SELL and not side:
        side = str(raw.get("side") or "").strip().upper()
        sides = [s for s in (YES, NO) if held.get((market, s), 0.0) > 0]
        side = side or (sides[0] if len(sides) == 1 else "")
        if side not in (YES, NO):
            return bad("side", "a sale must name the side of the position it closes (YES or NO)")
    amount = raw.get("amount")
    if isinstance(amount, bool) or not isinstance(amount, (int, float)) or not math.isfinite(amount) or amount <= 0:
        return bad("amount", f"{amount!r} is not a number of dollars greater than 0")
    return Decision(number, market, kind, side, float(amount), reason, BET)


def judge(raw: list, books: Books, rnd: RoundSet, placed_at: str, label: str) -> tuple[list[Decision], pd.DataFrame]:
    """Every decision with its status, and the bet rows of those that pass the bet-file check (``schemas.BETS``).

    Rows are placed at ``placed_at`` and replayed as the check replays a file (by question id, one row a
    market: a second decision on a market is a ``duplicate-bet``). The check judges each row against the
    rows actually placed before it (a refused one costs nothing), so the rows it passes are the bets; they
    are checked again, as the file they make, until none is refused."""
    decisions = [read_decision(i, d, books.held) for i, d in enumerate(raw, start=1)]
    first: dict[str, int] = {}
    for d in decisions:
        if d.status == BET and first.setdefault(d.market, d.number) != d.number:
            decisions[d.number - 1] = _refused(d, "duplicate-bet", "market", f"a second decision on {d.market!r} in one answer")
    while True:
        bets = sorted((d for d in decisions if d.status == BET), key=lambda d: d.market)
        frame = bet_frame(bets, placed_at)
        refused = _check(frame, bets, books, rnd, label)
        if not refused:
            return decisions, frame
        for number, (code, column, message) in refused.items():
            decisions[number - 1] = _refused(decisions[number - 1], code, column, message)


def _refused(d: Decision, code: str, column: str, detail: str) -> Decision:
    return Decision(d.number, d.market, d.action, d.side, d.amount, d.reason, code, column, detail)


def bet_frame(bets: list[Decision], placed_at: str) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "question_id": d.market,
                "placed_at": placed_at,
                "action": d.action,
                "side": d.side,
                "amount": d.amount,
                "reasoning": d.reason[:MAX_REASON],
            }
            for d in bets
        ],
        columns=list(BETS.names),
    )


def _check(frame: pd.DataFrame, bets: list[Decision], books: Books, rnd: RoundSet, label: str) -> dict[int, tuple[str, str, str]]:
    """The decisions (by number) whose row the bet-file check refuses, with the first code, column and message."""
    if frame.empty:
        return {}
    out: dict[int, tuple[str, str, str]] = {}
    for p in check_bet_file(to_csv_bytes(frame, BETS), label, rnd, books):
        if p.severity == "error" and p.row is not None and 2 <= p.row < len(bets) + 2:
            out.setdefault(bets[p.row - 2].number, (p.code, p.column or "", p.message))
    return out


def as_records(decisions: list[Decision]) -> list[dict]:
    return [asdict(d) for d in decisions]


def rows_of(record: dict) -> pd.DataFrame:
    """The bet rows a logged answer made (its decisions with status ``bet``), placed at its ``placed_at``."""
    bets = [Decision(**d) for d in record.get("decisions") or [] if d.get("status") == BET]
    return bet_frame(sorted(bets, key=lambda d: d.market), str(record.get("placed_at", "")))
