"""``prescient demo``: a complete hub on the offline ``sim`` world, a season of nightly runs.

The season's dates are fixed (they do not depend on today's date), so two demos are identical
byte for byte, and rerunning the demo in the same folder changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from importlib import resources
from pathlib import Path
from typing import Callable

from .build import build_site
from .config import load_settings
from .errors import ConfigError
from .forecasters.synthetic import synthetic_forecasts, synthetic_models
from .pipeline import nightly
from .sources.sim import world_from_options
from .store.csvio import write_bytes_atomic
from .store.layout import Layout
from .timeutil import days, parse_ts

SEASON_START = parse_ts("2026-01-04T00:00:00Z")
SEASON_END = parse_ts("2026-07-19T00:00:00Z")

Progress = Callable[[int, int, str], None]


@dataclass(frozen=True)
class DemoResult:
    root: Path
    nights: int
    site: Path


def demo_hub_toml() -> bytes:
    return resources.files("generator").joinpath("data_templates/demo-hub.toml").read_bytes()


def season(start: datetime = SEASON_START, end: datetime = SEASON_END, step_days: int = 1) -> list[datetime]:
    nights, night = [], start
    while night <= end:
        nights.append(night)
        night += days(step_days)
    return nights


def run_demo(root: Path, progress: Progress | None = None, nights: list[datetime] | None = None,
             build: bool = True) -> DemoResult:
    """Create (or bring up to date) a demo hub in ``root`` and build its site."""
    layout = Layout(root)
    _prepare(root, layout)
    world = world_from_options(_sim_options(root))
    nights = season() if nights is None else nights
    for i, night in enumerate(nights, start=1):
        nightly(root, night, extra=lambda q: synthetic_forecasts(world, q), extra_models=synthetic_models(), env={})
        if progress:
            progress(i, len(nights) + 1, f"night {night:%Y-%m-%d}")
    if build:
        build_site(root, nights[-1])
    if progress:
        progress(len(nights) + 1, len(nights) + 1, "site built")
    return DemoResult(root, len(nights), root / "site_src" / "site")


def _prepare(root: Path, layout: Layout) -> None:
    if root.exists() and any(root.iterdir()) and not layout.hub_toml.is_file():
        raise ConfigError(f"{root} exists and is not a Prescient hub; choose an empty or new folder for the demo")
    if not layout.hub_toml.is_file():
        write_bytes_atomic(layout.hub_toml, demo_hub_toml())
        write_bytes_atomic(root / ".gitignore", b"site_src/docs/generated/\nsite_src/site/\ndata/.prescient.lock\n")


def _sim_options(root: Path) -> dict:
    sim = [s for s in load_settings(root).sources if s.name == "sim" and s.enabled]
    if not sim:
        raise ConfigError(f"{root / 'data/hub.toml'}: the demo needs [sources.sim] enabled")
    return dict(sim[0].options)
