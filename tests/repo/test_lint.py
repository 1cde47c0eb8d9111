"""ruff (lint and format) and mypy, run by the README's test command (and so by `.ci/run` and the pre-commit hook's
callers): the lint rules and types that encode the design are checked, not remembered.

Both read their configuration from pyproject.toml ([tool.ruff], [tool.mypy]); their caches go to a
temporary folder so a test run leaves the repository as it found it.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

from helpers import ROOT

LINTED = ["generator", "tests", "benchmarks", "site_src/hooks"]  # as in CONTRIBUTING.md and .pre-commit-config.yaml


def run(module: str, *args: str) -> subprocess.CompletedProcess[str]:
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed (pip install -e '.[test]')")
    return subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT, capture_output=True, text=True, check=False)


def test_ruff_check_passes(tmp_path):
    result = run("ruff", "check", "--cache-dir", str(tmp_path / "ruff"), *LINTED)
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_leaves_every_file_as_it_is(tmp_path):
    """One layout for everyone: ``ruff format`` (its defaults, the line length of [tool.ruff])."""
    result = run("ruff", "format", "--check", "--cache-dir", str(tmp_path / "ruff"), *LINTED, ".github")
    assert result.returncode == 0, "run `ruff format` on these files:\n" + result.stdout + result.stderr


def test_mypy_passes(tmp_path):
    result = run("mypy", "--cache-dir", str(tmp_path / "mypy"))  # packages = ["generator"] in pyproject.toml
    assert result.returncode == 0, result.stdout + result.stderr
