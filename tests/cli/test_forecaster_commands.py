"""The commands a forecaster reads: the leaderboard as a compact table, the rounds and their
status, a ready-to-fill forecast template, and validation messages, each through the
real ``prescient`` executable."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import ROOT, prescient, write_hub

pytestmark = pytest.mark.e2e

NIGHTS = ("2026-01-16", "2026-01-30", "2026-02-10", "2026-02-24", "2026-03-10")


@pytest.fixture(scope="module")
def season(tmp_path_factory) -> Path:
    """A small sim hub after five nightly runs: two rounds, scores and a history."""
    hub = write_hub(tmp_path_factory.mktemp("season") / "hub")
    for night in NIGHTS:
        result = prescient("nightly", "--hub", str(hub), "--as-of", f"{night}T00:00:00Z")
        assert result.returncode in (0, 6), result.stderr
    return hub


def test_leaderboard_table_is_compact_titled_and_fits_the_terminal(season):
    result = prescient("leaderboard", "--hub", str(season), "--replicates", "20", columns=80)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    title, header = lines[0], lines[1].split()
    # no --as-of: the latest night history.csv records (as the site shows), not the clock
    assert title.startswith("tournament board · view overall · as of 2026-03-10T00:00:00Z")
    assert "higher is better" in title
    assert header[:2] == ["rank", "model"] and "Index" in header and "N" in header and "interval" in header
    assert all(len(line) <= 80 for line in lines[1:]), result.stdout
    assert "nan" not in result.stdout.lower() and "Empty DataFrame" not in result.stdout
    first = lines[2].split()
    assert first[0] == "1" and "[" in lines[2] and "]" in lines[2]  # a rank as an integer; the BI with its CI


def test_leaderboard_wide_has_every_non_empty_column_and_csv_json_keep_the_full_data(season):
    wide = prescient("leaderboard", "--hub", str(season), "--replicates", "20", "--wide")
    assert wide.returncode == 0, wide.stderr
    header = wide.stdout.splitlines()[1].split()
    assert {"brier_overall", "n_dataset", "log_score", "rank_low"} <= set(header)
    assert "nan" not in wide.stdout.lower()
    row = dict(zip(header, wide.stdout.splitlines()[2].split(), strict=False))  # a row's trailing cells may be empty
    assert len(row["brier_overall"].split(".")[1]) == 3 and "." not in row["rank"]
    full = prescient("leaderboard", "--hub", str(season), "--replicates", "20", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(full.stdout)))
    assert rows and "p_value" in rows[0] and "in_estimation" in rows[0]
    records = json.loads(prescient("leaderboard", "--hub", str(season), "--replicates", "20", "--format", "json").stdout)
    assert len(records) == len(rows) and set(records[0]) == set(rows[0])


MODEL_YML = """\
name: My bot
organization: Me
kind: llm
knowledge_cutoff: '2025-06-01'
release_date: ''
method: A test forecaster.
saw_crowd: false
maintainers: [alice]
"""


def test_rounds_lists_each_round_with_its_status_and_time_left(season):
    result = prescient("rounds", "--hub", str(season), "--as-of", "2026-02-01T00:00:00Z")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("2026-02-08") and "open · closes in 7 d 0 h" in lines[0]
    assert lines[1].startswith("2026-01-25") and "closed, resolving" in lines[1]
    later = prescient("rounds", "--hub", str(season), "--as-of", "2026-03-10T00:00:00Z").stdout
    assert "2026-01-25" in later and "scored" in later
    open_only = prescient("rounds", "--hub", str(season), "--open", "--as-of", "2026-03-10T00:00:00Z")
    assert open_only.returncode == 0 and "no round is open as of 2026-03-10" in open_only.stdout


def test_round_template_is_every_unit_with_probability_empty_and_validates_once_filled(season, tmp_path):
    from generator.schemas import FORECASTS

    csv_out = prescient("round", "template", "--hub", str(season), "--due", "2026-02-08")
    assert csv_out.returncode == 0, csv_out.stderr
    rows = list(csv.DictReader(io.StringIO(csv_out.stdout)))
    round_rows = list(csv.DictReader((season / "data/rounds/2026-02-08/questions.csv").open(encoding="utf-8")))
    assert tuple(rows[0]) == FORECASTS.names and len(rows) == len(round_rows)
    assert {(r["question_id"], r["resolution_date"]) for r in rows} == {(r["question_id"], r["resolution_date"]) for r in round_rows}
    assert all(r["probability"] == "" for r in rows)
    # filled in, the file is what `prescient validate` accepts (CSV and JSON alike)
    (season / "data/models/me.bot.yml").write_text(MODEL_YML, encoding="utf-8")
    target = season / "data/forecasts/2026-02-08"
    filled = csv_out.stdout.replace(",,\n", ",0.4,\n").replace(",,,\n", ",,0.4,\n")
    (target / "me.bot.csv").write_text(filled, encoding="utf-8")
    ok = prescient("validate", "--hub", str(season), "--at", "2026-02-01T00:00:00Z", str(target / "me.bot.csv"))
    assert ok.returncode == 0, ok.stdout
    (target / "me.bot.csv").unlink()
    out = target / "me.bot.json"
    made = prescient("round", "template", "--hub", str(season), "--due", "2026-02-08", "--format", "json", "--model", "me.bot", "--out", str(out))
    assert made.returncode == 0 and made.stdout == "" and "prescient validate" in made.stderr
    body = json.loads(out.read_text(encoding="utf-8"))
    assert body["organization"] == "me" and body["model"] == "bot" and len(body["forecasts"]) == len(rows)
    assert all(f["forecast"] is None for f in body["forecasts"])
    for f in body["forecasts"]:
        f["forecast"] = 0.4
    (target / "me.bot.json").write_text(json.dumps(body), encoding="utf-8")
    ok = prescient("validate", "--hub", str(season), "--at", "2026-02-01T00:00:00Z", str(target / "me.bot.json"))
    (target / "me.bot.json").unlink()
    (season / "data/models/me.bot.yml").unlink()
    assert ok.returncode == 0, ok.stdout
    missing = prescient("round", "template", "--hub", str(season), "--due", "2026-02-09")
    assert missing.returncode == 1 and "published rounds: 2026-01-25, 2026-02-08" in missing.stderr


def test_round_closed_says_how_to_check_a_file_for_a_past_round(season):
    target = season / "data/forecasts/2026-01-25"
    (season / "data/models/me.bot.yml").write_text(MODEL_YML, encoding="utf-8")
    template = prescient("round", "template", "--hub", str(season), "--due", "2026-01-25").stdout
    (target / "me.bot.csv").write_text(template.replace(",,\n", ",0.4,\n").replace(",,,\n", ",,0.4,\n"), encoding="utf-8")
    try:
        late = prescient("validate", "--hub", str(season), "--at", "2026-02-01T00:00:00Z", str(target / "me.bot.csv"))
        assert late.returncode == 9 and "[round-closed]" in late.stdout
        assert "prescient validate --at 2026-01-24T23:59:59Z data/forecasts/2026-01-25/me.bot.csv" in late.stdout
        hint = late.stdout.split("prescient validate --at ")[1].split("`")[0].split()
        ok = prescient("validate", "--hub", str(season), "--at", hint[0], str(season / hint[1]))
        assert ok.returncode == 0, ok.stdout
    finally:
        (target / "me.bot.csv").unlink()
        (season / "data/models/me.bot.yml").unlink()


@pytest.mark.parametrize("keep", [17, 6])  # 85% and 30% of the round: over the 5% line, an error naming the first ten
def test_validation_names_the_missing_units_below_full_coverage(season, keep):
    (season / "data/models/me.bot.yml").write_text(MODEL_YML, encoding="utf-8")
    target = season / "data/forecasts/2026-02-08/me.bot.csv"
    template = prescient("round", "template", "--hub", str(season), "--due", "2026-02-08").stdout
    lines = template.replace(",,\n", ",0.4,\n").replace(",,,\n", ",,0.4,\n").splitlines()
    target.write_text("\n".join([lines[0], *lines[1 + 20 - keep :]]) + "\n", encoding="utf-8")
    try:
        result = prescient("validate", "--hub", str(season), "--at", "2026-02-01T00:00:00Z", str(target))
    finally:
        target.unlink()
        (season / "data/models/me.bot.yml").unlink()
    assert result.returncode == 9 and f"[too-many-missing] {20 - keep} of the round's 20" in result.stdout, result.stdout
    missing = [line.split(",")[0] for line in lines[1 : 1 + 20 - keep]]
    assert f"these {20 - keep} units will be scored as 0.5" in result.stdout
    assert all(q in result.stdout for q in missing[:10])
    if len(missing) > 10:
        assert f"and {len(missing) - 10} more" in result.stdout


def test_validation_notes_the_missing_units_of_a_nearly_complete_file_and_not_of_a_full_one(season):
    (season / "data/models/me.bot.yml").write_text(MODEL_YML, encoding="utf-8")
    target = season / "data/forecasts/2026-02-08/me.bot.csv"
    template = prescient("round", "template", "--hub", str(season), "--due", "2026-02-08").stdout
    lines = template.replace(",,\n", ",0.4,\n").replace(",,,\n", ",,0.4,\n").splitlines()
    check = ("validate", "--hub", str(season), "--at", "2026-02-01T00:00:00Z", str(target))
    try:
        target.write_text("\n".join(lines) + "\n", encoding="utf-8")
        full = prescient(*check)
        target.write_text("\n".join([lines[0], *lines[2:]]) + "\n", encoding="utf-8")  # 19 of 20: 95%, no warning
        nearly = prescient(*check)
    finally:
        target.unlink()
        (season / "data/models/me.bot.yml").unlink()
    assert full.returncode == 0 and "scored as 0.5" not in full.stdout, full.stdout
    assert nearly.returncode == 0 and "0 warning" not in nearly.stdout and "low-coverage" not in nearly.stdout
    assert f"note: {target.relative_to(season).as_posix()} has no row for 1 of the round's 20" in nearly.stdout
    assert f"missing {lines[1].split(',')[0]}; this 1 unit will be scored as 0.5" in nearly.stdout


def walkthrough_commands() -> list[str]:
    """The `prescient` lines of the Submit page's "Your first submission" shell block, as written."""
    text = (ROOT / "site_src/docs/submit.md").read_text(encoding="utf-8")
    section = text.split("## Your first submission", 1)[1]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    return [line.split("  #")[0].strip() for line in block.splitlines() if line.startswith("prescient ")]


def test_the_submit_pages_first_submission_walkthrough_runs(season):
    """Each `prescient` line of the walkthrough, run as written from inside the hub while round
    2026-02-08 is open; the forecaster's own step (fill in, write the metadata) done in between."""
    import shlex

    commands = walkthrough_commands()
    assert [c.split()[:2] for c in commands] == [["prescient", "rounds"], ["prescient", "round"], ["prescient", "validate"]]
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    env["SOURCE_DATE_EPOCH"] = "1769904000"  # 2026-02-01T00:00:00Z: round 2026-02-08 is open
    exe = Path(sys.executable).with_name("prescient")
    made = [season / "data/models/acme.my-bot.yml", season / "data/forecasts/2026-02-08/acme.my-bot.csv"]
    try:
        for command in commands:
            if command.startswith("prescient validate"):  # the forecaster's step
                made[0].write_text(MODEL_YML, encoding="utf-8")
                filled = made[1].read_text(encoding="utf-8").replace(",,\n", ",0.4,\n").replace(",,,\n", ",,0.4,\n")
                made[1].write_text(filled, encoding="utf-8")
            result = subprocess.run([str(exe), *shlex.split(command)[1:]], cwd=season, env=env, capture_output=True, text=True, timeout=600)
            assert result.returncode == 0, (command, result.stdout, result.stderr)
            if command.startswith("prescient rounds"):
                assert "2026-02-08" in result.stdout and "open · closes in 7 d" in result.stdout
        assert result.stdout.startswith("Passed")
    finally:
        for path in made:
            path.unlink(missing_ok=True)


def test_a_spreadsheet_saved_csv_validates_with_a_note_and_is_never_rewritten(season):
    (season / "data/models/me.bot.yml").write_text(MODEL_YML, encoding="utf-8")
    target = season / "data/forecasts/2026-02-08/me.bot.csv"
    template = prescient("round", "template", "--hub", str(season), "--due", "2026-02-08").stdout
    filled = template.replace(",,\n", ",0.4,\n").replace(",,,\n", ",,0.4,\n")
    data = b"\xef\xbb\xbf" + filled.replace("\n", "\r\n").encode("utf-8")  # Excel's "CSV UTF-8"
    target.write_bytes(data)
    try:
        result = prescient("validate", "--hub", str(season), "--at", "2026-02-01T00:00:00Z", str(target))
        assert target.read_bytes() == data
    finally:
        target.unlink()
        (season / "data/models/me.bot.yml").unlink()
    assert result.returncode == 0, result.stdout
    assert "Passed" in result.stdout and "[utf8-bom]" in result.stdout  # CRLF throughout is no spreadsheet's mark
    assert "[crlf-line-endings]" not in result.stdout
    assert "file is kept as it is" in result.stdout


def test_a_hub_not_yet_scoring_says_when_the_first_scores_come(tmp_path):
    """One night recorded, no score yet: the board is as of that night (not the clock) and says why it is empty."""
    hub = write_hub(tmp_path / "hub")
    assert prescient("nightly", "--hub", str(hub), "--as-of", "2026-01-16T00:00:00Z").returncode in (0, 6)
    result = prescient("leaderboard", "--hub", str(hub))
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines()[0].endswith("as of 2026-01-16T00:00:00Z (the latest time its ledgers record)")
    title, note = result.stdout.splitlines()
    assert title.startswith("tournament board · view overall · as of 2026-01-16T00:00:00Z")
    # round 2026-01-25 is the first; the hub's min_age_days is 20
    assert note == (
        "no scored forecasts as of 2026-01-16T00:00:00Z; first scores on 2026-02-14 at the earliest: "
        "round 2026-01-25 counts 20 days after its due time"
    )
    as_json = prescient("leaderboard", "--hub", str(hub), "--format", "json")
    assert as_json.returncode == 0 and json.loads(as_json.stdout) == []
    assert "no scored forecasts as of 2026-01-16T00:00:00Z" in as_json.stderr


def test_a_board_past_the_first_rounds_age_but_empty_says_nothing_resolved(season):
    result = prescient("leaderboard", "--hub", str(season), "--as-of", "2026-01-30T00:00:00Z", "--replicates", "0")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[1].startswith("no scored forecasts as of 2026-01-30T00:00:00Z; first scores on 2026-02-14")


def test_rounds_and_the_template_from_outside_a_hub_and_from_inside_a_clone_holding_one(season, tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    lost = prescient("rounds", cwd=outside)
    assert lost.returncode == 2 and "no hub found" in lost.stderr and "--hub DIR" in lost.stderr
    assert "Traceback" not in lost.stderr
    given = prescient("rounds", "--hub", str(season), "--as-of", "2026-02-01T00:00:00Z", cwd=outside)
    assert given.returncode == 0 and "open · closes in 7 d" in given.stdout, given.stderr
    template = prescient("round", "template", "--hub", str(season), "--due", "2026-02-08", cwd=outside)
    assert template.returncode == 0 and template.stdout.startswith("question_id,"), template.stderr
    # a clone whose own hub is empty, with a hub in demo/: standing in demo/data/ reads demo/
    clone = write_hub(tmp_path / "clone")
    subprocess.run(["git", "init", "-q", str(clone)], check=True)
    shutil.copytree(season, clone / "demo")
    inside = prescient("rounds", "--as-of", "2026-02-01T00:00:00Z", cwd=clone / "demo" / "data")
    assert inside.returncode == 0 and "2026-02-08" in inside.stdout, inside.stderr
    assert inside.stderr.splitlines()[0].startswith(f"prescient: hub {(clone / 'demo').resolve()}")
    again = prescient("round", "template", "--due", "2026-02-08", cwd=clone / "demo" / "data")
    assert again.returncode == 0 and again.stdout == template.stdout
    at_top = prescient("rounds", "--as-of", "2026-02-01T00:00:00Z", cwd=clone)
    assert at_top.returncode == 0 and "2026-02-08" not in at_top.stdout  # the clone's own hub has no round


def test_a_report_ends_with_the_hubs_submit_page(season, tmp_path):
    """hub.toml's site_url makes every report end with the published Submit page; a bad one is refused."""
    hub = tmp_path / "hub"
    shutil.copytree(season, hub)
    toml = hub / "data/hub.toml"
    toml.write_text(
        toml.read_text(encoding="utf-8").replace('title = "Test hub"', 'title = "Test hub"\nsite_url = "https://acme.github.io/hub/"'),
        encoding="utf-8",
    )
    target = hub / "data/forecasts/2026-02-08/me.bot.csv"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("question_id,source,resolution_date,probability,reasoning\n", encoding="utf-8")
    for fmt in ("text", "markdown"):
        result = prescient("validate", "--hub", str(hub), "--at", "2026-02-01T00:00:00Z", "--format", fmt, str(target))
        assert result.returncode == 9, result.stderr
        assert result.stdout.rstrip("\n").splitlines()[-1].endswith("https://acme.github.io/hub/submit/" + (">" if fmt == "markdown" else ""))
    toml.write_text(toml.read_text(encoding="utf-8").replace("https://acme.github.io/hub/", "acme.github.io hub"), encoding="utf-8")
    bad = prescient("sources", "--hub", str(hub))
    assert bad.returncode == 2 and "hub.site_url" in bad.stderr and "[bad-value]" in bad.stderr, bad.stderr
