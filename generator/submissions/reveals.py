"""A reveal judged as the reveal seal will judge it: against the commitment the seal counts, with the
hub's identities a v2 commitment may name.

- ``counted_commitment``: the bytes of the commitment that counts for a model in a round: the sealed
  version once the round is sealed, before that the last version the receipts attest before the due
  time (what the seal will pick), and, in a hub whose pushes no receipt records, the file the default
  branch holds. When those bytes cannot be read here (a pull request's head this clone has not
  fetched), the check says so (``reveal-unchecked``) rather than compare with another version;
- ``check_reveal``: a revealed forecast file and its salt against that commitment;
- ``copied``: a commitment pushed as another model's (``commitment-copied``);
- ``hub_ids``: the hub identities (``[hub] repo_url``) a commitment of this hub may name;
- ``salt_versions`` and ``matching``: the reveal seal's rule, the latest forecast version attested
  before the window's end that opens the sealed commitment with a salt attested by then too.

Pure but for ``hub_ids`` and the readers passed in.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from ..codes import problem
from ..errors import ConfigError, PrescientError, Problem
from ..store import git
from . import commit_hash, paths
from .sealing import Target, Version, last_before, receipt_versions

Reader = Callable[[str], bytes | None]  # path → bytes (None: absent)
BlobReader = Callable[[str], bytes | None]  # blob id → bytes (None: not in this repository)


def hub_ids(root: Path) -> list[str]:
    """``[hub] repo_url`` as the hub at ``root`` sets it (one identity; "" when unset or unreadable)."""
    from ..store.files import load_settings

    try:
        return [load_settings(root).repo_url]
    except ConfigError:
        return [""]


def hub_id_in(data: bytes | None) -> str | None:
    """``[hub] repo_url`` as the bytes of a ``data/hub.toml`` set it ("" when unset; None when they are no TOML)."""
    if data is None:
        return None
    try:
        hub = tomllib.loads(data.decode("utf-8")).get("hub", {})
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        return None
    value = hub.get("repo_url", "") if isinstance(hub, dict) else ""
    return value if isinstance(value, str) else None


def counted_commitment(
    base: Reader, blobs: BlobReader | None, due: str, model: str, due_ts: str, sealed: pd.DataFrame, receipts: pd.DataFrame | None
) -> tuple[bytes | None, str]:
    """(the commitment's bytes, why they are missing: ``"none"`` when no commitment counts,
    ``"unreadable"`` when one does but its bytes are not here)."""
    path = f"data/commitments/{due}/{model}.sha256"
    here = base(path)
    rows = sealed[(sealed["model"] == model) & (sealed["kind"] == "commitment")] if len(sealed) else sealed
    if len(rows):
        first = rows.iloc[0]
        if first["status"] != "sealed":
            return None, "none"
        return _bytes(str(first["blob"]), here, blobs), "unreadable"
    versions = receipt_versions(receipts).get(Target(due, model, "commitment"), []) if receipts is not None and len(receipts) else []
    last, _ = last_before(versions, due_ts)
    if last is not None:
        return _bytes(last.blob, here, blobs), "unreadable"
    if versions:  # receipts attest versions, none before the due time: none counts
        return None, "none"
    return here, "none"  # no receipt: the default branch's file, as the seal then reads the hub's own records


def blob_reader(repo: Path) -> BlobReader | None:
    """Blobs of the git repository at ``repo`` read by id (None when it is not one)."""
    if not git.is_work_tree(repo):
        return None

    def read(blob: str) -> bytes | None:
        try:
            return git.run_git(repo, "cat-file", "blob", blob)
        except PrescientError:
            return None

    return read


def copied(data: bytes | None, label: str, others: dict[str, bytes | None]) -> list[Problem]:
    """A commitment equal to another model's of the same round (``others``: file name → bytes): a v2
    commitment names its model, so an equal one is a copy, and it could never be revealed."""
    found = commit_hash.read(data) if data is not None else None
    if found is None or found.version != commit_hash.V2:
        return []
    same = sorted(name for name, other in others.items() if other is not None and commit_hash.read(other) == found)
    if not same:
        return []
    return [
        problem(
            "commitment-copied",
            label,
            1,
            None,
            f"this commitment is {same[0]}'s, which names another model: a commitment can only be revealed by the model it "
            "names, so commit to your own file (`prescient commit`)",
        )
    ]


def _bytes(blob: str, here: bytes | None, blobs: BlobReader | None) -> bytes | None:
    if here is not None and git.blob_id(here) == blob:
        return here
    return blobs(blob) if blobs is not None else None


def check_reveal(
    salt: bytes | None, data: bytes, committed: bytes | None, missing: str, bindings: list[commit_hash.Binding], label: str
) -> list[Problem]:
    """A revealed forecast file (``data``) and its salt against the commitment that counts."""
    if committed is None and missing == "unreadable":
        return [
            problem(
                "reveal-unchecked",
                label,
                None,
                None,
                "the commitment that counts for this model is a version this check cannot read yet (a pull request's head "
                "not fetched here): the reveal seal compares this file with it at the end of the window",
            )
        ]
    if committed is None:
        return [
            problem(
                "reveal-without-commitment",
                label,
                None,
                None,
                "no commitment counts for this model at the round's due time, so nothing can be revealed",
            )
        ]
    if salt is None:
        return [
            problem("reveal-mismatch", label, None, None, "add the salt file (data/commitments/<due>/<team>.<model>.salt) in the same pull request")
        ]
    found = commit_hash.read(committed)
    if found is None or not commit_hash.opens(found, bindings, salt, data):
        digest = found.digest[:16] if found else "?"
        return [
            problem(
                "reveal-mismatch",
                label,
                None,
                None,
                f"the salt and this file do not open the commitment that counts ({digest}…, format {found.version if found else '?'}) "
                f"for model {bindings[0].model} in round {bindings[0].due}: reveal exactly the bytes you committed to, "
                "under the model you committed for",
            )
        ]
    return []


def salt_versions(receipts: pd.DataFrame) -> dict[tuple[str, str], list[Version]]:
    """Every receipt row of a revealed salt file, by (due, model): the reveal seal reads them with the
    revealed forecast's (a salt has no seal target of its own)."""
    out: dict[tuple[str, str], list[Version]] = {}
    if not len(receipts):
        return out
    authors = receipts["author"] if "author" in receipts.columns else pd.Series([""] * len(receipts))
    for path, blob, at, run, head, author in zip(
        receipts["path"], receipts["blob"], receipts["attested_at"], receipts["run_id"], receipts["head_sha"], authors.fillna(""), strict=True
    ):
        found, errors = paths.classify(str(path))
        if not errors and found.kind == paths.COMMITMENT and found.fmt == "salt" and found.due and found.model:
            out.setdefault((found.due, found.model), []).append(Version(str(path), str(blob), str(at), "receipt", int(run), str(head), str(author)))
    return out


def matching(
    versions: list[Version],
    salts: list[Version],
    read: Callable[[Version], bytes | None],
    committed: bytes | None,
    bindings: list[commit_hash.Binding],
) -> tuple[Version, bytes, bytes] | None:
    """The latest attested forecast version that, with one of the attested salts, opens the commitment."""
    found = commit_hash.read(committed) if committed is not None else None
    if found is None:
        return None
    salt_bytes = [d for s in salts if (d := read(s)) is not None]
    for version in sorted(versions, key=lambda v: (v.at, v.run_id or 0), reverse=True):
        data = read(version)
        if data is None:
            continue
        for salt in salt_bytes:
            if commit_hash.opens(found, bindings, salt, data):
                return version, data, salt
    return None
