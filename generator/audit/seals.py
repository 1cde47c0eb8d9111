"""The audit of the seals and receipts: that each seal names the version its rule picks, that every
sealed round's files are its sealed bytes, and (with git) that the receipts are true and were written
by the hub's own runs.

- ``seal_problems`` (no git): each seal resting on a receipt names the last version the receipts attest
  before the round's due time (``submissions.sealing``, the rule the nightly applied); one resting on
  the manifest has a manifest row of those bytes before the due time, and no receipt that should have
  decided instead (``seal-differs``); a sealed round's files are its counted bytes and nothing else
  (``seal-broken``);
- ``receipt_problems`` (git): every receipt whose head commit is in the clone names the blob that
  commit holds at its path (``receipt-blob-mismatch``); the others are counted (``receipt-unchecked``)
  and a seal resting on one is flagged (``seal-unchecked``): it is reported, not trusted;
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..errors import Problem
from ..store import git, manifest
from ..store.hub import Hub
from ..store.seals import MARKER, held_rows, sealed_rounds
from ..submissions.sealing import Target, last_before, receipt_versions, target_of


def seal_problems(hub: Hub, recorded: pd.DataFrame, receipts: pd.DataFrame, dues: dict[str, str]) -> list[Problem]:
    """``dues``: round due date → its due time (ISO UTC)."""
    layout, problems = hub.layout, list[Problem]()
    versions = receipt_versions(receipts)
    seen = manifest.first_recorded(manifest.load_manifest(hub))
    rows = recorded[(recorded["model"] != MARKER) & recorded["kind"].isin(["forecast", "bets", "commitment"])]
    for r in rows.itertuples(index=False):
        due_ts = dues.get(str(r.due))
        if due_ts is None:
            continue
        target = Target(str(r.due), str(r.model), str(r.kind))
        last, _ = last_before(versions.get(target, []), due_ts)
        label = layout.relative(layout.seals(pd.Timestamp(str(r.due), tz="UTC").to_pydatetime()))
        if r.evidence == "receipt" and (last is None or (last.path, last.blob) != (str(r.path), str(r.blob))):
            want = f"blob {last.blob[:12]} of run {last.run_id}" if last else "no receipt before the due time"
            problems.append(_differs(label, target, f"it names blob {str(r.blob)[:12]}, the receipts give {want}"))
        elif r.evidence in ("manifest", "git") and last is not None:
            problems.append(
                _differs(
                    label,
                    target,
                    f"it rests on the {r.evidence}, but run {last.run_id}'s receipt attests a version before the due time, and receipts decide",
                )
            )
        elif r.evidence == "manifest" and not (seen.get((str(r.path), str(r.sha256)), "~") < due_ts):
            problems.append(_differs(label, target, "the manifest has no record of these bytes before the due time"))
    return problems + _broken(hub, recorded)


def _differs(label: str, target: Target, what: str) -> Problem:
    return Problem(label, None, "blob", "seal-differs", f"the seal of {target.model}'s {target.kind} in round {target.due}: {what}")


def _broken(hub: Hub, recorded: pd.DataFrame) -> list[Problem]:
    """Files of sealed rounds that are not their counted bytes, and counted files that are missing."""
    done = sealed_rounds(recorded)
    if not done:
        return []
    counted_rows = held_rows(recorded)
    counted = dict(zip(counted_rows["path"].astype(str), counted_rows["sha256"].astype(str), strict=True))
    decided = {(str(d), str(m)) for d, m, k in zip(recorded["due"], recorded["model"], recorded["kind"], strict=True) if k != "commitment"}
    hashes = manifest.current_hashes(hub)
    problems = []
    for path, digest in sorted(hashes.items()):
        target = target_of(path)
        if target is None or target.due not in done or (target.due, target.model) not in decided:
            continue  # not a sealed round's, or a file the seal leaves to others (the hub's after-due files, a reveal pending)
        if counted.get(path) != digest:
            problems.append(Problem(path, None, None, "seal-broken", "the file differs from its round's seal (it does not count)"))
    for path in sorted(set(counted) - set(hashes)):
        if (target := target_of(path)) is not None and target.due in done:
            problems.append(Problem(path, None, None, "seal-broken", "the sealed file is missing"))
    return problems


def receipt_problems(repo: Path, receipts: pd.DataFrame, recorded: pd.DataFrame) -> list[Problem]:
    """Receipts checked against their head commits, where the clone has them."""
    problems, unchecked = [], set()
    rows = receipts[receipts["path"] != MARKER]
    for head, part in rows.groupby("head_sha", sort=True):
        try:
            git.resolve_commit(repo, str(head))
        except Exception:  # noqa: BLE001 - a head this clone lacks: counted, never trusted
            unchecked.add(str(head))
            continue
        held = git.blob_ids(repo, str(head), [str(p) for p in part["path"]])
        for path, blob in zip(part["path"].astype(str), part["blob"].astype(str), strict=True):
            if held.get(path) != blob:
                problems.append(
                    Problem(
                        "data/receipts/",
                        None,
                        "blob",
                        "receipt-blob-mismatch",
                        f"a receipt says {path} held blob {blob[:12]} at {str(head)[:12]}; that commit holds {held.get(path, 'no such file')[:12]}",
                    )
                )
    if unchecked:
        problems.append(
            Problem(
                "data/receipts/",
                None,
                None,
                "receipt-unchecked",
                f"{len(unchecked)} head commit(s) of receipts are not in this clone (fetch +refs/pull/*/head), so their rows were not checked",
                "warning",
            )
        )
        sealed = recorded[(recorded["evidence"] == "receipt") & recorded["head_sha"].astype(str).isin(unchecked)]
        for r in sealed.itertuples(index=False):
            problems.append(
                Problem(
                    str(r.path),
                    None,
                    None,
                    "seal-unchecked",
                    f"the seal of round {r.due} rests on the receipt of head {str(r.head_sha)[:12]}, which is not in this clone",
                    "warning",
                )
            )
    return problems
