"""The forecast manifest: the sha256 of every forecast file, recorded the first time a run saw it.

Each (path, sha256) pair is recorded once, with the time of the first nightly run that found it,
so a rerun with nothing new writes no byte. A run that saw a new set of files also records a root
hash (path ``*``): the sha256 of the sorted ``<path> <sha256>`` lines of every forecast file
present, each line ending in a newline. That one hash commits to the whole set at that time and can
be handed to an external timestamping service.
"""

from __future__ import annotations

import hashlib
from datetime import datetime

import pandas as pd

from ..schemas import MANIFEST
from ..timeutil import format_ts
from . import ledger
from .csvio import empty_frame, read_table
from .layout import Layout

ROOT = "*"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def root_hash(hashes: dict[str, str]) -> str:
    """sha256 over the sorted ``<path> <sha256>\\n`` lines."""
    return sha256("".join(f"{path} {digest}\n" for path, digest in sorted(hashes.items())).encode("utf-8"))


def current_hashes(layout: Layout) -> dict[str, str]:
    """Every forecast file present, by path relative to the hub root."""
    return {layout.relative(p): layout.cache.sha256(p) for p in layout.all_forecast_files()}


def load_manifest(layout: Layout) -> pd.DataFrame:
    frames = [read_table(p, MANIFEST, layout.relative(p), layout.cache) for p in layout.manifest_files()]
    return pd.concat(frames, ignore_index=True) if frames else empty_frame(MANIFEST)


def new_rows(recorded: pd.DataFrame, hashes: dict[str, str], as_of: datetime) -> pd.DataFrame:
    """The rows a run at ``as_of`` adds: pairs never recorded, and the root hash if it is new. Pure."""
    seen = set(zip(recorded["path"], recorded["sha256"]))
    pairs = [(path, digest) for path, digest in sorted(hashes.items()) if (path, digest) not in seen]
    root = (ROOT, root_hash(hashes))
    if hashes and root not in seen:
        pairs.append(root)
    return pd.DataFrame({"recorded_at": format_ts(as_of), "path": [p for p, _ in pairs],
                         "sha256": [d for _, d in pairs]}, columns=list(MANIFEST.names))


def record(layout: Layout, as_of: datetime) -> list[str]:
    """Append tonight's new rows to ``data/manifest/<YYYY>.csv``; return the files written."""
    rows = new_rows(load_manifest(layout), current_hashes(layout), as_of)
    if rows.empty:
        return []
    path = layout.manifest(as_of)
    ledger.append(path, rows, MANIFEST, layout.relative(path), layout.cache)
    return [layout.relative(path)]


def ledger_digest(layout: Layout) -> str:
    """The night's anchor: ``root_hash`` over every manifest and receipts file by path."""
    files = [*layout.manifest_files(), *layout.receipt_files()]
    return root_hash({layout.relative(p): layout.cache.sha256(p) for p in files})


def first_recorded(recorded: pd.DataFrame) -> dict[tuple[str, str], str]:
    """(path, sha256) → the time of the run that first recorded it."""
    ordered = recorded.sort_values("recorded_at", kind="mergesort").drop_duplicates(["path", "sha256"])
    return {(p, d): t for p, d, t in zip(ordered["path"], ordered["sha256"], ordered["recorded_at"])}
