"""The nightly's incremental derive: only the rounds that what changed can affect are scored again.

A round's scores are a pure function of its questions file, its forecast files, the impute value
and what the ledger view says about the round's units (``recompute.scores_by_round``). Under the
``ignore`` policy for open markets, what the view says about a unit changes only when
- a market's latest state is resolved or void, or becomes so: a row of a market that has ever had
  a resolved or void row (``closed``) is a change; rows of a market that was only ever open are
  not (an open market is open whatever its value);
- a series gains a value dated on or before a unit's resolution date (the due-date and the
  resolution-date values are read there), or any value while a unit whose resolution date has
  passed still waits for one (``_watch``);
- time passes a unit's resolution date (a series value dated then only counts from then on);
- a stated resolution of one of its questions is added (a maintainer's ``void`` or ``correct`` is
  one, recorded at its ``effective_at``: until then a night's derive is whole, as for any row recorded
  after the last derive).
So a night that knows the rows added since the last derive (``_changes``) scores again only the
rounds one of these touches, or whose files changed; every other round keeps the scores frame it
had, and its score file, written from that frame, is not touched. The result equals the full
recompute byte for byte (``prescient verify`` still recomputes everything from scratch and is the
proof; tests/pipeline/test_incremental.py compares both after every night of random seasons).

Whenever that reasoning may not hold, the whole derive is done again: the first derive of a
command, the ``market_proxy`` policy (its proxies move every night), a run dated before the last
one, a ledger file removed or rewritten other than by appending (its old bytes are no longer the
start of the file: sha256), or a row recorded after the time of the last derive. The memo lives in
the command's read cache (``Hub.cache``); the demo runs its whole season in one process. With a
disk cache (``store.cache.disk``, the ``prescient nightly`` command's) it is also kept between
commands (``memo_store``), the files then known by their bytes (size and sha256) rather than their
inode and mtime, so a fresh process, or a fresh clone of the same files, is incremental too.

A round scored again is scored from its forecast files as ``brier.round_forecasts`` reads them (per unit
and model, the probability given), which the disk cache keeps under the round's files' key: a market
question is asked in many rounds, and a night whose values or resolutions touch nearly every round then
reads none of their files again (``memo_store.load_forecasts``; ``brier.score_forecasts`` gives
``score_round``'s frame, tests/scoring/test_brier.py). Its score file is then not written whole
either: the rows of the units what changed names (its questions, its resolution dates passed) are put
among the file's other lines, kept as bytes, once those other rows are seen to be the same
(``_write_scores``, ``store.splice``).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeAlias

import numpy as np
import pandas as pd

from ..errors import Problem
from ..leaderboard.frame_times import FrameTimes
from ..schemas import DECISIONS_TAKEN, EXCLUDE, MAINTAINER_ACTIONS, OBSERVATIONS, RESOLUTIONS, SCORES, Table
from ..scoring import market_proxy
from ..scoring.brier import RoundForecasts, round_forecasts
from ..scoring.resolve import LedgerView
from ..store import files, maintainer, readers, splice
from ..store.atomic import write_bytes_atomic
from ..store.cache import Slot
from ..store.csvio import RoundTripError, write_table
from ..store.hub import Hub
from ..store.layout import FileStats
from ..timeutil import format_date
from ..vocabulary import MARKET
from . import memo_store
from .memo_store import DeriveMemo, RoundMemo
from .recompute import score_one_round

MEMO: Slot[DeriveMemo] = Slot(
    "nightly: the derive's memo", lambda cache: memo_store.load(cache.disk, cache.state(memo_store.SAVED)) if cache.disk is not None else DeriveMemo()
)
ROUND_KEY: Slot[tuple] = Slot("nightly: a round's files")  # .of(due): ``_round_key``, kept while the files' stats are


@dataclass
class ScoreParts:
    """What ``score_parts`` gave each round's frame: round -> (frame, token, times); compared by ``is``."""

    known: dict[str, tuple[pd.DataFrame, object, FrameTimes | None]] = field(default_factory=dict)
    given: int = 0  # the tokens given so far


PARTS: Slot[ScoreParts] = Slot("nightly: the score frames' tokens", lambda cache: ScoreParts())


def memo_of(hub: Hub) -> DeriveMemo:
    """The command's memo, kept in its read cache (one per ``Hub``; with a disk cache, the last command's)."""
    return hub.cache.state(MEMO)


def rescore_changed_rounds(
    hub: Hub,
    view: Callable[[], LedgerView],
    as_of: str,
    impute_value: float,
    policy: str,
    quarantine: list[Problem],
    stats: dict[str, FileStats] | None = None,
    found: LedgerChanges | None = None,
) -> tuple[list[pd.DataFrame], list[str]]:
    """Every round's scores, a frame per round in round order, and the score files written:
    ``recompute.write_round_scores``, scoring again only what changed since this command's last derive.
    ``view()`` gives the ledger view at ``as_of``; it is only asked for when a round needs scoring.
    The frames are not concatenated, since a night whose boards are kept never needs them as one
    (half the memory at FB scale). ``stats``: ``layout.forecast_stats()``, if the caller has them
    (as they are now); ``found``: ``ledger_changes``, if the caller read them already."""
    memo = memo_of(hub)
    stats = hub.layout.forecast_stats() if stats is None else stats
    trusted, (changes, ledgers, latest) = ledger_changes(hub, as_of, policy) if found is None else found
    frames, written, rounds = [], [], {}
    for due in readers.round_dues(hub):
        label = format_date(due)
        key = _round_key(hub, due, impute_value, stats.get(label, ()))
        entry = before = memo.rounds.get(label)
        if entry is None or not trusted or entry.key != key or _touched(entry, changes) or _passes(entry.whens, memo.as_of, as_of):
            fresh = _rescore(hub, due, view(), key, impute_value)
            # scores equal to the ones last written give the same bytes: the file need not be written
            # again, and the frame kept is the one written (what ``score_parts`` knows it by)
            same = entry is not None and fresh.scores.equals(entry.scores)
            entry = _with_written(fresh, entry.written, entry.scores) if same and entry is not None else fresh
        path = hub.layout.scores(due)
        if entry.written is None or _fingerprint(hub, path) != entry.written:
            # rows of units nothing new can touch are the same: the file's other lines are kept as they are
            # (``_write_scores``); the whole file is written when that does not hold
            kept = before if trusted and before is not None and before.key == key else None
            touched = Touched.since(changes, kept, memo.as_of, as_of) if kept is not None else None
            if _write_scores(hub, path, entry.scores, kept, touched):
                written.append(hub.layout.relative(path))
            entry = _with_written(entry, hub.cache.fingerprint(path))
        for problem in entry.quarantined:  # as loading the round's forecast files would report them
            if problem not in quarantine:
                quarantine.append(problem)
        rounds[label] = entry
        frames.append(entry.scores)
    memo.as_of, memo.latest, memo.closed, memo.ledgers, memo.rounds = as_of, latest, changes.closed, ledgers, rounds
    if hub.cache.disk is not None:
        memo_store.save(hub.cache.disk, memo, hub.cache.state(memo_store.SAVED))
    return frames, written


# (whether the memo's rounds can be trusted, and what the ledgers added since it: ``_changes``)
LedgerChanges: TypeAlias = "tuple[bool, tuple[Changes, dict[str, readers.LedgerMark], str]]"


def ledger_changes(hub: Hub, as_of: str, policy: str) -> LedgerChanges:
    """What ``rescore_changed_rounds`` reads of the observation, resolution and decision ledgers:
    what was added to them since this command's last derive, and whether its memo can be trusted
    (else every row counts as new and every round is scored again). Read apart from the scoring
    when the ledgers may grow before it (the demo fetches the next night meanwhile: ``fetch_lane``)."""
    memo = memo_of(hub)
    trusted = policy == market_proxy.IGNORE and memo.as_of != "" and memo.as_of <= as_of and memo.latest <= memo.as_of
    found = _changes(hub, memo) if trusted else None
    if found is None:  # something the incremental reasoning cannot follow: score every round
        trusted, found = False, _changes(hub, DeriveMemo())
    assert found is not None  # an empty memo always gives the changes: every row is new
    return trusted, found


def score_parts(hub: Hub) -> tuple[list[tuple[object, int]], list[FrameTimes | None]]:
    """The frames the last ``rescore_changed_rounds`` gave, in order, each as (a token of its rows, its number of
    rows), and each one's ``FrameTimes``: ``digest.inputs_digest``'s ``parts`` and ``times``. With a
    disk cache the token is the score file's size and sha256 (its fingerprint then is of the bytes,
    the same in any process); without one, a number this command gives each frame it keeps: a
    round scored again to equal scores keeps its frame (``rescore_changed_rounds``), so equal tokens mean the
    same frame, and no row is hashed. Times are made once per frame."""
    memo, disk, tokens = memo_of(hub), hub.cache.disk is not None, hub.cache.state(PARTS)
    known, given = tokens.known, tokens.given
    kept: dict[str, tuple[pd.DataFrame, object, FrameTimes | None]] = {}
    for label, entry in memo.rounds.items():
        if label in known and known[label][0] is entry.scores:
            kept[label] = known[label]
        else:
            given += 1
            kept[label] = (entry.scores, None if disk else ("frame", given), FrameTimes.of(entry.scores))
    tokens.known, tokens.given = kept, given
    parts = [(entry.written if disk else kept[label][1], len(entry.scores)) for label, entry in memo.rounds.items()]
    return parts, [kept[label][2] for label in memo.rounds]


def _rescore(hub: Hub, due, view: LedgerView, key: tuple, impute_value: float) -> RoundMemo:
    """One round scored as ``prescient verify`` scores it (``recompute.score_one_round``), its forecast
    files taken as the disk cache keeps them (``memo_store.load_forecasts``) while the round's files
    (``key``) are those they were read from: a round rescored for new values or resolutions does not
    read its hundred files again."""
    problems: list[Problem] = []

    def forecasts(questions: pd.DataFrame) -> RoundForecasts:
        kept = memo_store.load_forecasts(hub.cache.disk, format_date(due), key)
        if kept is not None:
            return kept
        made = round_forecasts(questions, readers.load_forecasts(hub, due, problems))
        if not problems:  # a round with a file set aside reads them again, and says so, every night
            memo_store.save_forecasts(hub.cache.disk, format_date(due), key, made)
        return made

    questions, resolutions, scores = score_one_round(hub, due, view, impute_value, problems, forecasts if hub.cache.disk is not None else None)
    whens = tuple(sorted({f"{d}T00:00:00Z" for d in questions["resolution_date"]}))
    markets = frozenset(questions.loc[questions["kind"] == MARKET, "question_id"])
    return RoundMemo(key, markets, _watch(questions, resolutions, view.as_of), whens, scores, tuple(problems), None)


@dataclass(frozen=True)
class Touched:
    """What changed since the last derive, as a round's score rows see it (``_touched``, ``_passes``):
    a market's rows change only if it has new rows or a stated resolution; a series unit's only if its
    question has a stated resolution, or a new row dated at or before its resolution date, or that date
    has passed since (``dates``); no other unit is resolved otherwise than it was."""

    news: dict[str, str]
    stated: set[str]
    dates: set[str]

    @classmethod
    def since(cls, changes: Changes, before: RoundMemo, was: str, now: str) -> Touched:
        return cls(changes.news, changes.stated, {when[:10] for when in before.whens if was < when <= now})

    def rows(self, scores: pd.DataFrame) -> np.ndarray:
        """The rows of ``scores`` whose unit is touched (a market's resolution date is empty: after any time)."""
        ids, questions = pd.factorize(scores["question_id"].to_numpy(dtype=object))
        days, dates = pd.factorize(scores["resolution_date"].to_numpy(dtype=object), use_na_sentinel=False)
        since = [self.news.get(q) for q in questions]  # each question's earliest new row's observed_at, or None
        at = [f"{d}T00:00:00Z" if isinstance(d, str) and d else "~" for d in dates]  # "~": after every timestamp
        order = {t: i for i, t in enumerate(sorted({*at, *(t for t in since if t is not None)}))}
        never = len(order)  # no new row: after every date's rank
        new_row = np.array([never if t is None else order[t] for t in since], dtype=np.int64)[ids]
        named = new_row <= np.array([order[t] for t in at], dtype=np.int64)[days]
        named |= np.array([q in self.stated for q in questions], dtype=bool)[ids]
        return named | np.array([d in self.dates for d in dates], dtype=bool)[days]


def _write_scores(hub: Hub, path: Path, scores: pd.DataFrame, before: RoundMemo | None, touched: Touched | None) -> bool:
    """Write a round's score file; True when its bytes changed. When the file holds what ``before``
    (the round's last memo, its files unchanged) wrote and ``scores`` differs from ``before.scores`` only
    in the rows of units ``touched``, the file is spliced (``splice.spliced_rows``: once the other rows are
    seen to be written as the same text, their old lines are kept as bytes and the new rows formatted and
    checked as any write is), else written whole
    (``csvio.write_table``). The same bytes either way (tests/store/test_splice.py, and
    tests/pipeline/test_incremental.py against the full recompute)."""
    data = _splice_scores(hub, path, scores, before, touched) if before is not None and touched is not None else None
    if data is None:
        # no ``cache``: its check that the same frame was written last (a digest of every row) is the
        # memo's ``equals`` in ``rescore_changed_rounds``, already done
        return write_table(path, scores, SCORES)

    def same(read: bytes) -> None:  # the temp file's bytes, read back before they replace the file
        if read != data:
            label = hub.layout.relative(path)
            raise RoundTripError(
                f"{label}: the written file would not read back as written; it was not replaced",
                [Problem(label, None, None, "write-read-back", "the bytes read back are not those written")],
            )

    return write_bytes_atomic(path, data, check=same)


_UNIT = ("question_id", "resolution_date")


def _splice_scores(hub: Hub, path: Path, scores: pd.DataFrame, before: RoundMemo, touched: Touched) -> bytes | None:
    """The spliced bytes of ``scores`` over the file ``before`` wrote, or None (see ``_write_scores``)."""
    if before.written is None or _fingerprint(hub, path) != before.written:
        return None  # not the file written from ``before.scores``
    try:
        data = files.read_bytes(path)
    except OSError:
        return None
    return splice.spliced_rows(data, SCORES, before.scores, touched.rows(before.scores), scores, touched.rows(scores), _UNIT)


def _watch(questions: pd.DataFrame, resolutions: pd.DataFrame, as_of: str) -> dict[str, str]:
    """Per series question of the round: the latest date a new value of it may matter for.

    A unit reads its series at the due date and at the resolution date, and only once ``as_of``
    has reached the resolution date (until then it is open whatever the values: ``_passes`` sees
    to that night). So a unit void from the start (resolution date not after the due date) or not
    yet reachable needs no value; a settled one (resolved, or void for want of a due-date value)
    needs a value dated at or before its resolution date to change; one still waiting for a value
    needs any (``~`` sorts after every timestamp)."""
    series = questions[questions["kind"] != MARKET]
    # a unit's rows in ``resolutions`` all say the same (they are computed from the same question row)
    states = dict(zip(zip(resolutions["question_id"], resolutions["resolution_date"], strict=True), resolutions["status"], strict=True))
    watch: dict[str, str] = {}
    for q, date, due in zip(series["question_id"], series["resolution_date"], series["due"], strict=True):
        when, state = f"{date}T00:00:00Z", states.get((q, date))
        mark = "" if when <= due or when > as_of else "~" if state not in ("resolved", "void") else when
        watch[q] = max(watch.get(q, ""), mark)
    return watch


@dataclass(frozen=True)
class Changes:
    """Rows added since the last derive: per question, the earliest observed_at of its new
    observation rows (``news``); the questions with a new stated resolution (``stated``); and the
    questions that ever had a resolved or void observation row (``closed``)."""

    news: dict[str, str]
    stated: set[str]
    closed: set[str]


def _touched(entry: RoundMemo, changes: Changes) -> bool:
    """Whether the rows added since the last derive can change what the view says of the round's units."""
    news, closed, stated = changes.news, changes.closed, changes.stated
    if not news and not stated:
        return False
    return any(q in stated or (q in news and q in closed) for q in entry.markets) or any(
        q in stated or (q in news and news[q] <= mark) for q, mark in entry.watch.items()
    )


def _with_written(entry: RoundMemo, signature: tuple | None, scores: pd.DataFrame | None = None) -> RoundMemo:
    return RoundMemo(entry.key, entry.markets, entry.watch, entry.whens, entry.scores if scores is None else scores, entry.quarantined, signature)


def _round_key(hub: Hub, due, impute_value: float, forecasts: FileStats) -> tuple:
    """The files a round's scores are computed from, by fingerprint: its questions, question sets and
    forecast files. Kept per round in the command's cache while their stats are the same (the forecast
    files' ``forecasts``, ``layout.forecast_stats``), so a night stats each file instead of
    fingerprinting it (with a disk cache, a sha256 looked up by path) through a Path of its own."""
    stats = (*hub.layout.round_stats(due), forecasts, impute_value)
    return hub.cache.kept(ROUND_KEY.of(format_date(due)), stats, lambda: _files_key(hub, due, impute_value))


def _files_key(hub: Hub, due, impute_value: float) -> tuple:
    sets = hub.layout.round_sets(due)
    files = [hub.layout.round_questions(due), *([sets] if sets.is_file() else []), *hub.layout.forecast_files(due)]
    return (*((p.name, hub.cache.fingerprint(p)) for p in files), impute_value)


def _fingerprint(hub: Hub, path: Path) -> tuple | None:
    """``hub.cache.fingerprint(path)``; None when there is no file."""
    try:
        return hub.cache.fingerprint(path)
    except (FileNotFoundError, NotADirectoryError):
        return None


def _passes(whens: tuple[str, ...], before: str, now: str) -> bool:
    """True when a resolution date lies in (before, now]: a unit that may have resolved since."""
    i = bisect_right(whens, before)
    return i < len(whens) and whens[i] <= now


def _changes(hub: Hub, memo: DeriveMemo) -> tuple[Changes, dict[str, readers.LedgerMark], str] | None:
    """What was added to the observation and resolution ledgers since ``memo`` (every row, with an
    empty memo), the ledgers as they are now and the latest recorded_at in them. None when a
    ledger was removed or changed other than by appending."""
    files: list[tuple[Path, Table]] = [(p, OBSERVATIONS) for p in hub.layout.observation_files()]
    files += [(p, RESOLUTIONS) for p in readers.resolution_files(hub.layout)]
    files += [(hub.layout.maintainer_actions, MAINTAINER_ACTIONS)] if hub.layout.maintainer_actions.is_file() else []
    taken = maintainer.taken_file(hub)
    files += [(taken, DECISIONS_TAKEN)] if taken.is_file() else []
    if set(memo.ledgers) - {str(p) for p, _ in files}:
        return None  # a ledger file is gone
    ledgers: dict[str, readers.LedgerMark] = {}
    news: dict[str, str] = {}
    stated: set[str] = set()
    latest, closed = memo.latest, set(memo.closed)
    for path, table in files:
        old = memo.ledgers.get(str(path))
        mark, new = readers.appended_rows(hub, path, table, old)
        ledgers[str(path)] = mark
        if new is None:
            return None  # rewritten other than by appending
        if not len(new):
            continue
        if table is DECISIONS_TAKEN:  # a decision taken up late is a statement recorded at the night that took it up
            new = new.assign(recorded_at=new["taken_at"])
        latest = max(latest, str(new["recorded_at"].max()))
        if table in (MAINTAINER_ACTIONS, DECISIONS_TAKEN):  # void and correct rows are statements recorded at their effective_at
            resolving = new[new["action"] != EXCLUDE]
            stated.update(resolving["target"].tolist())
            latest = max(latest, str(resolving["effective_at"].max())) if len(resolving) else latest
            continue
        if table is RESOLUTIONS:
            stated.update(new["question_id"].tolist())
            continue
        closed.update(new.loc[new["status"] != "open", "question_id"].tolist())
        for q, when in zip(new["question_id"].tolist(), new["observed_at"].tolist(), strict=True):  # no groupby: a night adds few rows
            news[q] = min(news.get(q, when), when)
    return Changes(news, stated, closed), ledgers, latest
