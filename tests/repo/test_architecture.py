"""The import graph of ``generator/`` holds the layering CONTRIBUTING.md describes: every package
imports only packages below it in LAYERS, no module reaches into another module's private names, no
two modules import each other however indirectly, the pure stages (``scoring``, ``leaderboard``)
import no stage that does I/O, and no module grows past 500 lines.

Read from the source with ``ast`` (nothing is imported), function-level imports included: an
import inside a function is a dependency all the same. ``if TYPE_CHECKING:`` imports count too.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from helpers import ROOT

PACKAGE = ROOT / "generator"

# Bottom to top. A module may import its own package, and any package on an earlier line.
LAYERS = [
    "",  # generator/__init__.py: __version__
    "errors",  # foundations: the exception hierarchy and Problem
    "timeutil",  # one parser, one formatter for UTC times
    "vocabulary",  # question kinds, statuses, leaderboard views: the hub's words, once
    "codes",  # every problem code with its severity and meaning
    "schemas",  # every table's columns, types, keys, sort
    "models",  # model metadata (ModelMeta), read by store, forecasters, leaderboard, site
    "config_schema",  # every hub.toml key: type, default, range, meaning
    "config_checks",  # hub.toml's keys against each other and the hub's words (views' sources)
    "config",  # Settings from data/hub.toml
    "sources",  # fetch_* (network) and parse_* (pure), one module per platform
    "store",  # every disk read and write of data/: layout, csvio, ledger, ingest, manifest, git plumbing
    "llm",  # OpenAI-compatible chat calls: endpoint, prompt templates, budget, call log (resume state)
    "parallel",  # the one module that forks, with its one rule for when that is sound (it reads store.atomic's fault hook)
    "scoring",  # resolve (ledger view, resolutions), market proxies, Brier, corrections
    "arena",  # bets and portfolios: scoring of a second kind (secondary views, never the rank)
    "submissions",  # validation of pull requests (forecasts, bets, oracle files) -> Problems
    "forecasters",  # the hub's own forecasters; the LLM one validates its files as a PR would
    "oracle",  # the oracle track: import, score, board
    "leaderboard",  # aggregation, bootstrap, views, history
    "site",  # charts, render, write, build (gather -> render -> write)
    "interop",  # ForecastBench import/export: stores rounds, uses the hub's baselines
    "pipeline",  # the shell: nightly, rounds, recompute, demo
    "audit",  # verify: recomputes with pipeline/site and compares; git history checks
    "console",  # terminal rendering for the CLI
    "cli",  # argv, env and exit codes
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
    assert not new, "private names used across modules:\n" + "\n".join(f"{k[0]} uses {k[1]} at {', '.join(v)}" for k, v in new.items())
    fixed = KNOWN_PRIVATE - set(private)
    assert not fixed, f"fixed, remove from KNOWN_PRIVATE: {sorted(fixed)}"


def module_graph() -> dict[str, set[str]]:
    """Each module and the generator modules it imports (a package's ``__init__`` is the package)."""
    known = set(modules())
    graph: dict[str, set[str]] = {m: set() for m in known}
    for module, path in modules().items():
        graph[module] |= {target for _, target, _ in imports(module, path, known) if target in known and target != module}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative):
    the modules that import each other, directly or through others."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_circle_finder_finds_a_circle_through_a_third_module():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert circles(graph) == [["a", "b", "c"]]


def test_no_two_modules_import_each_other_even_through_others():
    """A module-level import circle (deferred imports inside functions included) hides a design
    knot: neither side can be read, tested or moved without the other."""
    found = circles(module_graph())
    assert not found, "modules importing each other:\n" + "\n".join(" <-> ".join(c) for c in found)


# The stages that compute (scores, boards) from frames handed to them: they never read or write a
# file, reach the network, render the site or run the shell.
PURE = {"scoring", "leaderboard"}
DOES_IO = {"store", "sources", "site", "pipeline"}


def test_scoring_and_leaderboard_import_nothing_that_does_io():
    known = set(modules())
    found = [
        f"{path.relative_to(PACKAGE.parent)}:{line} {module} -> {target}"
        for module, path in modules().items()
        if key(module) in PURE
        for line, target, _ in imports(module, path, known)
        if key(target) in DOES_IO
    ]
    assert not found, "a pure stage imports a stage that does I/O:\n" + "\n".join(found)


MAX_LINES = 500


def test_no_module_is_over_500_lines():
    long = {
        str(path.relative_to(PACKAGE.parent)): n
        for path in modules().values()
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert not long, f"split these modules (at most {MAX_LINES} lines each): {long}"


def stage_packages() -> list[Path]:
    return sorted(p.parent for p in PACKAGE.rglob("__init__.py") if p.parent != PACKAGE)


@pytest.mark.parametrize("package", stage_packages(), ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_every_stage_init_opens_with_a_map_of_its_modules(package: Path):
    """A package's ``__init__`` docstring names each of its modules and subpackages (as ``name``), and
    its map's lines (``- ``name``: what it is``) name only modules that exist."""
    doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text(encoding="utf-8"))) or ""
    members = {p.stem for p in package.glob("*.py") if p.name != "__init__.py"} | {p.name for p in package.iterdir() if (p / "__init__.py").is_file()}
    named = set(re.findall(r"``(\w+)``", doc))
    assert doc and not members - named, f"{package.name}/__init__.py does not map {sorted(members - named)}"
    mapped = {name for line in re.findall(r"^- (.*?):", doc, re.MULTILINE) for name in re.findall(r"``(\w+)``", line)}
    assert not mapped - members, f"{package.name}/__init__.py maps modules that do not exist: {sorted(mapped - members)}"


def test_tests_mirror_the_packages_and_share_helpers_only_through_one_module():
    """Every test module is in ``tests/<stage>/`` (or ``tests/repo/`` for the repository's own checks),
    and imports no other test module and not ``conftest``: what tests share is in ``tests/helpers.py``
    (and the two fake servers beside it, ``_github`` and ``_llm_server``)."""
    tests = ROOT / "tests"
    stages = {p.parent.name for p in PACKAGE.rglob("__init__.py") if p.parent.parent == PACKAGE}
    folders = stages | {"repo", "foundations", "cli"}
    misplaced, importing = [], []
    for path in sorted(tests.rglob("test_*.py")):
        where = path.relative_to(tests)
        if len(where.parts) != 2 or where.parts[0] not in folders:
            misplaced.append(str(where))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names] if isinstance(node, ast.Import) else []
            importing += [f"{where}: {n}" for n in names if n.split(".")[0].startswith("test_") or n == "conftest"]
    assert not misplaced, f"put these in tests/<stage>/: {misplaced}"
    assert not importing, f"share through tests/helpers.py instead: {importing}"


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
