"""The team's Action (`.github/actions/submit/action.yml`) and the scheduled workflow the Submit page
gives to copy ("Submit from a scheduled job"): their shape, and both linted offline as the repository's
own workflows are (check-jsonschema's GitHub schemas, zizmor; actionlint when it is installed)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
import yaml

from helpers import ROOT, installed

ACTION = ROOT / ".github" / "actions" / "submit" / "action.yml"
SUBMIT_PAGE = ROOT / "site_src" / "docs" / "submit.md"
PINNED = re.compile(r"^[\w.-]+/[\w.-]+(/[\w./-]+)?@[0-9a-f]{40} # v\d+(\.\d+)*$")
A_COMMIT = "0123456789abcdef0123456789abcdef01234567"  # stands for PRESCIENT_COMMIT, the commit a team pins


def scheduled_workflow() -> str:
    """The YAML block of the Submit page's "Submit from a scheduled job", with a commit for its pin."""
    section = SUBMIT_PAGE.read_text(encoding="utf-8").split("## Submit from a scheduled job", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```yaml\n(.*?)```", section, re.S)
    assert block, "the Submit page's scheduled-job section has no workflow to copy"
    return block[1].replace("@PRESCIENT_COMMIT", f"@{A_COMMIT}")


@pytest.fixture()
def copied(tmp_path) -> Path:
    """The page's workflow, copied into a team's repository as the page says."""
    path = tmp_path / ".github" / "workflows" / "forecast.yml"
    path.parent.mkdir(parents=True)
    path.write_text(scheduled_workflow(), encoding="utf-8")
    return path


def test_the_page_gives_a_complete_scheduled_workflow_calling_the_action():
    workflow = yaml.safe_load(scheduled_workflow())
    assert set(workflow.get("on", workflow.get(True))) == {"schedule", "workflow_dispatch"}
    assert workflow["permissions"] == {}
    steps = [s for job in workflow["jobs"].values() for s in job["steps"]]
    action = next(s for s in steps if "/.github/actions/submit@" in s.get("uses", ""))
    assert set(action["with"]) <= set(yaml.safe_load(ACTION.read_text())["inputs"]) and action["with"]["token"].startswith("${{ secrets.")
    assert_pinned(scheduled_workflow())


def assert_pinned(text: str) -> None:
    """Every action a ``uses:`` line names is pinned to a full commit id, with its version in a comment."""
    for line in text.splitlines():
        if line.strip().startswith(("uses:", "- uses:")):
            ref = line.split("uses:", 1)[1].strip()
            assert PINNED.match(ref), ref


def test_the_action_installs_its_own_commit_and_gives_the_verdict():
    action = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    assert action["runs"]["using"] == "composite"
    assert set(action["outputs"]) == {"verdict", "run-id", "attested-time"}
    steps = action["runs"]["steps"]
    assert_pinned(ACTION.read_text(encoding="utf-8"))
    for step in steps:
        assert "${{" not in step.get("run", ""), f"{step['name']}: inputs reach a script through env only"
    assert "GITHUB_PATH" not in json.dumps(steps) and "GITHUB_ENV" not in json.dumps(steps), "no step changes the next steps' environment"
    scripts = "\n".join(s.get("run", "") for s in steps)
    assert '--require-hashes --no-deps -r "$GITHUB_ACTION_PATH/../../requirements.lock"' in scripts
    assert all(re.search(rf'/bin/prescient" {command}', scripts) for command in ("round fetch", "submit", "forecast llm")) and "--wait" in scripts
    token_steps = [s["name"] for s in steps if "inputs.token" in json.dumps(s)]
    assert token_steps == ["Submit and wait for the hub's verdict"], "the token reaches the submit step only"


def test_the_workflow_and_the_action_match_githubs_schemas(copied):
    exe = installed("check-jsonschema")
    if exe is None:
        pytest.skip("check-jsonschema is not installed (pip install check-jsonschema)")
    for schema, path in (("vendor.github-workflows", copied), ("vendor.github-actions", ACTION)):
        done = subprocess.run([exe, "--builtin-schema", schema, str(path)], capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stdout + done.stderr


def test_zizmor_finds_nothing_in_the_workflow_or_the_action(copied):
    exe = installed("zizmor")
    if exe is None:
        pytest.skip("zizmor is not installed (pip install zizmor)")
    for target in (copied.parent, ACTION.parent):
        done = subprocess.run(
            [exe, "--offline", "--format", "json", "--min-severity", "medium", str(target)], capture_output=True, text=True, check=False
        )
        findings = json.loads(done.stdout or "[]")
        assert findings == [], json.dumps(findings, indent=1)[:3000]


def test_actionlint_accepts_the_workflow(copied):
    exe = installed("actionlint")
    if exe is None:
        pytest.skip("actionlint is not installed")
    done = subprocess.run([exe, str(copied)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
