"""Pull-request validation end to end, with real git in a temporary hub.

The base commit holds a hub whose nightly run (as of 2026-01-16) opened the round due
2026-01-25T00:00:00Z, plus two registered models. Each scenario is a branch made like a PR.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from generator.pipeline.nightly import nightly
from generator.schemas import FORECASTS
from generator.store.csvio import read_table
from generator.submissions import render, validate_pr
from generator.timeutil import parse_ts

from helpers import PRESCIENT, ROOT

pytestmark = pytest.mark.e2e

TEMPLATE = ROOT / "generator" / "data_templates" / "demo-hub.toml"
DUE = "2026-01-25"
OWN = f"data/forecasts/{DUE}/acme.gpt-x.csv"
OTHER = f"data/forecasts/{DUE}/other.model.csv"
BEFORE = "2026-01-20T12:00:00Z"
JUST_BEFORE = "2026-01-24T23:59:59Z"
LATE = "2026-01-25T00:00:01Z"


def git(repo: Path, *args: str) -> str:
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.org",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.org",
        "PATH": "/usr/bin:/bin",
        "HOME": str(repo),
    }
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, env=env, check=True)
    return done.stdout.strip()


def commit_all(repo: Path, message: str) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


def model_yml(name: str, maintainers: list[str]) -> str:
    return f"name: {name}\norganization: {name} Labs\nkind: llm\nmaintainers: [{', '.join(maintainers)}]\n"


def forecast_csv(repo: Path, probability: float) -> str:
    questions = pd.read_csv(repo / f"data/rounds/{DUE}/questions.csv", dtype=str, keep_default_na=False)
    rows = [f"{q},{d},{probability},\n" for q, d in zip(questions["question_id"], questions["resolution_date"], strict=True)]
    return "question_id,resolution_date,probability,reasoning\n" + "".join(rows)


@pytest.fixture(scope="module")
def hub(tmp_path_factory) -> tuple[Path, str]:
    repo = tmp_path_factory.mktemp("hub")
    git(repo, "init", "-q", "-b", "main")
    (repo / "data").mkdir()
    shutil.copy(TEMPLATE, repo / "data" / "hub.toml")
    report = nightly(repo, parse_ts("2026-01-16T00:00:00Z"))
    assert report.rounds_opened == [DUE]
    (repo / "data/models/acme.gpt-x.yml").write_text(model_yml("Acme", ["alice"]))
    (repo / "data/models/other.model.yml").write_text(model_yml("Other", ["bob"]))
    (repo / OTHER).write_text(forecast_csv(repo, 0.4))
    return repo, commit_all(repo, "base: an open round and two models")


@pytest.fixture()
def repo(hub):
    path, base = hub
    git(path, "checkout", "-q", "-f", "main")
    git(path, "reset", "-q", "--hard", base)
    git(path, "clean", "-qfdx")
    git(path, "checkout", "-q", "-B", "pr", base)
    return path


def pr(repo: Path, base: str, author: str = "alice", at: str = BEFORE) -> tuple[bool, set[str], object]:
    head = commit_all(repo, "pr")
    report = validate_pr(repo, base, head, author, parse_ts(at))
    return report.ok, {p.code for p in report.problems}, report


def base_of(hub) -> str:
    return hub[1]


def test_a_valid_new_file_passes(hub, repo):
    (repo / OWN).write_text(forecast_csv(repo, 0.6))
    ok, codes, report = pr(repo, base_of(hub))
    assert ok and codes == set(), report.problems
    assert report.files == (OWN,)
    assert "round 2026-01-25 is due 2026-01-25T00:00:00Z (UTC)" in report.notes[0]


def test_the_same_forecast_set_as_forecastbench_json_passes(hub, repo):
    questions = pd.read_csv(repo / f"data/rounds/{DUE}/questions.csv", dtype=str, keep_default_na=False)
    items = [
        {"id": q.split(":", 1)[1], "source": s, "forecast": 0.6, "resolution_date": d or None, "reasoning": None}
        for q, s, d in zip(questions["question_id"], questions["source"], questions["resolution_date"], strict=True)
    ]
    body = {"organization": "Acme", "model": "GPT-X", "model_organization": "Acme", "question_set": f"{DUE}-prescient.json", "forecasts": items}
    (repo / OWN.replace(".csv", ".json")).write_text(json.dumps(body))
    ok, codes, report = pr(repo, base_of(hub))
    assert ok and codes == set(), report.problems


def test_a_late_file_is_rejected(hub, repo):
    (repo / OWN).write_text(forecast_csv(repo, 0.6))
    ok, codes, _ = pr(repo, base_of(hub), at=LATE)
    assert not ok and codes == {"round-closed"}


def test_editing_another_teams_file_is_rejected(hub, repo):
    (repo / OWN).write_text(forecast_csv(repo, 0.6))
    (repo / OTHER).write_text(forecast_csv(repo, 0.99))
    ok, codes, report = pr(repo, base_of(hub))
    assert not ok and codes == {"not-a-maintainer", "multiple-models"}
    denied = [p for p in report.problems if p.code == "not-a-maintainer"]
    assert [p.file for p in denied] == ["data/models/other.model.yml"]


def test_a_non_maintainer_author_is_rejected(hub, repo):
    (repo / OWN).write_text(forecast_csv(repo, 0.6))
    ok, codes, _ = pr(repo, base_of(hub), author="mallory")
    assert not ok and codes == {"not-a-maintainer"}


def test_adding_yourself_as_maintainer_is_judged_by_the_base_metadata(hub, repo):
    (repo / "data/models/acme.gpt-x.yml").write_text(model_yml("Acme", ["alice", "mallory"]))
    (repo / OWN).write_text(forecast_csv(repo, 0.6))
    ok, codes, _ = pr(repo, base_of(hub), author="mallory")
    assert not ok and codes == {"not-a-maintainer"}


@pytest.fixture()
def merged(hub, repo) -> str:
    """A base in which acme's file was merged before the deadline."""
    (repo / OWN).write_text(forecast_csv(repo, 0.6))
    return commit_all(repo, "merge acme's submission")


def test_a_resubmission_before_the_due_time_passes(repo, merged):
    (repo / OWN).write_text(forecast_csv(repo, 0.65))
    ok, codes, report = pr(repo, merged, at=JUST_BEFORE)
    assert ok and codes == set(), report.problems


def test_editing_a_past_rounds_file_is_rejected(repo, merged):
    (repo / OWN).write_text(forecast_csv(repo, 0.65))
    ok, codes, _ = pr(repo, merged, at=LATE)
    assert not ok and codes == {"past-round-changed"}


def test_deleting_a_past_forecast_is_rejected(repo, merged):
    (repo / OWN).unlink()
    ok, codes, report = pr(repo, merged, at="2026-01-26T00:00:00Z")
    assert not ok and codes == {"past-round-changed"}
    assert report.files == (OWN,)


def test_renaming_a_past_forecast_is_rejected(repo, merged):
    git(repo, "mv", OWN, OWN.replace(".csv", ".json"))
    ok, codes, _ = pr(repo, merged, at=LATE)
    assert not ok and {"past-round-changed", "round-closed"} <= codes


def test_files_outside_the_submission_area_are_rejected(hub, repo):
    (repo / OWN).write_text(forecast_csv(repo, 0.6))
    (repo / "generator").mkdir()
    (repo / "generator/evil.py").write_text("print('hi')\n")
    (repo / f"data/rounds/{DUE}/questions.csv").write_text("tampered\n")
    ok, codes, _ = pr(repo, base_of(hub))
    assert not ok and codes == {"outside-submission-area", "hub-ledger"}  # the code; the round, which only the hub writes


def test_registering_a_new_model_with_its_first_file(hub, repo):
    (repo / "data/models/carol.bot.yml").write_text(model_yml("Carol", ["carol"]))
    (repo / f"data/forecasts/{DUE}/carol.bot.csv").write_text(forecast_csv(repo, 0.5))
    ok, codes, report = pr(repo, base_of(hub), author="carol")
    assert ok and codes == {"new-model"}
    assert [p.severity for p in report.problems] == ["warning"]


def test_a_forecast_without_metadata_and_a_symlink(hub, repo):
    (repo / f"data/forecasts/{DUE}/dave.bot.csv").symlink_to("/etc/passwd")
    ok, codes, _ = pr(repo, base_of(hub), author="dave")
    assert not ok and codes == {"not-a-regular-file", "missing-model-metadata"}


def test_base_advancing_after_the_branch_does_not_count_as_a_change(hub, repo):
    (repo / OWN).write_text(forecast_csv(repo, 0.6))
    head = commit_all(repo, "pr")
    git(repo, "checkout", "-q", "main")
    (repo / "data/models/other.model.yml").write_text(model_yml("Other", ["bob", "erin"]))
    main = commit_all(repo, "main moved on")
    report = validate_pr(repo, main, head, "alice", parse_ts(BEFORE))
    assert report.ok and report.files == (OWN,)


def test_the_cli_exit_code_and_json_output(hub, repo, tmp_path):
    (repo / OWN).write_text(forecast_csv(repo, 1.5))
    head = commit_all(repo, "pr")
    out = tmp_path / "report.md"
    args = [
        PRESCIENT,
        "validate",
        "--hub",
        str(repo),
        "--base",
        base_of(hub),
        "--head",
        head,
        "--author",
        "alice",
        "--at",
        BEFORE,
        "--format",
        "json",
    ]
    done = subprocess.run(args + ["--output", str(out)], capture_output=True, text=True, check=False)
    assert done.returncode == 9, done.stderr
    body = json.loads(done.stdout)
    assert body["ok"] is False and {p["code"] for p in body["problems"]} >= {"probability-out-of-range", "low-coverage"}
    assert out.read_text() == done.stdout
    missing = subprocess.run(args[:-4], capture_output=True, text=True, check=False)
    assert missing.returncode == 2 and "--at" in missing.stderr  # a usage error
    unknown = subprocess.run(args[:5] + ["deadbeef"] + args[6:], capture_output=True, text=True, check=False)
    assert unknown.returncode == 1 and "not a commit" in unknown.stderr and "Traceback" not in unknown.stderr


def test_the_cli_checks_working_tree_files(hub, repo):
    (repo / OWN).write_text(forecast_csv(repo, 0.6))
    base = [PRESCIENT, "validate", "--hub", str(repo), OWN]
    assert subprocess.run(base + ["--at", BEFORE], capture_output=True, cwd=repo, check=False).returncode == 0
    late = subprocess.run(base + ["--at", LATE, "--format", "markdown"], capture_output=True, text=True, cwd=repo, check=False)
    assert late.returncode == 9 and "`round-closed`" in late.stdout


def test_round_open_publishes_once_and_refuses_to_overwrite(hub, repo):
    args = [PRESCIENT, "round", "open", "--hub", str(repo), "--due", "2026-02-08T00:00:00Z", "--as-of", "2026-01-16T00:00:00Z"]
    first = subprocess.run(args, capture_output=True, text=True, check=False)
    assert first.returncode == 0, first.stderr
    assert (repo / "data/rounds/2026-02-08/questions.csv").is_file()
    fb = json.loads((repo / "data/rounds/2026-02-08/questions.json").read_text())
    assert fb["forecast_due_date"] == "2026-02-08" and fb["questions"]
    assert (repo / "data/forecasts/2026-02-08/prescient.always-0.5.csv").is_file()
    again = subprocess.run(args, capture_output=True, text=True, check=False)
    assert again.returncode == 4 and "frozen" in again.stderr
    closed = subprocess.run(
        args[:-4] + ["--due", "2026-01-10T00:00:00Z", "--as-of", "2026-01-16T00:00:00Z"], capture_output=True, text=True, check=False
    )
    assert closed.returncode == 2


def test_the_deadline_is_judged_in_utc_whatever_the_offset_of_at(hub, repo):
    (repo / OWN).write_text(forecast_csv(repo, 0.6))
    head = commit_all(repo, "pr")
    on_time = validate_pr(repo, base_of(hub), head, "alice", parse_ts("2026-01-24T18:59:59-05:00"))
    late = validate_pr(repo, base_of(hub), head, "alice", parse_ts("2026-01-24T19:00:00-05:00"))
    assert on_time.ok and not late.ok
    assert [p.code for p in late.problems] == ["round-closed"] and "2026-01-25T00:00:00Z" in late.problems[0].message


def test_a_file_that_passes_is_readable_by_the_nightly_reader(hub, repo):
    (repo / OWN).write_text(forecast_csv(repo, 0.6))
    ok, _, _ = pr(repo, base_of(hub))
    frame = read_table(repo / OWN, FORECASTS)
    assert ok and len(frame) > 0


def _hostile_pr(repo: Path) -> None:
    """Files whose names and cells carry Markdown, HTML, newlines and bytes that are not UTF-8."""
    from helpers import HOSTILE_TEXTS

    names = [h for h in HOSTILE_TEXTS if "\x00" not in h]
    for i, name in enumerate(names):
        for rel in (f"data/forecasts/{DUE}/{name}.csv", f"data/models/{name}{i}.yml", f"data/forecasts/{name}/acme.gpt-x.csv"):
            full = os.fsencode(str(repo / rel))
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "wb") as out:
                out.write(b"question_id,resolution_date,probability,reasoning\n")
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["question_id", "resolution_date", "probability", "reasoning"])
    # a cell with NUL, CR or a byte that is not UTF-8 stops the parse before any message quotes it
    cells = [h.replace("\x00", "").replace("\r", "").encode("utf-8", "replace").decode() for h in HOSTILE_TEXTS]
    writer.writerows([cell, "", "0.5", cell] for cell in cells)
    (repo / OWN).write_text(buffer.getvalue(), encoding="utf-8")


def test_hostile_file_names_and_cells_are_inert_in_every_format(hub, repo):
    from helpers import assert_inert_markdown

    _hostile_pr(repo)
    ok, codes, report = pr(repo, base_of(hub))
    # every row names a question the round lacks: one diagnosis, quoting the first hostile ids
    assert not ok and {"unsafe-path", "bad-file-name", "bad-round-folder", "question-set-mismatch"} <= codes
    assert any("\udcff" in f for f in report.files)  # git gave the bytes; they arrived as surrogate escapes
    assert_inert_markdown(render(report, "markdown"), report)
    json.loads(render(report, "json").encode("utf-8"))
    render(report, "text").encode("utf-8")


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_the_cli_prints_hostile_names_in_every_format(hub, repo, tmp_path, fmt):
    _hostile_pr(repo)
    head = commit_all(repo, "pr")
    out = tmp_path / "report"
    done = subprocess.run(
        [
            PRESCIENT,
            "validate",
            "--hub",
            str(repo),
            "--base",
            base_of(hub),
            "--head",
            head,
            "--author",
            "alice",
            "--at",
            BEFORE,
            "--format",
            fmt,
            "--output",
            str(out),
        ],
        capture_output=True,
        check=False,
    )
    assert done.returncode == 9 and b"Traceback" not in done.stderr, done.stderr.decode("utf-8", "replace")
    text = done.stdout.decode("utf-8")
    assert out.read_bytes() == done.stdout
    if fmt == "json":
        body = json.loads(text)
        assert body["ok"] is False and f"data/forecasts/{DUE}/\\xff\\xfe not UTF-8.csv" in body["files"]
    else:
        assert "\\xff\\xfe not UTF-8" in text


def test_the_cli_checks_a_working_tree_file_whose_name_is_not_utf8(hub, repo):
    name = os.fsencode(str(repo / f"data/forecasts/{DUE}")) + b"/acme.\xff.csv"
    with open(name, "wb") as out:
        out.write(forecast_csv(repo, 0.5).encode())
    for fmt in ("text", "markdown", "json"):
        done = subprocess.run(
            [os.fsencode(PRESCIENT), b"validate", b"--hub", os.fsencode(str(repo)), b"--at", BEFORE.encode(), b"--format", fmt.encode(), name],
            capture_output=True,
            check=False,
        )
        assert done.returncode == 9 and b"Traceback" not in done.stderr, done.stderr.decode("utf-8", "replace")
        assert "acme.\\xff.csv" in done.stdout.decode("utf-8").replace("\\\\", "\\")  # JSON doubles the backslash
