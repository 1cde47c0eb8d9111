"""One registry of problem codes (generator/codes.py) for the whole package.

Every module is read with ``ast`` (nothing is imported) for the codes it writes: the ``code`` of a
``Problem(...)`` (or of any class with a ``code`` field), the ``code`` argument of a function that
passes one on, a name ``code`` assigned or looped over, and a message that starts with ``[code]``.
Each must be registered, each registered code outside the submission table must be used, and every
one is documented on the site (the Submit page's table: tests/submissions/test_validate_docs.py; the others:
the Data page's "Problem codes" table, generated from the registry).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from generator.codes import CODES, OTHER_CODES

from helpers import ROOT

PACKAGE = ROOT / "generator"
MESSAGE_CODE = re.compile(r"^\[([a-z][a-z0-9]*(?:-[a-z0-9]+)+)\] ")
REGISTERED = set(CODES).union(*OTHER_CODES.values())
TREES = {path: ast.parse(path.read_text(encoding="utf-8")) for path in sorted(PACKAGE.rglob("*.py"))}


def literals(node: ast.expr) -> Iterator[str]:
    """The codes an expression can be; an f-string is returned as written (never registered)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.value
    elif isinstance(node, ast.IfExp):
        yield from literals(node.body)
        yield from literals(node.orelse)
    elif isinstance(node, ast.JoinedStr):
        yield ast.unparse(node)


def code_positions(tree: ast.Module) -> dict[str, int]:
    """Callable name -> position of its ``code`` argument: classes with a ``code`` field."""
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            names = [s.target.id for s in node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]
            if "code" in names:
                out[node.name] = names.index("code")
        elif isinstance(node, ast.FunctionDef):
            names = [a.arg for a in node.args.posonlyargs + node.args.args]
            if "code" in names:
                out[node.name] = names.index("code")
    return out


PUBLIC = {name: i for tree in TREES.values() for name, i in code_positions(tree).items() if not name.startswith("_")}


def used_codes(tree: ast.Module) -> Iterator[tuple[str, int]]:
    positions = PUBLIC | code_positions(tree)  # a module's own helpers first
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if name in positions:
                given = node.args[positions[name] : positions[name] + 1] + [k.value for k in node.keywords if k.arg == "code"]
                yield from ((code, node.lineno) for arg in given for code in literals(arg))
        elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "code" for t in node.targets):
            yield from ((code, node.lineno) for code in literals(node.value))
        elif isinstance(node, ast.For) and isinstance(node.target, ast.Tuple) and isinstance(node.iter, ast.Tuple):
            at = [i for i, t in enumerate(node.target.elts) if isinstance(t, ast.Name) and t.id == "code"]
            yield from ((code, node.lineno) for i in at for row in node.iter.elts if isinstance(row, ast.Tuple) for code in literals(row.elts[i]))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and (m := MESSAGE_CODE.match(node.value)):
            yield m.group(1), node.lineno


USED = {(code, f"{path.relative_to(PACKAGE.parent)}:{line}") for path, tree in TREES.items() for code, line in used_codes(tree)}


def test_the_walker_finds_codes_of_every_kind():
    """The reader sees each way a code is written (so the test below is not vacuous)."""
    found = {code for code, _ in USED}
    assert {
        "bad-csv",
        "toml-syntax",
        "ledger-conflict",
        "os-error",
        "response-too-large",
        "bad-answer",
        "ledger-row-deleted",
        "forecast-changed-after-due",
        "combination-id",
        "derived-differs",
    } <= found
    assert len(found) > 100


def test_every_code_the_package_reports_is_registered():
    unregistered = sorted(f"{where}: {code}" for code, where in USED if code not in REGISTERED)
    assert not unregistered, "register these in generator/codes.py (codes are literal strings):\n" + "\n".join(unregistered)


def test_every_registered_code_outside_the_submission_table_is_used():
    """A code nothing reports any more leaves the registry (and so the Data page)."""
    used = {code for code, _ in USED}
    assert not {code for group in OTHER_CODES.values() for code in group} - used


def test_the_data_page_lists_every_other_code_with_its_meaning():
    """The Problem codes section of the Data page is generated from the registry, and a code the
    Submit page already explains is repeated only where it means something else."""
    from generator.site.render import data_dictionary, environment

    page = data_dictionary(environment())
    section = page[page.index("[start:problem-codes]") : page.index("[end:problem-codes]")]
    for group, codes in OTHER_CODES.items():
        assert f"### {group}\n" in section
        for code, entry in codes.items():
            assert f"| `{code}` | {entry.severity} | {entry.meaning} |" in section, code
            assert code not in CODES or CODES[code].meaning != entry.meaning, code
    docs = (PACKAGE.parent / "site_src" / "docs" / "data.md").read_text(encoding="utf-8")
    assert "## Problem codes {#problem-codes}" in docs
    assert '--8<-- "generated/data-dictionary.md:problem-codes"' in docs
