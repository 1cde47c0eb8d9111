"""The commitment's byte layout (format ``prescient-commit-v2``): what exactly is hashed, so that a
commitment names one hub, one round, one model and one kind of file, and nobody can take it as theirs.

The commitment is the sha256 of these bytes, in this order (``\\0`` is the byte 0x00)::

    prescient-commit-v2 \\0 HUB \\0 DUE \\0 MODEL \\0 KIND \\0 SALT \\0 FILE

- ``HUB``: the hub's ``repo_url`` exactly as ``data/hub.toml`` sets it ("" when it sets none; the
  reveal seal also accepts it as the default branch set it at the due time);
- ``DUE``: the round's due date, ``YYYY-MM-DD``;
- ``MODEL``: ``<team>.<model>``;
- ``KIND``: ``forecast``;
- ``SALT``: the salt, 64 lower-case hex digits (32 random bytes), as its file holds them, without the
  line end;
- ``FILE``: the forecast file's canonical bytes: every CR LF pair, then every CR left, replaced by one
  LF (so a file checked out with Windows line ends, or stored by git with LF, hashes alike).

No field before ``FILE`` may hold a 0x00 byte (each is checked), and ``FILE`` comes last, so the
fields split one way only. The commitment file holds one line, ``prescient-commit-v2 <64 hex>``;
a file of 64 hex digits alone is the first format (``v1``: the sha256 of the salt file's bytes
followed by the file's), read for rounds committed before, never accepted for a new commitment.

Pure: bytes and strings in, digests out.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

PREFIX = "prescient-commit-v2"
V1, V2 = "v1", "v2"
KIND = "forecast"
SALT_HEX = 64  # hex digits of a v2 salt: 32 random bytes
_V2_LINE = re.compile(rb"prescient-commit-v2 ([0-9a-f]{64})\r?\n?")
_V1_LINE = re.compile(rb"([0-9a-f]{64})\r?\n?")
_V2_SALT = re.compile(rb"([0-9a-f]{64})\r?\n?")


@dataclass(frozen=True)
class Binding:
    """What a v2 commitment names besides the file: the hub, the round, the model and the kind."""

    hub: str
    due: str
    model: str
    kind: str = KIND


@dataclass(frozen=True)
class Commitment:
    """A commitment file read: its format (``V1`` or ``V2``) and its hex digest."""

    version: str
    digest: str


def canonical(data: bytes) -> bytes:
    """The file's bytes with every CR LF, then every CR left, made one LF."""
    return data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")


def salt_value(salt: bytes) -> str | None:
    """The v2 salt a salt file holds (64 lower-case hex digits, one optional line end), else None."""
    found = _V2_SALT.fullmatch(salt)
    return found.group(1).decode("ascii") if found else None


def preimage(binding: Binding, salt: str, data: bytes) -> bytes:
    """The bytes a v2 commitment is the sha256 of (the module's layout)."""
    fields = [PREFIX, binding.hub, binding.due, binding.model, binding.kind, salt]
    if any("\0" in f for f in fields):
        raise ValueError("a commitment field holds a NUL byte")
    return b"\0".join(f.encode("utf-8") for f in fields) + b"\0" + canonical(data)


def digest_v2(binding: Binding, salt: str, data: bytes) -> str:
    return hashlib.sha256(preimage(binding, salt, data)).hexdigest()


def digest_v1(salt: bytes, data: bytes) -> str:
    """The first format: the sha256 of the salt file's bytes followed by the file's (no binding, no separator)."""
    return hashlib.sha256(salt + data).hexdigest()


def commitment_line(digest: str) -> bytes:
    """The v2 commitment file's bytes."""
    return f"{PREFIX} {digest}\n".encode("ascii")


def read(data: bytes) -> Commitment | None:
    """The commitment a commitment file holds (either format), or None when it holds none."""
    if found := _V2_LINE.fullmatch(data):
        return Commitment(V2, found.group(1).decode("ascii"))
    if found := _V1_LINE.fullmatch(data):
        return Commitment(V1, found.group(1).decode("ascii"))
    return None


def opens(committed: Commitment, bindings: list[Binding], salt: bytes, data: bytes) -> bool:
    """Whether the salt file's bytes ``salt`` and the forecast file's bytes ``data`` open ``committed``
    under one of ``bindings`` (the hub's identities the round may name; the same round, model and kind)."""
    if committed.version == V1:
        return digest_v1(salt, data) == committed.digest
    value = salt_value(salt)
    return value is not None and any(digest_v2(b, value, data) == committed.digest for b in bindings)
