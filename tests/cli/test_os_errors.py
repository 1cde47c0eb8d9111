"""When the system refuses a write (disk full, file too large, read-only, permission), every command
says so in one coded line (`[os-error]`, exit 11) instead of a traceback, and no byte on disk changes.

The tests run as root, so permission bits would not stop a write: the refusal is real instead, the
file size limit (RLIMIT_FSIZE) of the child process, with SIGXFSZ ignored so that write(2) fails with
EFBIG ("File too large"), as it fails with ENOSPC on a full disk.
"""

from __future__ import annotations

import re
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import run_cli, tree_bytes, write_hub

START, NIGHT = "2026-01-16T00:00:00Z", "2026-01-30T00:00:00Z"


def run_limited(*args: str, max_bytes: int = 1024) -> subprocess.CompletedProcess:
    """``prescient ARGS`` in a process that may not write a file larger than ``max_bytes``."""

    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (max_bytes, max_bytes))

    return subprocess.run([sys.executable, "-m", "generator", *args], capture_output=True, text=True, preexec_fn=limit, timeout=600)


def os_error_line(result: subprocess.CompletedProcess, command: str) -> str:
    assert result.returncode == 11, result.stdout + result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    lines = [line for line in result.stderr.splitlines() if "[os-error]" in line]
    assert len(lines) == 1 and lines[0].startswith(f"prescient {command}: [os-error] "), result.stderr
    return lines[0]


@pytest.fixture(scope="module")
def hub(tmp_path_factory) -> Path:
    root = write_hub(tmp_path_factory.mktemp("oserr") / "hub")
    assert run_cli("nightly", "--hub", str(root), "--as-of", START).returncode == 0
    return root


def test_a_nightly_that_cannot_write_says_so_in_one_line_and_changes_no_byte(hub: Path):
    before = tree_bytes(hub)
    line = os_error_line(run_limited("nightly", "--hub", str(hub), "--as-of", NIGHT), "nightly")
    assert re.fullmatch(r"prescient nightly: \[os-error\] could not write data/\S+\.csv: File too large", line), line
    assert tree_bytes(hub) == before  # every ledger byte as it was, and no temp file left behind
    assert not list((hub / "data").rglob("*.tmp"))


def test_build_and_export_that_cannot_write_fail_cleanly(hub: Path, tmp_path: Path):
    before = tree_bytes(hub)
    line = os_error_line(run_limited("build", "--hub", str(hub), "--as-of", START, "--no-mkdocs"), "build")
    assert "could not " in line and "File too large" in line
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n")
    exported = run_cli("export", "forecastbench", "--hub", str(hub), "--round", "2026-01-25", "--out", str(blocker / "round.json"))
    assert str(blocker) in os_error_line(exported, "export")
    assert tree_bytes(hub) == before
