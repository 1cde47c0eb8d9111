"""The import graph of ``generator/`` follows DESIGN.md §2: every package imports only packages
below it in LAYERS, and no module reaches into another module's private names.

Read from the source with ``ast`` (nothing is imported), function-level imports included: an
import inside a function is a dependency all the same. ``if TYPE_CHECKING:`` imports count too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "generator"

# Bottom to top. A module may import its own package, and any package on an earlier line.
LAYERS = [
    "",             # generator/__init__.py: __version__
    "errors",       # foundations: the exception hierarchy and Problem
    "timeutil",     # one parser, one formatter for UTC times
    "vocabulary",   # question kinds, statuses, leaderboard views: the hub's words, once
    "codes",        # every problem code with its severity and meaning
    "schemas",      # every table's columns, types, keys, sort
    "models",       # model metadata (ModelMeta), read by store, forecasters, leaderboard, site
    "config_schema",  # every hub.toml key: type, default, range, meaning
    "config",       # Settings from data/hub.toml
    "sources",      # fetch_* (network) and parse_* (pure), one module per platform
    "store",        # every disk read and write of data/: layout, csvio, ledger, ingest, manifest, git plumbing
    "llm",          # OpenAI-compatible chat calls: endpoint, prompt templates, budget, call log (resume state)
    "scoring",      # resolve (ledger view, resolutions), market proxies, Brier, corrections
    "arena",        # bets and portfolios: scoring of a second kind (DESIGN §2 puts it under scoring)
    "submissions",  # validation of pull requests (forecasts, bets, oracle files) -> Problems
    "forecasters",  # the hub's own forecasters; the LLM one validates its files as a PR would
    "oracle",       # the oracle track: import, score, board
    "leaderboard",  # aggregation, bootstrap, views, history
    "site",         # charts, render, write, build (gather -> render -> write)
    "interop",      # ForecastBench import/export: stores rounds, uses the hub's baselines
    "pipeline",     # the shell: nightly, rounds, recompute, demo
    "audit",        # verify: recomputes with pipeline/site and compares; git history checks
    "console",      # terminal rendering for the CLI
    "cli",          # argv, env and exit codes
    "__main__",
]
RANK = {name: i for i, name in enumerate(LAYERS)}

# Edges and private uses still to fix, each with its issue. The test fails when one is fixed and
# still listed, so this list only shrinks.
KNOWN_LAYER_EDGES: set[tuple[str, str]] = set()
KNOWN_PRIVATE: set[tuple[str, str]] = set()


def modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def key(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def resolve(node: ast.ImportFrom, module: str, is_pkg: bool) -> str:
    if node.level == 0:
        return node.module or ""
    base = module.split(".") if is_pkg else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports(module: str, path: Path, known: set[str]):
    """(line, imported module, imported name or None) for every import of a generator module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    aliases: dict[str, str] = {}  # local name -> generator module it is bound to
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = resolve(node, module, path.name == "__init__.py")
            if base.split(".")[0] != "generator":
                continue
            for a in node.names:
                sub = f"{base}.{a.name}"
                if sub in known:  # `from package import module`
                    aliases[a.asname or a.name] = sub
                    yield node.lineno, sub, None
                else:
                    yield node.lineno, base, a.name
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "generator":
                    yield node.lineno, a.name, None
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
            yield node.lineno, aliases[node.value.id], node.attr


def is_private(name: str | None) -> bool:
    return bool(name) and name.startswith("_") and not name.startswith("__")


def scan():
    known = set(modules())
    layer, private, unknown = {}, {}, set()
    for module, path in modules().items():
        for line, target, name in imports(module, path, known):
            where = f"{path.relative_to(PACKAGE.parent)}:{line}"
            a, b = key(module), key(target)
            for k in (a, b):
                if k not in RANK:
                    unknown.add(k)
            if a != b and a in RANK and b in RANK and RANK[b] >= RANK[a]:
                layer.setdefault((a, b), []).append(f"{where} {module} -> {target}{'.' + name if name else ''}")
            if is_private(name) and target != module:
                private.setdefault((module, f"{target}.{name}"), []).append(where)
    return layer, private, unknown


def test_every_package_has_a_layer():
    assert not scan()[2], "add the new package to LAYERS, at the place its imports allow"


def test_imports_go_one_way():
    layer = scan()[0]
    new = {k: v for k, v in layer.items() if k not in KNOWN_LAYER_EDGES}
    assert not new, "imports against the layer order:\n" + "\n".join(x for v in new.values() for x in v)
    fixed = KNOWN_LAYER_EDGES - set(layer)
    assert not fixed, f"fixed, remove from KNOWN_LAYER_EDGES: {sorted(fixed)}"


def test_no_module_uses_another_modules_private_names():
    private = scan()[1]
    new = {k: v for k, v in private.items() if k not in KNOWN_PRIVATE}
    assert not new, "private names used across modules:\n" + "\n".join(f"{k[0]} uses {k[1]} at {', '.join(v)}"
                                                                       for k, v in new.items())
    fixed = KNOWN_PRIVATE - set(private)
    assert not fixed, f"fixed, remove from KNOWN_PRIVATE: {sorted(fixed)}"


if __name__ == "__main__":  # print the graph's violations, for planning
    layer, private, unknown = scan()
    print("unknown packages:", sorted(unknown))
    for (a, b), where in sorted(layer.items()):
        print(f"{a} -> {b}: {len(where)}")
        print("    " + "\n    ".join(where))
    for (m, name), where in sorted(private.items()):
        print(f"private: {m} uses {name} at {', '.join(where)}")
    if not (layer or private or unknown):
        pytest.main([__file__, "-q"])
