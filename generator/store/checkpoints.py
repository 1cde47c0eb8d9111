"""The audit's checkpoints (``data/metadata/checkpoints.csv``, ``schemas.AUDIT_CHECKPOINTS``): a row each
time the nightly's full ``verify --git --full`` found no error in the history up to a commit. This module
reads and appends them; which row a pull request's audit may start from is ``audit.checkpoint``'s rule.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..errors import SchemaError
from ..schemas import AUDIT_CHECKPOINTS
from . import ledger
from .csvio import check_frame, coerce, empty_frame, parse_bytes
from .git import GitTree
from .hub import Hub

PATH = AUDIT_CHECKPOINTS.path


def load_checkpoints(hub: Hub) -> pd.DataFrame:
    path = hub.layout.audit_checkpoints
    return hub.cache.read_table(path, AUDIT_CHECKPOINTS, PATH) if path.is_file() else empty_frame(AUDIT_CHECKPOINTS)


def parse_checkpoints(data: bytes, label: str = PATH) -> pd.DataFrame:
    """One version's bytes as the table's frame; SchemaError (naming the file, row and column) when they do not fit it."""
    raw = parse_bytes(data, label)
    problems = check_frame(raw, AUDIT_CHECKPOINTS, label)
    if problems:
        raise SchemaError(f"{label}: {len(problems)} problem(s)", problems)
    return coerce(raw, AUDIT_CHECKPOINTS)


def load_checkpoints_at(repo: Path, commit: str) -> pd.DataFrame:
    """The checkpoints as stored in ``commit`` (none when it holds no such file)."""
    tree = GitTree(repo, commit)
    if tree.entry(PATH) is None:
        return empty_frame(AUDIT_CHECKPOINTS)
    return parse_checkpoints(tree.read(PATH), f"{PATH} (in {commit[:12]})")


def append(hub: Hub, rows: pd.DataFrame) -> list[str]:
    """Append ``rows``; return the file written (none when every row was there already)."""
    path = hub.layout.audit_checkpoints
    return [PATH] if len(ledger.append(path, rows, AUDIT_CHECKPOINTS, PATH, hub.cache)) else []
