"""`prescient verify`: every derived file recomputed from the ledgers and compared byte for byte."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest

from generator.audit.verify import first_difference, verify
from generator.scoring.corrections import corrections
from generator.site.build import build_site
from generator.timeutil import parse_ts

from helpers import SEASON_NIGHTS, run_cli

pytestmark = pytest.mark.e2e

SCORES = "data/scores/2026-01-25.csv"


@pytest.fixture
def hub(git_season: Path, tmp_path: Path) -> Path:
    """A private, committed copy of the four-night season that a test may change."""
    return Path(shutil.copytree(git_season, tmp_path / "hub"))


LAST = parse_ts(SEASON_NIGHTS[-1])


def _edit_line(path: Path, index: int, column: int, value: str) -> None:
    lines = path.read_text().splitlines(keepends=True)
    fields = lines[index].rstrip("\n").split(",")
    fields[column] = value
    lines[index] = ",".join(fields) + "\n"
    path.write_text("".join(lines))


def test_a_committed_season_verifies_with_its_git_history(hub: Path):
    report = verify(hub, git_rev="HEAD", all_nights=True)
    assert report.ok and report.problems == []
    status = {c.name: c.status for c in report.checks}
    assert status == {"scores": "ok", "history": "ok", "pages": "skipped", "seals": "ok", "git": "ok", "timing": "ok"}
    assert report.as_of == SEASON_NIGHTS[-1]  # the latest time the ledgers record
    history = next(c for c in report.checks if c.name == "history")
    assert history.note.startswith("2 of 2 night(s)")  # nothing was resolved on the first two nights


def test_only_the_latest_nights_are_recomputed_unless_all(hub: Path):
    note = next(c.note for c in verify(hub, nights=1).checks if c.name == "history")
    assert note.startswith("1 of 2 night(s)")


def test_a_tampered_score_file_is_reported_with_its_first_differing_row_and_exit_10(hub: Path):
    _edit_line(hub / SCORES, 3, 11, "0.5")  # row 4 of the file (header = row 1): its brier
    report = verify(hub)
    assert not report.ok
    assert [(p.file, p.row, p.code) for p in report.problems] == [(SCORES, 4, "derived-differs")]
    done = run_cli("verify", "--hub", str(hub))
    assert done.returncode == 10
    assert f"{SCORES}, row 4: [derived-differs]" in done.stdout and "FAILED" in done.stdout
    as_json = json.loads(run_cli("verify", "--hub", str(hub), "--format", "json").stdout)
    assert as_json["ok"] is False and as_json["problems"][0]["file"] == SCORES


def test_a_tampered_history_row_is_reported(hub: Path):
    path = hub / "data/leaderboard/history.csv"
    header = path.read_text().splitlines()[0].split(",")
    last = len(path.read_text().splitlines()) - 1
    _edit_line(path, last, header.index("model"), "team.made-up")
    report = verify(hub, all_nights=True)
    assert [(p.file, p.code) for p in report.problems] == [("data/leaderboard/history.csv", "history-differs")]
    assert report.problems[0].row is not None and "team.made-up" in report.problems[0].message


def test_generated_pages_are_regenerated_and_compared(hub: Path):
    build_site(hub, LAST, run_mkdocs=False)
    generated = hub / "site_src/docs/generated"
    assert verify(hub).ok
    (generated / "leaderboard.md").write_text((generated / "leaderboard.md").read_text() + "\nan edit\n")
    (generated / "stray.md").write_text("not generated\n")
    report = verify(hub)
    found = {(p.file, p.code) for p in report.problems}
    assert found == {("site_src/docs/generated/leaderboard.md", "page-differs"), ("site_src/docs/generated/stray.md", "page-extra")}


def test_first_difference_names_the_line():
    assert first_difference(b"a\nb\nc\n", b"a\nb\nc\n") is None
    assert first_difference(b"a\nb\nc\n", b"a\nX\nc\n") == (2, "b", "X")
    assert first_difference(b"a\nb\n", b"a\n") == (2, "b", "")
    assert first_difference(b"a\n", b"a\nb\n") == (2, "", "b")


def _obs(rows) -> pd.DataFrame:
    columns = ["question_id", "observed_at", "recorded_at", "value", "status", "outcome", "payload_sha256"]
    return pd.DataFrame(rows, columns=columns).astype({"value": float, "outcome": float})


def _round(question: str, due: str) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "question_id": question,
                "resolution_date": "",
                "source": "sim",
                "kind": "binary",
                "category": "",
                "due": due,
                "freeze_time": due,
                "freeze_value": 0.5,
                "text": "?",
                "url": "",
            }
        ]
    )


def test_corrections_list_re_resolutions_and_revisions_with_the_rounds_they_change():
    obs = _obs(
        [
            ("sim:m1", "2026-01-10T00:00:00Z", "2026-01-10T00:00:00Z", 0.4, "open", None, "h1"),
            ("sim:m1", "2026-02-01T00:00:00Z", "2026-02-01T00:00:00Z", 1.0, "resolved", 1.0, "h2"),
            ("sim:m1", "2026-02-05T00:00:00Z", "2026-02-05T00:00:00Z", 0.0, "resolved", 0.0, "h3"),  # flipped
            ("sim:s1", "2026-01-05T00:00:00Z", "2026-01-06T00:00:00Z", 10.0, "open", None, "h4"),
            ("sim:s1", "2026-01-05T00:00:00Z", "2026-01-09T00:00:00Z", 11.0, "open", None, "h5"),  # revised
        ]
    )
    rounds = {"2026-01-25": _round("sim:m1", "2026-01-25T00:00:00Z"), "2026-03-01": _round("sim:m1", "2026-03-01T00:00:00Z")}
    found = corrections(obs, "2026-03-01T00:00:00Z", rounds)
    assert list(zip(found["question_id"], found["kind"], found["recorded_at"], strict=True)) == [
        ("sim:s1", "revision", "2026-01-09T00:00:00Z"),
        ("sim:m1", "re-resolution", "2026-02-05T00:00:00Z"),
    ]
    flip = found.iloc[1]
    assert (flip["old_outcome"], flip["new_outcome"], flip["rounds_affected"]) == (1.0, 0.0, "2026-01-25")
    assert (found.iloc[0]["old_value"], found.iloc[0]["new_value"]) == (10.0, 11.0)
    assert list(corrections(obs, "2026-02-04T00:00:00Z", rounds)["kind"]) == ["revision"]  # not flipped yet
    assert corrections(obs, "2026-01-08T00:00:00Z", rounds).empty


def test_a_hub_with_empty_ledgers_verifies_and_says_it_is_empty(tmp_path: Path):
    from helpers import write_hub

    root = write_hub(tmp_path / "empty")
    done = run_cli("verify", "--hub", str(root))
    assert done.returncode == 0, done.stderr
    assert "nothing recorded yet" in done.stderr and "verified" not in done.stdout + done.stderr


def test_a_ledger_turned_into_a_symlink_fails_verify_git_with_a_code_not_a_traceback(hub: Path):
    from helpers import commit_at

    ledger = hub / "data/questions/sim.csv"
    ledger.rename(hub / "data/questions/sim.txt")
    ledger.symlink_to("sim.txt")
    commit_at(hub, "2026-03-02T00:00:00Z", "the bank becomes a symlink")
    done = run_cli("verify", "--hub", str(hub), "--git")
    assert done.returncode == 10, done.stderr
    assert "Traceback" not in done.stderr
    assert "data/questions/sim.csv: [file-type-changed] commit " in done.stdout
    as_json = json.loads(run_cli("verify", "--hub", str(hub), "--git", "--format", "json").stdout)
    assert [(p["file"], p["code"]) for p in as_json["problems"]] == [("data/questions/sim.csv", "file-type-changed")]


def _as_before_views(path: Path) -> None:
    """history.csv as 0.4.0 wrote it: the overall view only, no ``view`` column."""
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    path.write_text(frame[frame["view"] == "overall"].drop(columns="view").to_csv(index=False, lineterminator="\n"))


def test_a_history_from_before_the_view_column_gains_it_keeps_its_rows_and_verifies(tmp_path: Path):
    """History.csv records every view from the first night the code that has the ``view``
    column runs; the nights before it keep their rows (view empty, read as overall), `verify`
    recomputes them as the overall view, `verify --git` accepts the one change of header, and the
    Leaderboard's Score over time says where a view's history starts."""
    from generator.leaderboard.hub_boards import history_views
    from generator.pipeline.nightly import nightly
    from generator.site.build import gather
    from generator.site.render import GENERATED, render_site
    from generator.store import readers
    from generator.store.hub import Hub

    from helpers import an_hour_after, commit_at, git, write_hub

    root = write_hub(tmp_path / "hub")
    git(root, "init", "-q", "-b", "main")
    commit_at(root, "2026-01-01T00:00:00Z", "hub")
    path = root / "data/leaderboard/history.csv"
    for night in SEASON_NIGHTS[:-1]:  # the old code's nights
        nightly(root, parse_ts(night))
        if path.is_file():
            _as_before_views(path)
        commit_at(root, an_hour_after(night), f"nightly: data as of {night}")
    old = path.read_text()
    assert old.splitlines()[0].endswith(",ledger_digest") and len(old.splitlines()) > 1
    nightly(root, LAST)  # the new code's first night
    commit_at(root, an_hour_after(SEASON_NIGHTS[-1]), "nightly")

    text = path.read_text()
    assert text.splitlines()[0].endswith(",ledger_digest,view")
    assert [line + "," for line in old.splitlines()[1:]] == text.splitlines()[1 : len(old.splitlines())], "old rows changed"
    history = readers.load_history(Hub(root))
    views = history.groupby("as_of")["view"].agg(lambda v: sorted(set(v))).to_dict()
    assert views == {SEASON_NIGHTS[-2]: [""], SEASON_NIGHTS[-1]: ["dataset", "overall"]}  # no market question has resolved yet
    assert set(history_views(history)["view"]) == {"dataset", "overall"}

    report = verify(root, git_rev="HEAD", all_nights=True)
    assert report.ok and report.problems == [], report.problems
    assert next(c.note for c in report.checks if c.name == "history").startswith("2 of 2 night(s)")
    # an old night's rows are the overall view: recomputed as such, so a tampered one is still caught
    _edit_line(path, 1, text.splitlines()[0].split(",").index("overall"), "12.5")
    assert [p.code for p in verify(root, all_nights=True).problems] == ["history-differs"]
    path.write_text(text)

    page = render_site(gather(root, LAST))[f"{GENERATED}/leaderboard.md"].decode()
    parts = re.findall(r'<div class="prescient-panel-part prescient-history" data-board="(\w+)" data-view="(\w+)"', page)
    assert parts == [(b, v) for b in ("tournament", "baseline") for v in ("overall", "dataset", "market")]
    since = f"nights before {SEASON_NIGHTS[-1][:10]} recorded the overall view only."
    assert page.count(f"The dataset view's history starts on {SEASON_NIGHTS[-1][:10]}, later than the overall view's: {since}") == 2
    assert page.count("No night has recorded the market view") == 2 and page.count(since) == 4
