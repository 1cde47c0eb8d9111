"""`verify --git` from the audit checkpoint recomputes only what the changes since it can affect,
and finds what the whole recompute (`--full`) finds, problem for problem, on every tampering after the
checkpoint; what it cannot prove unaffected it recomputes whole, and says why.

The attacks (who could, in a pull request, change what the scoped verify would not recompute?):
a derived file edited or removed (its round is recomputed: the path changed); a raw ledger row
appended that moves a resolution (the rounds whose resolutions moved are recomputed); a ledger row
backdated into the checkpoint's time or a ledger rewritten (whole recompute); a history row edited
(the old nights are recomputed); the settings, a maintainers' action, a path the rule does not know,
files git does not track, another verifier's code (whole recompute). The proof for the walk's own
tamper cases (test_checkpoint.py) runs with this recompute too: those checks compare the
checkpointed `verify --git` with `--full`.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from generator.audit import checkpoint, scope
from generator.audit.verify import record_checkpoint, verify
from generator.store.hub import Hub
from generator.timeutil import parse_ts

from helpers import commit_at, git

pytestmark = pytest.mark.e2e

LEDGER = "data/metadata/checkpoints.csv"
CHECKED_AT = "2026-03-01T02:00:00Z"  # the bot's commit of the checkpoint row (the season's last night + 2 h)


def recorded(root: Path, when: str = CHECKED_AT) -> str:
    """The nightly's full audit of HEAD, its checkpoint row committed by the hub's bot; the audited commit."""
    hub = Hub.load(root)
    report = verify(hub, git_rev="HEAD", full=True)
    assert report.ok, report.problems
    assert record_checkpoint(hub, report, "HEAD") == [LEDGER]
    audited = git(root, "rev-parse", "HEAD").strip()
    commit_at(root, when, "nightly: the audit's checkpoint")
    return audited


@pytest.fixture
def hub(git_season: Path, tmp_path: Path) -> Path:
    root = Path(shutil.copytree(git_season, tmp_path / "hub"))
    recorded(root)
    return root


def both(root: Path):
    """The checkpointed `verify --git` and `--full`; they must find the same problems, message for message."""
    scoped, full = verify(root, git_rev="HEAD"), verify(root, git_rev="HEAD", full=True)
    assert scoped.start is not None and scoped.start.start is not None, scoped.start
    assert [str(p) for p in scoped.problems] == [str(p) for p in full.problems]
    assert [p.severity for p in scoped.problems] == [p.severity for p in full.problems]
    return scoped, full


def note(report, name: str) -> str:
    return next(c.note for c in report.checks if c.name == name)


def codes(report) -> list[str]:
    return [p.code for p in report.problems if p.severity == "error"]


def append_line(path: Path, line: str) -> None:
    path.write_text(path.read_text() + line + "\n")


def a_market_of(root: Path, due: str) -> str:
    rows = (root / f"data/rounds/{due}/questions.csv").read_text().splitlines()[1:]
    return next(r.split(",")[0] for r in rows if ",binary," in r)


def test_a_pull_request_adding_a_forecast_recomputes_its_round_only(hub: Path):
    src = hub / "data/forecasts/2026-03-08/prescient.always-0.5.csv"
    shutil.copy(src, hub / "data/forecasts/2026-03-08/team.first.csv")
    shutil.copy(hub / "data/models/prescient.always-0.5.yml", hub / "data/models/team.first.yml")
    commit_at(hub, "2026-03-01T05:00:00Z", "team.first: forecasts for the round due 2026-03-08")
    scoped, full = both(hub)
    assert scoped.ok and full.ok
    scores = note(scoped, "scores")
    assert "scores of 2 round(s) unchanged since checkpoint" in scores and "1 round(s) rescored" in scores
    assert "round 2026-03-08: data/forecasts/2026-03-08/team.first.csv added" in scores
    assert "0 of 2 night(s) recomputed; 2 night(s) kept from checkpoint" in note(scoped, "history")
    assert note(scoped, "timing").startswith("0 forecast file(s)")  # the round is not due yet
    assert scoped.scope.rounds == {"2026-03-08": "data/forecasts/2026-03-08/team.first.csv added"}
    assert note(full, "scores") == "3 round(s) rescored as of 2026-03-01T00:00:00Z"
    plain = verify(hub)  # without --git there is no checkpoint to trust: everything is recomputed
    assert plain.scope is None and note(plain, "scores") == note(full, "scores") and note(plain, "history").startswith("2 of 2")


@pytest.mark.parametrize("how", ["edited and committed", "removed, uncommitted"])
def test_a_derived_score_file_tampered_after_the_checkpoint_is_found(hub: Path, how: str):
    path = hub / "data/scores/2026-01-25.csv"
    if how.startswith("edited"):
        lines = path.read_text().splitlines(keepends=True)
        lines[1] = lines[1].replace(",0.", ",0.1", 1) if ",0." in lines[1] else lines[1].replace(",1", ",0", 1)
        path.write_text("".join(lines))
        commit_at(hub, "2026-03-01T05:00:00Z", "better scores")
    else:
        path.unlink()
    scoped, _ = both(hub)
    assert ("derived-differs" if how.startswith("edited") else "derived-missing") in codes(scoped)
    assert "round 2026-01-25: data/scores/2026-01-25.csv changed" in note(scoped, "scores")


def resolved_market_observed(hub: Path, recorded_at: str):
    """A market of the round due 2026-02-22 observed resolved (YES), recorded at ``recorded_at`` and
    committed after the checkpoint, the scores left as they were; both verifies of it."""
    market = a_market_of(hub, "2026-02-22")
    append_line(hub / "data/observations/sim/2026-03.csv", f"{market},{recorded_at},{recorded_at},1,resolved,1,{'0' * 64}")
    commit_at(hub, "2026-03-02T01:00:00Z", "an observation, the scores left as they were")
    return both(hub)


def test_an_appended_observation_that_moves_a_resolution_rescores_that_round(hub: Path):
    scoped, _ = resolved_market_observed(hub, "2026-03-02T00:00:00Z")
    assert "derived-differs" in codes(scoped)
    scores = note(scoped, "scores")
    assert "round 2026-02-22: 1 unit(s) resolve otherwise than at 2026-03-01T00:00:00Z" in scores  # the market resolved
    assert "round 2026-03-08: 1 unit(s) resolve otherwise" in scores  # the same market, now void there (before its due)
    assert "scores of 1 round(s) unchanged since checkpoint" in scores


def test_a_backdated_observation_is_not_trusted_and_everything_is_recomputed(hub: Path):
    scoped, _ = resolved_market_observed(hub, "2026-02-25T00:00:00Z")  # before the checkpoint's recompute
    assert scoped.scope.full and "recorded at 2026-02-25T00:00:00Z, not after the checkpoint's recompute" in scoped.scope.why
    assert "whole recompute: data/observations/sim/2026-03.csv has a row recorded at" in note(scoped, "scores")


def test_a_rewritten_ledger_of_observations_is_recomputed_whole(hub: Path):
    path = hub / "data/observations/sim/2026-01.csv"
    lines = path.read_text().splitlines(keepends=True)
    lines[1] = lines[1].replace(",open,", ",resolved,", 1)
    path.write_text("".join(lines))
    commit_at(hub, "2026-03-02T01:00:00Z", "a quiet correction")
    scoped, _ = both(hub)
    assert "was rewritten since the checkpoint" in scoped.scope.why and "ledger-row-rewritten" in codes(scoped)


def edit_committed(hub: Path, rel: str, edit, message: str) -> None:
    """Replace the file's text with ``edit(text)`` (which must change it) and commit it after the checkpoint."""
    path = hub / rel
    text = path.read_text()
    assert edit(text) != text
    path.write_text(edit(text))
    commit_at(hub, "2026-03-02T01:00:00Z", message)


def test_an_old_history_row_edited_makes_the_old_nights_recomputed(hub: Path):
    def better(text: str) -> str:
        head, first, rest = text.split("\n", 2)
        return "\n".join([head, first.replace(",4,4,0,", ",5,5,0,", 1), rest])

    edit_committed(hub, "data/leaderboard/history.csv", better, "a better night")
    scoped, _ = both(hub)
    assert "history-differs" in codes(scoped)
    assert "the nights the checkpoint held recomputed too: data/leaderboard/history.csv was rewritten" in note(scoped, "history")


def test_a_new_night_appended_with_wrong_rows_is_recomputed(hub: Path):
    def a_night_nobody_ran(text: str) -> str:
        rows = [line.replace("2026-03-01T00:00:00Z", "2026-03-02T00:00:00Z", 1) for line in text.splitlines() if line.startswith("2026-03-01")]
        rows[0] = rows[0].replace(",4,4,0,", ",9,9,0,", 1) if ",4,4,0," in rows[0] else rows[0] + "0"
        return text + "\n".join(rows) + "\n"

    edit_committed(hub, "data/leaderboard/history.csv", a_night_nobody_ran, "a night nobody ran")
    scoped, _ = both(hub)
    assert "history-differs" in codes(scoped)
    assert "1 of 3 night(s) recomputed; 2 night(s) kept from checkpoint" in note(scoped, "history")


def test_settings_changed_since_the_checkpoint_recompute_everything(hub: Path):
    edit_committed(hub, "data/hub.toml", lambda t: t.replace("min_resolved = 5", "min_resolved = 5\nimpute_value = 0.4"), "settings")
    scoped, _ = both(hub)
    assert scoped.scope.why == "data/hub.toml changed since the checkpoint (the hub's settings and methodology)"
    assert "whole recompute: data/hub.toml changed" in note(scoped, "scores")


def test_a_file_git_does_not_track_counts_as_changed(hub: Path):
    shutil.copy(hub / "data/forecasts/2026-01-25/prescient.always-0.5.csv", hub / "data/forecasts/2026-01-25/late.team.csv")
    scoped, _ = both(hub)
    assert "round 2026-01-25: data/forecasts/2026-01-25/late.team.csv added" in note(scoped, "scores")
    assert "derived-differs" in codes(scoped)


def test_a_model_file_edited_makes_the_old_nights_recomputed(hub: Path):
    edit_committed(hub, "data/models/prescient.naive.yml", lambda t: t.replace("saw_crowd: true", "saw_crowd: false"), "a model's metadata")
    scoped, _ = both(hub)
    assert "the nights the checkpoint held recomputed too: data/models/prescient.naive.yml was modified" in note(scoped, "history")


def test_a_checkpoint_of_other_code_or_of_a_row_without_its_code_is_recomputed_whole(hub: Path, monkeypatch):
    found = checkpoint.find(hub, git(hub, "rev-parse", "HEAD").strip())
    as_of = parse_ts("2026-03-01T00:00:00Z")
    assert found.code and not scope.plan(Hub.load(hub), found, as_of).full
    monkeypatch.setattr(scope, "code_digest", lambda: "f" * 64)
    assert "was recomputed by other code" in scope.plan(Hub.load(hub), found, as_of).why
    monkeypatch.undo()
    from dataclasses import replace

    assert "does not record the code" in scope.plan(Hub.load(hub), replace(found, code=""), as_of).why


def test_unknown_paths_and_maintainers_actions_are_recomputed_whole(hub: Path):
    found = checkpoint.find(hub, git(hub, "rev-parse", "HEAD").strip())
    as_of = parse_ts("2026-03-01T00:00:00Z")
    (hub / "data/maintainer").mkdir()
    (hub / "data/maintainer/actions.csv").write_text("recorded_at\n")
    assert "a maintainers' action can restate any round" in scope.plan(Hub.load(hub), found, as_of).why
    (hub / "data/maintainer/actions.csv").unlink()
    (hub / "data/elsewhere.csv").write_text("a\n1\n")
    assert "data/elsewhere.csv changed since the checkpoint and the scoped rule does not know" in scope.plan(Hub.load(hub), found, as_of).why


def test_a_checkpoint_row_from_before_the_code_column_is_trusted_for_the_walk_and_the_next_row_adds_it(git_season: Path, tmp_path: Path):
    """A hub upgraded from 0.9.0: its row has no `code`; the walk starts from it, the recompute is whole,
    and the next night's row (the file gaining the column) is trusted, not taken for a moved row."""
    root = Path(shutil.copytree(git_season, tmp_path / "hub"))
    hub = Hub.load(root)
    report = verify(hub, git_rev="HEAD", full=True)
    record_checkpoint(hub, report, "HEAD")
    path = root / LEDGER
    head, row = path.read_text().splitlines()
    path.write_text(head.removesuffix(",code") + "\n" + row.rsplit(",", 1)[0] + "\n")  # as 0.9.0 wrote it
    commit_at(root, CHECKED_AT, "nightly: the audit's checkpoint")
    scoped, _ = both(root)
    assert scoped.scope.full and "does not record the code" in scoped.scope.why
    shutil.copy(root / "data/forecasts/2026-03-08/prescient.always-0.5.csv", root / "data/forecasts/2026-03-08/team.first.csv")
    commit_at(root, "2026-03-01T05:00:00Z", "a pull request")
    audited = recorded(root, "2026-03-02T02:00:00Z")
    assert Path(root / LEDGER).read_text().splitlines()[0].endswith(",code")
    scoped, _ = both(root)
    assert scoped.start.start.commit == audited and not scoped.scope.full


def test_with_all_nights_the_nights_the_checkpoint_held_are_recomputed(hub: Path):
    report = verify(hub, git_rev="HEAD", all_nights=True)
    assert report.ok and not report.scope.full
    assert note(report, "history").startswith("2 of 2 night(s) recomputed; --all: the nights the checkpoint held recomputed too")
