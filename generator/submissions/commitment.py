"""Commit–reveal rounds: a team commits to its forecast file before the due time without showing it,
and reveals it after.

- The commitment, ``data/commitments/<due>/<team>.<model>.sha256``, is one line,
  ``prescient-commit-v2 <64 hex>``: the sha256 of the hub, the round, the model, the kind, the salt
  and the file's canonical bytes, laid out as ``submissions.commit_hash`` says (and the Methodology
  page shows). A commitment in the first format (64 hex digits alone: the sha256 of the salt file's
  bytes followed by the file's, naming no model) is refused: a rival could push it as his own.
- The salt, ``data/commitments/<due>/<team>.<model>.salt``, revealed with the forecast file, is one
  line of hex digits chosen at random (``prescient commit`` makes 64), so nobody can guess the
  forecast from the commitment by trying likely files.

Pure: bytes in, problems out.
"""

from __future__ import annotations

import re

from ..codes import problem
from ..errors import Problem
from . import commit_hash

MAX_BYTES = 256
_SALT = re.compile(rb"[0-9a-f]{32,128}\r?\n?")


def check_commitment(data: bytes, label: str) -> list[Problem]:
    found = commit_hash.read(data) if len(data) <= MAX_BYTES else None
    if found is None or found.version != commit_hash.V2:
        first = found is not None
        return [
            problem(
                "bad-commitment",
                label,
                1,
                None,
                (
                    "this commitment is in the first format (64 hex digits alone), which names no model: run "
                    "`prescient commit` again, which writes the current one"
                    if first
                    else f"a commitment file holds one line: {commit_hash.PREFIX} and the 64 lower-case hex digits of the "
                    "commitment (`prescient commit` writes it)"
                ),
            )
        ]
    return []


def check_salt(data: bytes, label: str) -> list[Problem]:
    if len(data) > MAX_BYTES or not _SALT.fullmatch(data):
        return [
            problem("bad-commitment", label, 1, None, "a salt file holds one line of 32 to 128 lower-case hex digits (`prescient commit` writes it)")
        ]
    return []
