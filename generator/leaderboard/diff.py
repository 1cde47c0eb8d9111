"""The nightly leaderboard diff in plain words: who entered, who left, who moved and why. Pure.

Input is the HISTORY table (one row per night × board × model). Two consecutive nights of one
board are compared model by model:

- a model on the later night only **entered** (at its rank, with the first round it was scored
  on when ``first_rounds`` knows it);
- a model on the earlier night only **left**;
- a model whose rank changed **moved** up or down, with the reason: the data that changed between
  the nights (new market or dataset resolutions, rounds scored for the first time), else the
  models that entered or left, else a change of methodology version, else score corrections.
  Its headline score before and after is quoted;
- an unchanged rank says nothing. Equal ranks (ties) read "tied #2".

Sentences come in a fixed order: entries by new rank, then moves by new rank, then departures by
old rank, each tie broken by model id; the same history always gives the same words.
The headline column is ``overall`` (Brier Index, higher is better) when present, else ``brier``
(mean Brier, lower is better); pass ``score=`` to choose another.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import pairwise

import pandas as pd

# headline column -> (label, number format)
SCORE_COLUMNS = {"overall": ("Brier Index", "{:.1f}"), "brier": ("mean Brier", "{:.4f}")}


@dataclass(frozen=True)
class Between:
    """What changed in the data between two nights (``None`` counts: derive them from the rows)."""

    market_resolutions: int | None = None
    dataset_resolutions: int | None = None
    new_rounds: tuple[str, ...] = ()


@dataclass(frozen=True)
class Change:
    """One model's change between two nights: ``name`` (its display name, else its id) then ``rest``
    make the sentence; ``before``/``after`` are its ranks (None: provisional or not on the board)."""

    model: str
    what: str  # "entered", "moved" or "left"
    before: int | None
    after: int | None
    name: str
    rest: str

    @property
    def sentence(self) -> str:
        return f"{self.name} {self.rest}"


@dataclass(frozen=True)
class NightChanges:
    as_of: str
    previous: str
    board: str
    sentences: tuple[str, ...]
    items: tuple[Change, ...] = ()  # the same changes, structured (the site links names and groups noise)


def score_column(columns) -> str:
    """``overall`` when the history carries the Brier Index, else ``brier``."""
    return "overall" if "overall" in columns else "brier"


def night_diff(
    before: pd.DataFrame, after: pd.DataFrame, between: Between | None = None, first_rounds: Mapping[str, str] | None = None, score: str | None = None
) -> list[str]:
    """Sentences for one board from its rows on one night (``before``) and the next (``after``)."""
    return [c.sentence for c in night_changes(before, after, between, first_rounds, score)]


def night_changes(
    before: pd.DataFrame,
    after: pd.DataFrame,
    between: Between | None = None,
    first_rounds: Mapping[str, str] | None = None,
    score: str | None = None,
    names: Mapping[str, str] | None = None,
) -> list[Change]:
    """``night_diff`` as ``Change`` records; ``names`` gives the display names sentences use."""
    score = score or score_column(after.columns)
    shown = dict(names or {})

    def call(model: str) -> str:
        return shown.get(model, model)

    old, new = before.set_index("model"), after.set_index("model")
    boards = pd.concat([after["board"], before["board"]])
    board = str(boards.iloc[0]) if len(boards) else ""
    entered = sorted(set(new.index) - set(old.index), key=lambda m: _order(new, m))
    left = sorted(set(old.index) - set(new.index), key=lambda m: _order(old, m))
    stayed = [m for m in new.index if m in old.index and _rank(old, m) != _rank(new, m)]
    reason = _reason(_news(old, new, between), [call(m) for m in entered], [call(m) for m in left], _versions(before, after))
    out = [Change(m, "entered", None, _rank(new, m), call(m), _entered(m, new, board, first_rounds or {})) for m in entered]
    out += [
        Change(m, "moved", _rank(old, m), _rank(new, m), call(m), _moved(m, old, new, reason, score))
        for m in sorted(stayed, key=lambda m: _order(new, m))
    ]
    return out + [Change(m, "left", _rank(old, m), None, call(m), f"left the {board} board (was {_place(old, m)}).") for m in left]


def first_rounds(scores: pd.DataFrame) -> dict[str, str]:
    """Each model's earliest scored round, as a due timestamp (said when a model enters a board)."""
    if scores.empty:
        return {}
    return scores.groupby("model")["round"].min().map(lambda d: f"{d}T00:00:00Z").to_dict()


def history_diffs(
    history: pd.DataFrame,
    news: Mapping[str, Between] | None = None,
    first_rounds: Mapping[str, str] | None = None,
    score: str | None = None,
    names: Mapping[str, str] | None = None,
) -> list[NightChanges]:
    """Every consecutive pair of nights, per board, that has something to say; latest night first.

    ``news`` maps a night's ``as_of`` to what changed since the previous night; nights without an
    entry derive resolution counts from the rows' ``n_market`` / ``n_dataset``.
    """
    out = []
    for board, rows in history.groupby("board", sort=True):
        nights = sorted(rows["as_of"].unique())
        for previous, as_of in pairwise(nights):
            said = night_changes(rows[rows["as_of"] == previous], rows[rows["as_of"] == as_of], (news or {}).get(as_of), first_rounds, score, names)
            if said:
                out.append(NightChanges(str(as_of), str(previous), str(board), tuple(c.sentence for c in said), tuple(said)))
    return sorted(out, key=lambda c: (c.as_of, c.board), reverse=True)


def _news(old: pd.DataFrame, new: pd.DataFrame, between: Between | None) -> Between:
    """``between`` with missing counts taken as the largest rise of a model's resolved count."""
    between = between or Between()
    common = new.index.intersection(old.index)

    def rise(column: str) -> int:
        if column not in new.columns or not len(common):
            return 0
        return max(0, int((new.loc[common, column] - old.loc[common, column]).max()))

    return Between(
        rise("n_market") if between.market_resolutions is None else between.market_resolutions,
        rise("n_dataset") if between.dataset_resolutions is None else between.dataset_resolutions,
        tuple(between.new_rounds),
    )


def _versions(before: pd.DataFrame, after: pd.DataFrame) -> tuple[str, str] | None:
    if "methodology_version" not in after.columns or before.empty or after.empty:
        return None
    old, new = str(before["methodology_version"].iloc[0]), str(after["methodology_version"].iloc[0])
    return (old, new) if old != new else None


def _reason(news: Between, entered: list[str], left: list[str], versions: tuple[str, str] | None) -> str:
    parts = []
    if news.market_resolutions and news.dataset_resolutions:
        parts.append(f"{news.market_resolutions} new market and {news.dataset_resolutions} new dataset resolutions")
    elif news.market_resolutions or news.dataset_resolutions:
        count, kind = (news.market_resolutions, "market") if news.market_resolutions else (news.dataset_resolutions, "dataset")
        parts.append(f"{count} new {kind} resolution{'s' if count != 1 else ''}")
    if news.new_rounds:
        parts.append(f"round{'s' if len(news.new_rounds) > 1 else ''} {', '.join(sorted(news.new_rounds))} first scored")
    if parts:
        return "after " + " and ".join(parts)
    if entered or left:
        return "as " + " and ".join(p for p in (_count(entered, "entered"), _count(left, "left")) if p)
    if versions:
        return f"after the methodology changed from version {versions[0]} to {versions[1]}"
    return "after score corrections"


def _count(models: list[str], verb: str) -> str:
    if not models:
        return ""
    return f"{models[0]} {verb}" if len(models) == 1 else f"{len(models)} forecasters {verb}"


def _rank(frame: pd.DataFrame, model: str) -> int | None:
    """The model's rank that night; None while it is provisional (shown, not ranked)."""
    rank = frame.at[model, "rank"]
    return None if pd.isna(rank) else int(rank)


def _order(frame: pd.DataFrame, model: str) -> tuple[float, str]:
    rank = _rank(frame, model)
    return (float("inf") if rank is None else rank, model)


def _place(frame: pd.DataFrame, model: str) -> str:
    rank = _rank(frame, model)
    if rank is None:
        return "provisional (unranked)"
    return f"tied #{rank}" if int((frame["rank"] == rank).sum()) > 1 else f"#{rank}"


def _entered(model: str, new: pd.DataFrame, board: str, first_rounds: Mapping[str, str]) -> str:
    note = f" (first round resolved: {first_rounds[model]})" if model in first_rounds else ""
    where = "as provisional (unranked)" if _rank(new, model) is None else f"at {_place(new, model)}"
    return f"entered the {board} board {where}{note}."


def _moved(model: str, old: pd.DataFrame, new: pd.DataFrame, reason: str, score: str) -> str:
    label, fmt = SCORE_COLUMNS.get(score, (score, "{:.4g}"))
    quote = ""
    if score in new.columns and score in old.columns and pd.notna(old.at[model, score]) and pd.notna(new.at[model, score]):
        quote = f" ({label} {fmt.format(old.at[model, score])} → {fmt.format(new.at[model, score])})"
    before, after = _rank(old, model), _rank(new, model)
    if before is None:
        return f"was ranked for the first time, at {_place(new, model)}, {reason}{quote}."
    if after is None:
        return f"became provisional again (was {_place(old, model)}) {reason}{quote}."
    way = "up" if after < before else "down"
    return f"moved {way} from {_place(old, model)} to {_place(new, model)} {reason}{quote}."
