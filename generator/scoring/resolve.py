"""What the ledgers say at a given time: market states, series values, and round outcomes. Pure.

Only rows recorded at or before ``as_of`` count, so any past state can be reproduced. Within
those, the latest row by (observed_at, recorded_at) is the current one: corrections win.

Rules (ForecastBench's):
- a market resolves 1 or 0; void markets are dropped; a market that resolved at or before the
  round's due time is void for that round;
- a dataset question × resolution date resolves 1 when the series value on the resolution date
  (the latest value dated on or before it) is higher than its value on the due date, once a value
  dated on or after the resolution date has been recorded; no due-date value means void;
- a stated resolution (``schemas.RESOLUTIONS``, e.g. imported from a ForecastBench resolution set)
  of a unit, recorded at or before ``as_of``, overrides the computed one, whatever its status; the
  latest recorded statement wins, and one made for the unit's round beats a round-less one recorded
  at the same time. The void rule still applies: a unit stated resolved at or before the round's
  due time is void;
- under the ``market_proxy`` policy (``market_proxy.py``), an open market of a round already due is
  reported resolved to its value of the day before ``as_of``, flagged in a ``proxy`` column.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..vocabulary import MARKET
from . import market_proxy


def known_by(obs: pd.DataFrame, as_of: str) -> pd.DataFrame:
    """Rows recorded at or before ``as_of``, ordered so that the last row per key is current: a
    stable sort by (question_id, observed_at, recorded_at). When the rows are in recording order
    already (a source's ledgers read in order are: every run appends rows recorded at its time),
    a stable sort by the first two keys gives that very order, with one column fewer to sort each
    night, and the rows known are the first ones (found by bisection, not by comparing every row);
    when no row was recorded after ``as_of`` the rows are not copied to filter none out."""
    recorded = obs["recorded_at"]
    if len(obs) and recorded.is_monotonic_increasing:
        seen = obs if recorded.iloc[-1] <= as_of else obs.iloc[: int(recorded.searchsorted(as_of, side="right"))]
        return stable_sorted(seen, ["question_id", "observed_at"])
    seen = obs if len(obs) == 0 or recorded.max() <= as_of else obs[recorded <= as_of]
    return stable_sorted(seen, ["question_id", "observed_at"] if seen["recorded_at"].is_monotonic_increasing else _ORDER)


_ORDER = ["question_id", "observed_at", "recorded_at"]


def stable_sorted(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """``frame.sort_values(keys, kind="mergesort")`` of text columns: each column's texts coded in
    their sorted order (``pd.factorize``) and the codes sorted together (``np.lexsort``, stable), about
    twice as fast; a column with a missing value is left to ``sort_values`` (which puts it last)."""
    codes = []
    for key in keys:
        coded, _ = pd.factorize(frame[key].to_numpy(dtype=object), sort=True)
        if len(coded) and coded.min() < 0:
            return frame.sort_values(keys, kind="mergesort")
        codes.append(coded)
    return frame.take(np.lexsort(codes[::-1])) if len(frame) else frame.sort_values(keys, kind="mergesort")


def market_states(obs: pd.DataFrame) -> pd.DataFrame:
    """The latest row per question of an ordered frame from ``known_by``, indexed by question_id."""
    return obs[last_of_runs(obs, ["question_id"])].set_index("question_id")


def last_of_runs(ordered: pd.DataFrame, keys: list[str]) -> np.ndarray:
    """Per row of a frame sorted by ``keys`` (``known_by``'s order): whether it is the last of its key,
    which is ``drop_duplicates(keys, keep="last")``'s row since a key's rows are adjacent there. A
    comparison with the next row instead of hashing every key: the view is built most nights."""
    last = np.ones(len(ordered), dtype=bool)
    if len(ordered):
        last[:-1] = False
        for key in keys:
            values = ordered[key].to_numpy(dtype=object)
            last[:-1] |= values[1:] != values[:-1]
    return last


def values_at(obs: pd.DataFrame, question_ids: pd.Series, when: str) -> pd.Series:
    """Per question id: the latest value observed at or before ``when`` (NaN when none)."""
    before = obs[obs["observed_at"] <= when].drop_duplicates("question_id", keep="last")
    lookup = before.set_index("question_id")["value"]
    return question_ids.map(lookup).astype(float)


@dataclass(frozen=True)
class Series:
    dates: np.ndarray  # observed_at strings, ascending, one per date (latest revision)
    values: np.ndarray

    def at(self, when: str) -> float:
        i = int(np.searchsorted(self.dates, when, side="right")) - 1
        return float(self.values[i]) if i >= 0 else float("nan")

    @property
    def last(self) -> str:
        return str(self.dates[-1])


def series_table(known: pd.DataFrame) -> dict[str, Series]:
    """Per question id (sorted): the dates and values of its latest row per date, of a frame in
    ``known_by``'s order. There a (question, date)'s rows are adjacent, its latest last, so its row is
    the one ending the run (no drop_duplicates and sort to find it), and a question's rows are cut
    where the id changes (a ``groupby`` without a frame per question)."""
    latest = known[last_of_runs(known, ["question_id", "observed_at"])]
    ids = latest["question_id"].to_numpy(dtype=object)
    dates, values = latest["observed_at"].to_numpy(dtype=str), latest["value"].to_numpy(dtype=float)
    if not len(ids):
        return {}
    starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
    ends = np.r_[starts[1:], len(ids)]
    return {ids[a]: Series(dates[a:b], values[a:b]) for a, b in zip(starts.tolist(), ends.tolist(), strict=True)}


_UNIT = ["question_id", "resolution_date"]
_STATED = ["round", *_UNIT, "recorded_at", "status", "outcome", "resolved_at"]


def _no_statements() -> pd.DataFrame:
    return _NO_STATEMENTS.copy()


# made once: building a frame costs as much as a round's resolution, and most views have no statement
_NO_STATEMENTS = pd.DataFrame({c: pd.Series(dtype=float if c == "outcome" else str) for c in _STATED})


@dataclass(frozen=True)
class LedgerView:
    """Everything the ledgers said at ``as_of``, computed once and shared by every round.

    ``stated``: the latest stated resolution per (round, question_id, resolution_date) known at
    ``as_of`` (empty when the hub has none). ``proxies``: under the ``market_proxy`` policy, each
    market's value the day before ``as_of`` (``market_proxy.proxy_values``); None otherwise.
    """

    as_of: str
    states: pd.DataFrame
    series: dict[str, Series]
    stated: pd.DataFrame = field(default_factory=_no_statements)
    proxies: pd.DataFrame | None = None


def ledger_view(obs: pd.DataFrame, as_of: str, stated: pd.DataFrame | None = None, unresolved: str = market_proxy.IGNORE) -> LedgerView:
    """``unresolved``: the hub's ``[scoring] unresolved_markets`` policy (``ignore`` or ``market_proxy``)."""
    known = known_by(obs, as_of)
    proxies = None
    if unresolved == market_proxy.MARKET_PROXY:
        before = market_proxy.day_before(as_of)
        proxies = market_proxy.proxy_values(market_states(known_by(obs, before)), stated, before)
    return LedgerView(as_of, market_states(known), series_table(known), latest_statements(stated, as_of), proxies)


def latest_statements(stated: pd.DataFrame | None, as_of: str) -> pd.DataFrame:
    """Per (round, question_id, resolution_date): the latest statement recorded at or before ``as_of``."""
    if stated is None or stated.empty:
        return _no_statements()
    seen = stated.loc[stated["recorded_at"] <= as_of, _STATED]
    seen = seen.sort_values(["round", *_UNIT, "recorded_at"], kind="mergesort")
    return seen.drop_duplicates(["round", *_UNIT], keep="last").reset_index(drop=True)


def resolve_round(questions: pd.DataFrame, view: LedgerView) -> pd.DataFrame:
    """One row per round question: status (resolved, void, open), outcome and resolved_at."""
    # Plain rows, markets first, made into one frame: a round is resolved again most nights, and a
    # frame per kind (two selections, two frames, a concat) cost more than resolving its units.
    units = list(zip(questions["question_id"], questions["resolution_date"], questions["due"], strict=True))
    markets = (questions["kind"] == MARKET).tolist()
    rows = _resolve_markets([u for u, m in zip(units, markets, strict=True) if m], view.states) + _resolve_series(
        [u for u, m in zip(units, markets, strict=True) if not m], view.series, view.as_of
    )
    computed = pd.DataFrame(rows, columns=_RESOLVED) if rows else _empty()
    out = apply_statements(questions, computed, view.stated)
    return out if view.proxies is None else market_proxy.apply_proxies(questions, out, view.proxies, view.as_of)


def apply_statements(questions: pd.DataFrame, computed: pd.DataFrame, stated: pd.DataFrame) -> pd.DataFrame:
    """``computed`` with every unit that has a stated resolution replaced by that statement."""
    if stated.empty or computed.empty:
        return computed
    units = computed.merge(questions[[*_UNIT, "due"]].drop_duplicates(_UNIT), on=_UNIT, how="left")
    units["round"] = units["due"].str[:10]
    pick = _pick_statement(units[["round", *_UNIT]], stated)
    hit = pick["status"].notna().to_numpy()
    out = computed.copy()
    for column in ("status", "outcome", "resolved_at"):
        out.loc[hit, column] = pick.loc[hit, column].to_numpy()
    out["outcome"] = out["outcome"].astype(float)
    out["resolved_at"] = out["resolved_at"].fillna("").astype(str)
    early = hit & (out["status"] == "resolved").to_numpy() & (out["resolved_at"] <= units["due"]).to_numpy()
    out.loc[early, ["status", "outcome"]] = ["void", np.nan]
    return out


def _pick_statement(units: pd.DataFrame, stated: pd.DataFrame) -> pd.DataFrame:
    """Per unit row: the statement for its round, or a round-less one if that was recorded later."""
    columns = ["recorded_at", "status", "outcome", "resolved_at"]
    # Only statements of the units' own rounds can match: merge with those (same rows, smaller join).
    rounds = stated["round"]
    own = units.merge(stated[(rounds != "") & rounds.isin(units["round"].unique())], on=["round", *_UNIT], how="left")[columns]
    general = units.merge(stated[stated["round"] == ""].drop(columns="round"), on=_UNIT, how="left")[columns]
    later = (general["recorded_at"].fillna("") > own["recorded_at"].fillna("")).to_numpy()
    own.loc[later, columns] = general.loc[later, columns].to_numpy()
    return own


_RESOLVED = ["question_id", "resolution_date", "status", "outcome", "resolved_at"]


def _empty() -> pd.DataFrame:
    return pd.DataFrame(columns=_RESOLVED)


Unit = tuple[str, str, str]  # a round question's question_id, resolution_date and due
Resolved = tuple[str, str, str, float, str]  # a row of ``_RESOLVED``


def _resolve_markets(units: list[Unit], states: pd.DataFrame) -> list[Resolved]:
    # The states of the round's markets in one reindex (a market never observed gets NaN: open),
    # not a ``.loc`` per question.
    found = states.reindex([q for q, _, _ in units])
    rows = []
    for (qid, date, due), state, observed, value in zip(units, found["status"], found["observed_at"], found["outcome"], strict=True):
        status, outcome, resolved_at = "open", np.nan, ""
        if state in ("resolved", "void"):
            status, resolved_at = state, observed
            outcome = value if status == "resolved" else np.nan
            if resolved_at <= due:
                status, outcome = "void", np.nan
        rows.append((qid, date, status, outcome, resolved_at))
    return rows


def _resolve_series(units: list[Unit], table: dict[str, Series], as_of: str) -> list[Resolved]:
    rows = []
    for qid, date, due in units:
        when = f"{date}T00:00:00Z"
        series = table.get(qid)
        status, outcome, resolved_at = "open", np.nan, ""
        if when <= due:
            status = "void"
        elif series is not None and when <= as_of and series.last >= when:
            start, end = series.at(due), series.at(when)
            status = "void" if np.isnan(start) else "resolved"
            outcome = np.nan if np.isnan(start) else float(end > start)
            resolved_at = when
        rows.append((qid, date, status, outcome, resolved_at))
    return rows


def latest(frame: pd.DataFrame, key: str | list[str], order: tuple[str, ...] = ("recorded_at",)) -> pd.DataFrame:
    """The current row of each ``key`` of an append-only ledger: its last by ``order`` (ties: the row
    written last), the rows in ``order``. A correction is a new row, so this is the ledger's "now"."""
    return frame.sort_values(list(order), kind="mergesort").drop_duplicates(key, keep="last")


def latest_questions(bank: pd.DataFrame) -> pd.DataFrame:
    """The current version of each question of the bank."""
    return latest(bank, "id")
