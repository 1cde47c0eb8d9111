"""One schema for data/hub.toml (generator/config_schema.py): every mistake the issue found is refused
with exit 2 and a coded, located message, by `prescient check-config` and as every command's first
step; the sources read exactly the keys and defaults the schema declares."""

from __future__ import annotations

import ast
import importlib
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest

from generator.config_schema import HTTP_OVERRIDES, SOURCE_OPTIONS, HttpSettings, MarketOptions, SeriesOptions, source_specs, specs
from generator.errors import ConfigError
from generator.store.files import load_settings
from generator.vocabulary import known_sources

from helpers import PRESCIENT, SMALL_HUB, write_hub


def cli(*args: str, timeout: int = 120) -> subprocess.CompletedProcess:
    return subprocess.run([PRESCIENT, *args], capture_output=True, text=True, timeout=timeout, check=False)


# The mistakes a new hub's maintainer made in a trial, each with the key and code it is reported with.
MISTAKES = [
    (
        "a typo in a source option",
        ("min_bettors = 17", "min_betors = 17"),
        "sources.manifold.min_betors",
        "unknown-key",
        'did you mean "min_bettors"?',
    ),
    (
        "a wrong type in a source option",
        ("min_liquidity = 120", 'min_liquidity = "120"'),
        "sources.manifold.min_liquidity",
        "wrong-type",
        "expected a number",
    ),
    ("a typo in [http]", ("retries = 0", "retires = 0"), "http.retires", "unknown-key", 'did you mean "retries"?'),
    ("a wrong type in [http]", ("timeout = 30", "timeout = true"), "http.timeout", "wrong-type", "expected a number"),
    (
        "impute_value above 1",
        ("min_resolved = 5", "min_resolved = 5\nimpute_value = 1.5"),
        "scoring.impute_value",
        "bad-value",
        "expected from 0 to 1",
    ),
    ("a negative age", ("min_age_days = 20", "min_age_days = -3"), "scoring.min_age_days", "bad-value", "expected 0 or more"),
    ("no horizon", ("horizons = [7, 30]", "horizons = []"), "rounds.horizons", "bad-value", "give at least one value"),
    ("a horizon of 0 days", ("horizons = [7, 30]", "horizons = [0, 30]"), "rounds.horizons", "bad-value", "expected 1 or more"),
    ("a cadence of 0 days", ("cadence_days = 14", "cadence_days = 0"), "rounds.cadence_days", "bad-value", "expected 1 or more"),
    (
        "a freeze at (not before) the due time",
        ("open_days_before_due = 10", "open_days_before_due = 0"),
        "rounds.open_days_before_due",
        "bad-value",
        "leaving no time to submit",
    ),
    (
        "rounds without questions",
        ("market_questions = 12\ndataset_questions = 4", "market_questions = 0\ndataset_questions = 0"),
        "rounds.market_questions",
        "bad-value",
        "would never open",
    ),
    ("a misspelt table", ("[scoring]", "[scorng]"), "scorng", "unknown-table", 'did you mean "scoring"?'),
    ("a misspelt source", ("[sources.sim]", "[sources.simm]"), "sources.simm", "unknown-source", 'did you mean "sim"?'),
    (
        "a bad start time of the world",
        ('start = "2026-01-04T00:00:00Z"', 'start = "next monday"'),
        "sources.sim.start",
        "bad-timestamp",
        "write a UTC time",
    ),
    (
        "a due time with an offset",
        ('first_due = "2026-01-25T00:00:00Z"', 'first_due = "2026-01-25T07:00:00-05:00"'),
        "rounds.first_due",
        "due-not-midnight",
        "is 2026-01-25T12:00:00Z, not 00:00 UTC",
    ),
    (
        "a due time at noon UTC",
        ('first_due = "2026-01-25T00:00:00Z"', 'first_due = "2026-01-25T12:00:00Z"'),
        "rounds.first_due",
        "due-not-midnight",
        'write "2026-01-25T00:00:00Z"',
    ),
]
HUB = SMALL_HUB + "\n[sources.manifold]\nenabled = false\nmin_bettors = 17\nmin_liquidity = 120\n\n[http]\ntimeout = 30\nretries = 0\n"


@pytest.mark.parametrize("name,edit,column,code,words", MISTAKES, ids=[m[0] for m in MISTAKES])
def test_each_mistake_is_refused_with_its_code_key_and_line(tmp_path, name, edit, column, code, words):
    assert edit[0] in HUB
    text = HUB.replace(edit[0], edit[1], 1)
    root = write_hub(tmp_path / "hub", text)
    with pytest.raises(ConfigError) as caught:
        load_settings(root)
    found = {(p.column, p.code): p for p in caught.value.problems}
    assert (column, code) in found, caught.value.report()
    problem = found[(column, code)]
    assert words in problem.message
    line = problem.row
    assert line is not None and column.rsplit(".", 1)[-1] in text.splitlines()[line - 1], (
        "the problem names the line its key (or table) is written on"
    )


def test_check_config_and_every_command_refuse_a_mistake_with_exit_2(tmp_path):
    """`cadence_days = 0` made `prescient nightly` loop for ever after its fetch; it now stops before it starts."""
    root = write_hub(tmp_path / "hub", HUB.replace("cadence_days = 14", "cadence_days = 0").replace("min_bettors", "min_betors"))
    for args in (["check-config"], ["nightly"], ["build", "--no-mkdocs"], ["leaderboard"], ["verify"], ["rounds"]):
        done = (
            cli(*args, "--hub", str(root), "--as-of", "2026-01-20T00:00:00Z", timeout=60)
            if args[0] not in ("build", "verify")
            else cli(*args, "--hub", str(root), timeout=60)
        )
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert "[bad-value]" in done.stderr and "rounds.cadence_days" in done.stderr and "row 8" in done.stderr, done.stderr
        assert '[unknown-key] unknown key sources.manifold.min_betors; did you mean "min_bettors"?' in done.stderr
        assert "Traceback" not in done.stderr
    assert not (root / "data" / "questions").exists(), "nothing was written"


def test_check_config_says_what_the_hub_is_when_there_is_no_problem(tmp_path):
    root = write_hub(tmp_path / "hub")
    done = cli("check-config", "--hub", str(root), "--as-of", "2026-01-20T00:00:00Z")
    assert done.returncode == 0, done.stderr
    assert "no problem found" in done.stdout and "due every 14 day(s)" in done.stdout
    assert "the next is due 2026-01-25T00:00:00Z" in done.stdout and "sources enabled: sim" in done.stdout


def test_a_round_has_one_due_time_at_00_00_utc(tmp_path):
    """`first_due = "...T07:00:00-05:00"` was accepted; validation and the seals then read
    12:00Z from the question set while the git audit read the folder's date at midnight, so an on-time merge
    at 06:10Z was reported late. Every due time that is not 00:00 UTC is now refused, by check-config and by
    `round open --due`; midnight UTC written with an offset is the same time, and is accepted."""
    noon = write_hub(tmp_path / "noon", SMALL_HUB.replace('"2026-01-25T00:00:00Z"', '"2026-01-25T07:00:00-05:00"'))
    done = cli("check-config", "--hub", str(noon), "--as-of", "2026-01-20T00:00:00Z")
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "row 7, column 'rounds.first_due': [due-not-midnight]" in done.stderr, done.stderr
    assert "one due time per round" in done.stderr
    same = write_hub(tmp_path / "same", SMALL_HUB.replace('"2026-01-25T00:00:00Z"', '"2026-01-24T19:00:00-05:00"'))
    assert load_settings(same).rounds.first_due == datetime(2026, 1, 25, tzinfo=UTC)
    root = write_hub(tmp_path / "hub")
    done = cli("round", "open", "--hub", str(root), "--due", "2026-02-08T12:00:00Z", "--as-of", "2026-01-20T00:00:00Z")
    assert done.returncode == 2 and "[due-not-midnight] --due 2026-02-08T12:00:00Z is 2026-02-08T12:00:00Z, not 00:00 UTC" in done.stderr, done.stderr
    assert not (root / "data" / "questions").exists(), "nothing was written"


def test_the_schedule_never_loops_even_when_asked_for_a_cadence_of_0():
    from generator.config import RoundSettings
    from generator.pipeline.sampling import due_dates

    rounds = RoundSettings(first_due=datetime(2026, 1, 4, tzinfo=UTC), cadence_days=0)
    with pytest.raises(ValueError, match="at least a day apart"):
        due_dates(rounds, datetime(2026, 2, 1, tzinfo=UTC))


def test_codeowners_out_of_step_with_the_maintainers_is_a_problem(tmp_path):
    from generator.pipeline.hubinit import codeowners_script, codeowners_text

    root = write_hub(tmp_path / "hub")
    (root / ".github").mkdir()
    (root / ".github" / "CODEOWNERS").write_text(codeowners_script().render([]), encoding="utf-8")
    done = cli("check-config", "--hub", str(root))
    assert done.returncode == 2 and "[codeowners-stale]" in done.stderr and "hub-maintainer" in done.stderr, done.stderr
    (root / ".github" / "CODEOWNERS").write_text(codeowners_text(root), encoding="utf-8")
    assert cli("check-config", "--hub", str(root)).returncode == 0


# -- the sources read what the schema declares, with its defaults --------------------------------------


def test_every_source_has_a_table_in_the_schema():
    assert set(SOURCE_OPTIONS) == set(known_sources())


def _reads(module) -> dict[str, object]:
    """``key -> default`` of every ``opts.get("key", default)`` / ``options.get(...)`` in a module (None: no default)."""
    tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
    found: dict[str, object] = {}
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id in ("opts", "options")
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            default = node.args[1] if len(node.args) > 1 else None
            if isinstance(default, ast.Name):
                found[node.args[0].value] = getattr(module, default.id)
            elif isinstance(default, (ast.Call, ast.Attribute)):  # another option's value, or the source's own (base_url)
                found.setdefault(node.args[0].value, None)
            else:
                found[node.args[0].value] = None if default is None else ast.literal_eval(default)
    return found


# module -> the keys (with their defaults) it reads
READERS = {
    "http": specs("http", HttpSettings),
    "shell": {**specs("s", MarketOptions), **specs("s", SeriesOptions)},
    **{name: source_specs(name) for name in SOURCE_OPTIONS},
    "sim_news": source_specs("sim"),
}


@pytest.mark.parametrize("module_name", sorted(READERS))
def test_each_option_a_source_reads_is_in_the_schema_with_the_same_default(module_name):
    module = importlib.import_module(f"generator.sources.{module_name}")
    declared = READERS[module_name]
    for name, default in _reads(module).items():
        if module_name == "http" and name == "budget_seconds":
            continue  # a source's own table (source_specs), read where [http] is
        assert name in declared, f"{module_name}.py reads {name!r}, which no schema table declares"
        if default is not None and declared[name].default is not None:
            want = declared[name].default
            same = (
                float(default) == float(want)
                if isinstance(default, (int, float))
                else list(default) == list(want)
                if isinstance(default, (list, tuple))
                else default == want
            )
            assert same, (module_name, name, default, want)
    for name, value in getattr(module, "DEFAULTS", {}).items():
        assert source_specs(module_name)[name].default == value, (module_name, name)


def test_a_source_table_takes_the_http_keys_but_not_the_hubs_budget():
    for name in SOURCE_OPTIONS:
        keys = set(source_specs(name))
        if name == "sim":
            assert not keys & set(HTTP_OVERRIDES)
        else:
            assert set(HTTP_OVERRIDES) <= keys and "source_budget_seconds" not in keys and "budget_seconds" in keys
