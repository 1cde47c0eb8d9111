"""The parts of `prescient submit` and `round fetch` one at a time (the whole loop, with the real
executable, is tests/submissions/test_submit_e2e.py): how git gets the token, what the site's
rounds.json must say, and what waiting for a verdict gives when GitHub has none."""

from __future__ import annotations

import base64
import itertools
import subprocess

import pytest

from generator.errors import Unreachable
from generator.pipeline.submit import NO_VERDICT, PASSED, Outcome, Planned, pull_body, wait
from generator.sources._util import ParseError
from generator.sources.github_submit import ValidationRun
from generator.sources.hubsite import parse_rounds
from generator.store import gitpush

TOKEN = "ghp_partsSecretToken42"
URL = "https://github.com/alice/hub.git"


def test_git_gets_the_token_in_a_header_of_the_environment_only():
    env = gitpush.credentials_env(URL, TOKEN, base={"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.x", "GIT_CONFIG_VALUE_0": "y"})
    assert env["GIT_CONFIG_COUNT"] == "2" and env["GIT_CONFIG_KEY_0"] == "core.x", "a configuration the environment already sets is kept"
    assert env["GIT_CONFIG_KEY_1"] == "http.https://github.com/.extraheader"
    assert env["GIT_CONFIG_VALUE_1"] == "AUTHORIZATION: basic " + base64.b64encode(f"x-access-token:{TOKEN}".encode()).decode()
    assert env["GIT_TERMINAL_PROMPT"] == "0"
    assert "GIT_CONFIG_COUNT" not in gitpush.credentials_env("file:///tmp/hub.git", TOKEN, base={}), "a remote on disk takes no header"


def test_no_git_command_line_holds_the_token(monkeypatch, tmp_path):
    seen: list[tuple[list[str], dict]] = []

    def run(command, input=None, capture_output=True, check=False, env=None):  # noqa: A002 - subprocess.run's name
        seen.append((command, env or {}))
        out = b"0123456789abcdef0123456789abcdef01234567\trefs/heads/x\n" if "ls-remote" in command else b"ok\n"
        return subprocess.CompletedProcess(command, 0, out, b"")

    monkeypatch.setattr(gitpush.subprocess, "run", run)
    scratch = gitpush.Scratch(tmp_path / "scratch.git", TOKEN)
    scratch.remote_head(URL, "main")
    scratch.fetch(URL, "main")
    scratch.push(URL, "0123456789abcdef0123456789abcdef01234567", "prescient/2026-01-25/acme.x")
    assert len(seen) >= 4 and not any(TOKEN in " ".join(command) for command, _env in seen)
    networked = [env for command, env in seen if {"ls-remote", "fetch", "push"} & set(command)]
    assert len(networked) == 3 and all(env.get("GIT_CONFIG_KEY_0") == "http.https://github.com/.extraheader" for env in networked)


def test_a_git_error_never_shows_the_token(monkeypatch, tmp_path):
    def run(command, input=None, capture_output=True, check=False, env=None):  # noqa: A002
        return subprocess.CompletedProcess(command, 128, b"", f"fatal: could not read from https://x:{TOKEN}@github.com\n".encode())

    monkeypatch.setattr(gitpush.subprocess, "run", run)
    with pytest.raises(gitpush.PrescientError) as error:
        gitpush.Scratch(tmp_path / "scratch.git", TOKEN)
    assert TOKEN not in str(error.value) and "***" in str(error.value)


def round_item(**files) -> dict:
    entry = {"name": "questions.csv", "path": "rounds/2026-01-25/questions.csv", "sha256": "a" * 64, "bytes": 10, **files}
    return {
        "rounds": [
            {"due": "2026-01-25", "state": "open", "due_time": "2026-01-25T00:00:00Z", "files": [entry]},
            {"due": "2026-01-11", "state": "scored"},
        ]
    }


def test_rounds_json_names_each_open_rounds_files_with_their_sha256():
    (only,) = parse_rounds(round_item())
    assert only.due == "2026-01-25" and only.files[0].sha256 == "a" * 64


@pytest.mark.parametrize(
    "change",
    [{"path": "../../etc/passwd"}, {"path": "rounds/2026-01-25/../x.csv"}, {"name": "../questions.csv"}, {"sha256": "x"}, {"bytes": -1}],
    ids=["path", "dots", "name", "sha256", "size"],
)
def test_a_file_entry_that_would_lead_elsewhere_is_refused(change):
    with pytest.raises(ParseError):
        parse_rounds(round_item(**change))


def test_a_site_that_publishes_no_sha256_is_told_so():
    payload = {"rounds": [{"due": "2026-01-25", "state": "open"}]}
    with pytest.raises(ParseError, match="no files with their sha256"):
        parse_rounds(payload)


class NoRunYet:
    def __init__(self, runs):
        self.runs, self.asked = runs, 0

    def validation_runs(self, head):
        self.asked += 1
        return self.runs

    def run_report(self, run_id):
        return "report"


def test_waiting_without_a_run_ends_at_the_timeout_with_no_verdict():
    clock = iter([0.0, 0.0, 5.0, 11.0])
    outcome = Outcome(Planned("2026-01-25", "acme.x", ("data/forecasts/2026-01-25/acme.x.csv",)), {}, head="f" * 40)
    wait(NoRunYet([]), [outcome], timeout=10, clock=lambda: next(clock), sleep=lambda _s: None)
    assert outcome.verdict == NO_VERDICT and "no validation run" in outcome.notes[0]


def test_a_run_awaiting_approval_says_so_and_a_completed_one_passes():
    waiting = ValidationRun(7, "f" * 40, "2026-01-20T12:00:00Z", "action_required", "", "https://github.test/run/7")
    clock = itertools.count(0.0, 6.0)
    outcome = Outcome(Planned("2026-01-25", "acme.x", ()), {}, head="f" * 40)
    wait(NoRunYet([waiting]), [outcome], timeout=10, clock=lambda: next(clock), sleep=lambda _s: None)
    assert outcome.verdict == NO_VERDICT and "approve" in outcome.notes[0]
    done = ValidationRun(8, "f" * 40, "2026-01-20T12:00:00Z", "completed", "success", "https://github.test/run/8")
    outcome = Outcome(Planned("2026-01-25", "acme.x", ()), {}, head="f" * 40)
    wait(NoRunYet([done]), [outcome], timeout=10, clock=lambda: 0.0, sleep=lambda _s: None)
    assert outcome.verdict == PASSED and outcome.run == done


def test_the_pull_requests_body_names_round_model_and_sha256():
    body = pull_body(
        Planned("2026-01-25", "acme.x", ("data/forecasts/2026-01-25/acme.x.csv",)), {"data/forecasts/2026-01-25/acme.x.csv": "b" * 64}, None
    )
    assert "`2026-01-25`" in body and "`acme.x`" in body and "b" * 64 in body


@pytest.mark.parametrize(
    ("command", "message", "unreachable"),
    [("fetch", "fatal: unable to access: Could not resolve host: github.com", True), ("push", "! [rejected] (non-fast-forward)", False)],
    ids=["outage", "refused"],
)
def test_a_remote_that_cannot_be_reached_is_an_outage_one_that_refuses_is_not(monkeypatch, tmp_path, command, message, unreachable):
    def run(argv, input=None, capture_output=True, check=False, env=None):  # noqa: A002
        failed = command in argv
        return subprocess.CompletedProcess(argv, 128 if failed else 0, b"", f"{message}\n".encode() if failed else b"")

    monkeypatch.setattr(gitpush.subprocess, "run", run)
    scratch = gitpush.Scratch(tmp_path / "scratch.git", TOKEN)
    with pytest.raises(gitpush.PrescientError) as error:
        scratch.fetch(URL, "main") if command == "fetch" else scratch.push(URL, "f" * 40, "b")
    assert isinstance(error.value, Unreachable) is unreachable and error.value.exit_code == (6 if unreachable else 1)


def test_new_metadata_without_maintainers_is_claimed_and_someone_elses_refused(tmp_path):
    from generator.pipeline.submit import claim_metadata

    models = tmp_path / "data" / "models"
    models.mkdir(parents=True)
    (models / "acme.bot-zero-shot.yml").write_text("name: bot\norganization: acme\nkind: llm\nmaintainers: []\n")  # as forecast llm writes it
    (models / "acme.other.yml").write_text("name: other\norganization: acme\nkind: llm\nmaintainers: [bob]\n")
    written, found = claim_metadata(tmp_path, ["acme.bot-zero-shot", "acme.other"], "alice")
    assert written == ["data/models/acme.bot-zero-shot.yml"] and "- alice" in (models / "acme.bot-zero-shot.yml").read_text()
    assert [(p.file, p.code) for p in found] == [("data/models/acme.other.yml", "not-a-maintainer")]
