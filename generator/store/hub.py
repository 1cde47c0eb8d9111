"""``Hub``: the hub a command works on, loaded once at the CLI edge and passed down.

It bundles the folder, its ``Layout`` (every path under ``data/``, with the command's read cache,
``csvio.ReadCache``) and its ``Settings`` (``data/hub.toml``, read once). The pipeline and the
other shells take a Hub; their public functions also take the folder and load one, for tests and
scripts.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..config import Settings, load_settings
from .csvio import ReadCache
from .layout import Layout


@dataclass(frozen=True)
class Hub:
    root: Path
    layout: Layout
    settings: Settings

    @classmethod
    def load(cls, root: Path, layout: Layout | None = None) -> Hub:
        """The hub at ``root``: ``data/hub.toml`` read and checked (ConfigError), a fresh read cache
        unless ``layout`` (a Layout of ``root`` already in use by this command) is given."""
        root = Path(root)
        return cls(root, layout or Layout(root), load_settings(root))

    @property
    def cache(self) -> ReadCache:
        return self.layout.cache


def as_hub(hub: Hub | Path) -> Hub:
    """``hub`` itself, or the hub loaded from the folder ``hub``."""
    return hub if isinstance(hub, Hub) else Hub.load(hub)
