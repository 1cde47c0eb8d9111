"""Submitting oracle forecast files: the path rules, each content check (code, row, column), and
the whole validation of a working tree."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from generator.cli import main
from generator.models import ModelMeta
from generator.oracle import import_oracle
from generator.submissions import validate_files, validate_pr
from generator.submissions.oracle import check_oracle_forecast
from generator.submissions.paths import ORACLE, classify
from generator.timeutil import parse_ts

from helpers import LAYOFFS, ORACLE_DATA, ORACLE_FORECAST_HEADER, write_hub

AT = parse_ts("2026-01-02T00:00:00Z")
FILE = "data/oracle/news/forecasts/acme.gpt-x.csv"
QUESTIONS = "data/oracle/news/questions.csv"


@pytest.fixture(scope="module")
def hub(tmp_path_factory) -> Path:
    root = write_hub(tmp_path_factory.mktemp("oracle") / "hub")
    import_oracle(root, ORACLE_DATA / "questions.csv", "news", parse_ts("2026-01-01T00:00:00Z"))
    (root / "data" / "models").mkdir()
    (root / "data" / "models" / "acme.gpt-x.yml").write_bytes(ModelMeta("acme.gpt-x", "GPT-X", "Acme", "llm", maintainers=("octo",)).to_yaml())
    return root


def found(hub: Path, body: str) -> list[tuple[str, int | None, str | None]]:
    problems = check_oracle_forecast(body.encode(), FILE, (hub / QUESTIONS).read_bytes(), QUESTIONS)
    return [(p.code, p.row, p.column) for p in problems]


@pytest.mark.parametrize(
    "path, code",
    [
        ("data/oracle/news/forecasts/acme.gpt-x.csv", None),
        ("data/oracle/news/forecasts/acme.gpt-x.json", "bad-extension"),
        ("data/oracle/news/forecasts/Acme.csv", "bad-file-name"),
        ("data/oracle/News_Set/forecasts/acme.gpt-x.csv", "bad-oracle-folder"),
        ("data/oracle/news/forecasts/2024/acme.gpt-x.csv", "bad-oracle-folder"),
        ("data/oracle/news/questions.csv", "hub-ledger"),  # the set is the hub's
    ],
)
def test_oracle_paths(path, code):
    target, problems = classify(path)
    assert [p.code for p in problems] == ([code] if code else [])
    if code is None:
        assert (target.kind, target.model, target.question_set, target.fmt) == (ORACLE, "acme.gpt-x", "news", "csv")


def test_a_good_file_with_a_refusal_and_left_out_questions_passes(hub):
    assert found(hub, ORACLE_FORECAST_HEADER + "tf-1,0.8,0.2,,,\nmc-1,0.1,0.6,0.2,0.1,why\n" + f"{LAYOFFS},,,,,I cannot know\n") == []
    assert found(hub, ORACLE_FORECAST_HEADER + "tf-1,0.3333333,0.6666667,,,\n") == []  # within 1e-6 of 1


def test_every_row_problem_is_reported_with_its_code_row_and_column(hub):
    body = (
        ORACLE_FORECAST_HEADER
        + "\n".join(
            [
                "tf-1,0.8,0.3,,,",  # 2: sums to 1.1
                "tf-2,0.5,0.5,0,,",  # 3: C is not offered on a true/false question
                "mc-1,0.5,0.5,,,",  # 4: C and D of a multiple-choice question left empty
                "nope,0.5,0.5,,,",  # 5: not in the set
                "tf-1,1,0,,,",  # 6: duplicate
                f"{LAYOFFS},0.2,1.2,abc,0,",  # 7: out of range, not a number
                ",0.5,0.5,,,",  # 8: empty id
                "tf-2,nan,,,,",  # 9: not finite, one offered option missing, and a duplicate
            ]
        )
        + "\n"
    )
    assert found(hub, body) == [
        ("probabilities-not-summing", 2, None),
        ("option-not-offered", 3, "prob_c"),
        ("empty-value", 4, "prob_c"),
        ("empty-value", 4, "prob_d"),
        ("unknown-question", 5, "question_id"),
        ("probability-out-of-range", 7, "prob_b"),
        ("probability-not-a-number", 7, "prob_c"),
        ("empty-value", 8, "question_id"),
        ("probability-not-finite", 9, "prob_a"),
        ("empty-value", 9, "prob_b"),
        ("duplicate-forecast", 6, "question_id"),
        ("duplicate-forecast", 9, "question_id"),
    ]


def test_file_level_problems(hub):
    assert found(hub, "question_id,prob_a,prob_b,probability\n") == [
        ("missing-column", 1, "prob_c"),
        ("missing-column", 1, "prob_d"),
        ("missing-column", 1, "reasoning"),
        ("unknown-column", 1, "probability"),
    ]
    assert found(hub, ORACLE_FORECAST_HEADER) == [("no-forecasts", None, None)]
    assert found(hub, ORACLE_FORECAST_HEADER.replace("\n", "\r\n")) == [("no-forecasts", None, None)]  # CRLF: RFC 4180's ending
    assert found(hub, ORACLE_FORECAST_HEADER.replace("\n", "\r")) == [("crlf-line-endings", 1, None), ("no-forecasts", None, None)]
    assert check_oracle_forecast(b"x", FILE, None, QUESTIONS)[0].code == "unknown-oracle-set"


def test_validate_files_on_a_working_tree(hub, capsys):
    path = hub / FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(ORACLE_FORECAST_HEADER + "tf-1,0.8,0.2,,,\n")
    assert validate_files(hub, [path], AT).ok
    other = hub / "data/oracle/other/forecasts/acme.gpt-x.csv"
    other.parent.mkdir(parents=True)
    other.write_text(ORACLE_FORECAST_HEADER + "tf-1,0.8,0.3,,,\n")
    report = validate_files(hub, [other], AT)
    assert [p.code for p in report.problems] == ["author-unchecked", "unknown-oracle-set"]  # the warning: who will submit is the PR's
    path.write_text(ORACLE_FORECAST_HEADER + "tf-1,0.8,0.3,,,\n")
    assert main(["validate", "--hub", str(hub), "--at", "2026-01-02T00:00:00Z", str(path)]) == 9
    assert "probabilities-not-summing" in capsys.readouterr().out


def git(repo: Path, *args: str) -> str:
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.org",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.org",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_CONFIG_SYSTEM": "/dev/null",
        "HOME": str(repo),
        "PATH": os.environ["PATH"],
    }
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, env=env, check=True).stdout.strip()


def test_a_pull_request_adding_an_oracle_forecast_file(tmp_path):
    repo = write_hub(tmp_path / "repo")
    import_oracle(repo, ORACLE_DATA / "questions.csv", "news", parse_ts("2026-01-01T00:00:00Z"))
    (repo / "data" / "models").mkdir()
    (repo / "data" / "models" / "acme.gpt-x.yml").write_bytes(ModelMeta("acme.gpt-x", "GPT-X", "Acme", "llm", maintainers=("octo",)).to_yaml())
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    base = git(repo, "rev-parse", "HEAD")
    (repo / FILE).parent.mkdir(parents=True)
    (repo / FILE).write_text(ORACLE_FORECAST_HEADER + "tf-1,0.8,0.2,,,\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "forecasts")
    assert validate_pr(repo, base, "HEAD", "octo", AT).ok
    assert [p.code for p in validate_pr(repo, base, "HEAD", "mallory", AT).problems] == ["not-a-maintainer"]
    (repo / FILE).write_text(ORACLE_FORECAST_HEADER + "tf-1,0.8,0.1,,,\n")
    git(repo, "commit", "-q", "-am", "edit")
    assert [p.code for p in validate_pr(repo, base, "HEAD", "octo", AT).problems] == ["probabilities-not-summing"]


@pytest.mark.parametrize(
    "cell, code",
    [
        ("0.7\u00a0", "probability-not-a-number"),  # a no-break space: the build's reader refuses it
        ("\u0660.7", "probability-not-a-number"),  # an Arabic-Indic digit
        ("\u00a0", "probability-not-a-number"),  # not empty to the validator, so not a refusal
    ],
)
def test_an_oracle_probability_the_build_cannot_read_is_refused(hub, cell, code):
    body = ORACLE_FORECAST_HEADER + f'tf-1,"{cell}",0.3,,,\n'
    assert (code, 2, "prob_a") in found(hub, body)


def test_the_sum_uses_the_values_the_reader_reads(hub):
    assert found(hub, ORACLE_FORECAST_HEADER + "tf-1, 0.7 ,\t0.3,,,\n") == []
    assert found(hub, ORACLE_FORECAST_HEADER + "tf-1,7e-1,3E-1,,,\n") == []
