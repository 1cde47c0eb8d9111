"""The nightly's incremental derive: only the rounds that what changed can affect are scored again.

A round's scores are a pure function of its questions file, its forecast files, the impute value
and what the ledger view says about the round's units (``recompute.round_scores``). What the view
says about a unit changes only when
- a row naming its question is added to an observation or stated-resolutions ledger, or
- time passes its resolution date (a series value dated then can only count once ``as_of`` has
  reached it), or
- under the ``market_proxy`` policy, every night (the proxy is the value of the day before).
So a night that knows which question ids gained rows since the last derive (``_changes``) scores
only the rounds holding one of them, or one whose resolution date it has just passed, or whose
files changed; every other round keeps the scores frame it had, and its score file, already
written from that frame, is not touched. The result equals the full recompute byte for byte
(``prescient verify`` still recomputes everything from scratch and is the proof;
tests/test_incremental.py compares both after every night of random seasons).

Whenever that reasoning may not hold, the whole derive is done again: the first derive of a
command, a policy other than ``ignore``, a run dated before the last one, a ledger file removed or
rewritten other than by appending (its old bytes are no longer the start of the file: sha256), or
a row recorded after the time of the last derive. The memo lives in the command's read cache
(``Layout.cache``), so it never outlives the process; the demo runs its whole season in one.
"""

from __future__ import annotations

import hashlib
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from ..errors import Problem
from ..schemas import OBSERVATIONS, RESOLUTIONS, SCORES, Table
from ..scoring import market_proxy
from ..scoring.brier import resolved_units, score_round
from ..scoring.resolve import LedgerView, resolve_round
from ..store import readers
from ..store.csvio import file_signature, read_table, write_table
from ..store.layout import Layout
from ..timeutil import format_date


@dataclass(frozen=True)
class _Ledger:
    signature: tuple  # (inode, mtime, size): unchanged means not read again
    size: int
    sha256: str  # of the file's bytes: an append keeps them as the file's first ``size`` bytes
    rows: int


@dataclass(frozen=True)
class _Round:
    key: tuple  # the files the round's scores come from (``_round_key``), and the impute value
    ids: frozenset[str]  # its question ids
    whens: tuple[str, ...]  # its resolution dates as timestamps, sorted
    scores: pd.DataFrame
    quarantined: tuple[Problem, ...]  # the problems its forecast files gave
    written: tuple | None  # the score file's signature once written from ``scores``


@dataclass
class DeriveMemo:
    """What this command's last derive saw and computed (see the module docstring)."""

    as_of: str = ""
    latest: str = ""  # the latest recorded_at in the observation and resolution ledgers then
    ledgers: dict[str, _Ledger] = field(default_factory=dict)
    rounds: dict[str, _Round] = field(default_factory=dict)


def memo_of(layout: Layout) -> DeriveMemo:
    """The command's memo, kept in its read cache (one per ``Layout``)."""
    memo = layout.cache.derived.get("nightly")
    if not isinstance(memo, DeriveMemo):
        memo = layout.cache.derived["nightly"] = DeriveMemo()
    return memo


def score_rounds(layout: Layout, view: Callable[[], LedgerView], as_of: str, impute_value: float, policy: str,
                 quarantine: list[Problem]) -> tuple[pd.DataFrame, list[str]]:
    """``recompute.score_rounds``, scoring again only what changed since this command's last derive.

    ``view()`` gives the ledger view at ``as_of``; it is only asked for when a round needs scoring.
    Returns every round's scores (as ``recompute.score_rounds``) and the score files that changed."""
    memo = memo_of(layout)
    trusted = policy == market_proxy.IGNORE and memo.as_of != "" and memo.as_of <= as_of and memo.latest <= memo.as_of
    found, ledgers, latest = _changes(layout, memo) if trusted else (None, {}, "")
    if found is None:  # something the incremental reasoning cannot follow: score every round
        trusted = False
        _, ledgers, latest = _changes(layout, DeriveMemo())
    changed = found or set()
    frames, written, rounds = [], [], {}
    for due in readers.round_dues(layout):
        label, key = format_date(due), _round_key(layout, due, impute_value)
        entry = memo.rounds.get(label)
        if entry is None or not trusted or entry.key != key or not entry.ids.isdisjoint(changed) \
                or _passes(entry.whens, memo.as_of, as_of):
            entry = _score(layout, due, view(), key, impute_value)
        if entry.written is None or not layout.scores(due).is_file() or file_signature(layout.scores(due)) != entry.written:
            if write_table(layout.scores(due), entry.scores, SCORES, cache=layout.cache):
                written.append(layout.relative(layout.scores(due)))
            entry = _with_written(entry, file_signature(layout.scores(due)))
        for problem in entry.quarantined:  # as loading the round's forecast files would report them
            if problem not in quarantine:
                quarantine.append(problem)
        rounds[label] = entry
        frames.append(entry.scores)
    memo.as_of, memo.latest, memo.ledgers, memo.rounds = as_of, latest, ledgers, rounds
    all_scores = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=list(SCORES.names))
    return all_scores, written


def _score(layout: Layout, due, view: LedgerView, key: tuple, impute_value: float) -> _Round:
    """One round scored as ``recompute.round_scores`` scores it."""
    questions = readers.load_round(layout, due)
    problems: list[Problem] = []
    forecasts = readers.load_forecasts(layout, due, problems)
    units = resolved_units(questions, resolve_round(questions, view))
    scores = score_round(format_date(due), units, forecasts, impute_value)
    whens = tuple(sorted({f"{d}T00:00:00Z" for d in questions["resolution_date"]}))
    return _Round(key, frozenset(questions["question_id"]), whens, scores, tuple(problems), None)


def _with_written(entry: _Round, signature: tuple) -> _Round:
    return _Round(entry.key, entry.ids, entry.whens, entry.scores, entry.quarantined, signature)


def _round_key(layout: Layout, due, impute_value: float) -> tuple:
    """The files a round's scores are computed from, by signature: its questions and forecast files."""
    files = [layout.round_questions(due), *layout.forecast_files(due)]
    return (*((p.name, file_signature(p)) for p in files), impute_value)


def _passes(whens: tuple[str, ...], before: str, now: str) -> bool:
    """True when a resolution date lies in (before, now]: a unit that may have resolved since."""
    i = bisect_right(whens, before)
    return i < len(whens) and whens[i] <= now


def _changes(layout: Layout, memo: DeriveMemo) -> tuple[set[str] | None, dict[str, _Ledger], str]:
    """The question ids named by rows added to the observation and resolution ledgers since
    ``memo`` (every row, with an empty memo), the ledgers as they are now, and the latest
    recorded_at in them. The ids are None when a ledger was removed or changed other than by
    appending: then only the ledgers are right (pass an empty memo for the latest time)."""
    files: list[tuple[Path, Table]] = [(p, OBSERVATIONS) for p in layout.observation_files()]
    files += [(p, RESOLUTIONS) for p in readers.resolution_files(layout)]
    ledgers: dict[str, _Ledger] = {}
    changed: set[str] = set()
    latest, trusted = memo.latest, not set(memo.ledgers) - {str(p) for p, _ in files}  # is a ledger file gone?
    for path, table in files:
        old, signature = memo.ledgers.get(str(path)), file_signature(path)
        if old is not None and old.signature == signature:
            ledgers[str(path)] = old
            continue
        data = path.read_bytes()
        frame = read_table(path, table, layout.relative(path), layout.cache)
        ledgers[str(path)] = _Ledger(signature, len(data), hashlib.sha256(data).hexdigest(), len(frame))
        start = 0
        if old is not None:
            kept = len(data) >= old.size and len(frame) >= old.rows and hashlib.sha256(data[:old.size]).hexdigest() == old.sha256
            trusted, start = trusted and kept, old.rows
        new = frame.iloc[start:]
        changed.update(new["question_id"].tolist())
        if len(new):
            latest = max(latest, str(new["recorded_at"].max()))
    return (changed if trusted else None), ledgers, latest
