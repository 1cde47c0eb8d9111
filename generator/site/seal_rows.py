"""The seals as the round and model pages list them: for each model and kind of file in a round, the
version that counts and the evidence that it existed before the due time. Pure: the seals ledger
(``store.seals``, ``schemas.SEALS``) in, rows for the templates out.

A reader asking "when did model X submit, and was it on time?" finds the answer on the round's page
(every model's seal, beside its name) and on the model's page (every round's): the attested time,
how far ahead of the due time it was, what attests it (a receipt of the pull request's validation
run, the hub's manifest, the first-parent git history, or an import), the validation run (linked on
GitHub when ``[hub] repo_url`` is set), the git blob id of the bytes that count, and how many
versions were attested before the due time (the last counts).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import pandas as pd

from ..store.seals import MARKER
from ..timeutil import parse_ts

EVIDENCE = {
    "receipt": "receipt: GitHub's time of the pull-request push, recorded by the validation run",
    "manifest": "manifest: the hub's own record of the file, made by the nightly run that first saw it",
    "git": "git: the first commit on the main branch that held these bytes",
    "import": "import: written by prescient import for a past round",
    "legacy": "legacy: scored before this hub sealed rounds, kept as it was",
    "none": "no record before the due time",
}


@dataclass(frozen=True)
class SealIndex:
    """The seal rows of every round (``by_round``, by due date, ordered by model then kind) and of
    every model (``by_model``, ordered by round then kind), and when each round was sealed (``sealed_at``)."""

    by_round: Mapping[str, list[dict]] = field(default_factory=dict)
    by_model: Mapping[str, list[dict]] = field(default_factory=dict)
    sealed_at: Mapping[str, str] = field(default_factory=dict)


def seal_index(seals: pd.DataFrame, names: Mapping[str, str], due_times: Mapping[str, str], repo: str = "") -> SealIndex:
    """The seals ledger's rows for the pages. ``names``: model id → display name; ``due_times``: round
    due date → its due time as the question set writes it (a round not listed is due at 00:00 UTC);
    with ``repo``, the hub's repository on GitHub as ``render.safe_url`` passes it, each validation run
    and commit links to it."""
    if seals is None or not len(seals):
        return SealIndex()
    frame = seals.astype(object).where(seals.notna(), None)
    repo = repo.rstrip("/")
    by_round: dict[str, list[dict]] = {}
    by_model: dict[str, list[dict]] = {}
    sealed_at: dict[str, str] = {}
    records = frame.to_dict("records")
    for r in sorted(records, key=lambda r: (str(r["due"]), str(r["model"]), str(r["kind"]))):
        due = str(r["due"])[:10]
        if r["model"] == MARKER:
            if r["kind"] == "forecast":
                sealed_at[due] = _text(r["sealed_at"])
            continue
        row = seal_row(r, names, due_times.get(due, f"{due}T00:00:00Z"), repo)
        by_round.setdefault(due, []).append(row)
    for rows in by_round.values():
        for row in rows:
            by_model.setdefault(row["model"], []).append(row)
    return SealIndex(by_round, by_model, sealed_at)


def seal_row(r: Mapping, names: Mapping[str, str], due_time: str, repo: str) -> dict:
    """One seal as the pages show it (``seal_index``); ``repo`` is a checked repository URL or ""."""
    attested, run, head = _text(r["attested_at"]), _int_text(r["run_id"]), _text(r["head_sha"])
    model = str(r["model"])
    return {
        "due": str(r["due"])[:10],
        "model": model,
        "name": names.get(model, model),
        "kind": str(r["kind"]),
        "status": str(r["status"]),
        "counts": str(r["status"]) in ("sealed", "revealed"),
        "attested_at": attested,
        "ahead": ahead_of(attested, due_time),
        "evidence": str(r["evidence"]),
        "evidence_text": EVIDENCE.get(str(r["evidence"]), str(r["evidence"])),
        "run_id": run,
        "run_url": f"{repo}/actions/runs/{run}" if repo and run else "",
        "head_sha": head,
        "commit_url": f"{repo}/commit/{head}" if repo and head else "",
        "blob": _text(r["blob"]),
        "path": _text(r["path"]),
        "versions": _int_text(r["versions"]) or "0",
        "sealed_at": _text(r["sealed_at"]),
        "detail": _text(r["detail"]),
    }


def ahead_of(attested: str, due_time: str) -> str:
    """How long before ``due_time`` the evidence is dated, rounded down: "9 d 22 h before the due time", "3 h 5 min
    before the due time"; "at the due time", or "… after the due time" (an import of a past round); "" without a time."""
    if not attested:
        return ""
    try:
        seconds = int((parse_ts(due_time) - parse_ts(attested)).total_seconds())
    except ValueError:
        return ""
    if seconds == 0:
        return "at the due time"
    minutes = abs(seconds) // 60
    d, h, m = minutes // 1440, minutes % 1440 // 60, minutes % 60
    left = f"{d} d {h} h" if d else f"{h} h {m} min" if h else f"{m} min"  # as the Open now countdown says it
    return left + (" before the due time" if seconds > 0 else " after the due time")


def _text(value) -> str:
    return "" if value is None or value != value else str(value)


def _int_text(value) -> str:
    if value is None or value != value or value == "":
        return ""
    try:
        return str(int(float(value)))
    except (TypeError, ValueError):
        return str(value)
