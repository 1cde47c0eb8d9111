"""``Hub``: the hub a command works on, with the command's cache, opened at the edge and passed down.

It bundles the folder, its ``Layout`` (every path under ``data/``), its ``Settings``
(``data/hub.toml``, read once, when first asked for) and the command's ``ReadCache``
(``store.cache``), which the Hub owns: every reader of ``store`` reads through it, so one command
reads each file once. ``Hub.opened`` gives a command its hub with the disk cache kept between
commands, and writes what the command learnt there when it ends. The pipeline and the other shells
take a Hub; their public functions also take the folder and load one, for tests and scripts.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..config import Settings
from .cache import DiskCache, ReadCache, default_dir
from .files import load_settings
from .layout import Layout


@dataclass(frozen=True)
class Hub:
    root: Path
    cache: ReadCache = field(default_factory=ReadCache, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "root", Path(self.root))

    @functools.cached_property
    def layout(self) -> Layout:
        return Layout(self.root)

    @functools.cached_property
    def settings(self) -> Settings:
        """``data/hub.toml``, read and checked (ConfigError) on the first ask."""
        return load_settings(self.root)

    def with_settings(self, settings: Settings) -> Hub:
        """This hub (its folder and its cache) with ``settings`` in place of what data/hub.toml says:
        a command that runs the hub with a stage turned off (the demo's nights before any news)."""
        other = Hub(self.root, self.cache)
        other.__dict__["settings"] = settings  # the cached_property's slot: never read from the file
        return other

    @classmethod
    def load(cls, root: Path, cache: ReadCache | None = None) -> Hub:
        """The hub at ``root`` with ``data/hub.toml`` read and checked now (ConfigError), and a fresh
        read cache unless ``cache`` (one this command already uses) is given."""
        hub = cls(Path(root), cache if cache is not None else ReadCache())
        hub.settings  # noqa: B018 (read now: a bad hub.toml fails the command before it starts)
        return hub

    @classmethod
    @contextlib.contextmanager
    def opened(
        cls, root: Path, cache_dir: Path | None = None, *, disk: bool = True, settings: bool = True, parsed: dict | None = None
    ) -> Iterator[Hub]:
        """The hub at ``root`` for one command, with the disk cache kept between commands
        (``cache.disk``: in ``cache_dir``, else its default folder for the hub) unless not ``disk``.
        What the command learnt is written there when the block ends, however it ends; a cache that
        cannot be written never fails the command (``hub.cache.unkept`` says why). ``settings=False``
        for a command that may write ``data/hub.toml`` first (the ForecastBench import). ``parsed``: files
        this command has parsed already (another ``ReadCache``'s ``tables``), each kept while unchanged."""
        root = Path(root)
        kept = DiskCache.open(Path(cache_dir) if cache_dir else default_dir(root), root) if disk else None
        reads = ReadCache(disk=kept, tables=dict(parsed or {}))
        hub = cls.load(root, reads) if settings else cls(root, reads)
        try:
            yield hub
        finally:
            hub.cache.close()


def as_hub(hub: Hub | Path) -> Hub:
    """``hub`` itself, or the hub loaded from the folder ``hub``."""
    return hub if isinstance(hub, Hub) else Hub.load(hub)
