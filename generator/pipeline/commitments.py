"""``prescient commit`` and ``prescient reveal``: a team's two steps in a commit–reveal round.

- ``commit`` (before the due time): the forecast file stays where the team keeps it, outside the hub;
  its commitment goes to ``data/commitments/<due>/<team>.<model>.sha256`` (the file to push now) and
  the salt next to the forecast file (``<file>.salt``, kept secret until the due time).
- ``reveal`` (after the due time, before the round's ``reveal_by``): the forecast file and its salt
  are copied into the hub, checked against the commitment, ready for the second pull request.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import PrescientError
from ..store.atomic import write_bytes_atomic
from ..store.hub import Hub
from ..submissions import paths
from ..submissions.commitment import check_salt, commitment_of, read_commitment


@dataclass(frozen=True)
class Committed:
    commitment: Path
    salt: Path


def _model_file(due: str, model: str, fmt: str) -> tuple[str, str]:
    target, errors = paths.classify(paths.forecast_path(due, model, fmt))
    if errors or target.model is None:
        raise PrescientError(f"--round {due} --model {model}: {errors[0].message if errors else 'not a forecast file name'}")
    return paths.commitment_path(due, model), paths.commitment_path(due, model, "salt")


def commit(hub: Hub, file: Path, due: str, model: str, salt: bytes) -> Committed:
    """Write the commitment of ``file`` under ``salt`` (one line of hex, with its newline) into the hub,
    and the salt next to ``file``."""
    if check_salt(salt, "salt"):
        raise PrescientError("the salt must be one line of 32 to 128 lower-case hex digits")
    commitment, _ = _model_file(due, model, file.suffix.lstrip(".") or "csv")
    target = hub.root / commitment
    target.parent.mkdir(parents=True, exist_ok=True)
    write_bytes_atomic(target, (commitment_of(salt, file.read_bytes()) + "\n").encode("ascii"))
    salt_file = file.with_name(file.name + ".salt")
    write_bytes_atomic(salt_file, salt, hub_file=False)
    return Committed(target, salt_file)


def reveal(hub: Hub, file: Path, due: str, model: str) -> list[Path]:
    """Copy ``file`` and its salt (``<file>.salt``) into the hub, after checking them against the
    commitment in the hub; return the two paths written."""
    fmt = file.suffix.lstrip(".")
    commitment, salt_path = _model_file(due, model, fmt)
    committed = hub.root / commitment
    salt_file = file.with_name(file.name + ".salt")
    if not committed.is_file() or not salt_file.is_file():
        raise PrescientError(f"reveal needs {commitment} in the hub and {salt_file} next to the file (`prescient commit` wrote both)")
    data, salt = file.read_bytes(), salt_file.read_bytes()
    if commitment_of(salt, data) != read_commitment(committed.read_bytes()):
        raise PrescientError(f"{file} and its salt do not hash to {commitment}: reveal exactly the file you committed to")
    out = [hub.root / paths.forecast_path(due, model, fmt), hub.root / salt_path]
    for path, body in zip(out, (data, salt)):
        path.parent.mkdir(parents=True, exist_ok=True)
        write_bytes_atomic(path, body)
    return out
