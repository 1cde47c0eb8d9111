"""A hub file read whole, and the two configuration files read and parsed: ``data/hub.toml``
(``config.settings_from_toml``) and a model's ``data/models/<id>.yml`` (``models.model_from_yaml``).

The layers below ``store`` parse text and never open a file; every stage above reads a hub path
through ``store`` (``tests/repo/test_architecture.py`` holds the rule).
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from ..config import HUB_FILE, Settings, settings_from_toml
from ..errors import ConfigError
from ..models import DEFAULT_OWN, OWN_MARK, ModelMeta, model_from_yaml, own_prefix_problem

MODELS = "data/models"  # where the hub's own baselines' metadata tell the prefix they were written under


def read_bytes(path: Path) -> bytes:
    """The bytes of a file of the hub (or of a checkout of it) as they are on disk."""
    return path.read_bytes()


def read_text(path: Path) -> str:
    """A hub file's UTF-8 text."""
    return path.read_text(encoding="utf-8")


def load_settings(root: Path) -> Settings:
    """The hub's settings from ``root``/data/hub.toml; every problem of it at once in one ConfigError (exit 2)."""
    path = root / HUB_FILE
    if not path.is_file():
        raise ConfigError(f"{path}: not found. Is --hub pointing at a Prescient hub?")
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text ({exc.reason})") from None
    marks = {p.name.removesuffix(".yml"): p.read_bytes() for p in sorted((root / MODELS).glob(f"*.{OWN_MARK}.yml"))}
    return settings_from_toml(root, text, path, marks)


def own_prefix_of(root: Path) -> str:
    """``[hub] own_prefix`` as ``root``'s data/hub.toml writes it, for a command that runs on a hub.toml that may
    not load (an import into a folder it is setting up, a pull request's check): the default where it is not
    set, is no team prefix, or the file cannot be read (``load_settings`` reports what is wrong)."""
    try:
        hub = tomllib.loads(read_text(root / HUB_FILE)).get("hub", {})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return DEFAULT_OWN
    own = hub.get("own_prefix", DEFAULT_OWN) if isinstance(hub, dict) else DEFAULT_OWN
    return own if isinstance(own, str) and not own_prefix_problem(own) else DEFAULT_OWN


def load_model(path: Path, label: str | None = None) -> ModelMeta:
    """A model's metadata from its YAML file; a SchemaError naming every problem."""
    return model_from_yaml(path.name.removesuffix(".yml"), path.read_bytes(), label or str(path))
