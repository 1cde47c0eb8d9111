"""The GitHub workflows: their shape, offline lint, and the nightly data step run as written."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml

from helpers import ROOT, installed

pytestmark = pytest.mark.e2e

WORKFLOWS = ROOT / ".github" / "workflows"
NAMES = ("validate.yml", "comment.yml", "nightly.yml", "ci.yml", "receipts.yml")
TEMPLATE = ROOT / "generator" / "data_templates" / "demo-hub.toml"
PINNED = re.compile(r"^[\w.-]+/[\w.-]+(/[\w./-]+)?@[0-9a-f]{40} # v\d+(\.\d+)*$")


def load(name: str) -> dict:
    return yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))


def triggers(workflow: dict) -> dict:
    return workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` key as True


def steps(workflow: dict) -> list[dict]:
    return [s for job in workflow["jobs"].values() for s in job["steps"]]


def test_all_workflows_exist_and_never_use_pull_request_target():
    for name in NAMES:
        assert (WORKFLOWS / name).is_file()
        assert "pull_request_target" not in triggers(load(name))
    key = re.compile(r"^\s*-?\s*pull_request_target\s*:?\s*$", re.MULTILINE)
    assert not any(key.search(p.read_text()) for p in WORKFLOWS.glob("*.yml"))


def test_every_action_is_pinned_to_a_full_commit_sha_with_its_version():
    for path in WORKFLOWS.glob("*.yml"):
        for line in path.read_text(encoding="utf-8").splitlines():
            if "uses:" in line:
                ref = line.split("uses:", 1)[1].strip()
                assert PINNED.match(ref), f"{path.name}: {ref}"


def test_validate_workflow():
    wf = load("validate.yml")
    assert triggers(wf) == {"pull_request": None}, "every pull request gets the check (no paths filter)"
    assert wf["permissions"] == {"contents": "read", "actions": "read"}
    checkouts = [s for s in steps(wf) if "actions/checkout" in s.get("uses", "")]
    assert [s["with"].get("ref") for s in checkouts] == ["${{ github.event.pull_request.base.sha }}"], (
        "only the base commit is checked out; the pull request's files are read through git"
    )
    assert checkouts[0]["with"]["persist-credentials"] is False
    setup = next(s for s in steps(wf) if "setup-python" in s.get("uses", ""))
    assert setup["with"]["cache"] == "pip"
    run = next(s for s in steps(wf) if "prescient validate" in s.get("run", ""))
    assert "AT" not in run["env"] and '--at "$AT"' in run["run"] and "--receipts-rev" in run["run"]
    asked = next(s for s in steps(wf) if "actions/runs/${GITHUB_RUN_ID}" in s.get("run", ""))
    assert 'echo "AT=${at:-$UPDATED_AT}" >> "$GITHUB_ENV"' in asked["run"], "the run's creation time, as the receipts record it"
    assert asked["env"]["UPDATED_AT"] == "${{ github.event.pull_request.updated_at }}"
    assert run["env"]["AUTHOR"] == "${{ github.event.pull_request.user.login }}"
    assert "$GITHUB_STEP_SUMMARY" in run["run"] and "--format markdown" in run["run"]
    install = next(s for s in steps(wf) if "pip install" in s.get("run", ""))
    assert 'python -I -m pip install "$GITHUB_WORKSPACE"' in install["run"]
    assert any("upload-artifact" in s.get("uses", "") for s in steps(wf))


def test_python_never_runs_with_the_checkout_on_its_path():
    """`python -m` puts the working directory on sys.path: every pip runs isolated, from outside."""
    for name in NAMES:
        wf = load(name)
        for step in steps(wf):
            for line in step.get("run", "").splitlines():
                if re.search(r"\bpython3?\b", line):
                    assert re.search(r"\bpython3? -I\b", line), f"{name}: {line.strip()}"
                if re.search(r"\bpip install\b", line):
                    assert 'cd "$RUNNER_TEMP"' in step["run"], f"{name}: {step['name']} runs pip inside the checkout"
    for name in ("validate.yml", "nightly.yml"):
        assert load(name)["env"]["PYTHONSAFEPATH"] == "1"


def test_comment_workflow_takes_the_pr_number_from_the_event():
    wf = load("comment.yml")
    assert triggers(wf)["workflow_run"] == {"workflows": ["validate"], "types": ["completed"]}
    job = wf["jobs"]["comment"]
    assert job["permissions"]["pull-requests"] == "write" and "contents" not in job["permissions"]
    script = next(s for s in job["steps"] if "github-script" in s.get("uses", ""))
    assert script["env"]["PR_NUMBER"] == "${{ github.event.workflow_run.pull_requests[0].number }}"
    assert "prescient-validation" in script["with"]["script"]
    assert not any("checkout" in s.get("uses", "") for s in job["steps"])


def test_receipts_workflow_runs_no_pull_request_code_and_trusts_only_githubs_time():
    wf = load("receipts.yml")
    assert triggers(wf)["workflow_run"] == {"workflows": ["validate"], "types": ["completed"]}
    assert wf["permissions"] == {} and "concurrency" not in wf, "no group: GitHub would cancel pending runs of it"
    record, push = wf["jobs"]["record"], wf["jobs"]["push"]
    assert record["if"] == "github.event.workflow_run.event == 'pull_request'"
    assert record["permissions"] == {"contents": "read", "actions": "read", "pull-requests": "read"}
    checkouts = [s for s in record["steps"] if "actions/checkout" in s.get("uses", "")]
    assert [s["with"]["ref"] for s in checkouts] == ["${{ github.event.repository.default_branch }}"]
    assert all(s["with"]["persist-credentials"] is False for s in checkouts)
    step = next(s for s in record["steps"] if "prescient receipts record" in s.get("run", ""))
    assert step["env"]["RUN_ID"] == "${{ github.event.workflow_run.id }}" and "--out" in step["run"]
    assert "git checkout" not in step["run"] and "git push" not in step["run"]
    assert push["needs"] == "record" and push["permissions"] == {"contents": "write"}
    script = "\n".join(s.get("run", "") for s in push["steps"])
    assert not re.search(r"\bprescient (receipts|nightly|validate)\b", script) and not re.search(r"\bpython", script), (
        "the job that may write runs git alone"
    )
    assert "HEAD:prescient-receipts" in script and "core.hooksPath=/dev/null" in script
    assert "secrets." not in (WORKFLOWS / "receipts.yml").read_text(), "no key that bypasses the default branch's rules"


def test_nightly_workflow_shape():
    wf = load("nightly.yml")
    assert set(triggers(wf)) == {"schedule", "workflow_dispatch"}
    assert wf["concurrency"] == {"group": "nightly", "cancel-in-progress": False}
    nightly, site = wf["jobs"]["nightly"], wf["jobs"]["site"]
    assert nightly["permissions"] == {"contents": "write", "actions": "read", "pull-requests": "read"}
    assert nightly["environment"] == "nightly", "the bypass key is a secret of a protected environment"
    assert site["permissions"] == {"contents": "read", "pages": "write", "id-token": "write"} and site["needs"] == "nightly"
    data = next(s for s in nightly["steps"] if s.get("id") == "data")
    assert set(data["env"]) >= {"METACULUS_TOKEN", "FRED_API_KEY"} and "git push" not in data["run"]
    holders = [s for s in steps(wf) if "NIGHTLY_PUSH_KEY" in json.dumps(s)]
    assert [s.get("id") for s in holders] == ["push"], "only the push step sees the key"
    assert not re.search(r"\bprescient ", holders[0]["run"]) and not re.search(r"\bpython", holders[0]["run"])
    assert "core.hooksPath=/dev/null" in holders[0]["run"]
    assert all(s["with"]["persist-credentials"] is False for s in steps(wf) if "actions/checkout" in s.get("uses", ""))
    installs = [s["run"] for s in steps(wf) if "pip install" in s.get("run", "")]
    assert installs and all("--require-hashes" in run for run in installs)
    names = [s.get("name", "") for s in site["steps"]]
    assert names.index(SITE_CHECK) < names.index("Build the site from the files alone") < names.index("Upload the site")
    uses = [s.get("uses", "") for s in steps(wf)]
    assert any("upload-pages-artifact" in u for u in uses) and any("deploy-pages" in u for u in uses)


def test_the_lock_pins_every_dependency_with_its_hashes():
    """The workflows that hold write credentials install only what .github/requirements.lock pins."""
    import tomllib

    lock = (ROOT / ".github" / "requirements.lock").read_text(encoding="utf-8")
    pinned = {m.group(1).lower().replace("_", "-"): m.group(2) for m in re.finditer(r"^([A-Za-z0-9_.-]+)==(\S+) \\$", lock, re.M)}
    entries = re.split(r"\n(?=[A-Za-z0-9])", lock.split("\n", 1)[1] if lock.startswith("#") else lock)
    assert all("--hash=sha256:" in e for e in entries if "==" in e), "every pin carries its hashes"
    wanted = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    names = {re.split(r"[<>=!~\[ ;]", d, maxsplit=1)[0].lower().replace("_", "-") for d in wanted}
    assert names <= set(pinned), f"not in the lock: {sorted(names - set(pinned))}"
    assert "hatchling" in pinned, "the build backend, for `pip install --no-build-isolation`"
    for name in ("nightly.yml", "receipts.yml"):
        text = (WORKFLOWS / name).read_text()
        assert text.count("--require-hashes") == text.count("pip install --no-deps --no-build-isolation"), name


def test_ci_workflow_runs_the_ci_script():
    assert any(s.get("run") == "bash .ci/run" for s in steps(load("ci.yml")))


# -- CODEOWNERS: everything is the maintainers', except the submission areas ------------------------


def codeowners_module():
    spec = importlib.util.spec_from_file_location("codeowners", ROOT / ".github" / "codeowners.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def owner_rules(text: str) -> list[tuple[re.Pattern, list[str]]]:
    """CODEOWNERS lines as (regex, owners), gitignore-style: ``/`` anchors, ``*`` stays in a folder."""
    rules = []
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        pattern, *owners = line.split()
        anchored = pattern.startswith("/") or "/" in pattern.rstrip("/")
        body = "".join({"*": "[^/]*", "?": "[^/]"}.get(ch, re.escape(ch)) for ch in pattern.strip("/"))
        body = body.replace("[^/]*[^/]*", ".*")  # **
        tail = "/.*" if pattern.endswith("/") else "(?:/.*)?"
        rules.append((re.compile(("^" if anchored else "^(?:.*/)?") + body + tail + "$"), owners))
    return rules


def owners_of(path: str, rules) -> list[str]:
    found: list[str] = []
    for regex, owners in rules:
        if regex.match(path):
            found = owners  # the last matching line wins
    return found


SAMPLE_PATHS = [
    "data/forecasts/2026-01-25/acme.gpt-x.csv",
    "data/forecasts/2026-01-25/acme.gpt-x.json",
    "data/forecasts/x",
    "data/forecasts",
    "data/bets/2026-01-25/acme.gpt-x.csv",
    "data/models/acme.gpt-x.yml",
    "data/models/a/b.yml",
    "data/oracle/daily/forecasts/acme.gpt-x.csv",
    "data/oracle/daily/forecasts/a/b.csv",
    "data/oracle/daily/forecasts",
    "data/oracle/daily/questions.csv",
    "data/oracle/forecasts/acme.gpt-x.csv",
    "data/oracle/a/b/forecasts/x.csv",
    "data/rounds/2026-01-25/questions.csv",
    "data/questions/manifold.csv",
    "data/observations/manifold.csv",
    "data/resolutions/manifold.csv",
    "data/scores/x.csv",
    "data/leaderboard/x.csv",
    "data/hub.toml",
    "data/README.md",
    "data/forecasts-old/x.csv",
    "data/x/forecasts/y.csv",
    "site_src/hooks/question_pages.py",
    "site_src/mkdocs.yml",
    ".github/CODEOWNERS",
    ".github/workflows/validate.yml",
    "pip/__init__.py",
    "sitecustomize.py",
    "x/data/forecasts/y",
    "data/llm/2026-01-25/prescient.gpt-x-arena.jsonl",
    "data/metadata/checkpoints.csv",
    "data/manifest/2026.csv",
    "data/forecasts/2026-01-25/prescient.naive.csv",
    "data/models/prescient.naive.yml",
    "data/resolutions/.gitkeep",
    "data/maintainer/actions.csv",
    "data/observations/sim/2026-01.csv",
    "data/rounds/2026-01-25/questions.json",
]


def is_submission(path: str) -> bool:
    from generator.submissions import paths

    target, _ = paths.classify(path)
    return target.kind not in (paths.OTHER, paths.MAINTAINER)  # the maintainers' ledger is checked, and owned


def repo_paths() -> list[str]:
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    return [p for p in listed.decode().split("\0") if p] + SAMPLE_PATHS


def test_codeowners_is_written_from_hub_toml():
    module = codeowners_module()
    assert module.main(["--hub", str(ROOT), "--check"]) == 0, "run python .github/codeowners.py"
    text = (ROOT / ".github" / "CODEOWNERS").read_text(encoding="utf-8")
    assert "your-org" not in text
    assert module.render(["@alice", "@acme/hub-maintainers"]).count("\n* @alice @acme/hub-maintainers\n") == 1


def test_codeowners_owns_every_path_except_the_submission_areas():
    rules = owner_rules(codeowners_module().render(["@alice"]))
    paths = repo_paths()
    top = {p.split("/")[0] for p in paths}
    assert {".github", ".ci", "generator", "site_src", "tests", "data", "pyproject.toml", "README.md"} <= top
    wrong = [(p, owners_of(p, rules)) for p in paths if bool(owners_of(p, rules)) == is_submission(p)]
    assert wrong == [], "owned iff outside the submission areas of generator/submissions/paths.py"


def test_codeowners_rejects_what_is_not_a_login(tmp_path):
    module = codeowners_module()
    (tmp_path / "data").mkdir()
    for bad in ("[null]", '["a b"]', '["@"]', '"alice"', '["-alice"]'):
        (tmp_path / "data" / "hub.toml").write_text(f"[hub]\nmaintainers = {bad}\n")
        with pytest.raises(ValueError):
            module.owners(tmp_path / "data" / "hub.toml")
    (tmp_path / "data" / "hub.toml").write_text('[hub]\nmaintainers = ["alice", "@acme/hub-team", "ops@example.org"]\n')
    assert module.owners(tmp_path / "data" / "hub.toml") == ["@alice", "@acme/hub-team", "ops@example.org"]


def test_validate_sends_every_data_path_but_the_maintainers_own_files_to_the_validator(tmp_path):
    """The pathspec of validate.yml's fast path is every path under data/ but paths.REVIEWED (a
    resolution appended by a pull request once passed as "nothing to validate")."""
    from generator.submissions import paths

    script = next(s for s in steps(load("validate.yml")) if s.get("id") == "changes")["run"]
    match = re.search(r'"\$\{BASE_SHA\}\.\.\.\$\{HEAD_SHA\}" -- \\\n\s*([^;]*); then', script)
    assert match, script
    pathspec = shlex.split(match.group(1))
    repo = tmp_path / "repo"
    env = {"HOME": str(tmp_path), "PATH": os.environ["PATH"], "GIT_CONFIG_NOSYSTEM": "1"}
    sh(tmp_path, "git", "init", "-q", str(repo), env=env)
    for rel in SAMPLE_PATHS:
        if rel not in ("data/forecasts", "data/oracle/daily/forecasts"):  # a file and a folder cannot share a name
            (repo / rel).parent.mkdir(parents=True, exist_ok=True)
            (repo / rel).write_text("x\n")
    sh(repo, "git", "add", "-A", env=env)
    listed = set(sh(repo, "git", "ls-files", "--", *pathspec, env=env).splitlines())
    everything = set(sh(repo, "git", "ls-files", env=env).splitlines())
    assert {p for p in everything if is_submission(p)} <= listed
    assert listed == {p for p in everything if p.startswith("data/") and p not in paths.REVIEWED}
    assert "data/hub.toml" in everything and "data/resolutions/manifold.csv" in listed


def test_every_path_only_the_hub_writes_is_refused_to_a_pull_request_and_owned():
    """One list (paths.HUB_WRITTEN, from the schemas) drives the validator's refusal, the audit's rule and
    CODEOWNERS: every table but the submitted ones is the hub's, and none of its files is a submission
    a pull request may make (the hub's own prescient.* files in the submission folders are refused by
    their prefix)."""
    from generator.schemas import ALL_TABLES
    from generator.submissions import paths, policy

    sample = {"<source>": "sim", "<YYYY-MM>": "2026-01", "<YYYY>": "2026", "<due>": "2026-01-25", "<set>": "daily", "<team>.<model>": "acme.gpt-x"}
    for table in ALL_TABLES:
        path = table.path
        for field, value in sample.items():
            path = path.replace(field, value)
        assert paths.is_hub_written(path) == (table.name not in paths.SUBMITTED_TABLES), table.name
    rules = owner_rules(codeowners_module().render(["@alice"]))
    written = [p for p in repo_paths() if paths.is_hub_written(p)]
    assert {
        "data/llm/2026-01-25/prescient.gpt-x-arena.jsonl",
        "data/resolutions/manifold.csv",
        "data/forecasts/2026-01-25/prescient.naive.csv",
    } <= set(written)
    for path in written:
        target, problems = paths.classify(path)
        codes = [p.code for p in problems + policy.check_reserved_prefix(target)]
        assert codes[:1] in (["hub-ledger"], ["reserved-prefix"]), (path, codes)
        assert owners_of(path, rules) or target.model, path  # owned, or a prescient.* file the check refuses
    assert not any(
        paths.is_hub_written(p)
        for p in (
            "data/hub.toml",
            "data/README.md",
            "data/scores/.gitkeep",
            "data/maintainer/actions.csv",
            "data/forecasts/2026-01-25/acme.gpt-x.csv",
        )
    )


def test_the_audit_runs_on_full_history_in_ci_and_in_the_ci_script():
    audit = load("ci.yml")["jobs"]["audit"]["steps"]
    checkout = next(s for s in audit if "actions/checkout" in s.get("uses", ""))
    assert checkout["with"]["fetch-depth"] == 0  # a shallow clone cannot show what came before
    assert any('prescient verify --hub "$GITHUB_WORKSPACE" --git' in s.get("run", "") for s in audit)
    assert "\n  .venv/bin/prescient verify --hub . --git\n" in (ROOT / ".ci/run").read_text(encoding="utf-8")


def test_workflows_match_the_github_schema():
    exe = installed("check-jsonschema")
    if exe is None:
        pytest.skip("check-jsonschema is not installed (pip install check-jsonschema)")
    files = [str(WORKFLOWS / n) for n in NAMES]
    done = subprocess.run([exe, "--builtin-schema", "vendor.github-workflows", *files], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    form = ROOT / ".github" / "ISSUE_TEMPLATE" / "register-model.yml"
    done = subprocess.run([exe, "--builtin-schema", "vendor.github-issue-forms", str(form)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_zizmor_reports_no_high_severity_finding():
    exe = installed("zizmor")
    if exe is None:
        pytest.skip("zizmor is not installed (pip install zizmor)")
    done = subprocess.run(
        [exe, "--offline", "--format", "json", "--min-severity", "high", str(WORKFLOWS)], capture_output=True, text=True, check=False
    )
    findings = json.loads(done.stdout or "[]")
    assert findings == [], json.dumps(findings, indent=1)[:3000]


# -- the nightly data step, run as written ---------------------------------------------------------


def step_script(step_id: str) -> str:
    return next(s for s in steps(load("nightly.yml")) if s.get("id") == step_id)["run"]


def sh(cwd: Path, *args: str, env: dict | None = None) -> str:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, check=True, env=env).stdout.strip()


@pytest.fixture()
def clone(tmp_path) -> tuple[Path, Path, dict]:
    """A hub pushed to a bare "origin", a fresh clone of it, and the env the step runs with."""
    env = {
        "HOME": str(tmp_path),
        "PATH": f"{tmp_path / 'bin'}:{os.environ['PATH']}",
        "BRANCH": "main",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GITHUB_OUTPUT": str(tmp_path / "output"),
    }
    (tmp_path / "bin").mkdir()
    wrapper = tmp_path / "bin" / "prescient"
    # The real command; FAKE_NIGHTLY_EXIT makes `nightly` exit with that code after it ran (and wrote).
    wrapper.write_text(
        f'#!/bin/sh\n"{sys.executable}" -m generator "$@"; rc=$?\n'
        'if [ "$1" = nightly ] && [ -n "${FAKE_NIGHTLY_EXIT:-}" ]; then exit "$FAKE_NIGHTLY_EXIT"; fi\n'
        'exit "$rc"\n'
    )
    wrapper.chmod(0o755)
    origin, seed, work = tmp_path / "origin.git", tmp_path / "seed", tmp_path / "work"
    sh(tmp_path, "git", "init", "-q", "--bare", "-b", "main", str(origin), env=env)
    sh(tmp_path, "git", "init", "-q", "-b", "main", str(seed), env=env)
    (seed / "data").mkdir()
    shutil.copy(TEMPLATE, seed / "data" / "hub.toml")
    made = "2026-01-01T00:00:00Z"  # before the nights the tests run, as a hub's first commit is
    commit(seed, "a new hub", {**env, "GIT_AUTHOR_DATE": made, "GIT_COMMITTER_DATE": made})
    sh(seed, "git", "push", "-q", str(origin), "main", env=env)
    sh(tmp_path, "git", "clone", "-q", str(origin), str(work), env=env)
    return origin, work, env


def commit(repo: Path, message: str, env: dict) -> None:
    sh(repo, "git", "add", "-A", env=env)
    sh(repo, "git", "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", message, env=env)


def run_step(work: Path, env: dict, as_of: datetime, **extra: str) -> subprocess.CompletedProcess:
    """The data step, then (if it passed) the push step, then the job's verdict as its last step gives it."""
    epoch = str(int(as_of.timestamp()))

    def run(script):
        return subprocess.run(
            ["bash", "-c", script],
            cwd=work,
            capture_output=True,
            text=True,
            check=False,
            env={**env, "SOURCE_DATE_EPOCH": epoch, **extra},
            timeout=300,
        )

    data = run(step_script("data"))
    if data.returncode != 0:
        return data
    push = run(step_script("push"))
    status = Path(env["GITHUB_OUTPUT"]).read_text().split("status=")[-1].split()[0]
    code = push.returncode or (int(status) if status not in ("0", "6") else 0)
    return subprocess.CompletedProcess(push.args, code, data.stdout + push.stdout, data.stderr + push.stderr)


def origin_log(origin: Path, env: dict) -> list[str]:
    return sh(origin, "git", "log", "--format=%s", "main", env=env).splitlines()


def test_nightly_step_commits_once_and_a_rerun_commits_nothing(clone):
    origin, work, env = clone
    as_of = datetime(2026, 1, 16, tzinfo=UTC)
    first = run_step(work, env, as_of)
    assert first.returncode == 0, first.stdout + first.stderr
    assert origin_log(origin, env) == ["nightly: data as of 2026-01-16T00:00:00Z", "a new hub"]
    assert "data/rounds/2026-01-25/questions.csv" in sh(work, "git", "ls-files", env=env).splitlines()
    second = run_step(work, env, as_of)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "nothing to commit" in second.stdout
    assert origin_log(origin, env) == ["nightly: data as of 2026-01-16T00:00:00Z", "a new hub"]
    assert sh(work, "git", "status", "--porcelain", env=env) == ""
    assert "status=0" in Path(env["GITHUB_OUTPUT"]).read_text().splitlines()


def test_nightly_step_survives_a_push_race(clone, tmp_path):
    origin, work, env = clone
    other = tmp_path / "other"
    sh(tmp_path, "git", "clone", "-q", str(origin), str(other), env=env)
    (other / "data" / "models").mkdir(parents=True)
    (other / "data" / "models" / "acme.gpt-x.yml").write_text("name: X\norganization: Acme\nkind: llm\nmaintainers: [alice]\n")
    commit(other, "merge acme's registration", env)
    sh(other, "git", "push", "-q", "origin", "main", env=env)
    done = run_step(work, env, datetime(2026, 1, 16, tzinfo=UTC))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "push raced" in done.stdout and "rebasing" in done.stdout
    assert origin_log(origin, env) == ["nightly: data as of 2026-01-16T00:00:00Z", "merge acme's registration", "a new hub"]


@pytest.mark.parametrize("code", [3, 6])
def test_nightly_step_commits_what_was_written_whatever_the_exit_code(clone, code):
    """Exit 3 (a broken file) after the fetch stage wrote the night's snapshots: they are pushed all the
    same, and the step still fails (6: the site is built, and the job fails at its last step)."""
    origin, work, env = clone
    done = run_step(work, env, datetime(2026, 1, 16, tzinfo=UTC), FAKE_NIGHTLY_EXIT=str(code))
    assert done.returncode == (0 if code == 6 else code), done.stdout + done.stderr
    assert origin_log(origin, env) == [f"nightly: data as of 2026-01-16T00:00:00Z (exit {code})", "a new hub"]
    assert "data/rounds/2026-01-25/questions.csv" in sh(origin, "git", "ls-tree", "-r", "--name-only", "main", env=env).splitlines()
    assert f"status={code}" in Path(env["GITHUB_OUTPUT"]).read_text().splitlines()


@pytest.mark.parametrize("code", [2, 7])
def test_nightly_step_commits_nothing_when_the_hub_refused_to_start(clone, code):
    """2 (bad hub.toml) and 7 (the lock is held): nothing of this run was written; nothing is pushed."""
    origin, work, env = clone
    done = run_step(work, env, datetime(2026, 1, 16, tzinfo=UTC), FAKE_NIGHTLY_EXIT=str(code))
    assert done.returncode == code, done.stdout + done.stderr
    assert origin_log(origin, env) == ["a new hub"]


def test_nightly_restores_the_cache_where_the_nightly_keeps_it_before_the_data_step():
    from generator.store.cache.disk import default_dir

    wf = load("nightly.yml")
    names = [s.get("id") or s.get("name") for s in steps(wf)]
    cache = next(s for s in steps(wf) if s.get("uses", "").startswith("actions/cache@"))
    assert names.index(cache["name"]) < names.index("data")
    where = default_dir(ROOT, {}).parent  # no PRESCIENT_CACHE_DIR or XDG_CACHE_HOME, as on a runner
    assert where == Path(cache["with"]["path"]).expanduser()
    # a key per run, restored from the latest earlier one: GitHub's caches are immutable per key
    assert "github.run_id" in cache["with"]["key"]
    assert cache["with"]["key"].startswith(cache["with"]["restore-keys"])


# -- the site job: the data checked from the night's checkpoint, the pages built from the files alone -----

SITE_CHECK = "Check that the pushed data is what the night's full audit accepted"


def site_step(name: str) -> str:
    return next(s for s in load("nightly.yml")["jobs"]["site"]["steps"] if s.get("name") == name)["run"].strip()


def test_the_site_is_deployed_only_after_a_passing_audit_and_built_without_the_cache():
    wf = load("nightly.yml")
    nightly, site = wf["jobs"]["nightly"], wf["jobs"]["site"]
    assert nightly["outputs"]["audit"] == "${{ steps.audit.outputs.status }}"
    assert "needs.nightly.outputs.audit == '0'" in site["if"]
    checkout = next(s for s in site["steps"] if "actions/checkout" in s.get("uses", ""))
    assert checkout["with"]["fetch-depth"] == 2, "the pushed commit and the audited commit it adds the checkpoint of"
    assert site_step(SITE_CHECK) == "prescient verify --hub . --git"
    assert site_step("Build the site from the files alone") == "prescient build --hub . --no-cache"
    assert not any("actions/cache" in s.get("uses", "") for s in site["steps"]), "the site job reads no cache"
    assert not any("build" in s.get("run", "") and "--no-cache" not in s["run"] for s in site["steps"] if "prescient" in s.get("run", ""))


def test_a_slow_audit_never_keeps_the_night_from_being_pushed():
    """The audit has a limit of its own inside the job's, and running out of it goes on to the push (then
    fails the job: no status is not a passing status)."""
    job = load("nightly.yml")["jobs"]["nightly"]
    ids = [s.get("id") for s in job["steps"]]
    audit = job["steps"][ids.index("audit")]
    assert ids.index("data") < ids.index("audit") < ids.index("push")
    assert audit["continue-on-error"] is True and audit["timeout-minutes"] < job["timeout-minutes"]
    verdict = next(s for s in job["steps"] if s.get("name") == "Fail when the full audit of the history did not pass")
    assert verdict["if"] == "steps.audit.outputs.status != '0'" and "exit 1" in verdict["run"]


def test_the_site_job_as_written_checks_from_the_nights_checkpoint_on_a_shallow_checkout(clone, tmp_path):
    """The nightly job's data, audit and push steps as written, then the site job's on a depth-2 checkout
    of the pushed commit: its check starts from the checkpoint the audit just recorded (nothing
    rescored), its build writes the pages `verify` regenerates, and a commit the audit did not see fails
    the check."""
    origin, work, env = clone
    as_of = datetime(2026, 1, 16, tzinfo=UTC)
    epoch = str(int(as_of.timestamp()))
    when = {"GIT_AUTHOR_DATE": f"{epoch} +0000", "GIT_COMMITTER_DATE": f"{epoch} +0000"}  # the run's commits, at its time

    def run(script, cwd, **more):
        return subprocess.run(
            ["bash", "-c", script],
            cwd=cwd,
            capture_output=True,
            text=True,
            check=False,
            env={**env, **more},
            timeout=300,
        )

    for step in ("data", "audit", "push"):
        done = run(step_script(step), work, SOURCE_DATE_EPOCH=epoch, **when)
        assert done.returncode == 0 and (step != "audit" or "verified" in done.stdout), f"{step}: {done.stdout}{done.stderr}"
    outputs = Path(env["GITHUB_OUTPUT"]).read_text().splitlines()
    assert outputs.count("status=0") == 2, outputs  # the data step's and the audit's
    assert origin_log(origin, env)[:2] == ["nightly: the audit's checkpoint", "nightly: data as of 2026-01-16T00:00:00Z"]
    site = tmp_path / "site-checkout"  # the site job has no SOURCE_DATE_EPOCH: the ledgers' latest time
    sh(tmp_path, "git", "clone", "-q", "--depth", "2", f"file://{origin}", str(site), env=env)
    assert sh(site, "git", "rev-parse", "--is-shallow-repository", env=env) == "true"
    checked = run(site_step(SITE_CHECK), site)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "git history from checkpoint" in checked.stdout and "0 round(s) rescored" in checked.stdout, checked.stdout
    built = run(site_step("Build the site from the files alone").replace(" --no-cache", " --no-cache --no-mkdocs"), site)
    assert built.returncode == 0, built.stdout + built.stderr
    pages = run("prescient verify --hub .", site)
    assert pages.returncode == 0 and re.search(r"ok\s+pages: [1-9]\d* page\(s\) regenerated", pages.stdout), pages.stdout
    # a commit the audit did not see, rewriting a recorded observation: the check no longer passes
    ledger = sorted((site / "data" / "observations").rglob("*.csv"))[-1]
    header, first, *rest = ledger.read_text(encoding="utf-8").splitlines(keepends=True)
    fields = first.split(",")
    fields[header.split(",").index("value")] = "0.123"  # another price, recorded at the same time
    ledger.write_text(header + ",".join(fields) + "".join(rest), encoding="utf-8")
    commit(site, "after the audit", {**env, **when})
    tampered = run(site_step(SITE_CHECK), site)
    assert tampered.returncode == 10 and "ledger-row-rewritten" in tampered.stdout, tampered.stdout + tampered.stderr


def test_the_heads_are_fetched_before_the_receipts_branch_exists(clone, tmp_path):
    """A new hub has no prescient-receipts branch until its first receipt: the nightly still fetches every
    pull request's head (one fetch naming both once fetched nothing, and the round was sealed without them)."""
    origin, work, env = clone
    fork = tmp_path / "fork"
    sh(tmp_path, "git", "clone", "-q", str(origin), str(fork), env=env)
    (fork / "data" / "note.txt").write_text("a pull request's head\n")
    commit(fork, "a forecast", env)
    head = sh(fork, "git", "rev-parse", "HEAD", env=env)
    sh(fork, "git", "push", "-q", "origin", "HEAD:refs/pull/1/head", env=env)
    assert sh(origin, "git", "for-each-ref", "refs/heads/prescient-receipts", env=env) == ""
    done = subprocess.run(
        ["bash", "-c", next(s for s in steps(load("nightly.yml")) if s.get("id") == "heads")["run"]],
        cwd=work,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        env={**env, "TOKEN": "t0ken", "SERVER_URL": "https://github.invalid"},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert sh(work, "git", "rev-parse", "refs/prescient/pull/1", env=env) == head
    assert "no receipts branch yet" in done.stdout
