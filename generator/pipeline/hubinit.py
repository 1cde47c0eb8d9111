"""The files a hub holds besides its data: what ``prescient init`` writes, ``--upgrade`` refreshes,
and ``prescient check-config`` checks against ``data/hub.toml``.

A hub made by ``init`` holds no package code and no data of this repository: its workflows, the
scripts and templates under ``.github/`` (this repository's own, shipped with the package), a site
skeleton (``site_src/``, the package's), and files made from templates in
``generator/data_templates/hub/`` (the commented ``data/hub.toml``, its README, ``.gitignore``,
``.ci/run``). It installs Prescient from ``.github/requirements.lock``: the package pinned to one
released version with its hashes, then every dependency, hash-checked. ``.github/prescient-hub.json``
records the version and each written file's sha256, so that an upgrade replaces what the hub did not
change and leaves the rest, saying so.
"""

from __future__ import annotations

import importlib.util
from functools import cache
from importlib import resources
from pathlib import Path
from types import ModuleType

from ..config import HUB_FILE, Settings
from ..errors import Problem

TEMPLATES = Path(__file__).resolve().parents[1] / "data_templates" / "hub"


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


def check_hub_files(root: Path, settings: Settings) -> list[Problem]:
    """``.github/CODEOWNERS``, when the hub has one written by codeowners.py, against ``[hub] maintainers``."""
    path = root / ".github" / "CODEOWNERS"
    label = ".github/CODEOWNERS"
    if not path.is_file() or not path.read_text(encoding="utf-8").startswith(codeowners_script().HEADER.splitlines()[0]):
        return []
    try:
        wanted = codeowners_text(root)
    except ValueError as exc:
        return [Problem(HUB_FILE, None, "hub.maintainers", "bad-value", str(exc))]
    if path.read_text(encoding="utf-8") != wanted:
        listed = ", ".join(settings.maintainers) or "nobody"
        return [Problem(label, None, None, "codeowners-stale",
                        f"it does not give every path to [hub] maintainers ({listed}); run `python .github/codeowners.py` "
                        "(or `prescient init --upgrade`) and commit it")]
    return []
