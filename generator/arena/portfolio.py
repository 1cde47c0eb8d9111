"""Cohort replay, mark-to-market and settlement of the Arena view. Pure: frames in, frames out.

A *position* is one bet after replay (``cohorts.replay``): its price, shares, implied confidence
and, once the market is settled, its payout; a part of a bet that was sold is a position of its own
(status ``sold``, settled at the sale). ``POSITIONS`` lists the columns. A cohort is one (cohort,
model, view): view ``bets`` for the forecaster's own bets, over the rounds of its cohort
(``cohorts.cohort_labels``), and ``simulated`` for the portfolio simulated from its probability
forecasts of one round (see ``simulate.py``; its cohort is that round).

Timeline of a position (all times UTC):
- placed at ``placed_at`` (at or before the round's due time), buying at the latest market price
  observed at or before its *pricing time*: the later of ``placed_at`` and the time a receipt
  attests the bet file's bytes (``store.receipts``: when GitHub had them), so a bet written with
  hindsight and back-dated buys at the price of the push that made it, not of the time it claims
  (the round's freeze value when no price was observed by then);
- marked to market at time t at shares × the side's latest price observed at or before t;
- settled at ``settle_at`` = the later of the resolution time and the round's due time: $1 per
  share of the winning side, $0 per losing share; a void market (or one never priced) refunds
  the stake. Money that comes back (settlements, sales) may be bet again from the cohort's next round
  on (``cohorts``), so within a round the cash at bet time is the round's cash less the earlier stakes.
Only what the ledgers said at ``as_of`` counts (the ``known`` observations and the resolutions).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..parallel import one_blas_thread
from ..scoring.resolve import values_at
from . import bets as b
from .cohorts import PARTS

COHORT = ["cohort", "model", "view"]
POSITIONS = ["cohort", "round", "model", "view", "start", *PARTS[1:]]  # a replayed part (``cohorts.PARTS``) in its cohort
TABLE = [
    *COHORT,
    "n_bets",
    "n_open",
    "n_resolved",
    "n_void",
    "n_sold",
    "start",
    "cash",
    "positions_value",
    "total_value",
    "return_pct",
    "realised_pnl",
    "unrealised_pnl",
    "win_rate",
    "bet_brier",
]
CURVE = [*COHORT, "at", "cash", "positions_value", "total_value", "pnl", "return_pct"]


@dataclass(frozen=True)
class Cohorts:
    """Every priced and settled position of the hub at ``as_of``, and the observations known then."""

    as_of: str
    positions: pd.DataFrame
    known: pd.DataFrame


def prices_at(known: pd.DataFrame, question_ids: pd.Series, when: pd.Series) -> pd.Series:
    """Per row: the latest market value observed at or before that row's own time (NaN when none)."""
    out = pd.Series(np.nan, index=question_ids.index, dtype=float)
    for t in sorted(set(when)):
        rows = when == t
        out[rows] = values_at(known, question_ids[rows], t).to_numpy()
    return out


def priced(frame: pd.DataFrame) -> pd.DataFrame:
    """Add the side's price and the shares bought (NaN when the market had no price at bet time)."""
    yes_price = frame["yes_price"].to_numpy(dtype=float)
    price = np.maximum(np.where(frame["side"].to_numpy() == b.YES, yes_price, 1.0 - yes_price), b.MIN_PRICE)  # side_price
    return frame.assign(price=price, shares=frame["amount"].astype(float) / price)


def settle(positions: pd.DataFrame, outcomes: pd.DataFrame, due_ts: str) -> pd.DataFrame:
    """Status, outcome, settle_at and payout of each position from the round's market resolutions.

    ``outcomes``: one row per market question with status (open, resolved, void), outcome and
    resolved_at, as ``scoring.resolve.resolve_round`` gives them. The other columns are kept.
    """
    by_q = outcomes.drop_duplicates("question_id").set_index("question_id")
    status = positions["question_id"].map(by_q["status"]).fillna("open")
    status = status.where(positions["price"].notna(), "void")  # never priced: refunded
    outcome = positions["question_id"].map(by_q["outcome"]).astype(float).where(status == "resolved")
    resolved_at = positions["question_id"].map(by_q["resolved_at"]).fillna("").astype(str).to_numpy(dtype=object)
    settle_at = np.where(status == "open", "", np.where(resolved_at < due_ts, due_ts, resolved_at).astype(str))
    return positions.assign(status=status, outcome=outcome, settle_at=settle_at, payout=_payouts(positions, status, outcome))


def _payouts(positions: pd.DataFrame, status: pd.Series, outcome: pd.Series) -> np.ndarray:
    """``bets.payout`` of each resolved position; a void one's stake back; NaN while open."""
    o = outcome.to_numpy(dtype=float)
    won = np.where(positions["side"].to_numpy() == b.YES, o == 1.0, o == 0.0)
    paid = np.where(won, positions["shares"].to_numpy(dtype=float), 0.0)
    st = status.to_numpy()
    return np.where(st == "open", np.nan, np.where(st == "void", positions["amount"].to_numpy(dtype=float), paid))


def mark(positions: pd.DataFrame, known: pd.DataFrame, at: str) -> pd.DataFrame:
    """Each position's state at time ``at``: placed, settled, live value and settlement proceeds."""
    return _state(positions, values_at(known, positions["question_id"], at), at)


def _state(frame: pd.DataFrame, yes_now: pd.Series, at) -> pd.DataFrame:
    """``mark`` for rows that each carry their own mark time ``at`` (a scalar or one per row)."""
    placed = frame["placed_at"] <= at
    settled = placed & (frame["status"] != "open") & (frame["settle_at"] <= at)
    live = placed & ~settled
    yes_now = yes_now.fillna(frame["yes_price"])
    side_now = np.where(frame["side"] == b.YES, yes_now, 1.0 - yes_now)
    value = np.where(live, frame["shares"].to_numpy(dtype=float) * side_now, 0.0)
    proceeds = np.where(settled, frame["payout"].to_numpy(dtype=float), 0.0)
    return frame.assign(placed=placed, settled=settled, live=live, value=np.nan_to_num(value), proceeds=proceeds)


def summarise(marked: pd.DataFrame, keys: list[str] = COHORT) -> pd.DataFrame:
    """Per cohort (``keys``) at the marking time: cash, positions, total value, return, P/L, win rate, bet Brier.
    A part sold (status ``sold``) is no bet of its own: it counts in ``n_sold`` once sold, and in money."""
    part = (marked["status"] == "sold").to_numpy()
    m = marked.assign(
        staked=np.where(marked["placed"], marked["amount"], 0.0),
        realised=np.where(marked["settled"], marked["proceeds"] - marked["amount"], 0.0),
        unrealised=np.where(marked["live"], marked["value"] - marked["amount"], 0.0),
        bet=marked["placed"] & ~part,
        open=marked["live"] & ~part,
        sold=marked["settled"] & part,
        resolved=marked["settled"] & (marked["status"] == "resolved"),
        void=marked["settled"] & (marked["status"] == "void"),
    )
    won_side = np.where(m["side"].to_numpy() == b.YES, m["outcome"].to_numpy(dtype=float) == 1.0, m["outcome"].to_numpy(dtype=float) == 0.0)
    m = m.assign(won=m["resolved"] & won_side, sq_err=np.where(m["resolved"], (m["f_yes"] - m["outcome"]) ** 2, np.nan))
    g = m.groupby(keys, sort=True)
    out = g.agg(
        n_bets=("bet", "sum"),
        n_open=("open", "sum"),
        n_resolved=("resolved", "sum"),
        n_void=("void", "sum"),
        n_sold=("sold", "sum"),
        start=("start", "first"),
        staked=("staked", "sum"),
        proceeds=("proceeds", "sum"),
        positions_value=("value", "sum"),
        realised_pnl=("realised", "sum"),
        unrealised_pnl=("unrealised", "sum"),
        wins=("won", "sum"),
        bet_brier=("sq_err", "mean"),
    ).reset_index()
    out["cash"] = out["start"] - out["staked"] + out["proceeds"]
    out["total_value"] = out["cash"] + out["positions_value"]
    out["return_pct"] = b.return_pct(out["total_value"], out["start"])
    out["win_rate"] = (out["wins"] / out["n_resolved"]).where(out["n_resolved"] > 0)
    for column in ("n_bets", "n_open", "n_resolved", "n_void", "n_sold"):
        out[column] = out[column].astype("int64")
    return out[[*keys, *TABLE[len(COHORT) :]]]


def arena_table(cohorts: Cohorts) -> pd.DataFrame:
    """The Arena summary at ``as_of``: one row per (cohort, model, view), sorted by cohort, view, model.

    Columns: n_bets, n_open, n_resolved, n_void, n_sold (parts of bets sold), start (the cohort's
    starting balance), cash, positions_value (open positions marked to market), total_value,
    return_pct (total vs start, %), realised_pnl (settled or sold: payout − stake), unrealised_pnl
    (open: value − stake), win_rate (share of resolved bets on the winning side) and bet_brier (mean
    (f_YES − outcome)² over resolved bets). A secondary view: the rows are never ranked by any of these.
    """
    if cohorts.positions.empty:
        return pd.DataFrame(columns=TABLE)
    table = summarise(mark(cohorts.positions, cohorts.known, cohorts.as_of))
    return table.sort_values(["cohort", "view", "model"], kind="mergesort").reset_index(drop=True)


BRIER = ["model", "round", "n_resolved", "bet_brier", "bss_ratio"]
BRIER_REFERENCE = 0.25  # Forecaster Arena's reference: always 0.5 (a random guess) on a yes/no question


def bet_brier(cohorts: Cohorts) -> pd.DataFrame:
    """The bet Brier of each model's own bets per round and across every round (``round`` = ``all``),
    over the bets resolved at ``as_of`` (parts sold are no bets), with Forecaster Arena's skill score
    ``bss_ratio`` = 1 − bet_brier / 0.25. Rows by model, then round, ``all`` last."""
    positions = cohorts.positions
    bets = positions[(positions["view"] == "bets") & (positions["status"] == "resolved")] if len(positions) else positions
    bets = bets[bets["settle_at"] <= cohorts.as_of] if len(bets) else bets
    if bets.empty:
        return pd.DataFrame(columns=BRIER)
    err = bets.assign(sq=(bets["f_yes"].astype(float) - bets["outcome"].astype(float)) ** 2)
    per_round = err.groupby(["model", "round"], sort=True)["sq"].agg(["size", "mean"]).reset_index()
    across = err.groupby("model", sort=True)["sq"].agg(["size", "mean"]).reset_index().assign(round="all")
    out = pd.concat([per_round, across], ignore_index=True).rename(columns={"size": "n_resolved", "mean": "bet_brier"})
    out["bss_ratio"] = 1.0 - out["bet_brier"] / BRIER_REFERENCE
    out["_all"] = out["round"] == "all"
    return out.sort_values(["model", "_all", "round"], kind="mergesort")[BRIER].reset_index(drop=True)


def curve_points(first: str, as_of: str) -> list[str]:
    """Every 00:00 UTC after ``first`` up to ``as_of``, then ``as_of`` itself: the daily marks."""
    days = pd.date_range(pd.Timestamp(first).normalize() + pd.Timedelta(days=1), pd.Timestamp(as_of), freq="D")
    points = [d.strftime("%Y-%m-%dT%H:%M:%SZ") for d in days]
    return points + ([as_of] if as_of not in points else []) if first <= as_of else []


def pnl_curves(cohorts: Cohorts) -> pd.DataFrame:
    """The daily P/L curve of every cohort: one row per (cohort, model, view) × mark time ``at``.

    Marks are taken at 00:00 UTC every day after the cohort's first bet, and at ``as_of``; each
    mark values open positions at the latest price observed by then and counts settlements made by
    then. ``pnl`` = total_value − start; ``return_pct`` = pnl / start in percent. Once every
    position of a cohort is settled its curves are flat, so they stop at the first mark after the
    last settlement (and ``as_of``). The same numbers as ``summarise(mark(...))`` at each mark, computed
    per cohort as positions × marks arrays (a hub at ForecastBench scale has millions of positions).
    """
    positions = cohorts.positions
    if positions.empty:
        return pd.DataFrame(columns=CURVE)
    with one_blas_thread():  # the products of ``_held_value``: the same sums on every machine
        parts = [_cohort_curves(rows, cohorts.known, cohorts.as_of) for _, rows in positions.groupby("cohort", sort=True)]
    curves = pd.concat([p for p in parts if len(p)] or [pd.DataFrame(columns=CURVE)], ignore_index=True)
    return curves[CURVE].sort_values([*COHORT, "at"], kind="mergesort").reset_index(drop=True)


def _cohort_curves(rows: pd.DataFrame, known: pd.DataFrame, as_of: str) -> pd.DataFrame:
    """``pnl_curves`` of one cohort. A position counts as placed from one mark on and as settled from a
    later one: the money staked and paid out is a running sum over those marks (``_from_mark``), and the
    value held is summed over groups of positions held over the same marks (``_held_value``). The cost is
    the positions and the marks, not their product: a cohort is marked every night for as long as one of
    its markets is open, years for the first rounds of an old hub."""
    rows = rows.sort_values(COHORT, kind="mergesort")
    points = curve_points(rows["placed_at"].min(), as_of)
    settled_by = rows["settle_at"].where(rows["status"] != "open")
    if settled_by.notna().all() and len(points):  # all settled: flat after the first mark past the last settlement
        last = settled_by.max()
        cut = next((i for i, at in enumerate(points) if at >= last), len(points) - 1)
        points = points[: cut + 1] + ([as_of] if points[cut] != as_of else [])
    if not points:
        return pd.DataFrame(columns=CURVE)
    questions = sorted(pd.unique(rows["question_id"].to_numpy()))
    marks, placed_at = _seconds(pd.Series(points)), _seconds(rows["placed_at"])
    prices = price_matrix(known, questions, marks)
    keys = rows[COHORT].drop_duplicates()
    starts = np.flatnonzero(~rows[COHORT].duplicated().to_numpy())
    key = np.repeat(np.arange(len(keys)), np.diff(np.append(starts, len(rows))))
    placed_from = np.searchsorted(marks, placed_at, "left")  # the first mark at or after it
    settled_from = np.maximum(np.searchsorted(marks, _seconds(settled_by.fillna("")), "left"), placed_from)
    n_keys, n_marks = len(keys), len(points)
    staked = _from_mark(key, placed_from, rows["amount"].to_numpy(dtype=float), n_keys, n_marks)
    proceeds = _from_mark(key, settled_from, rows["payout"].to_numpy(dtype=float), n_keys, n_marks)
    value = _held_value(rows, key, pd.Index(questions).get_indexer(rows["question_id"]), prices, placed_from, settled_from, n_keys)
    start = rows["start"].to_numpy(dtype=float)[starts]
    first = np.minimum.reduceat(placed_at, starts)
    cash = start[:, None] - staked + proceeds
    total = cash + value
    out = (
        keys.loc[keys.index.repeat(len(points))]
        .reset_index(drop=True)
        .assign(
            at=np.tile(points, len(keys)),
            cash=cash.ravel(),
            positions_value=value.ravel(),
            total_value=total.ravel(),
            pnl=(total - start[:, None]).ravel(),
            return_pct=b.return_pct(total, start[:, None]).ravel(),
        )
    )
    return out[(np.repeat(first, len(points)) <= np.tile(marks, len(keys)))]


def _from_mark(key: np.ndarray, first: np.ndarray, amount: np.ndarray, n_keys: int, n_marks: int) -> np.ndarray:
    """(keys, marks): per key, the sum of ``amount`` over its rows counted from their mark ``first`` on
    (``n_marks``: not by the last mark)."""
    added = np.zeros((n_keys, n_marks + 1))
    np.add.at(added, (key, first), amount)
    return np.cumsum(added, axis=1)[:, :n_marks]


def _held_value(
    rows: pd.DataFrame, key: np.ndarray, question: np.ndarray, prices: np.ndarray, placed_from: np.ndarray, settled_from: np.ndarray, n_keys: int
) -> np.ndarray:
    """(keys, marks): the positions held at each mark (placed, not settled) at shares × the side's latest
    price observed (the position's own price while its market has none; a position never priced is worth 0).

    A position's value at a mark is the sum of three terms, each a weight of its own times a function of its
    question and the mark: ±shares × the price observed (− for NO), shares × 1 where that price exists (the 1
    of a NO's 1 − price), and its value at its own price where none does. The positions held over the same
    marks (placed from one, settled from another: in a simulated cohort, those of the markets settled the
    same day) add, over those marks, one product of their weights by key and question with the
    (3 × their questions, marks) prices."""
    n_marks = prices.shape[1]
    observed = ~np.isnan(prices)
    basis = np.stack([np.where(observed, prices, 0.0), observed, ~observed]).astype(float)  # (3, questions, marks)
    yes = (rows["side"] == b.YES).to_numpy()
    shares, own = rows["shares"].to_numpy(dtype=float), rows["yes_price"].to_numpy(dtype=float)
    held = np.nan_to_num(shares)
    weights = np.stack(
        [np.where(yes, held, -held), np.where(yes, 0.0, held), np.nan_to_num(shares * np.where(yes, own, 1.0 - own))]
    )  # (3, positions)
    value = np.zeros((n_keys, n_marks))
    ever = np.flatnonzero(settled_from > placed_from)  # held at one mark at least
    order = ever[np.lexsort((settled_from[ever], placed_from[ever]))]
    span = placed_from[order] * (n_marks + 1) + settled_from[order]
    for group in np.split(order, np.flatnonzero(np.diff(span)) + 1) if len(order) else []:
        lo, hi = placed_from[group[0]], min(settled_from[group[0]], n_marks)
        asked, at = np.unique(question[group], return_inverse=True)
        cells = (key[group] * 3)[None, :] + np.arange(3)[:, None]  # (3, rows): key-major, then the term
        held_now = np.bincount((cells * len(asked) + at[None, :]).ravel(), weights=weights[:, group].ravel(), minlength=n_keys * 3 * len(asked))
        value[:, lo:hi] += held_now.reshape(n_keys, 3 * len(asked)) @ basis[:, asked, lo:hi].reshape(3 * len(asked), hi - lo)
    return value


def _seconds(stamps: pd.Series) -> np.ndarray:
    """ISO-8601 UTC stamps as integer seconds; an empty stamp (never) as the largest integer. Each
    distinct stamp is parsed once (a cohort's positions share a few: its rounds' due times, settlements)."""
    codes, distinct = pd.factorize(stamps.astype(str).to_numpy(), use_na_sentinel=False)
    text = pd.Series(distinct, dtype=object)
    never = text == ""
    seconds = (
        pd.to_datetime(text.where(~never, "1970-01-01T00:00:00Z"), utc=True, format="%Y-%m-%dT%H:%M:%SZ")
        .astype("datetime64[s, UTC]")
        .astype("int64")
        .to_numpy()
    )
    return np.where(never.to_numpy(), np.iinfo(np.int64).max, seconds)[codes]


def price_matrix(known: pd.DataFrame, question_ids: list[str], marks: np.ndarray) -> np.ndarray:
    """(questions, marks): the latest value of each question observed at or before each mark (``values_at``
    for many times; of two observations at the same time, the later row). ``marks``: ``_seconds``, ascending."""
    prices = np.full((len(question_ids), len(marks)), np.nan)
    obs = known[known["question_id"].isin(question_ids)]
    seen = _seconds(obs["observed_at"])
    kept = seen <= (marks[-1] if len(marks) else -1)  # observed after the last mark: never a mark's price
    if not kept.any():
        return prices
    span = np.int64(marks[-1]) + 1  # a question's observations sort before the next question's
    which = pd.Index(question_ids).get_indexer(obs["question_id"].to_numpy()[kept]).astype(np.int64)
    key = which * span + seen[kept]
    order = np.argsort(key, kind="stable")
    key, values = key[order], obs["value"].to_numpy(dtype=float)[kept][order]
    row = np.arange(len(question_ids), dtype=np.int64)[:, None]
    at = np.searchsorted(key, row * span + marks[None, :], side="right") - 1  # the latest at or before the mark
    found = (at >= 0) & (key[np.maximum(at, 0)] // span == row)
    return np.where(found, values[np.maximum(at, 0)], prices)
