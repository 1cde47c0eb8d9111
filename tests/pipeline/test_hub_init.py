"""`prescient init`: a new hub that is a git repository with no package code and no data of
this one, which passes its own checks at once and runs its nightly, a pull request's validation,
`build` and `verify --git` with the real executable and real git, as a new maintainer would."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from generator.config import BOT_EMAIL
from generator.pipeline.hubinit import MANIFEST, PIN_FILE, hub_workflow, init_hub, shipped_files, upgrade_hub
from generator.pipeline.hubtoml import render_hub_toml
from generator.store.files import load_settings
from generator.timeutil import parse_ts
from generator.vocabulary import known_sources

from helpers import INIT_AT, PRESCIENT, installed, sim_only
from helpers import scene_commit as commit
from helpers import scene_ok as ok
from helpers import scene_run as run

pytestmark = pytest.mark.e2e

DUE = "2026-03-08"


def forecasts(hub: Path, probability: float) -> str:
    questions = pd.read_csv(hub / f"data/rounds/{DUE}/questions.csv", dtype=str, keep_default_na=False)
    rows = [f"{q},{d},{probability},\n" for q, d in zip(questions["question_id"], questions["resolution_date"], strict=True)]
    return "question_id,resolution_date,probability,reasoning\n" + "".join(rows)


def test_a_new_hub_from_init_runs_its_nightly_a_pull_request_build_and_verify_git(tmp_path):
    hub = tmp_path / "lab-hub"
    said = ok(PRESCIENT, "init", str(hub), "--title", "Lab tournament", "--maintainer", "alice", "--as-of", INIT_AT)
    assert f"its first round is due {DUE}T00:00:00Z" in said and "a new git repository" in said
    assert (hub / ".git").is_dir() and not (hub / "generator").exists() and not (hub / "pyproject.toml").exists()
    assert sorted(p.name for p in (hub / "data").iterdir()) == ["hub.toml"], "no data of this repository"
    ok(PRESCIENT, "check-config", "--hub", str(hub))
    ok("python3", ".github/codeowners.py", "--check", cwd=hub)
    assert "* @alice\n" in (hub / ".github/CODEOWNERS").read_text()
    commit(hub, "A new hub (prescient init)", INIT_AT)
    assert run("git", "status", "--porcelain", cwd=hub).stdout == "", ".gitignore leaves nothing out"

    # The maintainer picks the offline world as the hub's source and a weekly cadence.
    text = sim_only((hub / "data/hub.toml").read_text())
    text = text.replace('site_url = ""', 'site_url = "https://lab.example.org/hub/"')
    (hub / "data/hub.toml").write_text(text)
    checked = ok(PRESCIENT, "check-config", "--hub", str(hub), "--as-of", INIT_AT)
    assert "due every 7 day(s)" in checked and "sources enabled: sim\n" in checked + "\n"
    commit(hub, "Sources: the sim world; rounds every week", INIT_AT)

    # The first nightly opens the first round (its freeze time was before the hub existed; the sim world's
    # history covers it, a live source's would not: tests/test_first_round.py).
    night = ok(PRESCIENT, "nightly", "--hub", str(hub), "--as-of", "2026-03-02T12:00:00Z")
    assert f"rounds opened ['{DUE}']" in night
    assert (hub / f"data/rounds/{DUE}/questions.csv").is_file()
    commit(hub, "nightly", "2026-03-02T12:05:00Z", email=BOT_EMAIL)
    base = ok("git", "rev-parse", "HEAD", cwd=hub).strip()

    # A team's pull request, validated as the workflow does, then merged.
    ok("git", "checkout", "-q", "-b", "acme", cwd=hub)
    (hub / "data/models/acme.gpt-x.yml").write_text("name: GPT-X\norganization: Acme\nkind: llm\nmaintainers: [alice]\n")
    (hub / f"data/forecasts/{DUE}/acme.gpt-x.csv").write_text(forecasts(hub, 0.6))
    commit(hub, "acme.gpt-x for round 2026-03-08", "2026-03-03T09:00:00Z")
    head = ok("git", "rev-parse", "HEAD", cwd=hub).strip()
    report = ok(PRESCIENT, "validate", "--hub", str(hub), "--base", base, "--head", head, "--author", "alice", "--at", "2026-03-03T09:05:00Z")
    assert report.startswith("Passed: 2 file(s) checked"), report
    comment = ok(
        PRESCIENT,
        "validate",
        "--hub",
        str(hub),
        "--base",
        base,
        "--head",
        head,
        "--author",
        "alice",
        "--at",
        "2026-03-03T09:05:00Z",
        "--format",
        "markdown",
    )
    assert comment.startswith("## Lab tournament submission check\n"), "the pull-request comment names the hub"
    ok("git", "checkout", "-q", "main", cwd=hub)
    ok("git", "merge", "-q", "--no-ff", "-m", "Merge acme's forecasts", "acme", cwd=hub, at="2026-03-03T10:00:00Z")

    # Nights before and after the due time: the file is recorded, then sealed and scored.
    for at in ("2026-03-04T02:00:00Z", "2026-03-09T02:00:00Z", "2026-03-17T02:00:00Z"):
        done = run(PRESCIENT, "nightly", "--hub", str(hub), "--as-of", at)
        assert done.returncode == 0, done.stderr
        commit(hub, f"nightly {at}", at, email=BOT_EMAIL)
    assert (hub / f"data/scores/{DUE}.csv").is_file()
    assert "acme.gpt-x" in (hub / f"data/scores/{DUE}.csv").read_text()

    ok(PRESCIENT, "build", "--hub", str(hub), timeout=600)
    assert "<title>Leaderboard - Lab tournament</title>" in (hub / "site_src/site/index.html").read_text()
    assert "https://lab.example.org/hub/submit/" in (hub / "site_src/site/sitemap.xml").read_text(), "site_url reaches MkDocs"
    assert run("git", "status", "--porcelain", cwd=hub).stdout == "", "the built site is ignored, not committed"
    audited = run(PRESCIENT, "verify", "--hub", str(hub), "--git")
    assert audited.returncode == 0, (audited.stdout, audited.stderr)


def test_init_refuses_a_folder_that_is_a_hub_or_holds_its_files_and_a_bad_maintainer(tmp_path):
    hub = tmp_path / "hub"
    ok(PRESCIENT, "init", str(hub), "--as-of", INIT_AT)
    again = run(PRESCIENT, "init", str(hub))
    assert again.returncode == 2 and "is a hub already" in again.stderr and "--upgrade" in again.stderr
    clash = tmp_path / "clash"
    (clash / ".github/workflows").mkdir(parents=True)
    (clash / ".github/workflows/nightly.yml").write_text("mine\n")
    done = run(PRESCIENT, "init", str(clash))
    assert done.returncode == 2 and ".github/workflows/nightly.yml" in done.stderr
    assert not (clash / "data").exists(), "nothing written"
    bad = run(PRESCIENT, "init", str(tmp_path / "bad"), "--maintainer", "not a login")
    assert bad.returncode == 2 and "'not a login'" in bad.stderr and not (tmp_path / "bad").exists()
    unknown = run(PRESCIENT, "init", str(tmp_path / "unknown"), "--sources", "manifold,metaculuss")
    assert unknown.returncode == 2 and "metaculuss" in unknown.stderr


def test_the_new_hub_toml_loads_for_every_choice_of_sources_and_names_every_source(tmp_path):
    for chosen in ([], ["sim"], list(known_sources())):
        root = tmp_path / ("-".join(chosen) or "none")
        (root / "data").mkdir(parents=True)
        (root / "data/hub.toml").write_bytes(render_hub_toml("T", ["@acme/team"], parse_ts("2026-03-08T00:00:00Z"), chosen))
        settings = load_settings(root)
        assert sorted(s.name for s in settings.enabled_sources) == sorted(chosen)
        assert {s.name for s in settings.sources} == set(known_sources())
        assert settings.maintainers == ("@acme/team",) and settings.rounds.first_due == parse_ts("2026-03-08T00:00:00Z")


def test_the_hubs_workflows_install_the_pinned_version_never_the_checkout():
    files = shipped_files("prescient==9.9.9")
    workflows = {p: d.decode() for p, d in files.items() if p.startswith(".github/workflows/")}
    assert set(workflows) == {f".github/workflows/{n}.yml" for n in ("ci", "comment", "nightly", "receipts", "validate")}
    for path, text in workflows.items():
        assert '"$GITHUB_WORKSPACE"\n' not in text and "pyproject.toml" not in text, path
    assert files[PIN_FILE].decode().splitlines()[-1] == "prescient==9.9.9"
    assert not any(p.startswith(("generator/", "tests/", "data/")) for p in files)
    with pytest.raises(ValueError, match="cannot rewrite"):
        hub_workflow("x.yml", b"      - run: pip install -e .\n")


def test_upgrade_refreshes_what_the_hub_left_alone_and_keeps_what_it_changed(tmp_path):
    hub = tmp_path / "hub"
    init_hub(hub, parse_ts(INIT_AT), maintainers=["alice"])
    (hub / ".github/workflows/comment.yml").write_text("# the hub's own comment workflow\n")
    stale = hub / ".github/workflows/nightly.yml"
    stale.write_bytes(b"an older version's nightly\n")
    recorded = json.loads((hub / MANIFEST).read_text())
    recorded["files"][".github/workflows/nightly.yml"] = hashlib.sha256(stale.read_bytes()).hexdigest()
    recorded["version"] = "0.0.1"
    (hub / MANIFEST).write_text(json.dumps(recorded))
    # a hub whose skeleton another version wrote is told so, and the commands go on
    for command in (("check-config",), ("build", "--no-mkdocs")):
        done = run(PRESCIENT, *command, "--hub", str(hub))
        assert done.returncode == 0, done.stderr
        assert "[hub-files-version]" in done.stderr and "written by Prescient 0.0.1" in done.stderr, done.stderr
        assert f"prescient init --upgrade {hub}" in done.stderr
    result = upgrade_hub(hub)
    assert result.previous_version == "0.0.1"
    assert result.written == [".github/workflows/nightly.yml"] and result.kept == [".github/workflows/comment.yml"]
    pin = (hub / PIN_FILE).read_text().splitlines()[-1]
    assert stale.read_bytes() == shipped_files(pin)[".github/workflows/nightly.yml"]
    assert (hub / ".github/workflows/comment.yml").read_text() == "# the hub's own comment workflow\n"
    said = ok(PRESCIENT, "init", "--upgrade", str(hub))
    assert "kept .github/workflows/comment.yml: changed by the hub" in said
    assert "hub-files-version" not in run(PRESCIENT, "check-config", "--hub", str(hub)).stderr  # upgraded: nothing to say


def test_the_data_page_lists_every_key_of_every_table_the_check_knows():
    from generator.config import hub_schema
    from generator.site.render import data_dictionary, environment

    page = data_dictionary(environment())
    section = page[page.index("[start:hub-settings]") : page.index("[end:hub-settings]")]
    for table, keys in hub_schema().items():
        assert f"### [{table}]\n" in section
        part = section[section.index(f"### [{table}]\n") :]
        for spec in keys:
            assert f"| `{spec.name}` |" in part.split("\n### ")[0], (table, spec.name)
    assert "| `first_due` | " in section and "| required |" in section
    assert "data/oracle/&lt;question_set&gt;/" in section, "text with angle brackets is escaped, not HTML"


def test_the_hubs_workflows_match_the_github_schema_and_zizmor_finds_nothing_high(tmp_path):
    schema, zizmor = installed("check-jsonschema"), installed("zizmor")
    if schema is None or zizmor is None:
        pytest.skip("check-jsonschema or zizmor is not installed (pip install '.[test]')")
    hub = tmp_path / "hub"
    init_hub(hub, parse_ts(INIT_AT))
    files = sorted(str(p) for p in (hub / ".github/workflows").glob("*.yml"))
    done = subprocess.run([schema, "--builtin-schema", "vendor.github-workflows", *files], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    done = subprocess.run(
        [zizmor, "--offline", "--format", "json", "--min-severity", "high", str(hub / ".github/workflows")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert json.loads(done.stdout or "[]") == [], done.stdout[:3000]


@pytest.mark.parametrize(
    "as_of,due",
    [
        ("2026-03-02T10:00:00Z", "2026-03-08T00:00:00Z"),  # a Monday: that week's Sunday
        ("2026-03-05T00:00:00Z", "2026-03-08T00:00:00Z"),  # a Thursday: 3 days on
        ("2026-03-05T00:00:01Z", "2026-03-15T00:00:00Z"),  # a second short of it
        ("2026-03-07T23:59:00Z", "2026-03-15T00:00:00Z"),
    ],
)  # a Saturday: the next week's
def test_a_new_hubs_first_round_is_due_the_first_sunday_at_least_three_days_on(as_of, due):
    from generator.pipeline.hubinit import first_due_for

    assert first_due_for(parse_ts(as_of)) == parse_ts(due)


def test_init_gives_its_github_workflows_github_receipts_and_check_config_warns_where_they_disagree(tmp_path):
    """A hub made by init runs GitHub's validation and nightly workflows, so its seals must read
    the validation runs (receipts = "github"); under "ledger" a pull request checked before the due
    time and merged after it was ruled out, and nothing said why."""
    hub = tmp_path / "hub"
    ok(PRESCIENT, "init", str(hub), "--maintainer", "alice", "--as-of", INIT_AT)
    assert load_settings(hub).receipts == "github"
    assert '\nreceipts = "github"\n' in (hub / "data/hub.toml").read_text()
    agreed = run(PRESCIENT, "check-config", "--hub", str(hub))
    assert agreed.returncode == 0 and "receipts-mismatch" not in agreed.stdout + agreed.stderr
    text = (hub / "data/hub.toml").read_text()
    (hub / "data/hub.toml").write_text(text.replace('\nreceipts = "github"\n', '\nreceipts = "ledger"\n'))
    ledger = run(PRESCIENT, "check-config", "--hub", str(hub))
    assert ledger.returncode == 0 and "[receipts-mismatch]" in ledger.stderr and 'set receipts = "github"' in ledger.stderr
    (hub / "data/hub.toml").write_text(text)
    for name in ("validate.yml", "nightly.yml"):
        (hub / ".github/workflows" / name).unlink()
    github = run(PRESCIENT, "check-config", "--hub", str(hub))
    assert github.returncode == 0 and "[receipts-mismatch]" in github.stderr and 'set receipts = "ledger"' in github.stderr
