"""Which source names exist, and how to build each one. Config validation checks names here.

Modules are imported lazily, so a hub that only uses ``sim`` never imports a live adapter.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from ..vocabulary import FACTORIES
from .base import Source


def source_class(name: str) -> type:
    module_name, _, class_name = FACTORIES[name].partition(":")
    return getattr(importlib.import_module(module_name), class_name)


def build_source(name: str, options: Mapping[str, Any]) -> Source:
    return source_class(name)(options)
