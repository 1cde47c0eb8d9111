"""The files a hub holds besides its data: what ``prescient init`` writes, ``init --upgrade``
refreshes, and ``prescient check-config`` checks against ``data/hub.toml``.

A hub made by ``init`` holds no package code and no data of this repository. It gets:

- files it owns from the start, never rewritten: ``data/hub.toml`` (commented, from the schema:
  ``hubtoml.py``), a ``README.md`` and ``.gitignore`` (kept when the folder already has them);
- ``.github/CODEOWNERS``, always written from ``[hub] maintainers`` by the shipped ``codeowners.py``;
- files Prescient ships and an upgrade refreshes: the workflows (this repository's own, each install
  rewritten to install the dependencies hash-checked from ``requirements.lock``, then the Prescient
  pinned in ``.github/prescient.txt`` by a commit id or a wheel's sha256: ``hubpin.py``),
  ``codeowners.py``, ``requirements.lock``, the pull-request and issue templates, the hub's
  ``.ci/run`` and the site skeleton ``site_src/``. ``.github/prescient-hub.json`` records the
  version, the hub's own pin (``--package``) and each such file's sha256 as written, so an upgrade
  replaces what the hub left as it was, keeps what the hub changed (this version's copy beside it as
  ``FILE.new``), keeps the hub's own pin, and refuses to go back to an older version unless forced.
"""

from __future__ import annotations

import difflib
import hashlib
import importlib.util
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cache
from importlib import resources
from pathlib import Path
from types import ModuleType

from .. import __version__
from ..config import HUB_FILE, Settings
from ..errors import ConfigError, Problem
from ..store.atomic import write_bytes_atomic
from ..store.files import load_settings
from ..store.git import init_repository, is_work_tree
from ..timeutil import UTC
from .hubpin import LOCK, PIN_FILE, UPSTREAM, Pin, current_pin, installed_pin, keep_wheel, legacy_pin, parse_package, pin_text, pinned, version_key
from .hubtoml import render_hub_toml

__all__ = ["PIN_FILE", "UPSTREAM"]  # named here for the callers of init (the pins themselves: hubpin)
MANIFEST = ".github/prescient-hub.json"  # the version and sha256 of each shipped file as init or an upgrade wrote it
CODEOWNERS = ".github/CODEOWNERS"
DEFAULT_SOURCES = ("manifold", "polymarket", "kalshi", "dbnomics")  # live, and need no key
SHIPPED_GITHUB = ("workflows", "ISSUE_TEMPLATE", "codeowners.py", "requirements.lock", "pull_request_template.md")
TEMPLATES = "data_templates/hub"  # in the package: the hub's README, .gitignore and .ci/run

# Each workflow line that installs Prescient from the checkout, and the lines a hub's workflow runs instead
# (read from the trusted checkout: main, or the pull request's base commit): every dependency and the build
# backend hash-checked from the lock, then the pinned Prescient with neither dependencies nor build isolation,
# from the checkout's folder (a wheel kept in the hub is named from there).
_LOCKED = 'python -I -m pip install --require-hashes --no-deps -r "{root}/' + LOCK + '"'
_PINNED = '(cd "{root}" && python -I -m pip install --no-deps --no-build-isolation -r ' + PIN_FILE + ")"
INSTALLS = {
    'python -I -m pip install --no-deps --no-build-isolation "$GITHUB_WORKSPACE"': (_PINNED.format(root="$GITHUB_WORKSPACE"),),
    'python -I -m pip install "$GITHUB_WORKSPACE"': (_LOCKED.format(root="$GITHUB_WORKSPACE"), _PINNED.format(root="$GITHUB_WORKSPACE")),
    'python -I -m pip install "$RUNNER_TEMP/verifier"': (_LOCKED.format(root="$RUNNER_TEMP/verifier"), _PINNED.format(root="$RUNNER_TEMP/verifier")),
    "cache-dependency-path: pyproject.toml": (f"cache-dependency-path: {LOCK}",),
}


@dataclass
class HubFiles:
    """What ``init`` or an upgrade did, file by file (paths relative to the hub)."""

    root: Path
    version: str
    written: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)  # the hub changed it (or had it): left as it is
    created_git: bool = False
    first_due: datetime | None = None
    previous_version: str | None = None
    pin: Pin | None = None
    pin_note: str = ""  # what became of the pin on an upgrade (kept, or from what to what)
    new_copies: dict[str, str] = field(default_factory=dict)  # a kept file -> its FILE.new's one-line diff summary


def first_due_for(as_of: datetime) -> datetime:
    """A new hub's first due time: the first Sunday 00:00 UTC at least three days after ``as_of``, so
    that its first nightly opens that round (frozen late, at that run) and forecasters get days to submit."""
    start = as_of + timedelta(days=3)
    day = datetime(start.year, start.month, start.day, tzinfo=UTC)
    day += timedelta(days=1) if day < start else timedelta(0)
    return day + timedelta(days=(6 - day.weekday()) % 7)


def init_hub(
    root: Path, as_of: datetime, title: str = "", maintainers: Iterable[str] = (), sources: Iterable[str] = DEFAULT_SOURCES, package: str = ""
) -> HubFiles:
    """A new hub in ``root`` (created, or an existing folder without a hub): its files, a git repository."""
    from ..vocabulary import known_sources

    sources = tuple(sources)
    unknown = [s for s in sources if s not in known_sources()]
    if unknown:
        raise ConfigError(f"--sources: unknown source(s) {', '.join(unknown)}; known sources: {', '.join(known_sources())}")
    if (root / HUB_FILE).exists():
        raise ConfigError(
            f"{root / HUB_FILE} exists: {root} is a hub already; `prescient init --upgrade {root}` refreshes its workflows and site skeleton"
        )
    pin = parse_package(package) if package else installed_pin()  # nothing written yet: a pin that can move is refused first
    shipped = shipped_files(pin.requirement)
    clashes = sorted(p for p in shipped if (root / p).exists())
    if clashes:
        raise ConfigError(
            f"{root} already holds {', '.join(clashes[:5])}{' …' if len(clashes) > 5 else ''}; "
            "`prescient init` makes a new hub in an empty folder (or one without these files)"
        )
    maintainers = tuple(maintainers)
    wrong = [m for m in maintainers if not codeowners_script()._OWNER.match(m)]
    if wrong:
        raise ConfigError(f"--maintainer: {', '.join(map(repr, wrong))} is not a GitHub login, @org/team or e-mail address")
    first_due = first_due_for(as_of)
    result = HubFiles(root, __version__, first_due=first_due, pin=pin)
    owned = {
        HUB_FILE: render_hub_toml(title or root.name, maintainers, first_due, sources),
        "README.md": _template("README.md").replace(b"{title}", (title or root.name).encode()),
        ".gitignore": _template("gitignore"),
        ".gitattributes": _template("gitattributes"),  # data/ kept byte for byte (commitments and seals name exact bytes)
    }
    root.mkdir(parents=True, exist_ok=True)
    for path, data in owned.items():
        (result.kept if (root / path).exists() else result.written).append(path)
        if not (root / path).exists():
            write_bytes_atomic(root / path, data)
    settings = load_settings(root)  # what init wrote passes its own check
    _write_codeowners(root, result)
    _write_shipped(root, shipped, {}, result, own_pin=pin.requirement if package else "")
    result.written += keep_wheel(root, pin)
    if not is_work_tree(root):
        init_repository(root)
        result.created_git = True
    _check_written(root, settings)
    return result


def upgrade_hub(root: Path, package: str = "", force: bool = False) -> HubFiles:
    """Refresh the shipped files of the hub in ``root`` for this version of Prescient (see the module):
    the hub's own pin kept unless ``package`` names another, never an older version unless ``force``."""
    settings = load_settings(root)
    recorded = _read_manifest(root)
    previous = recorded.get("version")
    pin, own, note = _upgrade_pin(root, recorded, package)
    given = pin.version if package else None  # a wheel --package names now (a pin kept as it was changes nothing)
    for older, what in ((__version__, f"this Prescient ({__version__})"), (given, f"the pinned wheel's Prescient ({given})")):
        if older and previous and version_key(older) < version_key(previous) and not force:
            raise ConfigError(
                f"{root}: its workflows and site skeleton were written by Prescient {previous}; an upgrade with {what} would "
                f"downgrade it to {older}. Run `prescient init --upgrade` with Prescient {previous} or later installed, "
                "or pass --force to downgrade"
            )
    result = HubFiles(root, __version__, previous_version=previous, pin=pin, pin_note=note)
    files = shipped_files(pin.requirement)
    if own and pin.requirement == current_pin(root):
        files[PIN_FILE] = (root / PIN_FILE).read_bytes()  # the hub's own pin file, as the hub wrote it
    _write_shipped(root, files, recorded.get("files", {}), result, own_pin=pin.requirement if own else "")
    result.written += keep_wheel(root, pin)
    _write_codeowners(root, result)
    _check_written(root, settings)
    return result


def _upgrade_pin(root: Path, recorded: dict, package: str) -> tuple[Pin, bool, str]:
    """The pin an upgrade writes, whether it is the hub's own, and what to say of it. The hub's own: one
    given to ``--package`` (now or at init), or a pin file the hub changed; a hub made before the manifest
    recorded it has its own unless it holds the tag init wrote then (``legacy_pin``)."""
    before = current_pin(root)
    if package:
        pin = parse_package(package)
        return pin, True, f"pin: {before or 'none'} -> {pin.requirement}" if before != pin.requirement else ""
    older = "package" not in recorded and before != legacy_pin(recorded.get("version") or "")
    if before and (recorded.get("package") or not _unchanged(root, PIN_FILE, recorded) or older):
        movable = "" if pinned(before) else "; it names no commit id or wheel hash, so it can be moved: pin one with --package"
        return Pin(before, source="the hub's own"), True, f"kept the hub's own pin: {before} (give --package to change it){movable}"
    pin = installed_pin()
    return pin, False, f"pin: {before or 'none'} -> {pin.requirement}" if before != pin.requirement else ""


def _check_written(root: Path, settings: Settings) -> None:
    problems = check_hub_files(root, settings)
    if problems:
        raise ConfigError(f"{root / HUB_FILE}: the files written from it are out of step", problems)


def shipped_files(pin: str) -> dict[str, bytes]:
    """Every file Prescient ships into a hub, by its path in the hub (the workflows rewritten for a hub)."""
    files: dict[str, bytes] = {}
    github = github_dir()
    for name in SHIPPED_GITHUB:
        for file in _files_under(github / name):
            files[f".github/{file.relative_to(github).as_posix()}"] = file.read_bytes()
    for name, data in list(files.items()):
        if name.startswith(".github/workflows/"):
            files[name] = hub_workflow(name, data)
    from ..site.build import skeleton_dir

    skeleton = skeleton_dir()
    for path in _files_under(skeleton):
        relative = path.relative_to(skeleton)
        if relative.parts[0] != "site" and relative.parts[:2] != ("docs", "generated"):  # built, never shipped
            files[f"site_src/{relative.as_posix()}"] = path.read_bytes()
    files[".ci/run"] = _template("ci-run")
    files[PIN_FILE] = pin_text(pin)
    return dict(sorted(files.items()))


def hub_workflow(path: str, data: bytes) -> bytes:
    """A workflow of this repository as a hub runs it: every install of the checkout becomes an install
    of the pinned requirement. A ValueError when an install line is not one ``INSTALLS`` knows."""
    lines = []
    for line in data.decode("utf-8").splitlines(keepends=True):
        body = line.strip()
        indent = line[: len(line) - len(line.lstrip())]
        lines += [f"{indent}{new}\n" for new in INSTALLS[body]] if body in INSTALLS else [line]
    text = "".join(lines)
    leftover = [line.strip() for line in text.splitlines() if "pip install" in line and PIN_FILE not in line and "requirements.lock" not in line]
    if leftover or "pyproject.toml" in text:
        raise ValueError(f"{path}: an install the hub's workflows cannot rewrite: {leftover or 'pyproject.toml'}")
    return text.encode("utf-8")


def _write_shipped(root: Path, files: dict[str, bytes], recorded: dict[str, str], result: HubFiles, own_pin: str = "") -> None:
    """Write each shipped file the hub does not have or left as recorded; keep (and name) what it changed,
    with this version's copy beside it (``FILE.new``) when it is not the copy the hub last had."""
    manifest: dict[str, str] = {}
    for path, data in files.items():
        target, beside = root / path, root / f"{path}.new"
        current = target.read_bytes() if target.is_file() else None
        if current == data:
            result.unchanged.append(path)
        elif current is None or _sha(current) == recorded.get(path):
            write_bytes_atomic(target, data)
            if path == ".ci/run":
                target.chmod(0o755)
            result.written.append(path)
        else:
            result.kept.append(path)
            if recorded.get(path) == _sha(data):  # this version ships the copy the hub started from: nothing to merge
                manifest[path] = _sha(data)
                beside.unlink(missing_ok=True)
                continue
            write_bytes_atomic(beside, data)
            result.new_copies[path] = diff_summary(current, data)
        if path not in result.new_copies:
            beside.unlink(missing_ok=True)  # a copy an earlier upgrade left, merged or no longer needed
        manifest[path] = _sha(data)
    body = {"version": __version__, "package": own_pin, "files": manifest}
    write_bytes_atomic(root / MANIFEST, (json.dumps(body, indent=1, sort_keys=True) + "\n").encode())


def diff_summary(mine: bytes, shipped: bytes) -> str:
    """One line of how ``shipped`` differs from ``mine``: lines added and removed (``+3 -1 lines``)."""
    a, b = (data.decode("utf-8", "replace").splitlines() for data in (mine, shipped))
    added = removed = 0
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        removed += i2 - i1 if tag in ("replace", "delete") else 0
        added += j2 - j1 if tag in ("replace", "insert") else 0
    return f"+{added} -{removed} line{'' if added + removed == 1 else 's'}"


def _write_codeowners(root: Path, result: HubFiles) -> None:
    try:
        text = codeowners_text(root).encode()
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    if write_bytes_atomic(root / CODEOWNERS, text):
        result.written.append(CODEOWNERS)


def _read_manifest(root: Path) -> dict:
    try:
        return json.loads((root / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # a hub made before init kept one (or a damaged one): every differing file is the hub's own


def _unchanged(root: Path, path: str, recorded: dict) -> bool:
    target = root / path
    return not target.is_file() or _sha(target.read_bytes()) == recorded.get("files", {}).get(path)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _files_under(folder: Path) -> list[Path]:
    if folder.is_file():
        return [folder]
    return sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts and not p.name.startswith("."))


def _template(name: str) -> bytes:
    return resources.files("generator").joinpath(f"{TEMPLATES}/{name}").read_bytes()


def github_dir() -> Path:
    """The ``.github`` folder shipped with Prescient (in a wheel) or beside the package (a checkout)."""
    packaged = resources.files("generator").joinpath("_github")
    if packaged.is_dir():
        return Path(str(packaged))
    return Path(__file__).resolve().parents[2] / ".github"  # generator/pipeline/hubinit.py -> the checkout


@cache
def codeowners_script() -> ModuleType:
    """``.github/codeowners.py`` (standard library only), the one writer of CODEOWNERS, as shipped."""
    spec = importlib.util.spec_from_file_location("prescient_codeowners", github_dir() / "codeowners.py")
    if spec is None or spec.loader is None:
        raise ImportError(f"{github_dir() / 'codeowners.py'} cannot be loaded")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def codeowners_text(root: Path) -> str:
    """CODEOWNERS as ``[hub] maintainers`` of ``root``'s hub.toml makes it (ValueError on a bad maintainer)."""
    script = codeowners_script()
    return script.render(script.owners(root / HUB_FILE))


def version_problems(root: Path) -> list[Problem]:
    """A warning when the hub's shipped files (``MANIFEST``) were written by another version of Prescient
    than this one: a hub that moves its pin without ``init --upgrade`` keeps the older site skeleton."""
    recorded = _read_manifest(root).get("version")
    if not recorded or recorded == __version__:
        return []
    return [
        Problem(
            MANIFEST,
            None,
            "version",
            "hub-files-version",
            f"the hub's workflows, .ci/run and site skeleton were written by Prescient {recorded}, and this is "
            f"{__version__}: run `prescient init --upgrade {root}` and commit what it changes (until then the site "
            "is built with the older skeleton's script and styles)",
            "warning",
        )
    ]


WORKFLOWS = ".github/workflows"
RECEIPT_WORKFLOWS = ("validate.yml", "nightly.yml")  # a pull request's validation run, and the nightly that reads them


def receipts_problems(root: Path, settings: Settings) -> list[Problem]:
    """A warning where ``[hub] receipts`` and the workflows the hub holds disagree: GitHub's validation
    and nightly workflows with ``receipts = "ledger"`` (the seals never learn of a pull request's pushes,
    so a pull request checked before the due time and merged after it is ruled out), or ``"github"``
    without them (no validation run to read)."""
    present = [name for name in RECEIPT_WORKFLOWS if (root / WORKFLOWS / name).is_file()]
    if settings.receipts == "ledger" and len(present) == len(RECEIPT_WORKFLOWS):
        return [
            Problem(
                HUB_FILE,
                None,
                "hub.receipts",
                "receipts-mismatch",
                f'[hub] receipts = "ledger", but the hub runs GitHub\'s {" and ".join(present)} workflows: the seals '
                "never read the pull requests' validation runs, so a pull request checked before a round's due time "
                'and merged after it does not count; set receipts = "github"',
                "warning",
            )
        ]
    if settings.receipts == "github" and not present:
        return [
            Problem(
                HUB_FILE,
                None,
                "hub.receipts",
                "receipts-mismatch",
                f'[hub] receipts = "github", but {WORKFLOWS}/ holds neither {" nor ".join(RECEIPT_WORKFLOWS)}: '
                "no validation run records a pull request's pushes and the nightly has none to read, so it seals "
                'no round; set receipts = "ledger" for a hub run by hand (or `prescient init --upgrade`)',
                "warning",
            )
        ]
    return []


def check_hub_files(root: Path, settings: Settings) -> list[Problem]:
    """``.github/CODEOWNERS``, when the hub has one written by codeowners.py, against ``[hub] maintainers``."""
    path = root / CODEOWNERS
    if not path.is_file() or not path.read_text(encoding="utf-8").startswith(codeowners_script().HEADER.splitlines()[0]):
        return []
    try:
        wanted = codeowners_text(root)
    except ValueError as exc:
        return [Problem(HUB_FILE, None, "hub.maintainers", "bad-value", str(exc))]
    if path.read_text(encoding="utf-8") != wanted:
        listed = ", ".join(settings.maintainers) or "nobody"
        return [
            Problem(
                CODEOWNERS,
                None,
                None,
                "codeowners-stale",
                f"it does not give every path to [hub] maintainers ({listed}); run `python .github/codeowners.py` "
                "(or `prescient init --upgrade`) and commit it",
            )
        ]
    return []
