"""The incremental derive's memo (``DeriveMemo``, what ``incremental`` saw and computed), each round's
forecasts as its scoring reads them (``load_forecasts``) and the night's headline boards
(``headline._headline``), kept between commands in the disk cache.

A fresh nightly process starts from what the last one derived, so it too scores again only the
rounds that what changed can affect. The memo is a JSON document (``state/nightly-memo.json``) plus
one frame per round's scores (``store.cache.disk`` frames), each tagged with a token drawn when it was
written, so a document and a frame written by different runs never pair up. The round keys and score
files are identified by their bytes (size and sha256, ``ReadCache.fingerprint``), so a fresh clone of
the same files finds its rounds unchanged. Anything missing, malformed or not matching is dropped:
the memo then lacks those rounds (they are scored again) or is empty (everything is).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from ..errors import Problem
from ..schemas import OBSERVATIONS
from ..scoring.brier import KEY_COLUMNS, RoundForecasts
from ..store import ingest, readers
from ..store.cache import DiskCache, Slot
from ..store.hub import Hub

_DOC = "nightly-memo"
_OBSERVED = "fetch-observation-state"  # the fetch's ObservationState and the ledger files it was built from
_HEADLINE = "nightly-headline"  # the night's history rows and unranked lines, and what they were made from
SAVED: Slot[dict[str, tuple[pd.DataFrame, str]]] = Slot("nightly: the memo's frames on disk", lambda cache: {})  # round -> (frame, token)


@dataclass(frozen=True)
class RoundMemo:
    key: tuple  # the files the round's scores come from (``_round_key``), and the impute value
    markets: frozenset[str]  # its market question ids
    watch: dict[str, str]  # per series question id: a new value dated at or before this matters
    whens: tuple[str, ...]  # its resolution dates as timestamps, sorted
    scores: pd.DataFrame
    quarantined: tuple[Problem, ...]  # the problems its forecast files gave
    written: tuple | None  # the score file's signature once written from ``scores``


@dataclass
class DeriveMemo:
    """What this command's last derive saw and computed (see ``incremental``'s docstring)."""

    as_of: str = ""
    latest: str = ""  # the latest recorded_at in the observation and resolution ledgers then
    closed: set[str] = field(default_factory=set)  # questions with a resolved or void row, ever
    ledgers: dict[str, readers.LedgerMark] = field(default_factory=dict)
    rounds: dict[str, RoundMemo] = field(default_factory=dict)


def _tuples(value: Any) -> Any:
    """JSON lists back into the tuples they were."""
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def load(disk: DiskCache, saved: dict[str, tuple[pd.DataFrame, str]]) -> DeriveMemo:
    """The memo the last command saved in ``disk``; an empty one when there is none or it is unusable.
    ``saved``: the command's record of the frames on disk (``SAVED``), completed with the ones found."""
    body = disk.load_json(_DOC)
    try:
        return _memo(disk, body, saved) if isinstance(body, dict) else DeriveMemo()
    except (KeyError, TypeError, ValueError, AttributeError):
        return DeriveMemo()


def _memo(disk: DiskCache, body: dict, saved: dict[str, tuple[pd.DataFrame, str]]) -> DeriveMemo:
    memo = DeriveMemo(str(body["as_of"]), str(body["latest"]), {str(q) for q in body["closed"]})
    for path, (signature, size, digest, rows) in body["ledgers"].items():
        memo.ledgers[str(path)] = readers.LedgerMark(_tuples(signature), int(size), str(digest), int(rows))
    for label, doc in body["rounds"].items():
        scores = disk.load_frame(f"memo scores {label}", str(doc["token"]))
        if scores is None:
            continue  # that round is scored again
        problems = tuple(Problem(str(p[0]), p[1], p[2], str(p[3]), str(p[4]), str(p[5])) for p in doc["quarantined"])
        memo.rounds[str(label)] = RoundMemo(
            _tuples(doc["key"]),
            frozenset(doc["markets"]),
            {str(q): str(m) for q, m in doc["watch"].items()},
            tuple(doc["whens"]),
            scores,
            problems,
            None if doc["written"] is None else _tuples(doc["written"]),
        )
        saved[str(label)] = (scores, str(doc["token"]))
    return memo


def save(disk: DiskCache, memo: DeriveMemo, saved: dict[str, tuple[pd.DataFrame, str]]) -> None:
    """Keep ``memo`` in ``disk``: the frames of rounds scored since they were last kept (``saved``:
    the command's record of them, ``SAVED``), then the document."""
    rounds = {}
    for label, entry in sorted(memo.rounds.items()):
        kept = saved.get(label)
        if kept is None or kept[0] is not entry.scores:
            token = os.urandom(12).hex()
            if not disk.save_frame(f"memo scores {label}", token, entry.scores):
                continue  # not a frame the format holds: scored again next time
            kept = saved[label] = (entry.scores, token)
        rounds[label] = {
            "key": entry.key,
            "markets": sorted(entry.markets),
            "watch": entry.watch,
            "whens": list(entry.whens),
            "written": entry.written,
            "token": kept[1],
            "quarantined": [[p.file, p.row, p.column, p.code, p.message, p.severity] for p in entry.quarantined],
        }
    ledgers = {path: [list(m.signature), m.size, m.sha256, m.rows] for path, m in sorted(memo.ledgers.items())}
    disk.save_json(_DOC, {"as_of": memo.as_of, "latest": memo.latest, "closed": sorted(memo.closed), "ledgers": ledgers, "rounds": rounds})


def load_headline(disk: DiskCache) -> tuple[tuple[str, ...], tuple[str, ...], pd.DataFrame] | None:
    """The (key, unranked lines, history rows) the last command kept (``headline._headline``), or None."""
    body = disk.load_json(_HEADLINE)
    if not isinstance(body, dict) or not isinstance(body.get("key"), list) or not isinstance(body.get("lines"), list):
        return None
    key, lines, token = tuple(body["key"]), tuple(body["lines"]), body.get("token")
    if not isinstance(token, str) or not all(isinstance(x, str) for x in (*key, *lines)):
        return None
    rows = disk.load_frame("headline rows", token)
    return None if rows is None else (key, lines, rows)


def save_headline(disk: DiskCache, key: tuple[str, ...], lines: tuple[str, ...], rows: pd.DataFrame) -> None:
    token = os.urandom(12).hex()
    if disk.save_frame("headline rows", token, rows):
        disk.save_json(_HEADLINE, {"key": list(key), "lines": list(lines), "token": token})


# -- a round's forecast files, as the scoring reads them -------------------------------------------


def _forecasts_doc(label: str) -> str:
    return f"round forecasts {label}"


def _digest(key: tuple) -> str:
    return hashlib.sha256(repr(key).encode("utf-8")).hexdigest()


def load_forecasts(disk: DiskCache | None, label: str, key: tuple) -> RoundForecasts | None:
    """The round's ``brier.RoundForecasts`` a command kept (``save_forecasts``) from the very files of
    ``key`` (``incremental._round_key``: its questions, question sets and forecast files by their bytes,
    and the impute value), or None."""
    if disk is None:
        return None
    body = disk.load_json(_forecasts_doc(label))
    if not isinstance(body, dict) or body.get("key") != _digest(key) or not isinstance(body.get("token"), str):
        return None
    frame = disk.load_frame(_forecasts_doc(label), body["token"])
    models, declared = body.get("models"), body.get("declared")
    if (
        frame is None
        or not isinstance(models, list)
        or not isinstance(declared, dict)
        or list(frame.columns) != [*KEY_COLUMNS, *(f"p{i}" for i in range(len(models)))]
    ):
        return None
    prob = frame[[f"p{i}" for i in range(len(models))]].to_numpy(dtype=float).T.copy()
    return RoundForecasts(tuple(str(m) for m in models), frame[list(KEY_COLUMNS)], prob, {str(m): str(d) for m, d in declared.items()})


def save_forecasts(disk: DiskCache | None, label: str, key: tuple, table: RoundForecasts) -> None:
    """Keep ``table``, read from the files of ``key``, for the nights that score the round again."""
    if disk is None:
        return
    token = os.urandom(12).hex()
    keys = table.keys.reset_index(drop=True)
    frame = pd.DataFrame({**{k: keys[k].array for k in KEY_COLUMNS}, **{f"p{i}": table.prob[i] for i in range(len(table.models))}})
    if disk.save_frame(_forecasts_doc(label), token, frame):
        disk.save_json(_forecasts_doc(label), {"key": _digest(key), "token": token, "models": list(table.models), "declared": table.declared})


# -- the fetch's observation state ------------------------------------------------------------------

_STATE_COLUMNS = ("question_id", "observed_at", "recorded_at", "value", "status", "outcome")


def load_observation_state(hub: Hub) -> ingest.ObservationState:
    """What the observation ledger says (``ingest.ObservationState``), as the last command kept it in
    the disk cache, brought up to date with the rows appended since (``readers.appended_rows``), so a
    night reads the rows it has not seen, not the whole ledger. Built from the whole ledger instead
    when nothing usable is kept, a file was removed or changed other than by appended rows, or rows
    were appended to a file that an already-seen file of its source follows (taking them in then
    would not be the ledger's order, which decides ties). Equal to ``ObservationState.of`` of the
    whole ledger (``tests/pipeline/test_incremental.py``)."""
    files, layout = hub.layout.observation_files(), hub.layout
    kept = _kept_state(hub.cache.disk) if hub.cache.disk is not None else None
    if kept is not None and set(kept.files) <= {layout.relative(p) for p in files}:
        grown: set = set()  # the folders (sources) a file of which had rows appended
        marks = {}
        for path in files:
            before = kept.files.get(layout.relative(path))
            mark, rows = readers.appended_rows(hub, path, OBSERVATIONS, before)
            if rows is None or (before is not None and before.rows and path.parent in grown):
                break
            if len(rows):
                grown.add(path.parent)
                kept.add(rows)
            marks[layout.relative(path)] = mark
        else:
            kept.files = marks
            return kept
    state = ingest.ObservationState.of(readers.load_observations(hub))
    state.files = {layout.relative(p): readers.appended_rows(hub, p, OBSERVATIONS, None)[0] for p in files}
    return state


def save_observation_state(hub: Hub, state: ingest.ObservationState) -> None:
    """Keep ``state`` in the disk cache with the marks of the files it now says (those appended to since
    it was built are marked again), unless it is kept as it is already."""
    disk, layout = hub.cache.disk, hub.layout
    if disk is None:
        return
    marks = {}
    for path in layout.observation_files():
        before = state.files.get(layout.relative(path))
        mark, rows = readers.appended_rows(hub, path, OBSERVATIONS, before)
        if rows is None:
            return  # not what the state was built from: the next command builds it again
        marks[layout.relative(path)] = mark
    body = disk.load_json(_OBSERVED)
    files = {path: [list(m.signature), m.size, m.sha256, m.rows] for path, m in sorted(marks.items())}
    if isinstance(body, dict) and body.get("files") == files:
        return
    token = os.urandom(12).hex()
    market = [(q, o, r, *v) for q, ((o, r), v) in state.market.items()]
    series = [(q, o, r, *v) for (q, o), (r, v) in state.series.items()]
    frames = {
        "market": pd.DataFrame(market or None, columns=list(_STATE_COLUMNS)),
        "series": pd.DataFrame(series or None, columns=list(_STATE_COLUMNS)),
        "closed": pd.DataFrame({"question_id": list(state.closed_at), "observed_at": list(state.closed_at.values())}),
    }
    frames = {name: frame.astype(object) for name, frame in frames.items()}
    if all(disk.save_frame(f"observation state {name}", token, frame) for name, frame in frames.items()):
        disk.save_json(_OBSERVED, {"token": token, "recorded": state.recorded, "files": files})
        state.files = marks


def _kept_state(disk: DiskCache) -> ingest.ObservationState | None:
    body = disk.load_json(_OBSERVED)
    if not isinstance(body, dict) or not isinstance(body.get("token"), str) or not isinstance(body.get("files"), dict):
        return None
    frames = {}
    for name in ("market", "series", "closed"):
        frame = disk.load_frame(f"observation state {name}", body["token"])
        if frame is None:
            return None
        frames[name] = frame
    try:
        state = ingest.ObservationState(recorded=str(body["recorded"]))
        q, o, r, v, s, c = (frames["market"][col].tolist() for col in _STATE_COLUMNS)
        state.market = {qq: ((oo, rr), (vv, ss, cc)) for qq, oo, rr, vv, ss, cc in zip(q, o, r, v, s, c, strict=True)}
        q, o, r, v, s, c = (frames["series"][col].tolist() for col in _STATE_COLUMNS)
        state.series = {(qq, oo): (rr, (vv, ss, cc)) for qq, oo, rr, vv, ss, cc in zip(q, o, r, v, s, c, strict=True)}
        state.closed_at = dict(zip(frames["closed"]["question_id"].tolist(), frames["closed"]["observed_at"].tolist(), strict=True))
        state.files = {str(path): readers.LedgerMark(_tuples(m[0]), int(m[1]), str(m[2]), int(m[3])) for path, m in body["files"].items()}
    except (KeyError, TypeError, ValueError, IndexError):
        return None
    return state
