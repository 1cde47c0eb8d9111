"""The seals ledger (``data/seals/<YYYY>.csv``): which exact bytes count for each model in each round.

A round is sealed once, by the first nightly run after its due time (``pipeline.seal``): one row per
(model, kind) that has anything for the round, and a marker row (model ``*``) that says the round is
sealed and when. The rows are never changed. This module reads and appends them; the rule that picks
the version a seal fixes is ``submissions.sealing``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from ..schemas import SEALS
from . import ledger
from .csvio import empty_frame
from .hub import Hub

FOLDER = "data/seals"

MARKER = "*"  # the model of a round's marker row: the round is sealed (kind forecast) or its reveal is (kind reveal)
COUNTED = ("sealed", "revealed")  # statuses whose bytes count
# statuses whose row may name bytes a sealed round is held to: those that count, and a commitment not
# revealed, whose row names the missing forecast the hub put in its place (every unit imputed)
HELD = (*COUNTED, "not-revealed")


def load_seals(hub: Hub) -> pd.DataFrame:
    frames = [hub.cache.read_table(p, SEALS, hub.layout.relative(p)) for p in hub.layout.seal_files()]
    return pd.concat(frames, ignore_index=True) if frames else empty_frame(SEALS)


def load_seals_at(repo: Path, commit: str) -> pd.DataFrame:
    """The seals as stored in ``commit`` of the git repository at ``repo``."""
    return ledger.load_at(repo, commit, FOLDER, SEALS)


def sealed_rounds(seals: pd.DataFrame, kind: str = "forecast", as_of: str | None = None) -> dict[str, str]:
    """Round due date → when it was sealed (its marker row of ``kind``), as recorded by ``as_of``."""
    # over the columns' arrays: a nightly asks this several times of a ledger of a few hundred rows
    model, kinds, due, at = (seals[c].to_numpy(dtype=object) for c in ("model", "kind", "due", "sealed_at"))
    return {
        str(d): str(t) for m, k, d, t in zip(model, kinds, due, at, strict=True) if m == MARKER and k == kind and (as_of is None or str(t) <= as_of)
    }


def of_round(seals: pd.DataFrame, due: str) -> pd.DataFrame:
    """The rows of one round (marker rows aside)."""
    return seals[(seals["due"].astype(str) == due) & (seals["model"] != MARKER)]


def held_rows(seals: pd.DataFrame) -> pd.DataFrame:
    """The rows naming the bytes a sealed round's files are held to (``HELD``, with a path; marker rows aside)."""
    return seals[seals["status"].isin(HELD) & (seals["model"] != MARKER) & seals["path"].notna() & (seals["path"].astype(str) != "")]


def counted(seals: pd.DataFrame) -> dict[str, str]:
    """path → blob of every file a sealed round holds: the sealed (or revealed) bytes, and the missing
    forecast the hub put in place of a commitment not revealed."""
    rows = held_rows(seals)
    return dict(zip(rows["path"].astype(str), rows["blob"].astype(str), strict=True))


def append(hub: Hub, rows: pd.DataFrame) -> list[str]:
    """Append ``rows`` to the ledger of each row's year; return the files written."""
    layout, written = hub.layout, []
    for year, part in rows.groupby(rows["due"].astype(str).str[:4], sort=True):
        path = layout.seals(datetime(int(year), 1, 1, tzinfo=UTC))
        if len(ledger.append(path, part, SEALS, layout.relative(path), hub.cache)):
            written.append(layout.relative(path))
    return written
