"""The manifest: the sha256 of every submitted file of a round (forecast, bet and commitment files),
recorded the first time a run saw it.

Each (path, sha256) pair is recorded once, with the time of the first nightly run that found it,
so a rerun with nothing new writes no byte. A run that saw a new set of files also records a root
hash (path ``*``): the sha256 of the sorted ``<path> <sha256>`` lines of every forecast file
present, each line ending in a newline. That one hash commits to the whole set at that time and can
be handed to an external timestamping service.
"""

from __future__ import annotations

import functools
import hashlib
from datetime import datetime
from pathlib import Path

import pandas as pd

from ..schemas import MANIFEST
from ..timeutil import format_ts
from . import ledger
from .cache import Slot, signatures
from .csvio import empty_frame
from .hub import Hub
from .layout import FileStats, file_stats

ROOT = "*"
FOLDER_HASHES: Slot[dict[str, str]] = Slot("manifest: a round folder's hashes")  # .of(folder), kept while its files' stats are
PAIRS: Slot[set[tuple[str, str]]] = Slot("manifest: the pairs recorded")  # kept while the manifest files are unchanged
CHECKED: Slot[tuple[set[tuple[str, str]], dict[str, str]] | None] = Slot(
    "manifest: the last pairs and hashes found with nothing new", lambda cache: None
)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def root_hash(hashes: dict[str, str]) -> str:
    """sha256 over the sorted ``<path> <sha256>\\n`` lines."""
    return sha256("".join(f"{path} {digest}\n" for path, digest in sorted(hashes.items())).encode("utf-8"))


def current_hashes(hub: Hub, stats: dict[str, FileStats] | None = None) -> dict[str, str]:
    """Every forecast file present, by path relative to the hub root. A round folder's hashes are
    kept in the command's cache while its files' stats are the same (``stats``: the caller's
    ``layout.forecast_stats()``, as they are now, else read here), so a night with nothing new
    stats each file without a Path per file and hashes none."""
    stats = hub.layout.forecast_stats() if stats is None else stats
    out: dict[str, str] = {}
    for name, files in stats.items():
        folder = hub.layout.data / "forecasts" / name
        hashes: dict[str, str] = hub.cache.kept(FOLDER_HASHES.of(f"forecasts/{name}"), files, functools.partial(_folder_hashes, hub, folder, files))
        out.update(hashes)
    for area, suffixes in OTHER_AREAS:  # bet files and commitments: each round folder, whenever it changed
        for folder in sorted(p for p in (hub.layout.data / area).glob("*") if p.is_dir()):
            files = file_stats(folder, suffixes)
            hashes = hub.cache.kept(FOLDER_HASHES.of(f"{area}/{folder.name}"), files, functools.partial(_folder_hashes, hub, folder, files))
            out.update(hashes)
    return out


OTHER_AREAS = (("bets", (".csv",)), ("commitments", (".sha256", ".salt")))  # a round's submitted files besides forecasts


def _folder_hashes(hub: Hub, folder: Path, files: FileStats) -> dict[str, str]:
    """The hashes of a round folder's files (``files``: their stats), by path relative to the hub root."""
    return {hub.layout.relative(folder / file): hub.cache.sha256(folder / file) for file, _ in files}


def load_manifest(hub: Hub) -> pd.DataFrame:
    layout = hub.layout
    frames = [hub.cache.read_table(p, MANIFEST, layout.relative(p)) for p in layout.manifest_files()]
    return pd.concat(frames, ignore_index=True) if frames else empty_frame(MANIFEST)


def new_rows(recorded: pd.DataFrame, hashes: dict[str, str], as_of: datetime) -> pd.DataFrame:
    """The rows a run at ``as_of`` adds: pairs never recorded, and the root hash if it is new. Pure."""
    return _rows(new_pairs(recorded_pairs(recorded), hashes), as_of)


def recorded_pairs(recorded: pd.DataFrame) -> set[tuple[str, str]]:
    """The (path, sha256) pairs of manifest rows."""
    return set(zip(recorded["path"], recorded["sha256"], strict=True))


def new_pairs(seen: set[tuple[str, str]], hashes: dict[str, str]) -> list[tuple[str, str]]:
    """``new_rows``' (path, sha256) pairs, given the pairs recorded already (``seen``)."""
    pairs = [(path, digest) for path, digest in sorted(hashes.items()) if (path, digest) not in seen]
    root = (ROOT, root_hash(hashes))
    if hashes and root not in seen:
        pairs.append(root)
    return pairs


def _rows(pairs: list[tuple[str, str]], as_of: datetime) -> pd.DataFrame:
    return pd.DataFrame(
        {"recorded_at": format_ts(as_of), "path": [p for p, _ in pairs], "sha256": [d for _, d in pairs]}, columns=list(MANIFEST.names)
    )


def record(hub: Hub, as_of: datetime, stats: dict[str, FileStats] | None = None) -> list[str]:
    """Append tonight's new rows to ``data/manifest/<YYYY>.csv``; return the files written. The pairs
    recorded are kept in the command's cache while the manifest files are unchanged
    (``ReadCache.kept``), and a night whose hashes are those last found recorded does not compare
    them again (nor hash their root), so a night with nothing new reads no manifest at all.
    ``stats``: ``current_hashes``'."""
    layout, cache = hub.layout, hub.cache
    seen = cache.kept(PAIRS, signatures(layout.manifest_files()), lambda: recorded_pairs(load_manifest(hub)))
    hashes = current_hashes(hub, stats)
    checked = cache.state(CHECKED)  # the last (pairs recorded, hashes) found nothing new
    if checked is not None and checked[0] is seen and checked[1] == hashes:
        return []
    pairs = new_pairs(seen, hashes)
    if not pairs:
        cache.put(CHECKED, (seen, hashes))
        return []
    path = layout.manifest(as_of)
    ledger.append(path, _rows(pairs, as_of), MANIFEST, layout.relative(path), cache)
    seen = seen | set(pairs)
    cache.keep(PAIRS, signatures(layout.manifest_files()), seen)
    cache.put(CHECKED, (seen, hashes))  # every pair of these hashes is recorded now
    return [layout.relative(path)]


def ledger_digest(hub: Hub) -> str:
    """The night's anchor: ``root_hash`` over every manifest, receipts and seals file and the model log, by path."""
    layout = hub.layout
    files = [*layout.manifest_files(), *layout.receipt_files(), *layout.seal_files(), *([layout.model_log] if layout.model_log.is_file() else [])]
    return root_hash({layout.relative(p): hub.cache.sha256(p) for p in files})


def first_recorded(recorded: pd.DataFrame) -> dict[tuple[str, str], str]:
    """(path, sha256) → the time of the run that first recorded it."""
    ordered = recorded.sort_values("recorded_at", kind="mergesort").drop_duplicates(["path", "sha256"])
    return {(p, d): t for p, d, t in zip(ordered["path"], ordered["sha256"], ordered["recorded_at"], strict=True)}
