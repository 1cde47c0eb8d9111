"""``prescient commit`` and ``prescient reveal``: a team's two steps in a commit–reveal round.

- ``commit`` (before the due time): the forecast file stays where the team keeps it, outside the hub;
  its commitment (``submissions.commit_hash``: it names the hub, the round, the model and the kind)
  goes to ``data/commitments/<due>/<team>.<model>.sha256`` (the file to push now), and the salt to
  ``<file>.<due>.<team>.<model>.forecast.salt`` beside the forecast file: one salt per file, round,
  model and kind, kept private until the due time. A salt is never overwritten: committing again (the
  same file, or a new version of it) keeps the salt already there. No salt, and no forecast file it
  hides, is kept inside the hub's ``data/``, where a pull request or ``git add -A`` publishes it.
- ``reveal`` (after the due time, before the round's ``reveal_by``): the forecast file and its salt
  are copied into the hub, checked against the commitment, ready for the second pull request.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..codes import reported
from ..errors import PrescientError
from ..store.atomic import write_bytes_atomic
from ..store.hub import Hub
from ..submissions import commit_hash, paths
from ..submissions.reveals import hub_ids


@dataclass(frozen=True)
class Committed:
    commitment: Path
    salt: Path
    kept: bool  # the salt was there already (never overwritten)


def salt_file(file: Path, due: str, model: str) -> Path:
    """Where ``commit`` keeps the salt of ``file`` for one round and model (kind ``forecast``)."""
    return file.with_name(f"{file.name}.{due}.{model}.{commit_hash.KIND}.salt")


def _model_file(due: str, model: str, fmt: str) -> tuple[str, str]:
    target, errors = paths.classify(paths.forecast_path(due, model, fmt))
    if errors or target.model is None:
        raise PrescientError(f"--round {due} --model {model}: {errors[0].message if errors else 'not a forecast file name'}")
    return paths.commitment_path(due, model), paths.commitment_path(due, model, "salt")


def _outside_data(hub: Hub, file: Path, salt: Path) -> None:
    """Refuse a salt, or the forecast file it hides, inside the hub's ``data/`` (``salt-in-hub``)."""
    data = Path(os.path.realpath(hub.root / "data"))
    for what, path in (("the salt", salt), ("the forecast file", file)):
        full = Path(os.path.realpath(path))
        if full == data or data in full.parents:
            problem = reported(
                "salt-in-hub",
                str(path),
                None,
                None,
                f"{what} would sit inside the hub's data/ ({full.relative_to(data.parent).as_posix()}), where a pull request "
                "or `git add -A` publishes it before the due time: keep the forecast file (and so its salt) outside data/, "
                "and copy it in with `prescient reveal` after the due time",
            )
            raise PrescientError("nothing was written", [problem])


def _salt(salt_path: Path, fresh: bytes) -> tuple[str, bool]:
    """The salt kept at ``salt_path`` (written from ``fresh`` when there is none), and whether it was there."""
    if salt_path.exists() or salt_path.is_symlink():
        value = commit_hash.salt_value(salt_path.read_bytes()) if salt_path.is_file() else None
        if value is None:
            problem = reported(
                "salt-unreadable",
                str(salt_path),
                1,
                None,
                "this is where the salt of this file, round and model is kept, but it does not hold one line of 64 hex "
                "digits; a salt is never overwritten, so move the file away if it is not needed",
            )
            raise PrescientError("nothing was written", [problem])
        return value, True
    value = commit_hash.salt_value(fresh)
    if value is None:
        raise PrescientError(f"the salt must be one line of {commit_hash.SALT_HEX} lower-case hex digits")
    with open(salt_path, "xb") as out:  # never over a salt another command wrote meanwhile
        out.write(fresh)
    return value, False


def commit(hub: Hub, file: Path, due: str, model: str, salt: bytes) -> Committed:
    """Write the commitment of ``file`` into the hub, and keep its salt beside ``file`` (``salt``, one line of
    64 hex digits with its newline, is written only when no salt is kept there yet)."""
    commitment, _ = _model_file(due, model, file.suffix.lstrip(".") or "csv")
    kept_at = salt_file(file, due, model)
    _outside_data(hub, file, kept_at)
    data = file.read_bytes()
    value, kept = _salt(kept_at, salt)
    binding = commit_hash.Binding(hub_ids(hub.root)[0], due, model)
    target = hub.root / commitment
    target.parent.mkdir(parents=True, exist_ok=True)
    write_bytes_atomic(target, commit_hash.commitment_line(commit_hash.digest_v2(binding, value, data)))
    return Committed(target, kept_at, kept)


def reveal(hub: Hub, file: Path, due: str, model: str) -> list[Path]:
    """Copy ``file`` and its salt into the hub, after checking them against the commitment in the hub;
    return the two paths written. A commitment of the first format is opened with ``<file>.salt``."""
    fmt = file.suffix.lstrip(".")
    commitment, salt_path = _model_file(due, model, fmt)
    committed = hub.root / commitment
    found = commit_hash.read(committed.read_bytes()) if committed.is_file() else None
    kept_at = salt_file(file, due, model) if found is None or found.version == commit_hash.V2 else file.with_name(file.name + ".salt")
    if found is None or not kept_at.is_file():
        raise PrescientError(f"reveal needs {commitment} in the hub and {kept_at} beside the file (`prescient commit` wrote both)")
    data, salt = file.read_bytes(), kept_at.read_bytes()
    if not commit_hash.opens(found, [commit_hash.Binding(h, due, model) for h in hub_ids(hub.root)], salt, data):
        raise PrescientError(f"{file} and its salt do not open {commitment} for {model}: reveal exactly the file you committed to, for that model")
    out = [hub.root / paths.forecast_path(due, model, fmt), hub.root / salt_path]
    for path, body in zip(out, (data, salt), strict=True):
        path.parent.mkdir(parents=True, exist_ok=True)
        write_bytes_atomic(path, body)
    return out
