"""Every tamper case of the audit's tests, each checked by the checkpointed `verify --git` and by
`verify --git --full`: both modes give the case's verdict and codes.

A checkpoint is recorded by the nightly's full audit of the season and committed by the hub's bot;
each case then tampers after it, as a pull request or a hand-made commit would. The checkpointed run
starts from that checkpoint and recomputes only what the changes since it can affect; the full run
walks and recomputes everything. Each case runs in both modes (``MODES``) and each mode must give the
case's own verdict and (code, file, severity) list, so a mode that misses a tamper, or reports one
the other would not, fails on its own. One case (a ledger's header renamed) stops both modes with the
same ``SchemaError``: the history no longer reads as its schema.

The cases are those of ``test_git_audit.py`` (the history walk's rules), ``test_checkpoint.py``
(its tamper table lives here now) and ``test_verify.py`` (derived files edited), said again as
edits of a checkpointed season. ``test_scoped_verify.py`` compares the two modes directly on the
changes the scoped recompute must see (its ``both``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from generator.audit.verify import record_checkpoint, verify
from generator.errors import SchemaError
from generator.schemas import BETS, ORACLE_QUESTIONS, QUESTIONS
from generator.store.hub import Hub
from generator.timeutil import parse_ts

from helpers import commit_at, git, rewrite_an_observation

pytestmark = pytest.mark.e2e

CHECKPOINT_AT = "2026-03-01T02:00:00Z"  # the bot's commit of the checkpoint row (the season's last night + 2 h)
AFTER = "2026-03-02T00:00:00Z"  # a tamper's commit, after the checkpoint
HISTORY = "data/leaderboard/history.csv"
OBS = "data/observations/sim/2026-01.csv"
SCORES = "data/scores/2026-01-25.csv"
LATE = "data/forecasts/2026-01-25/team.late.csv"
EDITED = "data/forecasts/2026-01-25/prescient.always-0.csv"
LATE_MODEL = "name: Late\norganization: Team\nkind: llm\nmaintainers: [t]\n"


@pytest.fixture(scope="module")
def checkpointed(git_season: Path, tmp_path_factory) -> Path:
    """The season with its checkpoint recorded by a full audit and committed by the hub's bot."""
    root = Path(shutil.copytree(git_season, tmp_path_factory.mktemp("checkpointed") / "hub"))
    hub = Hub.load(root)
    report = verify(hub, git_rev="HEAD", full=True)
    assert report.ok, report.problems
    assert record_checkpoint(hub, report, "HEAD") == ["data/metadata/checkpoints.csv"]
    commit_at(root, CHECKPOINT_AT, "nightly: the audit's checkpoint")
    return root


# -- the tampers: each edits the checkpointed season (and commits, unless the case is an uncommitted edit)


def _edit_cell(path: Path, index: int, column: int, value: str) -> None:
    lines = path.read_text().splitlines(keepends=True)
    fields = lines[index].rstrip("\n").split(",")
    fields[column] = value
    lines[index] = ",".join(fields) + "\n"
    path.write_text("".join(lines))


def commit_as(hub: Path, email: str, message: str) -> None:
    """Commit everything at ``AFTER`` as ``email`` (someone who is not the hub's bot)."""
    stamp = f"@{int(parse_ts(AFTER).timestamp())} +0000"
    git(hub, "add", "-A")
    env = {**os.environ, "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
    subprocess.run(["git", "-c", "user.name=x", "-c", f"user.email={email}", "commit", "-qm", message], cwd=hub, env=env, check=True)


def hub_ledger_edited(hub: Path) -> None:
    """The model log, which only the hub's bot writes, edited in someone else's commit."""
    path = hub / "data/metadata/models.csv"
    path.write_text(path.read_text() + path.read_text().splitlines()[-1].replace("2026-", "2027-", 1) + "\n")
    commit_as(hub, "mallory@example.org", "edit the model log")


def observation_rewritten(hub: Path) -> None:
    rewrite_an_observation(hub)
    commit_at(hub, AFTER, "quietly fix a value")


def ledger_resorted(hub: Path) -> None:
    """Not a tamper: the same rows in another order (the control case: both modes find nothing)."""
    path = hub / OBS
    header, *rows = path.read_text().splitlines(keepends=True)
    path.write_text(header + "".join(reversed(rows)))
    commit_at(hub, AFTER, "re-sort")


def ledger_deleted(hub: Path) -> None:
    (hub / "data/questions/sim.csv").unlink()
    commit_at(hub, AFTER, "delete the bank")


def ledger_renamed_away(hub: Path) -> None:
    git(hub, "mv", "data/questions/sim.csv", "data/questions/sim-old.csv")
    commit_at(hub, AFTER, "rename")


def header_changed(hub: Path) -> None:
    path = hub / HISTORY
    path.write_text(path.read_text().replace("as_of", "as_of_renamed", 1))
    commit_at(hub, AFTER, "rename a column")


def row_dropped_under_a_changed_header(hub: Path) -> None:
    path = hub / HISTORY
    header, _, *rows = path.read_text().splitlines(keepends=True)
    path.write_text(header.replace("as_of", "night", 1) + "".join(rows))
    commit_at(hub, AFTER, "rename a column and drop a row")
    path.write_text(header + "".join(rows))
    commit_at(hub, "2026-03-03T00:00:00Z", "restore the header")


def multi_line_tails_swapped(hub: Path) -> None:
    path = hub / "data/questions/extra.csv"
    header = ",".join(QUESTIONS.names) + "\n"
    rows = [
        'extra:1,2026-03-02T00:00:00Z,extra,binary,Will A happen?,"Background:\n',
        'A is likely.",,,economics,,\n',
        'extra:2,2026-03-02T00:00:00Z,extra,binary,Will B happen?,"Background:\n',
        'B is unlikely.",,,politics,,\n',
    ]
    path.write_text(header + "".join(rows))
    commit_at(hub, AFTER, "a source with multi-line backgrounds")
    path.write_text(header + "".join([rows[0], rows[3], rows[2], rows[1]]))
    commit_at(hub, "2026-03-03T00:00:00Z", "swap two tails")


def past_forecast_edited(hub: Path) -> None:
    path = hub / EDITED
    path.write_text(path.read_text().replace("0.000000", "0.100000"))
    commit_at(hub, AFTER, "improve a past forecast")


def forecast_added_after_due(hub: Path) -> None:
    late = hub / LATE
    shutil.copy(hub / "data/forecasts/2026-01-25/prescient.always-0.5.csv", late)
    (hub / "data/models/team.late.yml").write_text(LATE_MODEL)
    commit_at(hub, AFTER, "a forecast file weeks after its round's due time")


def forecast_merged_after_due(hub: Path) -> None:
    """A pull request's forecast file merged weeks after its round's due time, no nightly since."""
    late = hub / LATE
    shutil.copy(hub / "data/forecasts/2026-01-25/prescient.always-0.5.csv", late)
    (hub / "data/models/team.late.yml").write_text(LATE_MODEL)
    commit_as(hub, "alice@example.org", "a late pull request")


def published_round_changed(hub: Path) -> None:
    path = hub / "data/rounds/2026-01-25/questions.csv"
    path.write_text(path.read_text() + "\n")
    commit_at(hub, AFTER, "touch a published round")


def open_round_refrozen(hub: Path) -> None:
    folder = hub / "data/rounds/2026-03-08"  # published on 2026-03-01, due 2026-03-08
    text = (folder / "questions.csv").read_text()
    (folder / "questions.csv").write_text(text.replace(",0.0978,", ",0.5000,", 1))
    (folder / "questions.json").unlink()
    commit_at(hub, AFTER, "re-freeze a question and drop the FB copy")


def bets_changed_after_due(hub: Path) -> None:
    header = ",".join(BETS.names) + "\n"
    bets = hub / "data/bets/2026-03-08/team.bettor.csv"
    bets.parent.mkdir(parents=True)
    bets.write_text(header + "sim:m0001,2026-03-02T00:00:00Z,YES,100,\n")
    commit_at(hub, AFTER, "bets before the due time")
    bets.write_text(header + "sim:m0001,2026-03-02T00:00:00Z,NO,100,\n")
    (bets.parent / "team.late.csv").write_text(header + "sim:m0001,2026-03-07T00:00:00Z,YES,100,\n")
    commit_at(hub, "2026-03-09T00:00:00Z", "hindsight")
    (hub / "data/models/team.late.yml").write_text(LATE_MODEL)
    commit_at(hub, "2026-03-10T02:00:00Z", "the hub's next nightly, which leaves both in place")


def oracle_answer_changed(hub: Path) -> None:
    path = hub / "data/oracle/daily/questions.csv"
    path.parent.mkdir(parents=True)
    path.write_text(",".join(ORACLE_QUESTIONS.names) + "\nq1,2026-03-02T00:00:00Z,tf,Is it so?,True,False,,,A,2026-02-01,science,\n")
    commit_at(hub, AFTER, "an oracle set")
    path.write_text(path.read_text().replace(",A,", ",B,"))
    commit_at(hub, "2026-03-05T00:00:00Z", "change the answer")


def ledger_made_a_symlink(hub: Path) -> None:
    target = hub / "data/questions/sim.csv"
    target.rename(target.with_name("elsewhere.txt"))
    target.symlink_to("elsewhere.txt")
    commit_at(hub, AFTER, "a ledger becomes a symlink (git status T)")


def ledger_added_as_a_symlink(hub: Path) -> None:
    (hub / "data/questions/other.csv").symlink_to("sim.csv")
    commit_at(hub, AFTER, "a second bank that is the first")


def commit_dated_backwards(hub: Path) -> None:
    (hub / "notes.txt").write_text("not even under data/\n")
    commit_at(hub, "2026-02-25T00:00:00Z", "back in time")


def score_file_edited(hub: Path) -> None:
    _edit_cell(hub / SCORES, 3, 11, "0.5")  # a row's brier
    commit_at(hub, AFTER, "better scores")


def score_file_removed_uncommitted(hub: Path) -> None:
    (hub / SCORES).unlink()


def history_row_edited(hub: Path) -> None:
    path = hub / HISTORY
    header = path.read_text().splitlines()[0].split(",")
    _edit_cell(path, len(path.read_text().splitlines()) - 1, header.index("model"), "team.made-up")
    commit_at(hub, AFTER, "a better name")


DERIVED = [("derived-differs", SCORES, "error"), ("history-differs", HISTORY, "error"), ("history-differs", HISTORY, "error")]
REFUSED = "refused"  # verify stops with a SchemaError: the ledger no longer reads as its schema

# each case: its tamper and the (code, file, severity) of every problem both modes report, in report order
CASES: dict[str, tuple[Callable[[Path], None], list[tuple[str, str, str]] | str]] = {
    "ledger-resorted": (ledger_resorted, []),
    "hub-ledger-edited": (hub_ledger_edited, [("hub-ledger-edited", "data/metadata/models.csv", "error")]),
    "observation-rewritten": (observation_rewritten, [("ledger-row-rewritten", OBS, "error")]),
    "ledger-deleted": (ledger_deleted, [("ledger-deleted", "data/questions/sim.csv", "error")]),
    "ledger-renamed-away": (ledger_renamed_away, [("ledger-deleted", "data/questions/sim.csv", "error")]),
    "header-changed": (header_changed, REFUSED),
    "row-dropped-under-a-changed-header": (
        row_dropped_under_a_changed_header,
        [("history-differs", HISTORY, "error"), *[("ledger-header-changed", HISTORY, "error")] * 2, ("ledger-row-deleted", HISTORY, "error")],
    ),
    "multi-line-tails-swapped": (multi_line_tails_swapped, [("ledger-row-rewritten", "data/questions/extra.csv", "error")]),
    "past-forecast-edited": (
        past_forecast_edited,
        [*DERIVED, ("seal-broken", EDITED, "error"), ("forecast-changed-after-due", EDITED, "error"), ("timing-unproven", EDITED, "warning")],
    ),
    "forecast-added-after-due": (
        forecast_added_after_due,
        [*DERIVED, ("forecast-committed-after-due", LATE, "error"), ("timing-unproven", LATE, "warning")],
    ),
    "forecast-merged-after-due": (
        forecast_merged_after_due,
        [*DERIVED, ("late-file-pending", LATE, "warning"), ("timing-unproven", LATE, "warning")],
    ),
    "published-round-changed": (published_round_changed, [("round-changed", "data/rounds/2026-01-25/questions.csv", "error")]),
    "open-round-refrozen": (
        open_round_refrozen,
        [("round-changed", "data/rounds/2026-03-08/questions.csv", "error"), ("round-deleted", "data/rounds/2026-03-08/questions.json", "error")],
    ),
    "bets-changed-after-due": (
        bets_changed_after_due,
        [
            ("bets-changed-after-due", "data/bets/2026-03-08/team.bettor.csv", "error"),
            ("bets-committed-after-due", "data/bets/2026-03-08/team.late.csv", "error"),
        ],
    ),
    "oracle-answer-changed": (oracle_answer_changed, [("ledger-row-rewritten", "data/oracle/daily/questions.csv", "error")]),
    "ledger-made-a-symlink": (ledger_made_a_symlink, [("file-type-changed", "data/questions/sim.csv", "error")]),
    "ledger-added-as-a-symlink": (ledger_added_as_a_symlink, [("not-a-regular-file", "data/questions/other.csv", "error")]),
    "commit-dated-backwards": (commit_dated_backwards, [("commit-date-backwards", ".git", "error")]),
    "score-file-edited": (score_file_edited, [("derived-differs", SCORES, "error")]),
    "score-file-removed-uncommitted": (score_file_removed_uncommitted, [("derived-missing", SCORES, "error")]),
    "history-row-edited": (history_row_edited, [("history-differs", HISTORY, "error"), ("ledger-row-deleted", HISTORY, "error")]),
}
MODES = ("checkpointed", "full")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", sorted(CASES))
def test_each_tamper_gets_its_verdict_and_codes_in_both_modes(checkpointed: Path, tmp_path: Path, case: str, mode: str):
    root = Path(shutil.copytree(checkpointed, tmp_path / "hub", symlinks=True))
    tamper, expected = CASES[case]
    tamper(root)
    if expected == REFUSED:
        with pytest.raises(SchemaError, match="does not match the history schema") as refused:
            verify(root, git_rev="HEAD", full=mode == "full")
        assert [(p.code, p.column) for p in refused.value.problems] == [("missing-column", "as_of"), ("unknown-column", "as_of_renamed")]
        return
    report = verify(root, git_rev="HEAD", full=mode == "full")
    if mode == "checkpointed":  # the walk started from the checkpoint, not from the first commit
        assert report.start is not None and report.start.start is not None, report.start
    else:
        assert report.start is not None and report.start.start is None
    found = [(p.code, p.file, p.severity) for p in report.problems]
    assert found == expected
    assert report.ok == (not any(severity == "error" for _, _, severity in expected))
