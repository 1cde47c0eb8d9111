"""The workflows run as written against a repository whose files attack the tools that run there.

A pull request (or a merged commit) holding ``pip/``, ``generator/``, ``sitecustomize.py`` and
``usercustomize.py`` at the repository root must never have them imported: ``python -m pip`` puts
the working directory on ``sys.path``, so a checked-out ``pip/`` would replace pip and could fake a
green check and the bot's comment. Each hostile module appends to a marker file when imported; the
tests prove the marker is never written.

The steps are read from the YAML and run by a small emulation of the runner: ``actions/checkout``
is reproduced with real git against a bare "origin" holding ``refs/pull/1/head`` and
``refs/pull/1/merge`` (what GitHub serves for a pull request), ``${{ }}`` expressions are looked up
in a fixed context (an unknown one fails the test), ``if:`` is evaluated, and ``run:`` scripts run
in bash with the step's env. Nothing reaches the network: ``python`` is a shim that runs the real
interpreter with the same flags and working directory but turns ``pip install ...`` into
``pip --version`` (pip is imported exactly as the step would import it) and logs what was to be
installed; ``pip`` is likewise a logging shim; ``prescient`` is the installed console script.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

from helpers import ROOT

pytestmark = pytest.mark.e2e

WORKFLOWS = ROOT / ".github" / "workflows"
TEMPLATE = ROOT / "generator" / "data_templates" / "demo-hub.toml"
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
MODEL = "name: X\norganization: Acme\nkind: llm\nmaintainers: [alice]\n"


def load(name: str) -> dict:
    return yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))


def triggers(workflow: dict) -> dict:
    return workflow.get("on", workflow.get(True))


# -- the repository under attack -------------------------------------------------------------------


def hostile_files(marker: Path) -> dict[str, str]:
    """Modules that append their name to ``marker`` when imported (pip/__main__ also fakes a success)."""

    def touch(name: str) -> str:
        return f"open({str(marker)!r}, 'a').write({name!r} + '\\n')\n"

    return {
        "pip/__init__.py": touch("pip/__init__.py"),
        "pip/__main__.py": touch("pip/__main__.py") + "print('pip 99.0 (everything is fine)')\nraise SystemExit(0)\n",
        "generator/__init__.py": touch("generator/__init__.py"),
        "generator/__main__.py": touch("generator/__main__.py"),
        "generator/cli/__init__.py": touch("generator/cli/__init__.py") + "def main():\n    return 0\n",
        "sitecustomize.py": touch("sitecustomize.py"),
        "usercustomize.py": touch("usercustomize.py"),
        "json.py": touch("json.py"),
        "pyproject.toml": ('[build-system]\nrequires = []\nbuild-backend = "evil"\nbackend-path = ["."]\n'),
        "evil.py": touch("evil.py"),
    }


def git(cwd: Path, *args: str, env: dict) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 0, f"git {' '.join(args)}: {done.stderr}"
    return done.stdout.strip()


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")


def commit(repo: Path, message: str, env: dict) -> str:
    git(repo, "add", "-A", env=env)
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", message, env=env)
    return git(repo, "rev-parse", "HEAD", env=env)


@dataclass
class Machine:
    """A runner's world: the bare origin, the workspace, shims on PATH and the marker file."""

    tmp: Path
    origin: Path
    workspace: Path
    temp: Path
    marker: Path
    log: Path
    env: dict
    base: str = ""
    head: str = ""
    context: dict = field(default_factory=dict)

    def installs(self) -> list[dict]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines()]

    def imported(self) -> list[str]:
        return self.marker.read_text().splitlines() if self.marker.exists() else []


def shims(bin_dir: Path, log: Path) -> None:
    """``python``/``python3``: the real interpreter, same flags and cwd, ``pip install`` made offline."""
    bin_dir.mkdir()
    python = f"""#!{sys.executable}
import json, os, sys
args = sys.argv[1:]
with open({str(log)!r}, "a") as f:
    f.write(json.dumps({{"tool": "python", "cwd": os.getcwd(), "args": args}}) + "\\n")
if "-m" in args:
    i = args.index("-m")
    if args[i + 1:i + 2] == ["pip"] and "install" in args[i + 2:]:
        args = args[:i + 2] + ["--version"]
os.execv({sys.executable!r}, [{sys.executable!r}, *args])
"""
    pip = f"""#!{sys.executable}
import json, os, sys
with open({str(log)!r}, "a") as f:
    f.write(json.dumps({{"tool": "pip", "cwd": os.getcwd(), "args": sys.argv[1:]}}) + "\\n")
os.execv({sys.executable!r}, [{sys.executable!r}, "-I", "-m", "pip", "--version"])
"""
    # What `pip install` puts on PATH: a script whose own folder, not the cwd, is sys.path[0].
    prescient = f"#!{sys.executable}\nimport sys\nfrom generator.cli import main\nsys.exit(main())\n"
    for name, text in (("python", python), ("python3", python), ("pip", pip), ("prescient", prescient)):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)


@pytest.fixture()
def machine(tmp_path) -> Machine:
    bin_dir, log, marker = tmp_path / "bin", tmp_path / "installs.jsonl", tmp_path / "IMPORTED"
    shims(bin_dir, log)
    temp = tmp_path / "runner-temp"
    temp.mkdir()
    env = {
        "HOME": str(tmp_path),
        "PATH": f"{bin_dir}:{os.environ['PATH']}",
        "GIT_CONFIG_NOSYSTEM": "1",
        "PIP_NO_INDEX": "1",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "LANG": "C.UTF-8",
    }
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin), env=env)
    return Machine(tmp_path, origin, tmp_path / "workspace", temp, marker, log, env)


def seed_base(m: Machine, extra: dict[str, str] | None = None) -> str:
    """main at origin: a hub (hub.toml, an empty model folder), plus ``extra`` files."""
    seed = m.tmp / "seed"
    git(m.tmp, "init", "-q", "-b", "main", str(seed), env=m.env)
    (seed / "data" / "models").mkdir(parents=True)
    (seed / "data" / "models" / ".gitkeep").write_text("")
    shutil.copy(TEMPLATE, seed / "data" / "hub.toml")
    write(seed, extra or {})
    m.base = commit(seed, "the hub", m.env)
    git(seed, "push", "-q", str(m.origin), "main", env=m.env)
    return m.base


def open_pull_request(m: Machine, files: dict[str, str]) -> None:
    """refs/pull/1/head (the base plus ``files``) and refs/pull/1/merge, as GitHub serves them."""
    seed = m.tmp / "seed"
    git(seed, "checkout", "-q", "-b", "pr", m.base, env=m.env)
    write(seed, files)
    m.head = commit(seed, "a pull request", m.env)
    git(seed, "checkout", "-q", "--detach", m.base, env=m.env)
    git(seed, "-c", "user.name=t", "-c", "user.email=t@example.org", "merge", "-q", "--no-ff", "-m", "merge", m.head, env=m.env)
    merge = git(seed, "rev-parse", "HEAD", env=m.env)
    git(seed, "push", "-q", str(m.origin), f"{m.head}:refs/pull/1/head", f"{merge}:refs/pull/1/merge", env=m.env)
    m.context = {
        "github.event.pull_request.base.sha": m.base,
        "github.event.pull_request.head.sha": m.head,
        "github.event.pull_request.number": "1",
        "github.event.pull_request.user.login": "alice",
        "github.event.pull_request.updated_at": "2026-01-20T12:00:00Z",
        "github.event.repository.default_branch": "main",
        "github.event.workflow_run.id": "4242",
        "github.event.workflow_run.head_sha": m.head,
        "github.token": "ghs_not_a_real_token",
        "github.server_url": "https://github.invalid",
        "github.ref": "refs/pull/1/merge",
    }


# -- a small emulation of the runner ---------------------------------------------------------------


@dataclass
class StepResult:
    name: str
    ran: bool
    returncode: int = 0
    output: str = ""


def substitute(value: object, context: dict) -> str:
    def one(match: re.Match) -> str:
        key = match.group(1)
        assert key in context, f"the emulated runner does not know ${{{{ {key} }}}}; add it to the test's context"
        return context[key]

    return EXPRESSION.sub(one, str(value))


def should_run(condition: object, outputs: dict, failed: bool) -> bool:
    if condition is None:
        return not failed
    text = str(condition).strip()
    text = text[3:-2].strip() if text.startswith("${{") else text
    if text == "always()":
        return True
    if text == "failure()":
        return failed
    if text == "success()":
        return not failed
    match = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)\s*(==|!=)\s*'([^']*)'", text)
    assert match, f"the emulated runner cannot evaluate if: {text}"
    value = outputs.get(match[1], {}).get(match[2], "")
    return not failed and (value == match[4]) == (match[3] == "==")


def checkout(m: Machine, options: dict, default_ref: str) -> None:
    """What actions/checkout leaves: ``ref`` (default: the event's ref) in the workspace."""
    ref = options.get("ref") or default_ref
    depth = int(options.get("fetch-depth", 1))
    assert not options.get("path"), "the emulation checks out into the workspace only"
    git(m.tmp, "init", "-q", str(m.workspace), env=m.env)
    git(m.workspace, "remote", "add", "origin", str(m.origin), env=m.env)
    if depth == 0:
        git(m.workspace, "fetch", "-q", "--tags", "origin", "+refs/heads/*:refs/remotes/origin/*", env=m.env)
        git(m.workspace, "fetch", "-q", "origin", ref, env=m.env)
    else:
        git(m.workspace, "fetch", "-q", f"--depth={depth}", "origin", ref, env=m.env)
    git(m.workspace, "checkout", "-q", "--detach", "FETCH_HEAD", env=m.env)


def run_job(m: Machine, workflow: dict, job: str, default_ref: str) -> list[StepResult]:
    """Run ``job``'s steps in order as the runner would."""
    spec = workflow["jobs"][job]
    base_env = {
        **m.env,
        "GITHUB_WORKSPACE": str(m.workspace),
        "RUNNER_TEMP": str(m.temp),
        "CI": "true",
        "GITHUB_STEP_SUMMARY": str(m.tmp / "summary.md"),
        "GITHUB_ACTIONS": "true",
    }
    for scope in (workflow.get("env", {}), spec.get("env", {})):
        base_env.update({k: substitute(v, m.context) for k, v in scope.items()})
    context = {**m.context, "runner.temp": str(m.temp)}
    outputs: dict[str, dict[str, str]] = {}
    results, failed = [], False
    for index, step in enumerate(spec["steps"]):
        name = step.get("name", step.get("uses", f"step {index}"))
        if not should_run(step.get("if"), outputs, failed):
            results.append(StepResult(name, False))
            continue
        uses = step.get("uses", "")
        if uses.startswith("actions/checkout@"):
            checkout(m, {k: substitute(v, context) for k, v in step.get("with", {}).items()}, default_ref)
            results.append(StepResult(name, True))
            continue
        if uses:  # setup-python (the shims are on PATH), artifacts, pages: nothing to emulate
            results.append(StepResult(name, True))
            continue
        output_file, env_file = m.tmp / f"output-{index}", m.tmp / f"env-{index}"
        output_file.write_text("")
        env_file.write_text("")
        env = {
            **base_env,
            **{k: substitute(v, context) for k, v in step.get("env", {}).items()},
            "GITHUB_OUTPUT": str(output_file),
            "GITHUB_ENV": str(env_file),
        }
        cwd = Path(substitute(step["working-directory"], context)) if "working-directory" in step else m.workspace
        assert "${{" not in step["run"], f"{name}: an expression inside run: (template injection)"
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-e", "-c", step["run"]], cwd=cwd, env=env, capture_output=True, text=True, check=False, timeout=300
        )
        results.append(StepResult(name, True, done.returncode, done.stdout + done.stderr))
        if "id" in step:
            outputs[step["id"]] = dict(line.split("=", 1) for line in output_file.read_text().splitlines() if "=" in line)
        base_env.update(line.split("=", 1) for line in env_file.read_text().splitlines() if "=" in line)
        failed = failed or done.returncode != 0
    return results


def ran(results: list[StepResult]) -> dict[str, StepResult]:
    return {r.name: r for r in results if r.ran}


def log_of(results: list[StepResult]) -> str:
    return "\n".join(f"--- {r.name} (ran={r.ran}, exit {r.returncode})\n{r.output}" for r in results)


# -- validate.yml ----------------------------------------------------------------------------------


def test_validate_never_imports_or_checks_out_the_pull_requests_files(machine):
    """A submission plus a hostile pip/, generator/, sitecustomize.py and build backend at the root."""
    m = machine
    seed_base(m)
    open_pull_request(m, {"data/models/acme.gpt-x.yml": MODEL, **hostile_files(m.marker)})
    results = run_job(m, load("validate.yml"), "validate", default_ref="refs/pull/1/merge")
    log = log_of(results)
    assert m.imported() == [], f"the pull request's code ran: {m.imported()}\n{log}"
    assert not (m.workspace / "pip").exists() and not (m.workspace / "evil.py").exists(), "the pull request's tree was checked out\n" + log
    installs = [i for i in m.installs() if "install" in i["args"]]
    assert installs, "the validator was never installed\n" + log
    for install in installs:
        target = Path(install["cwd"], install["args"][-1])
        assert git(target, "rev-parse", "HEAD", env=m.env) == m.base, "the validator must be installed from the base commit"
        assert not Path(install["cwd"]).is_relative_to(m.workspace), "pip must run outside the checkout"
    validate = ran(results)["Validate the pull request"]
    assert validate.returncode == 9, log  # the hostile files are outside the submission areas
    report = (m.temp / "report.md").read_text(encoding="utf-8")
    assert "outside-submission-area" in report and "acme.gpt-x.yml" in report, report
    assert "pip/__init__.py" in report, "the head's files were read through git"


def test_validate_passes_fast_a_pull_request_that_changes_no_data_file(machine):
    m = machine
    seed_base(m)
    files = {"data/README.md": "x\n", **hostile_files(m.marker)}  # under data/, only the maintainers' own files skip it
    open_pull_request(m, files)
    results = run_job(m, load("validate.yml"), "validate", default_ref="refs/pull/1/merge")
    log = log_of(results)
    assert m.imported() == [], f"the pull request's code ran: {m.imported()}\n{log}"
    assert all(r.returncode == 0 for r in results), log
    assert not [i for i in m.installs() if "install" in i["args"]], "nothing needs installing\n" + log
    report = (m.temp / "report.md").read_text(encoding="utf-8")
    assert "No data files changed" in report and f"{len(files)} other file(s)" in report, report
    assert "No data files changed" in (m.tmp / "summary.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "path",
    [
        "data/forecasts/2026-01-25/acme.gpt-x.csv",
        "data/bets/2026-01-25/acme.gpt-x.csv",
        "data/models/acme.gpt-x.yml",
        "data/oracle/daily/forecasts/acme.gpt-x.csv",
        "data/forecasts/2026-01-25/a\nb.csv",
        "data/rounds/2026-01-25/questions.csv",
        "data/resolutions/sim.csv",
    ],
)
def test_validate_checks_every_submission_path(machine, path):
    """Each submission area (and a hostile name inside one), and every path only the hub writes (a round's
    questions, a source's resolutions), goes to the full validator, which refuses the bad ones."""
    m = machine
    seed_base(m)
    open_pull_request(m, {path: "not,a\nvalid,file\n"})
    results = run_job(m, load("validate.yml"), "validate", default_ref="refs/pull/1/merge")
    validate = ran(results).get("Validate the pull request")
    assert validate is not None and validate.returncode == 9, log_of(results)


def test_validate_runs_on_every_pull_request():
    on = triggers(load("validate.yml"))
    assert set(on) == {"pull_request"}
    assert not set(on["pull_request"] or {}) & {"paths", "paths-ignore", "branches", "branches-ignore"}, (
        "a pull request that changes only code or ledgers must still get a validate check"
    )


# -- every install line of every workflow ----------------------------------------------------------


def install_steps() -> list[tuple[str, str, str]]:
    found = []
    for path in sorted(WORKFLOWS.glob("*.yml")):
        for job, spec in load(path.name)["jobs"].items():
            for step in spec.get("steps", []):
                if re.search(r"\bpip\b", step.get("run", "")):
                    found.append((path.name, job, step["name"]))
    return found


def test_the_install_lines_are_found():
    names = {(w, j) for w, j, _ in install_steps()}
    assert {("validate.yml", "validate"), ("nightly.yml", "nightly"), ("ci.yml", "audit")} <= names


@pytest.mark.parametrize("workflow,job,step", install_steps())
def test_no_install_line_imports_code_from_the_checkout(machine, workflow, job, step):
    """Even main (the nightly, the audit) is treated as hostile: a merged pip/ must not run either."""
    m = machine
    seed_base(m, hostile_files(m.marker))
    open_pull_request(m, {"data/models/acme.gpt-x.yml": MODEL})
    m.context.update(
        {
            "github.ref_name": "main",
            "github.sha": m.base,
            "github.repository": "acme/hub",
            "needs.nightly.outputs.commit": m.base,
            "secrets.METACULUS_TOKEN": "",
            "secrets.FRED_API_KEY": "",
            "secrets.NIGHTLY_PUSH_KEY": "",
            "secrets.PRESCIENT_LLM_API_KEY": "",
            "vars.PRESCIENT_LLM_BASE_URL": "",
            "vars.PRESCIENT_LLM_MODEL": "",
            "vars.PRESCIENT_LLM_PRICE_IN": "",
            "vars.PRESCIENT_LLM_PRICE_OUT": "",
        }
    )
    stub = m.tmp / "bin" / "prescient"  # the install step is under test, not the commands after it
    stub.write_text("#!/bin/sh\nexit 0\n")
    ref = "refs/pull/1/merge" if workflow != "nightly.yml" else "refs/heads/main"
    results = run_job(m, load(workflow), job, default_ref=ref)
    assert (m.workspace / "pip" / "__main__.py").exists(), "the hostile files are in the checkout"
    result = ran(results)[step]
    assert result.returncode == 0, log_of(results)
    assert m.imported() == [], f"{workflow} {step!r} imported {m.imported()} from the checkout\n{log_of(results)}"
    assert m.installs(), log_of(results)


# -- ci.yml's audit: the base commit's verifier over the pull request's data, never its code -------


def _installed_from(m) -> list[Path]:
    return [Path(i["cwd"], i["args"][-1]) for i in m.installs() if "install" in i["args"]]


def test_the_audit_installs_the_base_commits_verifier_and_reads_the_pull_request_as_data(machine):
    m = machine
    seed_base(m)
    open_pull_request(m, {"data/models/acme.gpt-x.yml": MODEL, **hostile_files(m.marker)})
    m.context["github.sha"] = "0" * 40  # a pull request's run: the base sha decides, not this one
    results = run_job(m, load("ci.yml"), "audit", default_ref="refs/pull/1/merge")
    log = log_of(results)
    assert m.imported() == [], f"the pull request's code ran: {m.imported()}\n{log}"
    targets = _installed_from(m)
    assert targets, "the verifier was never installed\n" + log
    for target in targets:
        assert git(target, "rev-parse", "HEAD", env=m.env) == m.base, log
        assert not (target / "pip").exists() and not (target / "evil.py").exists(), log
    step = ran(results)["Recompute and check history"]
    assert step.returncode == 0, log
    assert str(m.workspace) in step.output and (m.workspace / "pip").exists(), "the merged tree is what was audited"


def test_on_a_push_to_main_the_audit_installs_the_pushed_commit(machine):
    m = machine
    seed_base(m)
    open_pull_request(m, {"data/models/acme.gpt-x.yml": MODEL})
    m.context.update({"github.event.pull_request.base.sha": "", "github.sha": m.base, "github.ref": "refs/heads/main"})
    results = run_job(m, load("ci.yml"), "audit", default_ref="refs/heads/main")
    assert [git(t, "rev-parse", "HEAD", env=m.env) for t in _installed_from(m)] == [m.base], log_of(results)
    assert ran(results)["Recompute and check history"].returncode == 0, log_of(results)
