"""The Submit page's rehearsal: its own command block, run as written on a copy of the demo,
from an empty branch to a validated pull request, a maintainer's merge before the due time, and
`prescient verify --git` accepting the history. The block is read from the page, so the page cannot drift."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers import PRESCIENT, ROOT, git

pytestmark = pytest.mark.e2e

PAGE = ROOT / "site_src/docs/submit.md"


def rehearsal_block() -> str:
    text = PAGE.read_text(encoding="utf-8")
    return text.split("### Rehearse it on the demo hub", 1)[1].split("```sh\n", 1)[1].split("\n```\n", 1)[0]


def test_the_rehearsal_block_names_each_step_of_a_submission():
    block = rehearsal_block()
    steps = [
        "git switch -c ",
        "prescient round template --hub . ",
        "prescient validate --hub . --at ",
        "git commit ",
        "prescient validate --hub . --base main --head HEAD ",
        "merge --no-ff ",
        "prescient verify --hub . --git HEAD",
    ]
    assert [block.find(s) for s in steps] == sorted(block.find(s) for s in steps) and -1 not in [block.find(s) for s in steps]


def test_the_submit_pages_rehearsal_runs_on_the_demo_to_a_merge_verify_accepts(demo_hub: Path, tmp_path: Path):
    demo = tmp_path / "demo"
    shutil.copytree(demo_hub, demo, symlinks=True)
    git(demo, "config", "user.name", "Alice")  # the forecaster's own git identity, as on their machine
    git(demo, "config", "user.email", "alice@example.invalid")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_") and k != "SOURCE_DATE_EPOCH"}
    env["PATH"] = f"{Path(PRESCIENT).parent}{os.pathsep}{env.get('PATH', '')}"  # `prescient` as the page writes it
    run = subprocess.run(["bash", "-euo", "pipefail", "-c", rehearsal_block()], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=1500)
    assert run.returncode == 0, (run.stdout[-3000:], run.stderr[-3000:])
    out = run.stdout
    assert "2026-07-26" in out.split("Passed")[0]  # `rounds --open` listed the round before anything was checked
    assert out.count("Passed: ") == 2 and "crlf-line-endings" not in out  # Python's CRLF is fine
    assert "[new-model]" in out and "verified: every check passed" in out
    merge = git(demo, "log", "-1", "--format=%P|%an|%cn|%cI", "HEAD").strip().split("|")
    assert len(merge[0].split()) == 2 and merge[1:] == ["Demo Maintainer", "Demo Maintainer", "2026-07-19T12:00:00+00:00"]
    assert git(demo, "log", "-1", "--format=%an|%cI|%s", "HEAD^2").strip() == "Alice|2026-07-19T06:00:00+00:00|acme.my-bot: round 2026-07-26"
    assert (demo / "data/forecasts/2026-07-26/acme.my-bot.csv").read_bytes().count(b"\r\n") == 71
    assert git(demo, "status", "--porcelain", "--ignored=no") == ""
