"""The git history audit (`prescient verify --git`) on a real repository in tmp_path."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from generator.audit import git as audit_git
from generator.audit.changes import FileChange, history, parse_log
from generator.audit.digests import digested_nights_at
from generator.audit.ledgers import appended, ledger_rewrites
from generator.schemas import BETS, ORACLE_QUESTIONS, QUESTIONS

from helpers import commit_at, first_parent_line, git, rewrite_an_observation

pytestmark = pytest.mark.e2e

OBS = "data/observations/sim/2026-01.csv"
HISTORY = "data/leaderboard/history.csv"


@pytest.fixture
def repo(git_season: Path, tmp_path: Path) -> Path:
    """A private copy of the season (working tree and .git) that a test may change."""
    return Path(shutil.copytree(git_season, tmp_path / "hub"))


NO_COMMIT_AFTER = {  # the cases that add no commit after the season (nothing for a checkpoint to skip)
    "test_a_clean_history_has_no_problem_and_after_due_baselines_are_not_reported",
    "test_a_bad_ref_is_a_clear_error",
    "test_a_shallow_clone_is_checked_as_far_as_it_goes_and_says_so",
    "test_committed_before_matches_the_exact_bytes",
}


@pytest.fixture(autouse=True)
def both_ways(request, monkeypatch):
    """The proof that the checkpointed walk finds what the full one finds: every walk a case of
    this module makes on the season's repository is made again from the newest commit of the untampered
    season on its first-parent line (the checkpoint a nightly would have recorded before the tamper),
    and must find the same problems, message for message."""
    if "repo" not in request.fixturenames:
        yield
        return
    season, full_walk, compared = set(first_parent_line(request.getfixturevalue("git_season"))), audit_git.audit_history, []

    def both(where, rev="HEAD", *args, **kw):
        changes, found = full_walk(where, rev, *args, **kw)
        line = first_parent_line(Path(where), rev)
        start = next((sha for sha in line if sha in season), None)
        if start is not None and start != line[0]:
            checkpoint = audit_git.Start(start, digested_nights_at(Path(where), start))
            assert full_walk(where, rev, *args, start=checkpoint, **kw)[1] == found
            compared.append(start)
        return changes, found

    monkeypatch.setattr(audit_git, "audit_history", both)
    yield
    assert bool(compared) == (request.node.originalname not in NO_COMMIT_AFTER), f"compared {len(compared)} walk(s)"


def codes(problems) -> list[str]:
    return [p.code for p in problems]


def test_a_clean_history_has_no_problem_and_after_due_baselines_are_not_reported(repo: Path):
    changes, problems = audit_git.audit_history(repo)
    assert problems == []
    late_hub_files = [c for c in changes if c.path.startswith("data/forecasts/2026-01-25/prescient.imputed")]
    assert late_hub_files and late_hub_files[0].time > "2026-01-25T00:00:00Z"  # written after due, by design


def test_rewriting_an_observation_row_reports_the_commit_and_row(repo: Path):
    rewrite_an_observation(repo)
    sha = commit_at(repo, "2026-03-02T00:00:00Z", "quietly fix a value")
    _, problems = audit_git.audit_history(repo)
    assert codes(problems) == ["ledger-row-rewritten"]
    assert problems[0].file == OBS and problems[0].row == 3 and sha[:12] in problems[0].message


def test_re_sorting_a_ledger_is_not_a_rewrite_but_deleting_one_is(repo: Path):
    path = repo / OBS
    header, *rows = path.read_text().splitlines(keepends=True)
    path.write_text(header + "".join(reversed(rows)))
    commit_at(repo, "2026-03-02T00:00:00Z", "re-sort")
    assert audit_git.audit_history(repo)[1] == []
    path.unlink()
    sha = commit_at(repo, "2026-03-03T00:00:00Z", "delete")
    _, problems = audit_git.audit_history(repo)
    assert codes(problems) == ["ledger-deleted"] and sha[:12] in problems[0].message


def test_a_changed_header_is_an_error(repo: Path):
    path = repo / HISTORY
    text = path.read_text()
    path.write_text(text.replace("as_of", "as_of_renamed", 1))
    commit_at(repo, "2026-03-02T00:00:00Z", "rename a column")
    _, problems = audit_git.audit_history(repo)
    assert [(p.code, p.severity, p.row) for p in problems] == [("ledger-header-changed", "error", 1)]


def test_a_forecast_file_first_committed_after_due_is_reported(repo: Path):
    git(repo, "checkout", "-q", "-b", "late", "HEAD~2")  # the night of 2026-01-20, before the due time
    late = "data/forecasts/2026-01-25/team.late.csv"
    shutil.copy(repo / "data/forecasts/2026-01-25/prescient.always-0.5.csv", repo / late)
    sha = commit_at(repo, "2026-01-25T00:00:01Z", "a second too late")
    _, problems = audit_git.audit_history(repo)  # no nightly since: the next one's seal will judge it
    assert [(p.code, p.severity) for p in problems] == [("late-file-pending", "warning")]
    assert problems[0].file == late and sha[:12] in problems[0].message
    (repo / "data/models/team.late.yml").write_text("name: Late\norganization: Team\nkind: llm\nmaintainers: [t]\n")
    commit_at(repo, "2026-01-26T02:00:00Z", "the hub's next nightly, which leaves the late file in place")
    _, problems = audit_git.audit_history(repo, bot="t@example.invalid")
    assert codes(problems) == ["forecast-committed-after-due"], "a nightly ran after it and it stayed: it was scored"
    assert problems[0].file == late and sha[:12] in problems[0].message


def test_a_forecast_file_committed_before_due_is_fine_and_editing_it_after_due_is_reported(repo: Path):
    path = "data/forecasts/2026-01-25/prescient.always-0.csv"
    (repo / path).write_text((repo / path).read_text().replace("0.000000", "0.100000"))
    commit_at(repo, "2026-03-02T00:00:00Z", "improve a past forecast")
    _, problems = audit_git.audit_history(repo)  # the next nightly puts the sealed bytes back, or this stands
    assert [(p.code, p.file, p.severity) for p in problems] == [("late-file-pending", path, "warning")]
    (repo / "data/models/team.late.yml").write_text("name: Late\norganization: Team\nkind: llm\nmaintainers: [t]\n")
    commit_at(repo, "2026-03-03T02:00:00Z", "the hub's next nightly, which leaves the edit in place")
    _, problems = audit_git.audit_history(repo, bot="t@example.invalid")
    assert [(p.code, p.file) for p in problems] == [("forecast-changed-after-due", path)]


def test_committed_before_matches_the_exact_bytes(repo: Path):
    changes = history(repo)
    path = "data/forecasts/2026-01-25/prescient.always-0.csv"
    data = (repo / path).read_bytes()
    assert audit_git.committed_before(changes, path, data, "2026-01-25T00:00:00Z")
    assert not audit_git.committed_before(changes, path, data + b"x", "2026-01-25T00:00:00Z")
    assert not audit_git.committed_before(changes, path, data, "2026-01-16T00:30:00Z")  # committed at 01:00


def test_a_bad_ref_is_a_clear_error(repo: Path):
    from generator.errors import PrescientError

    with pytest.raises(PrescientError, match="not a commit"):
        audit_git.audit_history(repo, "no-such-branch")


def test_a_shallow_clone_is_checked_as_far_as_it_goes_and_says_so(repo: Path, tmp_path: Path):
    shallow = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "2", f"file://{repo}", str(shallow)], check=True, capture_output=True)
    changes, problems = audit_git.audit_history(shallow)
    assert codes(problems) == ["shallow-clone"] and problems[0].severity == "warning"
    assert len({c.commit for c in changes}) == 2


# -- every rewrite ("verify --git must see every rewrite") ---------------------------------


def problems_of(repo: Path) -> list[tuple[str, str, str]]:
    """(code, file, severity) of every problem of the repository's history, in report order."""
    return [(p.code, p.file, p.severity) for p in sorted(audit_git.audit_history(repo)[1])]


def test_a_row_dropped_under_a_changed_header_stays_an_error_once_the_header_is_restored(repo: Path):
    path = repo / HISTORY
    header, first, *rows = path.read_text().splitlines(keepends=True)
    path.write_text(header.replace("as_of", "night", 1) + "".join(rows))
    sha = commit_at(repo, "2026-03-02T00:00:00Z", "rename a column and drop a row")
    path.write_text(header + "".join(rows))
    commit_at(repo, "2026-03-03T00:00:00Z", "restore the header")
    _, problems = audit_git.audit_history(repo)
    assert sorted((p.code, p.row, p.severity) for p in problems) == [
        ("ledger-header-changed", 1, "error"),
        ("ledger-header-changed", 1, "error"),
        ("ledger-row-deleted", 2, "error"),
    ]
    dropped = next(p for p in problems if p.code == "ledger-row-deleted")
    assert sha[:12] in dropped.message and first.split(",")[0] in dropped.message  # the row's key


def test_swapping_the_tails_of_two_multi_line_rows_is_a_rewrite(repo: Path):
    """Every physical line is still there, in another record: records are compared, not lines."""
    path = repo / "data/questions/extra.csv"
    header = ",".join(QUESTIONS.names) + "\n"
    rows = [
        'extra:1,2026-03-02T00:00:00Z,extra,binary,Will A happen?,"Background:\n',
        'A is likely.",,,economics,,\n',
        'extra:2,2026-03-02T00:00:00Z,extra,binary,Will B happen?,"Background:\n',
        'B is unlikely.",,,politics,,\n',
    ]
    path.write_text(header + "".join(rows))
    commit_at(repo, "2026-03-02T00:00:00Z", "a source with multi-line backgrounds")
    path.write_text(header + "".join([rows[0], rows[3], rows[2], rows[1]]))
    sha = commit_at(repo, "2026-03-03T00:00:00Z", "swap two tails")
    _, problems = audit_git.audit_history(repo)
    assert [(p.code, p.file, p.row) for p in problems] == [("ledger-row-rewritten", "data/questions/extra.csv", 2)]
    assert sha[:12] in problems[0].message and "2 existing row(s)" in problems[0].message


def test_a_published_round_is_frozen_even_before_its_due_time(repo: Path):
    folder = repo / "data/rounds/2026-03-08"  # published on 2026-03-01, due 2026-03-08
    text = (folder / "questions.csv").read_text()
    (folder / "questions.csv").write_text(text.replace(",0.0978,", ",0.5000,", 1))
    (folder / "questions.json").unlink()
    commit_at(repo, "2026-03-02T00:00:00Z", "re-freeze a question and drop the FB copy")
    assert problems_of(repo) == [
        ("round-changed", "data/rounds/2026-03-08/questions.csv", "error"),
        ("round-deleted", "data/rounds/2026-03-08/questions.json", "error"),
    ]


BET_HEADER = ",".join(BETS.names) + "\n"


def test_a_rounds_bets_are_immutable_after_its_due_time_and_late_bets_are_reported(repo: Path):
    bets = repo / "data/bets/2026-03-08/team.bettor.csv"
    bets.parent.mkdir(parents=True)
    bets.write_text(BET_HEADER + "sim:m0001,2026-03-02T00:00:00Z,YES,100,\n")
    commit_at(repo, "2026-03-02T00:00:00Z", "bets before the due time")
    bets.write_text(bets.read_text() + "sim:m0004,2026-03-07T00:00:00Z,NO,100,\n")
    commit_at(repo, "2026-03-03T00:00:00Z", "more bets, still before the due time")
    assert problems_of(repo) == []
    bets.write_text(BET_HEADER + "sim:m0001,2026-03-02T00:00:00Z,NO,100,\n")
    (bets.parent / "team.late.csv").write_text(BET_HEADER + "sim:m0001,2026-03-07T00:00:00Z,YES,100,\n")
    commit_at(repo, "2026-03-09T00:00:00Z", "hindsight")
    assert problems_of(repo) == [
        ("late-file-pending", "data/bets/2026-03-08/team.bettor.csv", "warning"),
        ("late-file-pending", "data/bets/2026-03-08/team.late.csv", "warning"),
    ]
    (repo / "data/models/team.late.yml").write_text("name: Late\norganization: Team\nkind: llm\nmaintainers: [t]\n")
    commit_at(repo, "2026-03-10T02:00:00Z", "the hub's next nightly, which leaves both in place")
    assert [(p.code, p.file, p.severity) for p in audit_git.audit_history(repo, bot="t@example.invalid")[1]] == [
        ("bets-changed-after-due", "data/bets/2026-03-08/team.bettor.csv", "error"),
        ("bets-committed-after-due", "data/bets/2026-03-08/team.late.csv", "error"),
    ]


def add_oracle_set(repo: Path, when: str) -> Path:
    path = repo / "data/oracle/daily/questions.csv"
    path.parent.mkdir(parents=True)
    path.write_text(",".join(ORACLE_QUESTIONS.names) + "\nq1,2026-03-02T00:00:00Z,tf,Is it so?,True,False,,,A,2026-02-01,science,\n")
    commit_at(repo, when, "an oracle set")
    return path


def test_an_oracle_set_is_append_only_and_its_forecasts_may_be_edited(repo: Path):
    path = add_oracle_set(repo, "2026-03-02T00:00:00Z")
    forecast = repo / "data/oracle/daily/forecasts/team.model.csv"
    forecast.parent.mkdir()
    forecast.write_text("question_id,prob_a,prob_b,prob_c,prob_d,reasoning\nq1,0.9,0.1,,,\n")
    commit_at(repo, "2026-03-03T00:00:00Z", "a forecast")
    forecast.write_text("question_id,prob_a,prob_b,prob_c,prob_d,reasoning\nq1,0.2,0.8,,,\n")
    commit_at(repo, "2026-03-04T00:00:00Z", "changed my mind: oracle forecasts have no deadline")
    assert problems_of(repo) == []
    path.write_text(path.read_text().replace(",A,", ",B,"))
    commit_at(repo, "2026-03-05T00:00:00Z", "change the answer")
    assert problems_of(repo) == [("ledger-row-rewritten", "data/oracle/daily/questions.csv", "error")]


@pytest.mark.parametrize(
    "path",
    [
        "data/questions/sim.csv",
        "data/oracle/daily/questions.csv",
        "data/rounds/2026-01-25/questions.csv",
        "data/forecasts/2026-03-08/prescient.always-0.csv",
    ],
)
def test_a_guarded_file_that_becomes_a_symlink_is_reported_not_a_crash(repo: Path, path: str):
    if "oracle" in path:
        add_oracle_set(repo, "2026-03-02T00:00:00Z")
    target = repo / path
    target.rename(target.with_name("elsewhere.txt"))
    target.symlink_to("elsewhere.txt")
    sha = commit_at(repo, "2026-03-06T00:00:00Z", "a ledger becomes a symlink (git status T)")
    _, problems = audit_git.audit_history(repo)
    assert [(p.code, p.file) for p in problems] == [("file-type-changed", path)]
    assert sha[:12] in problems[0].message and "a symlink" in problems[0].message


def test_a_ledger_added_as_a_symlink_is_reported(repo: Path):
    (repo / "data/questions/other.csv").symlink_to("sim.csv")
    commit_at(repo, "2026-03-02T00:00:00Z", "a second bank that is the first")
    assert problems_of(repo) == [("not-a-regular-file", "data/questions/other.csv", "error")]


def test_renaming_a_ledger_away_is_a_deletion(repo: Path):
    git(repo, "mv", "data/questions/sim.csv", "data/questions/sim-old.csv")
    commit_at(repo, "2026-03-02T00:00:00Z", "rename")
    assert problems_of(repo) == [("ledger-deleted", "data/questions/sim.csv", "error")]


def test_a_commit_dated_before_its_first_parent_is_reported(repo: Path):
    (repo / "notes.txt").write_text("not even under data/\n")
    sha = commit_at(repo, "2026-02-25T00:00:00Z", "back in time")
    _, problems = audit_git.audit_history(repo)
    assert [(p.code, p.file) for p in problems] == [("commit-date-backwards", ".git")]
    assert sha[:12] in problems[0].message and "2026-03-01T01:00:00Z" in problems[0].message


def test_every_git_status_letter_is_parsed_and_judged():
    """Raw records of every kind, as ``git log --raw -z`` writes them (R and C carry two paths)."""
    z, o, b1, b2 = "0" * 40, "1" * 40, "a" * 40, "b" * 40
    raw = (
        f"\x01{o} 1767225600\0\n"
        f":100644 100644 {b1} {b2} R087\0data/questions/sim.csv\0data/questions/moved.csv\0"
        f":000000 100644 {z} {b2} C100\0data/questions/sim.csv\0data/questions/copy.csv\0"
        f":100644 120000 {b1} {b2} T\0data/observations/sim/2026-01.csv\0"
        f":100644 100644 {b1} {b2} U\0data/leaderboard/history.csv\0"
        f":100644 100644 {b1} {b2} X\0data/manifest/2026.csv\0"
        f":100644 100644 {b1} {b2} M\0data/models/team.model.yml\0"
    ).encode()
    changes = parse_log(raw)
    assert [(c.status, c.path) for c in changes] == [
        ("D", "data/questions/sim.csv"),
        ("A", "data/questions/moved.csv"),
        ("A", "data/questions/copy.csv"),
        ("T", "data/observations/sim/2026-01.csv"),
        ("U", "data/leaderboard/history.csv"),
        ("X", "data/manifest/2026.csv"),
        ("M", "data/models/team.model.yml"),
    ]
    found = audit_git.file_problems(changes, read=lambda blob: None)
    assert [(p.code, p.file) for p in found] == [
        ("ledger-deleted", "data/questions/sim.csv"),
        ("file-type-changed", "data/observations/sim/2026-01.csv"),
        ("git-status-unknown", "data/leaderboard/history.csv"),
        ("git-status-unknown", "data/manifest/2026.csv"),
    ]


def test_bytes_appended_inside_an_open_quote_are_compared_as_records():
    """``new`` starts with ``old`` but old's last record was cut inside quotes: that record changed."""
    change = FileChange("c" * 40, "2026-03-02T00:00:00Z", "M", HISTORY, "a" * 40, "b" * 40)
    old = b'id,recorded_at,text\nq1,2026-01-01T00:00:00Z,"cut\n'
    assert not appended(old, old + b'short"\n')
    found = ledger_rewrites(change, QUESTIONS, old + b'x"\n', old + b'y"\n')
    assert [(p.code, p.row) for p in found] == [("ledger-row-rewritten", 2)]


def test_a_version_that_does_not_parse_is_a_warning_and_its_lines_are_compared():
    change = FileChange("c" * 40, "2026-03-02T00:00:00Z", "M", HISTORY, "a" * 40, "b" * 40)
    old = b"id,recorded_at\nq1,2026-01-01T00:00:00Z\nq2,2026-01-01T00:00:00Z\n"
    found = ledger_rewrites(change, QUESTIONS, old, b"id,recorded_at\n\xff\xfe,2026-01-01T00:00:00Z\n")
    assert [(p.code, p.severity, p.row) for p in found] == [("ledger-unreadable", "warning", None), ("ledger-row-rewritten", "error", 2)]
