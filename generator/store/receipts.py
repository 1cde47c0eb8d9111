"""The receipts ledger (``data/receipts/<YYYY-MM>.csv``): when GitHub attests that a submitted file's
exact bytes had been pushed.

A receipt row says: the pull-request workflow run ``run_id`` was created by GitHub at
``attested_at`` for the head commit ``head_sha``, and at that commit ``path`` held the blob
``blob``. A run cannot be created for a commit GitHub does not have, so the bytes existed (pushed)
by that time; the time is GitHub's, never the submitter's. One row per (head commit, path), recorded
once: a second run on the same head adds nothing. ``attested`` gives the earliest time a receipt
attests a file's bytes (when they were first pushed); which version of a model's file counts is the
seal's rule (``submissions.sealing``: the last one attested before the due time).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

import pandas as pd

from ..errors import SchemaError
from ..schemas import RECEIPTS
from ..timeutil import format_ts, parse_ts
from . import ledger
from .csvio import check_frame, coerce, empty_frame, parse_bytes
from .git import GitTree
from .hub import Hub

FOLDER = "data/receipts"
UNREAD = "*"  # the path of a row whose run's head commit could not be read (verdict head-unavailable)


def empty() -> pd.DataFrame:
    """A receipts frame with no rows."""
    return empty_frame(RECEIPTS)


def load_receipts(hub: Hub) -> pd.DataFrame:
    """Every receipt row in the hub's working tree."""
    frames = [hub.cache.read_table(p, RECEIPTS, hub.layout.relative(p)) for p in hub.layout.receipt_files()]
    return pd.concat(frames, ignore_index=True) if frames else empty_frame(RECEIPTS)


def load_receipts_at(repo: Path, commit: str) -> pd.DataFrame:
    """Every receipt row as stored in ``commit`` of the git repository at ``repo`` (read through git
    plumbing, so the receipts of the default branch can be read from a checkout of another commit)."""
    return ledger.load_at(repo, commit, FOLDER, RECEIPTS)


BRANCH_FOLDER = "runs"  # on the receipts branch: runs/<run_id>.csv, one file per run, each written once


def load_run_at(repo: Path, rev: str, run_id: int) -> pd.DataFrame | None:
    """The receipts workflow's file for one run on the receipts branch at ``rev``, or None when it has none
    (or it is not a receipts file)."""
    tree, label = GitTree(repo, rev), f"{BRANCH_FOLDER}/{run_id}.csv"
    entry = tree.entry(label)
    if not entry or entry[0] != "file" or entry[1] > 1_000_000:
        return None
    try:
        raw = parse_bytes(tree.read(label), label)
    except (SchemaError, ValueError):
        return None
    return None if check_frame(raw, RECEIPTS, label) else coerce(raw, RECEIPTS)


def load_branch_at(repo: Path, rev: str) -> pd.DataFrame:
    """Every run's file on the receipts branch at ``rev`` (files that are not receipts are left out)."""
    tree = GitTree(repo, rev)
    runs = [int(n.removesuffix(".csv")) for n in tree.names(BRANCH_FOLDER) if n.removesuffix(".csv").isdigit()]
    frames = [f for run in sorted(runs) if (f := load_run_at(repo, rev, run)) is not None]
    return pd.concat(frames, ignore_index=True) if frames else empty_frame(RECEIPTS)


def attested(receipts: pd.DataFrame) -> dict[tuple[str, str], datetime]:
    """(path, blob) → the earliest time a receipt attests those bytes at that path."""
    receipts = receipts[receipts["path"] != UNREAD]
    if receipts.empty:
        return {}
    earliest = receipts.groupby(["path", "blob"], sort=True)["attested_at"].min()
    return {(path, blob): parse_ts(str(stamp)) for (path, blob), stamp in earliest.items()}


def receipt_rows(
    files: dict[str, str], *, attested_at: str, head_sha: str, pr: int, run_id: int, verdict: str, as_of: datetime, author: str = ""
) -> pd.DataFrame:
    """The rows of one receipt: one per (path, blob) of ``files``. Pure."""
    paths = sorted(files)
    return pd.DataFrame(
        {
            "recorded_at": format_ts(as_of),
            "attested_at": attested_at,
            "path": paths,
            "blob": [files[p] for p in paths],
            "head_sha": head_sha,
            "pr": pr,
            "run_id": run_id,
            "verdict": verdict,
            "author": author or None,
        },
        columns=list(RECEIPTS.names),
    )


def new_rows(existing: pd.DataFrame, rows: pd.DataFrame) -> pd.DataFrame:
    """The rows whose (head commit, path) no receipt records yet: the first receipt of a head stays. Pure."""
    seen = set(zip(existing["head_sha"], existing["path"], strict=True))
    keep = [(h, p) not in seen for h, p in zip(rows["head_sha"], rows["path"], strict=True)]
    return rows[keep].reset_index(drop=True)


def heads(receipts: pd.DataFrame) -> set[str]:
    """The head commits some receipt already records."""
    return set(receipts["head_sha"])


def record(hub: Hub, rows: Iterable[pd.DataFrame], as_of: datetime) -> pd.DataFrame:
    """Append the new ones of ``rows`` to ``data/receipts/<YYYY-MM of as_of>.csv``; return the rows added."""
    frames = [f for f in rows if len(f)]
    if not frames:
        return empty_frame(RECEIPTS)
    fresh = new_rows(load_receipts(hub), pd.concat(frames, ignore_index=True).drop_duplicates(["head_sha", "path"]))
    if fresh.empty:
        return fresh
    path = hub.layout.receipts(as_of)
    return ledger.append(path, fresh, RECEIPTS, hub.layout.relative(path), hub.cache)
