"""A hub keeps its submission files byte for byte: `prescient init` writes a ``.gitattributes`` that turns
git's line-end conversion off under ``data/``, so a forecast committed with Windows line ends under
``core.autocrlf=true`` (git's default on Windows) is stored as it was hashed, and can be revealed; this
repository's own hub (``data/``) has the same rule."""

from __future__ import annotations

import subprocess
from pathlib import Path

from generator.pipeline.hubinit import init_hub
from generator.timeutil import parse_ts

from helpers import INIT_AT, ROOT


def git(root: Path, *args: str) -> bytes:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, check=True).stdout


def test_init_writes_a_gitattributes_that_keeps_data_byte_for_byte_under_autocrlf(tmp_path: Path):
    hub = tmp_path / "hub"
    done = init_hub(hub, parse_ts(INIT_AT), title="Lab", maintainers=["alice"])
    assert ".gitattributes" in done.written
    crlf = b"question_id,resolution_date,probability,reasoning\r\nmanifold:abc,,0.8,\r\n"
    path = "data/forecasts/2026-03-08/acme.gpt-x.csv"
    (hub / path).parent.mkdir(parents=True)
    (hub / path).write_bytes(crlf)
    git(hub, "-c", "core.autocrlf=true", "add", "-A")
    assert git(hub, "cat-file", "blob", f":{path}") == crlf, "stored as written, not converted to LF"
    assert git(hub, "check-attr", "text", "--", path).strip().endswith(b"text: unset")


def test_this_repositorys_hub_keeps_data_byte_for_byte():
    assert git(ROOT, "check-attr", "text", "--", "data/forecasts/2026-01-25/acme.gpt-x.csv").strip().endswith(b"text: unset")
