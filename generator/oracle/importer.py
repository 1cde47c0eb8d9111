"""``prescient import oracle``: a CSV or JSONL question file → ``data/oracle/<set>/questions.csv``.

The file is parsed and checked first (``formats.parse_questions``); on any error one SchemaError
lists every problem and nothing is written. Otherwise the set's question ledger is appended with
the questions that are new or differ from their current version (``store.ledger.append``), so
importing the same file again changes no byte.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import pandas as pd

from ..errors import PrescientError, Problem, SchemaError
from ..schemas import ORACLE_QUESTIONS
from ..scoring.resolve import latest
from ..store import ledger, readers
from ..store.csvio import as_text
from ..store.hub import Hub
from ..store.lock import hub_lock
from ..timeutil import format_ts
from .formats import parse_questions

SET_NAME = re.compile(r"^[a-z0-9][a-z0-9-]*$")
FORMATS = {".csv": "csv", ".jsonl": "jsonl"}


@dataclass
class OracleImport:
    qset: str
    path: str
    questions: int = 0
    added: int = 0
    warnings: list[Problem] = field(default_factory=list)


def check_set_name(qset: str) -> None:
    if not SET_NAME.match(qset):
        raise PrescientError(f"--set {qset!r}: a set name is lower-case letters, digits and dashes (e.g. daily-oracle)")


def import_oracle(hub: Path, file: Path, qset: str, as_of: datetime) -> OracleImport:
    """Import the questions in ``file`` (.csv or .jsonl) into the oracle set ``qset`` at ``as_of``."""
    check_set_name(qset)
    fmt = FORMATS.get(file.suffix.lower())
    if fmt is None:
        raise PrescientError(f"{file}: an oracle question file ends in .csv or .jsonl")
    if not file.is_file():
        raise PrescientError(f"{file}: no such file")
    parsed = parse_questions(file.read_bytes(), file.name, fmt)
    if parsed.errors:
        raise SchemaError(f"{file.name}: {len(parsed.errors)} problem(s); nothing was imported", parsed.errors)
    target = Hub(hub)
    layout = target.layout
    path = layout.oracle_questions(qset)
    new = _frame(parsed.rows, format_ts(as_of))
    with hub_lock(layout.data, f"prescient import oracle --set {qset}"):
        changed = changed_versions(readers.load_oracle_questions(target, qset), new)
        if len(changed):  # time never runs backwards in a ledger (a re-import that adds nothing is fine)
            readers.check_as_of(target, format_ts(as_of))
        added = ledger.append(path, changed, ORACLE_QUESTIONS, layout.relative(path)) if len(changed) else changed
    warnings = [p for p in parsed.problems if p.severity != "error"]
    return OracleImport(qset, layout.relative(path), len(new), len(added), warnings)


def _frame(rows: list[dict[str, str]], recorded_at: str) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=[c for c in ORACLE_QUESTIONS.names if c != "recorded_at"], dtype=str)
    frame.insert(1, "recorded_at", recorded_at)
    return frame


def current(ledger_rows: pd.DataFrame, as_of: str | None = None) -> pd.DataFrame:
    """The current version of each question: its latest row recorded at or before ``as_of`` (all rows if None)."""
    rows = ledger_rows if as_of is None else ledger_rows[ledger_rows["recorded_at"] <= as_of]
    return latest(rows, "id", ("recorded_at", "id")).reset_index(drop=True)


def changed_versions(existing: pd.DataFrame, new: pd.DataFrame) -> pd.DataFrame:
    """Rows of ``new`` whose content differs from (or is absent in) the current version of ``existing``."""
    content = [c for c in ORACLE_QUESTIONS.names if c != "recorded_at"]
    old = as_text(current(existing), ORACLE_QUESTIONS)[content]
    fresh = as_text(new, ORACLE_QUESTIONS)[content]
    same = fresh.merge(old, on=content, how="left", indicator=True)["_merge"].to_numpy() == "both"
    return new.reset_index(drop=True)[~same].reset_index(drop=True)
