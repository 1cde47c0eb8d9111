"""Commit–reveal rounds: a team commits to its forecast file before the due time without showing it,
and reveals it after.

- The commitment, ``data/commitments/<due>/<team>.<model>.sha256``, is one line: the sha256 (64
  lower-case hex digits) of the salt file's bytes followed by the forecast file's bytes.
- The salt, ``data/commitments/<due>/<team>.<model>.salt``, revealed with the forecast file, is one
  line of 32 to 128 hex digits chosen at random (``prescient commit`` makes one), so nobody can guess
  the forecast from the commitment by trying likely files.

Pure: bytes in, problems or digests out.
"""

from __future__ import annotations

import hashlib
import re

from ..codes import problem
from ..errors import Problem

MAX_BYTES = 256
_DIGEST = re.compile(rb"[0-9a-f]{64}\n?")
_SALT = re.compile(rb"[0-9a-f]{32,128}\n?")


def commitment_of(salt: bytes, data: bytes) -> str:
    """The commitment of a forecast file's bytes ``data`` under the salt file's bytes ``salt``."""
    return hashlib.sha256(salt + data).hexdigest()


def read_commitment(data: bytes) -> str | None:
    """The hex digest a commitment file holds, or None when it is not one."""
    return data.strip().decode("ascii") if _DIGEST.fullmatch(data) else None


def check_commitment(data: bytes, label: str) -> list[Problem]:
    if len(data) > MAX_BYTES or not _DIGEST.fullmatch(data):
        return [
            problem(
                "bad-commitment",
                label,
                1,
                None,
                "a commitment file holds one line: the sha256 of the salt file's bytes followed by the forecast "
                "file's bytes, as 64 lower-case hex digits (`prescient commit` writes it)",
            )
        ]
    return []


def check_salt(data: bytes, label: str) -> list[Problem]:
    if len(data) > MAX_BYTES or not _SALT.fullmatch(data):
        return [
            problem("bad-commitment", label, 1, None, "a salt file holds one line of 32 to 128 lower-case hex digits (`prescient commit` writes it)")
        ]
    return []


def check_reveal(salt: bytes | None, data: bytes, committed: str | None, label: str) -> list[Problem]:
    """A revealed forecast file against the commitment sealed at the due time."""
    if committed is None:
        return [
            problem(
                "reveal-without-commitment",
                label,
                None,
                None,
                "no commitment was sealed for this model at the round's due time, so nothing can be revealed",
            )
        ]
    if salt is None:
        return [
            problem("reveal-mismatch", label, None, None, "add the salt file (data/commitments/<due>/<team>.<model>.salt) in the same pull request")
        ]
    actual = commitment_of(salt, data)
    if actual != committed:
        return [
            problem(
                "reveal-mismatch",
                label,
                None,
                None,
                f"the salt and this file hash to {actual[:16]}…, but the commitment sealed at the due time is "
                f"{committed[:16]}…: reveal exactly the bytes you committed to",
            )
        ]
    return []
