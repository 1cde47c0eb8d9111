"""Every test checks something: a test function with no ``assert``, no ``pytest.raises`` or ``warns``
and no call of a checking helper passes whatever the code under test does.

A lint over the tests' syntax trees. A function checks when its body holds an ``assert``; calls
``pytest.raises``/``pytest.warns``; calls a function named ``assert…`` or ``check_…`` (pandas' and
numpy's ``assert_…_equal``, this suite's ``assert_inert_…``); or calls a function of its own module or
of ``tests/helpers.py`` that checks (followed through calls, so a helper that hands its check to
another helper counts). A test function (``test_…``, at module level or in a ``Test…`` class) must
check on every path through it: a check it holds only under an ``if``, or only in an ``except`` or
``else`` of a ``try`` (one case refused, the other case anything at all), passes when the branch is
not taken, unless the other branch checks too. A test with no check outside such branches is
reported with its file and line. A loop's body counts as run, its ``if`` as choosing which of the
cases it lists a check applies to.

What it cannot see: a check that is there on every path but checks the test's own premise rather
than the code (``test_the_quick_scan_never_skips_a_file_with_a_formula_cell`` checked nothing of the
scan in 6 of its 24 cases), or a loop over nothing. Those are fixed where they are found.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
CHECKING_CALLS = {"raises", "warns", "deprecated_call"}  # pytest's context managers that fail a test
CHECKING_PREFIXES = ("assert", "check_")


def _called(node: ast.AST) -> str | None:
    """The name a call calls (``f`` of ``f(...)``, ``g`` of ``x.y.g(...)``)."""
    if isinstance(node, ast.Call):
        func = node.func
        return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
    return None


def _functions(tree: ast.Module) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    """Every function defined in a module (at any depth), by name; a later definition wins."""
    return {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}


def _checks_directly(function: ast.AST) -> bool:
    for node in ast.walk(function):
        if isinstance(node, ast.Assert):
            return True
        name = _called(node)
        if name is not None and (name in CHECKING_CALLS or name.startswith(CHECKING_PREFIXES)):
            return True
    return False


def checking(functions: dict[str, ast.AST]) -> set[str]:
    """The names of ``functions`` that check, directly or through calls of the others (a fixed point)."""
    found = {name for name, f in functions.items() if _checks_directly(f)}
    calls = {name: {_called(n) for n in ast.walk(f)} - {None} for name, f in functions.items()}
    grew = True
    while grew:
        grew = False
        for name in functions.keys() - found:
            if calls[name] & found:
                found.add(name)
                grew = True
    return found


def checks_on_every_path(body: list[ast.stmt], good: set[str]) -> bool:
    """Whether ``body`` checks whichever ``if`` branch or ``except`` it takes: a check at its top level,
    in a ``with`` (its items too: ``pytest.raises``), in both branches of an ``if``, in a ``try``'s body
    or ``finally``, or anywhere in a loop (whose ``if`` picks which cases a check applies to)."""
    for stmt in body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        if isinstance(stmt, ast.If):
            if checks_on_every_path(stmt.body, good) and checks_on_every_path(stmt.orelse, good):
                return True
            continue
        if isinstance(stmt, ast.Try):
            if checks_on_every_path(stmt.body, good) or checks_on_every_path(stmt.finalbody, good):
                return True
            continue
        if isinstance(stmt, ast.With | ast.AsyncWith):
            if any(_checks_directly(item.context_expr) for item in stmt.items) or checks_on_every_path(stmt.body, good):
                return True
            continue
        if isinstance(stmt, ast.For | ast.AsyncFor | ast.While):
            if any(_checks_directly(s) or {_called(n) for n in ast.walk(s)} & good for s in stmt.body):
                return True
            continue
        if _checks_directly(stmt) or {_called(n) for n in ast.walk(stmt)} & good:
            return True
    return False


def _test_functions(tree: ast.Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    tests = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test"):
            tests.append(node)
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            tests += [m for m in node.body if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef) and m.name.startswith("test")]
    return tests


def unchecked_tests(source: str, shared: dict[str, ast.AST]) -> list[tuple[str, int]]:
    """(name, line) of each test function of ``source`` that may pass having checked nothing (no check
    on every path through it); ``shared``: the helpers every test module may call (``tests/helpers.py``'s
    functions)."""
    tree = ast.parse(source)
    functions = {**shared, **_functions(tree)}
    good = checking(functions)
    return [(t.name, t.lineno) for t in _test_functions(tree) if not checks_on_every_path(t.body, good)]


def test_every_test_checks_on_every_path_through_it():
    shared = _functions(ast.parse((TESTS / "helpers.py").read_text(encoding="utf-8")))
    found = [
        f"{path.relative_to(TESTS).as_posix()}:{line} {name}"
        for path in sorted(TESTS.rglob("test_*.py"))
        for name, line in unchecked_tests(path.read_text(encoding="utf-8"), shared)
    ]
    assert found == [], "tests that check nothing:\n" + "\n".join(found)


def test_the_lint_tells_a_test_that_checks_from_one_that_does_not():
    source = """
import pytest

def helper(x):
    assert x

def relay(x):
    helper(x)

def quiet(x):
    return x

def test_asserts():
    assert 1

def test_raises():
    with pytest.raises(ValueError):
        int("x")

def test_pandas():
    pd.testing.assert_frame_equal(a, b)

def test_through_two_helpers():
    relay(1)

def test_only_runs():
    quiet(1)

def test_shared():
    shared_check(1)

def test_in_a_branch_only(x):
    if x:
        assert x

def test_either_branch_of_a_try():
    try:
        y = int("1")
    except ValueError:
        assert True
    else:
        assert y

def test_each_case_of_a_loop():
    for x in (1, 2):
        if x > 1:
            assert x

def test_both_branches(x):
    if x:
        assert x
    else:
        assert not x

class TestGroup:
    def test_in_a_class(self):
        quiet(2)
"""
    shared = _functions(ast.parse("def shared_check(x):\n    assert x\n"))
    assert [name for name, _ in unchecked_tests(source, shared)] == [
        "test_only_runs",
        "test_in_a_branch_only",
        "test_either_branch_of_a_try",
        "test_in_a_class",
    ]
