"""What a submission of a round may do around its due time, judged as the seal will judge it.

Before the due time a file is checked as it is (in a commit–reveal round only the commitment may
be submitted). At and after the due time exactly one version of each model's file counts: the last
one attested before the due time, which the first nightly run after it seals (``submissions.sealing``,
``pipeline.seal``) and puts in place itself. A pull request can then only bring a file to that
version (a no-op once the seal is in place); any other version, a deletion or a first file is
refused. In a commit–reveal round the forecast file and its salt are revealed after the due time,
until the round's ``reveal_by``, and must open the commitment that counts (``submissions.reveals``).
Pure: trees and values in, problems out.
"""

from __future__ import annotations

import io
from datetime import datetime, timedelta

import pandas as pd

from ..codes import problem
from ..errors import Problem
from ..models import DEFAULT_OWN, is_own
from ..schemas import ROUND_REVEAL, SEALS
from ..timeutil import format_ts, parse_ts
from . import paths
from .sealing import Target, last_before, receipt_versions

SALT = "salt"


def seal_rows(read, due: str) -> pd.DataFrame:
    """The seal rows of the round due on ``due`` as the tree ``read`` (path → bytes or None) holds them."""
    data = read(f"data/seals/{due[:4]}.csv")
    if data is None:
        return pd.DataFrame(columns=list(SEALS.names))
    try:
        frame = pd.read_csv(io.BytesIO(data), dtype=str, keep_default_na=False)
    except (ValueError, UnicodeDecodeError):
        return pd.DataFrame(columns=list(SEALS.names))
    return frame[frame["due"] == due] if "due" in frame.columns else pd.DataFrame(columns=list(SEALS.names))


def reveal_deadline(read, due: str) -> str | None:
    """A commit–reveal round's ``reveal_by`` (ISO UTC) as the tree holds it; None for an open round."""
    data = read(f"data/rounds/{due}/reveal.csv")
    if data is None:
        return None
    lines = data.decode("utf-8", "replace").split()
    return lines[1] if len(lines) > 1 and lines[0] == ",".join(ROUND_REVEAL.names) else None


def _kind(target: paths.Target) -> str:
    return "forecast" if target.kind == paths.FORECAST else target.kind


def before_due(target: paths.Target, commit_reveal: bool, own: str = DEFAULT_OWN) -> list[Problem]:
    """What a round still open accepts: in a commit–reveal round a team's commitment only (the hub's own
    forecasters', ``<own>.*``, write their files)."""
    if target.kind == paths.COMMITMENT and not commit_reveal:
        return [
            problem("not-commit-reveal", target.path, None, None, f"round {target.due} is not a commit–reveal round: submit the forecast file itself")
        ]
    if not commit_reveal or is_own(target.model or "", own):
        return []
    if target.kind == paths.FORECAST:
        return [
            problem(
                "commitment-required",
                target.path,
                None,
                None,
                f"round {target.due} is a commit–reveal round: before its due time submit only "
                f"{paths.commitment_path(target.due or '', target.model or '')} (`prescient commit` writes it), and "
                "reveal this file with its salt after the due time",
            )
        ]
    if target.kind == paths.COMMITMENT and target.fmt == SALT:
        return [problem("commitment-required", target.path, None, None, "the salt is revealed with the forecast file after the due time, not before")]
    return []


def after_due(
    target: paths.Target, status: str, blob: str | None, due_ts: str, at: datetime, sealed: pd.DataFrame, receipts: pd.DataFrame | None
) -> list[Problem]:
    """A change to a round's file at or after its due time: only the version that counts may be merged.
    ``sealed``: the round's seal rows at base (empty before the first nightly after the due time),
    ``receipts``: the receipts ledger, from which the seal to come is known meanwhile. Without either,
    the round's files at base are what counts (a hub whose pushes no receipt records)."""
    when = f"the round was due {due_ts} (UTC) and this was checked at {format_ts(at)}"
    if status in ("D", "R"):
        verb = "deleted" if status == "D" else "renamed"
        return [
            problem(
                "past-round-changed",
                target.path,
                None,
                None,
                f"a file of a past round cannot be {verb}: {when}; the hub keeps the version that counts in place",
            )
        ]
    want, source = _sealed_blob(target, due_ts, sealed, receipts)
    if want is not None and blob == want:
        return [
            problem(
                "sealed-round",
                target.path,
                None,
                None,
                f"{when}; these bytes are the version that counts ({source}), so merging them changes nothing",
            )
        ]
    if want is not None:
        return [
            problem(
                "not-the-sealed-version",
                target.path,
                None,
                None,
                f"{when}: the version that counts is blob {want[:12]}… ({source}), and this file is another; the hub "
                "puts the counted version in place itself, so there is nothing to merge",
            )
        ]
    if status == "A":
        what = source or "no version of it was attested before the due time"
        before = format_ts(parse_ts(due_ts) - timedelta(seconds=1))
        return [
            problem(
                "round-closed",
                target.path,
                None,
                None,
                f"too late: {when}; {what}, so no file of this model counts for this round; to check a file for "
                f"this past round as it stood before the deadline, run `prescient validate --at {before} {target.path}`",
            )
        ]
    return [
        problem(
            "past-round-changed",
            target.path,
            None,
            None,
            f"a forecast file of a past round cannot be edited: {when}; the version that counts is the one before it",
        )
    ]


def _sealed_blob(target: paths.Target, due_ts: str, sealed: pd.DataFrame, receipts: pd.DataFrame | None) -> tuple[str | None, str]:
    """(blob that counts, where that is decided), from the seal when the round has one, else from the receipts."""
    rows = sealed[(sealed["model"] == target.model) & (sealed["kind"] == _kind(target))] if len(sealed) else sealed
    if len(rows):
        first = rows.iloc[0]
        if first["status"] != "sealed":
            return None, f"its seal says {first['status']}: {first['detail'] or 'nothing counts'}"
        return str(first["blob"]), f"sealed {first['sealed_at']}, attested {first['attested_at']} by {first['evidence']}"
    if receipts is None or receipts.empty:
        return None, ""
    versions = receipt_versions(receipts).get(Target(target.due or "", target.model or "", _kind(target)), [])
    last, count = last_before(versions, due_ts)
    if last is None:
        return None, ""
    return last.blob, (
        f"the last of {count} version(s) receipts attest before the due time: run {last.run_id} at {last.at}; the next nightly run seals it"
    )


def window_closed(target: paths.Target, reveal_by: str, at: datetime) -> list[Problem]:
    if format_ts(at) < reveal_by:
        return []
    return [problem("reveal-window-closed", target.path, None, None, f"the reveal window closed at {reveal_by} (UTC); checked at {format_ts(at)}")]


def is_reveal(target: paths.Target, own: str = DEFAULT_OWN) -> bool:
    """A file revealed after the due time of a commit–reveal round: a team's forecast, or its salt (never
    a file of the hub's own forecasters, ``<own>.*``)."""
    if is_own(target.model or "", own):
        return False
    return target.kind == paths.FORECAST or (target.kind == paths.COMMITMENT and target.fmt == SALT)
