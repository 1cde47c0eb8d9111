"""A newcomer's first hour on the demo, with the real ``prescient`` executable: one clock
for every command, one path rule (files named from where the user stands), a ``--hub`` that is no
hub refused, usage errors with the subcommand's usage and "did you mean", the Arena and oracle
tables, void rounds explained, a quiet ``serve``. Run from inside the demo, from its parent, and
from a clone that holds it."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers import MANIFOLD_HUB, PRESCIENT, prescient, write_hub

pytestmark = pytest.mark.e2e

LAST_NIGHT = "2026-07-19T00:00:00Z"  # the demo season's last night
LEDGERS = f"as of {LAST_NIGHT} (the latest time its ledgers record)"


def first_line(result: subprocess.CompletedProcess) -> str:
    assert "Traceback" not in result.stderr + result.stdout, result.stderr
    return result.stderr.splitlines()[0]


@pytest.fixture
def demo_copy(demo_hub: Path, tmp_path: Path) -> Path:
    """The demo, copied (without its built site) into a parent folder of its own, for a test that writes."""
    target = tmp_path / "parent" / "demo"
    shutil.copytree(demo_hub, target, symlinks=True, ignore=shutil.ignore_patterns("site"))
    return target


@pytest.mark.parametrize("command", [["rounds"], ["rounds", "--open"], ["arena"], ["oracle"], ["leaderboard"], ["verify"]])
def test_every_command_on_the_demo_reads_the_same_time_and_names_it(demo_hub: Path, command: list[str]):
    """From the demo's parent, without --as-of: every command is as of the last night, said on line one."""
    result = prescient(*command, "--hub", demo_hub.name, cwd=demo_hub.parent)
    assert result.returncode == 0, result.stderr
    assert first_line(result) == f"prescient: hub {demo_hub.resolve()} · {LEDGERS}"


def test_the_open_round_is_open_and_validate_judges_at_the_same_time(demo_hub: Path):
    opened = prescient("rounds", "--open", cwd=demo_hub)
    assert opened.stdout.startswith("2026-07-26") and "open · closes in 7 d 0 h" in opened.stdout, opened.stdout
    template = demo_hub / "data/forecasts/2026-07-26/me.bot.csv"
    made = prescient("round", "template", "--due", "2026-07-26", "--out", "data/forecasts/2026-07-26/me.bot.csv", cwd=demo_hub)
    try:
        assert made.returncode == 0 and template.is_file(), made.stderr
        assert "`prescient validate data/forecasts/2026-07-26/me.bot.csv`" in made.stderr, "no --hub was given: none repeated"
        template.write_text(template.read_text().replace(",,\n", ",0.4,\n"))
        checked = prescient("validate", "data/forecasts/2026-07-26/me.bot.csv", cwd=demo_hub)
    finally:
        template.unlink(missing_ok=True)
    assert first_line(checked) == f"prescient: hub {demo_hub.resolve()} · at {LAST_NIGHT} (the latest time its ledgers record)"
    assert "round-closed" not in checked.stdout and "it is open, 7d 0h 0m left" in checked.stdout, checked.stdout


def test_source_date_epoch_and_as_of_override_the_ledgers(demo_hub: Path):
    env = prescient("rounds", "--hub", str(demo_hub), env={"SOURCE_DATE_EPOCH": "1785110400"})  # 2026-07-27
    assert first_line(env).endswith("as of 2026-07-27T00:00:00Z (SOURCE_DATE_EPOCH)")
    assert "2026-07-26    70 question(s) × date  closed, resolving" in env.stdout
    given = prescient("arena", "--hub", str(demo_hub), "--as-of", "2026-07-01")
    assert first_line(given).endswith("as of 2026-07-01T00:00:00Z")


def test_a_bare_nightly_runs_the_next_night_and_catch_up_replays_the_rest(demo_copy: Path):
    """Inside the demo: the nightly is the night after the last one, says how far behind the clock that
    is; --catch-up runs every night up to --as-of; a jump over nights is said before it runs."""
    bare = prescient("nightly", cwd=demo_copy)
    assert bare.returncode == 0, bare.stderr
    assert first_line(bare).endswith("as of 2026-07-20T00:00:00Z (the night after the latest its ledgers record)")
    assert "nightly 2026-07-20T00:00:00Z:" in bare.stdout
    assert re.search(r"note: .* \d+ day\(s\) before the clock .*`prescient nightly --catch-up`", bare.stderr), bare.stderr
    caught = prescient("nightly", "--catch-up", "--as-of", "2026-07-22", cwd=demo_copy)
    assert caught.returncode == 0, caught.stderr
    assert re.findall(r"^nightly (\S+):", caught.stdout, re.M) == ["2026-07-21T00:00:00Z", "2026-07-22T00:00:00Z"]
    jump = prescient("nightly", "--hub", ".", "--as-of", "2026-07-26", cwd=demo_copy)
    assert jump.returncode == 0, jump.stderr
    warning = next(line for line in jump.stderr.splitlines() if line.startswith("warning: the ledgers end"))
    assert "skips 3 night(s) (2026-07-23 to 2026-07-25)" in warning
    assert "`prescient nightly --hub . --catch-up --as-of 2026-07-26T00:00:00Z`" in warning
    assert jump.stderr.index("warning: the ledgers end") < jump.stderr.index("fetching sim"), "said before the run"


def test_catch_up_is_refused_on_a_live_hub(tmp_path: Path):
    hub = write_hub(tmp_path / "live", MANIFOLD_HUB)
    result = prescient("nightly", "--hub", str(hub), "--catch-up")
    assert result.returncode == 2 and "live source reports today's values only" in result.stderr, result.stderr
    assert not (hub / "data/observations").exists(), "nothing fetched"


def test_files_are_named_from_where_the_user_stands(demo_copy: Path):
    """From the demo's parent: a template named beside the user is outside the hub, refused at once with
    the path inside (nothing written, no validate command that would fail), and by validate (never read
    as the hub's own file); one named demo/data/... is checked."""
    parent = demo_copy.parent
    outside = prescient("round", "template", "--hub", "demo", "--due", "2026-07-26", "--out", "data/forecasts/2026-07-26/me.bot.csv", cwd=parent)
    assert outside.returncode == 2 and not (parent / "data/forecasts/2026-07-26/me.bot.csv").exists()
    assert "outside the hub at demo" in outside.stderr and "--out demo/data/forecasts/2026-07-26/me.bot.csv" in outside.stderr
    assert "prescient validate" not in outside.stderr
    (parent / "data/forecasts/2026-07-26").mkdir(parents=True)
    (parent / "data/forecasts/2026-07-26/me.bot.csv").write_text("question_id,resolution_date,probability,reasoning\n")
    refused = prescient("validate", "--hub", "demo", "data/forecasts/2026-07-26/me.bot.csv", cwd=parent)
    assert refused.returncode == 9 and "[outside-submission-area]" in refused.stdout, refused.stdout
    assert "file-not-found" not in refused.stdout
    inside = prescient("round", "template", "--hub", "demo", "--due", "2026-07-26", "--out", "demo/data/forecasts/2026-07-26/me.bot.csv", cwd=parent)
    assert "outside the hub" not in inside.stderr
    assert "`prescient validate --hub demo demo/data/forecasts/2026-07-26/me.bot.csv`" in inside.stderr
    checked = prescient("validate", "--hub", "demo", "demo/data/forecasts/2026-07-26/me.bot.csv", cwd=parent)
    assert "data/forecasts/2026-07-26/me.bot.csv" in checked.stdout and "[empty-value]" in checked.stdout, checked.stdout


def test_in_a_clone_holding_the_demo_the_hint_names_the_demo(demo_hub: Path, tmp_path: Path):
    clone = write_hub(tmp_path / "clone", MANIFOLD_HUB)
    (clone / "demo").symlink_to(demo_hub, target_is_directory=True)
    result = prescient("leaderboard", cwd=clone)
    assert result.returncode == 0 and "the hub in demo has data: `prescient leaderboard --hub demo`" in result.stderr
    (clone / "demo").unlink()
    bare = prescient("leaderboard", cwd=clone)
    assert "`prescient nightly` records the first ones (it fetches manifold from the network)" in bare.stderr


@pytest.mark.parametrize(
    "command",
    [
        ["rounds"],
        ["validate", "x.csv"],
        ["nightly"],
        ["build"],
        ["serve"],
        ["sources"],
        ["round", "template", "--due", "2026-07-26"],
        ["leaderboard"],
        ["arena"],
    ],
)
def test_a_hub_option_at_a_folder_that_is_no_hub_is_refused(tmp_path: Path, command: list[str]):
    (tmp_path / "plain").mkdir()
    result = prescient(*command, "--hub", "plain", cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert "--hub plain: " in result.stderr and "is not a hub; a hub is a folder whose data/hub.toml" in result.stderr
    assert "[not-a-hub]" in result.stderr and "Traceback" not in result.stderr
    assert list((tmp_path / "plain").iterdir()) == [], "nothing written"


@pytest.mark.parametrize(
    ("argv", "usage", "suggestion"),
    [
        (["roundz"], "usage: prescient [-h]", "did you mean round?"),
        (["rounds", "--opne"], "usage: prescient rounds [-h]", "did you mean --open?"),
        (["round", "tempalte"], "usage: prescient round [-h]", "did you mean template?"),
        (["round", "template", "--due", "2026-07-26", "--ot", "f.csv"], "usage: prescient round template [-h]", "did you mean --out?"),
        (["arena", "--format", "tabel"], "usage: prescient arena [-h]", "did you mean table?"),
    ],
)
def test_a_usage_error_shows_the_commands_usage_and_a_guess(tmp_path: Path, argv: list[str], usage: str, suggestion: str):
    result = prescient(*argv, cwd=tmp_path)
    assert result.returncode == 2 and result.stderr.startswith(usage), result.stderr
    assert suggestion in result.stderr and "Traceback" not in result.stderr


def test_a_bad_time_is_a_usage_error(demo_hub: Path):
    for argv in (["round", "template", "--due", "soon"], ["arena", "--round", "soon"], ["validate", "--at", "soon", "x.csv"]):
        result = prescient(*argv, "--hub", str(demo_hub))
        assert result.returncode == 2 and "'soon'" in result.stderr, (argv, result.stderr)


@pytest.mark.parametrize("command", [["arena"], ["oracle"], ["oracle", "--months"]])
def test_arena_and_oracle_tables_fit_the_terminal_and_print_no_raw_numbers(demo_hub: Path, command: list[str]):
    table = prescient(*command, "--hub", str(demo_hub), columns=100)
    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    assert lines and max(map(len, lines)) <= 100, max(lines, key=len)
    assert not re.search(r"\de-\d|<NA>|NaN|\bnan\b", table.stdout), table.stdout
    wide = prescient(*command, "--hub", str(demo_hub), "--wide", columns=100)
    csv = prescient(*command, "--hub", str(demo_hub), "--format", "csv")
    assert wide.stdout.splitlines()[0].split() == csv.stdout.splitlines()[0].split(","), "--wide: every column"
    assert "<NA>" not in csv.stdout


def test_arena_money_has_cents_and_percentages_one_decimal(demo_hub: Path):
    table = prescient("arena", "--hub", str(demo_hub), columns=200).stdout.splitlines()
    header, first = table[0].split(), table[1].split()
    row = dict(zip(header, first, strict=True))
    assert re.fullmatch(r"-?[\d,]+\.\d\d", row["total_value"]) and re.fullmatch(r"-?\d+\.\d", row["return_pct"]), row


def test_rounds_count_and_explain_void_questions(demo_hub: Path):
    result = prescient("rounds", "--hub", str(demo_hub))
    lines = result.stdout.splitlines()
    voided = [line for line in lines if re.search(r"closed, resolving \(\d+ of \d+ resolved\) · \d+ void$", line)]
    assert voided, result.stdout
    notes = [line for line in lines if not line.startswith(("20", "due "))][-2:]  # the notes under the table
    assert any(n.startswith("void: a question cancelled, annulled or resolved ambiguously by its source") for n in notes), notes


def test_serve_is_quiet_unless_verbose(sim_hub: Path):
    site = sim_hub / "site_src" / "site"
    site.mkdir(parents=True)
    (site / "index.html").write_text("<p>home</p>")
    import urllib.request

    logs = {}
    for options in ([], ["--verbose"]):
        server = subprocess.Popen(
            [PRESCIENT, "serve", "--hub", str(sim_hub), "--port", "0", *options], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        try:
            line = server.stdout.readline() if server.stdout else ""
            base = line.split(" at ", 1)[1].split(" ", 1)[0]
            assert urllib.request.urlopen(base, timeout=10).read() == b"<p>home</p>"
        finally:
            server.terminate()
            logs[bool(options)] = server.communicate(timeout=10)[1]
    assert "GET /" not in logs[False] and "GET /" in logs[True]


def test_a_demo_stopped_before_its_first_scores_says_so(tmp_path: Path):
    result = prescient("demo", "--until", "2026-01-08", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "No leaderboard yet: no scored forecasts as of 2026-01-08T00:00:00Z; first scores on 2026-03-16" in result.stdout
    home = (tmp_path / "demo/site_src/site/index.html").read_text(encoding="utf-8")
    assert "Nothing on this board yet as of 8 Jan 2026, 00:00 UTC: it fills in" in home, "the empty home page says when it is as of"


def test_validate_takes_as_of_like_the_other_commands_and_keeps_at_as_its_alias(demo_copy: Path):
    """The deadline's time is --as-of, as everywhere else; --at, its old name, still works."""
    path = "data/forecasts/2026-07-26/me.bot.csv"
    made = prescient("round", "template", "--due", "2026-07-26", "--out", path, cwd=demo_copy)
    assert made.returncode == 0, made.stderr
    (demo_copy / path).write_text((demo_copy / path).read_text().replace(",,\n", ",0.4,\n"))
    late, alias = (prescient("validate", option, "2026-07-26T00:00:01Z", path, cwd=demo_copy) for option in ("--as-of", "--at"))
    assert late.returncode == alias.returncode == 9 and "round-closed" in late.stdout, late.stdout
    assert late.stdout == alias.stdout
    on_time = prescient("validate", "--as-of", "2026-07-19T06:00:00Z", path, cwd=demo_copy)
    assert "round-closed" not in on_time.stdout and "it is open, 6d 18h 0m left" in on_time.stdout, on_time.stdout
    assert "--as-of ISO-TIMESTAMP, --at ISO-TIMESTAMP" in prescient("validate", "--help").stdout
