"""Resolution provenance: the corrections in the observation and resolution ledgers, and what they
changed. Pure.

A correction is a row that changes what an earlier row said. Three kinds:
- a revision: a row for the same (question, observed_at) as an earlier-recorded row, with another
  value, status or outcome (a series revised, a snapshot re-fetched differently);
- a re-resolution: a question already resolved or void whose next recorded row states another
  status or outcome (a market un-resolved, resolved the other way, or voided);
- a restatement: a stated resolution (``data/resolutions/``) of the same (round, question, resolution
  date) as an earlier statement, with another status or outcome (its ``observed_at`` is the unit's
  resolution date, empty for a market).
Each is listed with the old and new value/status/outcome, the time it was recorded, and the rounds
whose scores it changed: those in which a unit of the question resolves differently (or is scored
or not) with the ledger just before the correction and just after it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .resolve import known_by, ledger_view, resolve_round

COLUMNS = [
    "question_id",
    "observed_at",
    "recorded_at",
    "kind",
    "old_value",
    "new_value",
    "old_status",
    "new_status",
    "old_outcome",
    "new_outcome",
    "rounds_affected",
]
_FIELDS = ["value", "status", "outcome"]


def corrections(obs: pd.DataFrame, as_of: str, rounds: dict[str, pd.DataFrame] | None = None, stated: pd.DataFrame | None = None) -> pd.DataFrame:
    """Every correction recorded at or before ``as_of``; ``rounds`` (round date → question set)
    lets each be tied to the rounds whose scores it changed (empty without it); ``stated``: the stated
    resolutions, whose restatements are corrections too."""
    known = known_by(obs, as_of)
    found = pd.concat([_revisions(known), _reresolutions(known)], ignore_index=True)
    if len(found):
        found = found.drop_duplicates(["question_id", "observed_at", "recorded_at"])
        found["rounds_affected"] = [" ".join(_affected(known, row, rounds or {})) for row in found.itertuples()]
    restated = _restatements(stated, as_of, rounds or {}) if stated is not None else pd.DataFrame(columns=COLUMNS)
    found = pd.concat([f for f in (found, restated) if len(f)], ignore_index=True) if len(found) or len(restated) else found
    if found.empty:
        return pd.DataFrame(columns=COLUMNS)
    return found.sort_values(["recorded_at", "question_id", "observed_at"], kind="mergesort").reset_index(drop=True)[COLUMNS]


_STATED_UNIT = ["round", "question_id", "resolution_date"]


def _restatements(stated: pd.DataFrame, as_of: str, rounds: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Stated resolutions that state another status or outcome than the unit's statement before them."""
    known = stated[stated["recorded_at"].astype(str) <= as_of].sort_values("recorded_at", kind="mergesort")
    if known.empty:
        return pd.DataFrame(columns=COLUMNS)
    keys = known[_STATED_UNIT].astype(object).where(known[_STATED_UNIT].notna(), "")
    previous = known.groupby([keys[c] for c in _STATED_UNIT], sort=False)[["status", "outcome", "value", "recorded_at"]].shift(1)
    later = previous["recorded_at"].notna().to_numpy()
    old, new = previous[later], known[later]
    changed = _differ(old, new, ["status", "outcome"])
    old, new, units = old[changed], new[changed], keys[later][changed]
    return pd.DataFrame(
        {
            "question_id": new["question_id"].to_numpy(),
            "observed_at": units["resolution_date"].astype(str).to_numpy(),
            "recorded_at": new["recorded_at"].to_numpy(),
            "kind": "restatement",
            **{f"old_{c}": old[c].to_numpy() for c in _FIELDS},
            **{f"new_{c}": new[c].to_numpy() for c in _FIELDS},
            "rounds_affected": [
                " ".join(_asking(rounds, q, str(r), str(d)))
                for q, r, d in zip(new["question_id"], units["round"], units["resolution_date"], strict=True)
            ],
        },
        columns=COLUMNS,
    )


def _asking(rounds: dict[str, pd.DataFrame], question: str, round_: str, date: str) -> list[str]:
    """The rounds (``round_``, or every one when empty) whose question set asks ``question`` (at ``date``, when given)."""
    out = []
    for name, questions in sorted(rounds.items()):
        asked = questions[questions["question_id"] == question]
        if date and "resolution_date" in asked.columns:
            asked = asked[asked["resolution_date"].astype(str) == date]
        if len(asked) and (not round_ or round_ == name):
            out.append(name)
    return out


def _differ(a: pd.DataFrame, b: pd.DataFrame, fields: list[str]) -> np.ndarray:
    out = np.zeros(len(a), dtype=bool)
    for column in fields:
        x, y = a[column].to_numpy(), b[column].to_numpy()
        out |= ~((x == y) | (pd.isna(x) & pd.isna(y)))
    return out


def _pairs(previous: pd.DataFrame, current: pd.DataFrame, kind: str, fields: list[str]) -> pd.DataFrame:
    changed = _differ(previous, current, fields)
    old, new = previous[changed].reset_index(drop=True), current[changed].reset_index(drop=True)
    return pd.DataFrame(
        {
            "question_id": new["question_id"],
            "observed_at": new["observed_at"],
            "recorded_at": new["recorded_at"],
            "kind": kind,
            **{f"old_{c}": old[c] for c in _FIELDS},
            **{f"new_{c}": new[c] for c in _FIELDS},
        }
    )


def _revisions(known: pd.DataFrame) -> pd.DataFrame:
    """Rows whose (question, observed_at) was recorded before with other content."""
    same = known.groupby(["question_id", "observed_at"], sort=False)
    previous = same.shift(1)
    later = previous["recorded_at"].notna().to_numpy()
    return _pairs(
        previous[later].assign(question_id=known["question_id"][later], observed_at=known["observed_at"][later]), known[later], "revision", _FIELDS
    )


def _reresolutions(known: pd.DataFrame) -> pd.DataFrame:
    """Rows that follow a resolved or void row of the same question and state something else."""
    ordered = known.sort_values(["question_id", "recorded_at", "observed_at"], kind="mergesort")
    previous = ordered.groupby("question_id", sort=False).shift(1)
    closed = previous["status"].isin(["resolved", "void"]).to_numpy()
    old = previous[closed].assign(question_id=ordered["question_id"][closed])
    return _pairs(old, ordered[closed], "re-resolution", ["status", "outcome"])


def _affected(known: pd.DataFrame, row, rounds: dict[str, pd.DataFrame]) -> list[str]:
    mine = known[known["question_id"] == row.question_id]
    before = ledger_view(mine[mine["recorded_at"] < row.recorded_at], row.recorded_at)
    after = ledger_view(mine, row.recorded_at)
    out = []
    for name, questions in sorted(rounds.items()):
        asked = questions[questions["question_id"] == row.question_id]
        if len(asked) and not _same(resolve_round(asked, before), resolve_round(asked, after)):
            out.append(name)
    return out


def _same(a: pd.DataFrame, b: pd.DataFrame) -> bool:
    keep = ["status", "outcome"]
    return a[keep].reset_index(drop=True).equals(b[keep].reset_index(drop=True))
