"""The seal rule, pure: which version of a submitted file counts.

    The last version attested before the deadline counts.

"Attested" means a record that the bytes existed at a time nobody can choose after the fact:

- a receipt (``store.receipts``): GitHub's creation time of a pull-request run whose head held the
  bytes at that path, i.e. the push's own time. When any receipt attests a version of a model's file
  before the deadline, only receipts decide (the latest one wins), so merging, not merging, or merging
  an older version after the deadline changes nothing;
- otherwise the hub's own records of the file it holds: the manifest (the first nightly run that saw
  the bytes) or the first-parent git history (the commit that first held them). That is how a hub
  without pull requests (the demo, a local hub) and the hub's own forecasters are sealed.

``pipeline.seal`` applies it once per round after the due time and records the result in
``store.seals``; the pull-request check and ``prescient verify`` apply the same functions.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass

import pandas as pd

from ..schemas import SEALS
from ..store.seals import MARKER
from .paths import DATED, FORECAST, classify

NULL_BLOB = "0" * 40


@dataclass(frozen=True)
class Version:
    """One attested version of a submitted file: its path and blob, and the time and kind of the evidence."""

    path: str
    blob: str
    at: str  # ISO UTC
    evidence: str  # receipt, manifest, git, import
    run_id: int | None = None
    head_sha: str = ""
    author: str = ""


@dataclass(frozen=True)
class Target:
    """What a seal row is about: a model's file of one kind in one round (``due``: YYYY-MM-DD)."""

    due: str
    model: str
    kind: str


@functools.lru_cache(maxsize=1 << 16)  # pure; a nightly asks it of every submitted file (and verify of every receipt)
def target_of(path: str) -> Target | None:
    """The seal target of a submitted file's path (forecast, bet or commitment file; not a salt), else None."""
    found, errors = classify(path)
    if errors or found.kind not in DATED or not found.model or not found.due or found.fmt == "salt":
        return None  # a salt is revealed with its forecast, never sealed at the due time
    kind = "forecast" if found.kind == FORECAST else found.kind
    return Target(found.due, found.model, kind)


def receipt_versions(receipts: pd.DataFrame) -> dict[Target, list[Version]]:
    """Every receipt row of a submitted file, by its seal target (rows of unreadable heads aside)."""
    out: dict[Target, list[Version]] = {}
    authors = receipts["author"] if "author" in receipts.columns else pd.Series([""] * len(receipts))
    for path, blob, at, run, head, author in zip(
        receipts["path"], receipts["blob"], receipts["attested_at"], receipts["run_id"], receipts["head_sha"], authors.fillna(""), strict=True
    ):
        target = target_of(str(path))
        if target is not None:
            out.setdefault(target, []).append(Version(str(path), str(blob), str(at), "receipt", int(run), str(head), str(author)))
    return out


def unreadable_runs(receipts: pd.DataFrame) -> list[Version]:
    """The runs whose head commit could not be read when they were recorded (path ``*``): what they
    held is unknown."""
    rows = receipts[receipts["path"] == MARKER]
    authors = rows["author"] if "author" in rows.columns else pd.Series([""] * len(rows))
    return [
        Version(MARKER, NULL_BLOB, str(at), "receipt", int(run), str(head), str(author))
        for at, run, head, author in zip(rows["attested_at"], rows["run_id"], rows["head_sha"], authors.fillna(""), strict=True)
    ]


def last_before(versions: Iterable[Version], deadline: str) -> tuple[Version | None, int]:
    """The last version attested strictly before ``deadline`` (ISO UTC; ties: the later run), and how
    many distinct versions (path, blob) were attested before it."""
    before = sorted((v for v in versions if v.at < deadline), key=lambda v: (v.at, v.run_id or 0, v.path, v.blob))
    return (before[-1] if before else None), len({(v.path, v.blob) for v in before})


def hidden_after(last: Version | None, unreadable: Iterable[Version], maintainers: tuple[str, ...], deadline: str) -> Version | None:
    """An unreadable run, before ``deadline`` and after ``last``, of a pull request by one of the
    model's ``maintainers``: it may have held a later version, so no earlier one may count in its place."""
    logins = {m.lower() for m in maintainers}
    later = [u for u in unreadable if u.at < deadline and (last is None or u.at > last.at) and u.author.lower() in logins]
    return max(later, key=lambda u: (u.at, u.run_id or 0)) if later else None


def row(
    target: Target,
    status: str,
    version: Version | None,
    *,
    versions: int,
    sealed_at: str,
    sha256: str = "",
    detail: str = "",
    evidence: str | None = None,
) -> dict:
    """One seal row (``schemas.SEALS``) as a dict."""
    return {
        "due": target.due,
        "model": target.model,
        "kind": target.kind,
        "status": status,
        "path": version.path if version else None,
        "blob": version.blob if version else None,
        "sha256": sha256 or None,
        "attested_at": version.at if version else None,
        "evidence": evidence or (version.evidence if version else "none"),
        "run_id": version.run_id if version else None,
        "head_sha": (version.head_sha or None) if version else None,
        "versions": versions,
        "sealed_at": sealed_at,
        "detail": detail or None,
    }


def marker(due: str, kind: str, sealed_at: str, detail: str) -> dict:
    """A round's marker row: sealed (kind ``forecast``) or its reveal closed (kind ``reveal``) at ``sealed_at``."""
    return {
        "due": due,
        "model": MARKER,
        "kind": kind,
        "status": "sealed",
        "path": None,
        "blob": None,
        "sha256": None,
        "attested_at": None,
        "evidence": "none",
        "run_id": None,
        "head_sha": None,
        "versions": 0,
        "sealed_at": sealed_at,
        "detail": detail,
    }


def frame(rows: list[dict]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=list(SEALS.names))
