"""How a hub pins the Prescient its workflows and ``.ci/run`` install (``.github/prescient.txt``).

A hub installs Prescient's dependencies, the build backend included, from the hash-checked
``.github/requirements.lock`` shipped with it (``pip install --require-hashes --no-deps``), then
Prescient itself with ``--no-deps --no-build-isolation`` from the one requirement of the pin file,
which must name bytes nobody can move afterwards:

- a commit: ``prescient @ git+https://…/prescient@<commit id>`` (40 or 64 hex digits; git checks the id);
- a wheel kept in the hub: ``./.github/wheels/prescient-X-py3-none-any.whl --hash=sha256:<hex>``
  (``init --package FILE.whl`` copies it there): installed from the hub's own files, so ``.ci/run``
  needs nothing but the package index;
- a wheel's address with its sha256: ``prescient @ https://…/prescient-X-py3-none-any.whl --hash=sha256:<hex>``.

A tag, a branch or a bare version is refused: a tag can be moved, and ``prescient`` on the package
index is another project. pip checks a wheel's hash whenever its line carries one (hash-checking
mode); a commit id is checked by git.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from ..errors import ConfigError, PrescientError
from ..store.git import run_git

UPSTREAM = "https://github.com/prescient-forecasting/prescient"  # where a hub installs Prescient from by default
PIN_FILE = ".github/prescient.txt"  # the one place a hub pins its Prescient version (a pip requirement)
WHEELS = ".github/wheels"  # the wheels a hub keeps (init --package FILE.whl)
LOCK = ".github/requirements.lock"  # every dependency and the build backend, each with its hashes

_COMMIT = re.compile(r"(?:prescient\s*@\s*)?(git\+\S+?)@([0-9a-f]{40}|[0-9a-f]{64})(#\S*)?")
_WHEEL_URL = re.compile(
    r"(?:prescient\s*@\s*)?(https://\S+?/(prescient-[^/\s]+\.whl))(?:#sha256=([0-9a-f]{64}))?(?:\s+--hash=sha256:([0-9a-f]{64}))?"
)
_KEPT_WHEEL = re.compile(r"\./\.github/wheels/(prescient-[^/\s]+\.whl)\s+--hash=sha256:([0-9a-f]{64})")
ACCEPTED = (
    "give a commit id (prescient @ git+URL@<40-hex commit>), a wheel file (it is copied into .github/wheels/ "
    "and pinned by its sha256), or a wheel's https address with --hash=sha256:<hex>"
)


@dataclass(frozen=True)
class Pin:
    """The requirement written to the pin file, and the wheel to copy into the hub for it (if any)."""

    requirement: str
    wheel: Path | None = None  # a wheel file init copies into WHEELS
    source: str = ""  # where it came from, for the summary ("this checkout's commit", "--package")

    @property
    def version(self) -> str | None:
        """The version the pin installs, when its wheel's name says (a commit's is not known here)."""
        found = re.search(r"prescient-([^-/\s]+)-[^/\s]*\.whl", self.requirement)
        return found[1] if found else None

    @property
    def kept_wheel(self) -> str | None:
        """The path of the wheel it installs from the hub's own files (``.github/wheels/…``)."""
        found = _KEPT_WHEEL.fullmatch(self.requirement)
        return f"{WHEELS}/{found[1]}" if found else None


def pinned(line: str) -> bool:
    """True when ``line`` names bytes nobody can move: a commit id, or a wheel with its sha256."""
    return bool(_COMMIT.fullmatch(line.strip()) or _KEPT_WHEEL.fullmatch(line.strip()) or _hashed_url(line.strip()))


def _hashed_url(line: str) -> str | None:
    found = _WHEEL_URL.fullmatch(line)
    if not found or not (found[3] or found[4]) or (found[3] and found[4] and found[3] != found[4]):
        return None
    return f"prescient @ {found[1]} --hash=sha256:{found[3] or found[4]}"


def parse_package(text: str) -> Pin:
    """``--package``: a pin nobody can move (see the module), or a ConfigError (exit 2) naming the accepted forms."""
    value = text.strip()
    if value.endswith(".whl") and not re.match(r"[a-z+]+://", value):
        return wheel_pin(Path(value), "--package")
    commit = _COMMIT.fullmatch(value)
    if commit:
        return Pin(f"prescient @ {commit[1]}@{commit[2]}", source="--package")
    url = _hashed_url(value)
    if url:
        return Pin(url, source="--package")
    if _KEPT_WHEEL.fullmatch(value):
        return Pin(value, source="--package")
    raise ConfigError(f"--package {text!r}: not pinned by a commit id or a wheel's sha256 (a tag or a branch can be moved); {ACCEPTED}")


def wheel_pin(path: Path, source: str) -> Pin:
    """A wheel file, to be kept in the hub and pinned by its sha256."""
    if not path.is_file():
        raise ConfigError(f"{source} {path}: no such wheel file; {ACCEPTED}")
    if not re.fullmatch(r"prescient-[^-]+-[^/]*\.whl", path.name):
        raise ConfigError(f"{source} {path}: not a wheel of Prescient (prescient-VERSION-py3-none-any.whl)")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    return Pin(f"./{WHEELS}/{path.name} --hash=sha256:{digest}", wheel=path, source=source)


def installed_pin() -> Pin:
    """The Prescient running now, pinned: the commit pip installed it from, the wheel it was installed
    from (with its hash), or this checkout's commit (an install from a git checkout, editable or not).
    A ConfigError (exit 2) when none of those can be told: then ``--package`` says what to pin."""
    try:
        text = metadata.distribution("prescient").read_text("direct_url.json") or ""
        direct = json.loads(text) if text else {}
    except (metadata.PackageNotFoundError, ValueError):
        direct = {}
    url = str(direct.get("url", ""))
    if "vcs_info" in direct and re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", str(direct["vcs_info"].get("commit_id", ""))):
        return Pin(f"prescient @ git+{url}@{direct['vcs_info']['commit_id']}", source="the commit this Prescient was installed from")
    if "archive_info" in direct and url.endswith(".whl"):
        digest = str(direct["archive_info"].get("hash", "")).removeprefix("sha256=")
        if url.startswith("file://") and Path(url.removeprefix("file://")).is_file():
            return wheel_pin(Path(url.removeprefix("file://")), "the wheel this Prescient was installed from")
        if url.startswith("https://") and re.fullmatch(r"[0-9a-f]{64}", digest):
            return Pin(f"prescient @ {url} --hash=sha256:{digest}", source="the wheel this Prescient was installed from")
    folders = [Path(url.removeprefix("file://"))] if "dir_info" in direct and url.startswith("file://") else []
    for checkout in [*folders, Path(__file__).resolve().parents[2]]:
        if not (checkout / "pyproject.toml").is_file() or not (checkout / ".git").exists():
            continue
        try:
            commit = run_git(checkout, "rev-parse", "HEAD").decode().strip()
        except PrescientError:
            continue
        if re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", commit):
            return Pin(f"prescient @ git+{UPSTREAM}@{commit}", source=f"the commit of the checkout at {checkout}")
    raise ConfigError(f"cannot tell which commit or wheel this Prescient was installed from, to pin it; pass --package: {ACCEPTED}")


def current_pin(root: Path) -> str:
    """The requirement in the hub's pin file ("" when it has none)."""
    path = root / PIN_FILE
    if not path.is_file():
        return ""
    lines = [line.strip() for line in path.read_text(encoding="utf-8").splitlines()]
    return next((line for line in lines if line and not line.startswith("#")), "")


def legacy_pin(version: str) -> str:
    """What ``init`` wrote before pins were immutable: the upstream repository at a version's tag."""
    return f"prescient @ git+{UPSTREAM}@v{version}"


def pin_text(pin: str) -> bytes:
    return (
        "# The Prescient this hub runs, as a pip requirement nobody can move: a commit id, or a wheel with its sha256\n"
        '# (see README.md, "Upgrading"). Its dependencies and build backend come hash-checked from requirements.lock.\n'
        f"{pin}\n"
    ).encode()


def keep_wheel(root: Path, pin: Pin) -> list[str]:
    """Copy the pin's wheel into the hub and remove the wheels no pin names any more; the paths changed."""
    changed: list[str] = []
    kept = pin.kept_wheel
    folder = root / WHEELS
    if pin.wheel is not None and kept is not None and not (root / kept).is_file():
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(pin.wheel, root / kept)
        changed.append(kept)
    if folder.is_dir():
        for old in sorted(folder.glob("prescient-*.whl")):
            if f"{WHEELS}/{old.name}" != kept:
                old.unlink()
                changed.append(f"{WHEELS}/{old.name} (removed: no longer pinned)")
    return changed


def version_key(version: str) -> tuple[int, ...]:
    """``0.14.0`` → (0, 14, 0): enough to order this project's versions (no pre-release tags)."""
    return tuple(int(part) for part in re.findall(r"\d+", version.split("+")[0]))
