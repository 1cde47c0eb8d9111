"""The command line as a user meets it: clear located errors, documented exit codes, no traceback,
and nothing already written is lost."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import ROOT, SMALL_HUB, run_cli, tree_bytes, write_hub


def assert_clean_failure(result, code: int, *fragments: str) -> None:
    assert result.returncode == code, result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    for fragment in fragments:
        assert fragment in result.stderr


@pytest.fixture
def hub_with_data(sim_hub: Path) -> Path:
    result = run_cli("nightly", "--hub", str(sim_hub), "--as-of", "2026-01-16T00:00:00Z")
    assert result.returncode == 0, result.stderr
    return sim_hub


def test_help_lists_every_command_and_the_exit_codes():
    result = run_cli("--help")
    assert result.returncode == 0
    for command in ("demo", "nightly", "fetch", "sources", "build", "serve", "leaderboard"):
        assert command in result.stdout
    assert "exit codes" in result.stdout


def test_the_help_epilog_documents_every_exit_code():
    """Each error class's exit code has its meaning in errors.EXIT_CODES, and `prescient --help`
    lists every one of them (the epilog is generated from that table)."""
    import generator.site.build  # noqa: F401  (every module that defines a PrescientError subclass)
    import generator.submissions  # noqa: F401
    from generator.cli import EPILOG
    from generator.errors import EXIT_CODES, OK, VERIFY_FAILED, PrescientError

    def subclasses(cls):
        return {cls, *(s for sub in cls.__subclasses__() for s in subclasses(sub))}

    assert {c.exit_code for c in subclasses(PrescientError)} | {OK, VERIFY_FAILED} == set(EXIT_CODES)
    shown = " ".join(run_cli("--help").stdout.split())
    assert " ".join(EPILOG.split()) in shown
    assert all(f"{code} {meaning}" in shown for code, meaning in EXIT_CODES.items())
    assert "11 the system refused a read or write" in shown


def test_exit_codes_are_numbered_in_errors_py_only():
    """No class outside errors.py sets an ``exit_code`` and the CLI returns no bare number but 0."""
    import ast

    package = ROOT / "generator"
    for path in package.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if path.name != "errors.py":
            assert not [
                n.lineno
                for n in ast.walk(tree)
                if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "exit_code" for t in n.targets)
            ], path
        if path.relative_to(package).parts[0] == "cli":  # the command line's modules
            returned = [n.value for n in ast.walk(tree) if isinstance(n, ast.Return) and n.value is not None]
            numbers = [v for r in returned for v in ast.walk(r) if isinstance(v, ast.Constant) and type(v.value) is int and v.value != 0]
            assert not numbers, [ast.unparse(v) for v in numbers]


def test_version_is_the_newest_changelog_entry():
    """Keeps the CHANGELOG honest: the release it lists first is the one installed."""
    import re

    newest = re.search(r"^## \d{4}-\d\d-\d\d — (\d+\.\d+\.\d+)", (ROOT / "CHANGELOG.md").read_text(encoding="utf-8"), re.M)
    result = run_cli("--version")
    assert result.returncode == 0 and newest
    assert result.stdout.strip() == f"prescient {newest.group(1)}"


def test_malformed_hub_toml(tmp_path: Path):
    write_hub(tmp_path, SMALL_HUB.replace("[scoring]", "[scoring"))
    result = run_cli("nightly", "--hub", str(tmp_path), "--as-of", "2026-01-16T00:00:00Z")
    line = SMALL_HUB.splitlines().index("[scoring]") + 1
    assert_clean_failure(result, 2, "data/hub.toml", "[toml-syntax]", f"row {line}")


def test_unknown_source(tmp_path: Path):
    write_hub(tmp_path, SMALL_HUB + "\n[sources.oracle]\nenabled = true\n")
    result = run_cli("nightly", "--hub", str(tmp_path), "--as-of", "2026-01-16T00:00:00Z")
    assert_clean_failure(result, 2, "[unknown-source]", "sources.oracle")


def test_csv_with_a_missing_column_names_file_row_and_column(hub_with_data: Path):
    forecast = hub_with_data / "data/forecasts/2026-01-25/prescient.always-0.5.csv"
    lines = forecast.read_text().splitlines()
    forecast.write_text("\n".join(",".join(line.split(",")[:2] + line.split(",")[3:]) for line in lines) + "\n")
    before = tree_bytes(hub_with_data)
    result = run_cli("nightly", "--hub", str(hub_with_data), "--as-of", "2026-01-17T00:00:00Z")
    # The file is quarantined (reported, not scored) and the night goes on: exit 6, not 3.
    assert_clean_failure(result, 6, "data/forecasts/2026-01-25/prescient.always-0.5.csv", "row 1", "'probability'", "[missing-column]", "quarantined")
    after = tree_bytes(hub_with_data)
    # The fetch phase still recorded the night's observations; every existing byte is kept.
    assert all(after[path].startswith(data) for path, data in before.items())


def test_ledger_row_whose_key_conflicts_with_an_existing_row(hub_with_data: Path):
    ledger_file = next((hub_with_data / "data/observations/sim").glob("*.csv"))
    lines = ledger_file.read_text().splitlines()
    fields = lines[1].split(",")
    fields[3] = "0.123"  # same key (question_id, observed_at, recorded_at), another value
    ledger_file.write_text("\n".join(lines + [",".join(fields)]) + "\n")
    before = tree_bytes(hub_with_data)
    result = run_cli("nightly", "--hub", str(hub_with_data), "--as-of", "2026-01-17T00:00:00Z")
    assert_clean_failure(result, 3, ledger_file.relative_to(hub_with_data).as_posix(), "[duplicate-key]", f"row {len(lines) + 1}")
    assert tree_bytes(hub_with_data) == before


def test_a_rerun_that_would_rewrite_history_is_refused(hub_with_data: Path):
    history = hub_with_data / "data/leaderboard/history.csv"
    run_cli("nightly", "--hub", str(hub_with_data), "--as-of", "2026-03-01T00:00:00Z")
    text = history.read_text()
    last = text.splitlines()[-1].split(",")
    last[7] = "0.5"  # tamper with a recorded headline score
    history.write_text("\n".join(text.splitlines()[:-1] + [",".join(last)]) + "\n")
    before = tree_bytes(hub_with_data)
    result = run_cli("nightly", "--hub", str(hub_with_data), "--as-of", "2026-03-01T00:00:00Z")
    assert_clean_failure(result, 4, "data/leaderboard/history.csv", "[ledger-conflict]", "overall")
    assert tree_bytes(hub_with_data) == before


def test_bad_as_of_is_refused(sim_hub: Path):
    result = run_cli("nightly", "--hub", str(sim_hub), "--as-of", "yesterday")
    assert_clean_failure(result, 2, "--as-of")


def test_sources_and_leaderboard_commands(hub_with_data: Path):
    sources = run_cli("sources", "--hub", str(hub_with_data))
    assert sources.returncode == 0 and "sim         enabled" in sources.stdout
    assert "FRED_API_KEY" in sources.stdout
    board = run_cli("leaderboard", "--hub", str(hub_with_data), "--as-of", "2026-03-01T00:00:00Z", "--format", "csv")
    assert board.returncode == 0, board.stderr
    assert board.stdout.splitlines()[0].startswith("rank,model,name,organization")


def test_a_failing_source_exits_6_and_keeps_what_succeeded(sim_hub: Path):
    text = SMALL_HUB + '\n[sources.dbnomics]\nenabled = true\nseries = ["X/Y/Z"]\nbase_url = "http://127.0.0.1:9"\nretries = 0\n'
    write_hub(sim_hub, text)
    result = run_cli("nightly", "--hub", str(sim_hub), "--as-of", "2026-01-16T00:00:00Z")
    assert result.returncode == 6, result.stderr
    assert "dbnomics: FAILED" in result.stdout and "sim: ok" in result.stdout
    assert (sim_hub / "data/questions/sim.csv").is_file()
    assert (sim_hub / "data/rounds/2026-01-25/questions.csv").is_file()
