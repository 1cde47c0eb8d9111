"""The hub's settings and files checked where every command meets them: a view naming no
source, keys out of step with each other and CODEOWNERS out of step with [hub] maintainers stop
`check-config` and every other command alike (exit 2, with the file, line and code)."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import SMALL_HUB, prescient, write_hub

AT = "2026-01-20T00:00:00Z"


def refused(root: Path, *command: str) -> str:
    done = prescient(*command, "--hub", str(root))
    assert done.returncode == 2, (command, done.stdout, done.stderr)
    return done.stderr


@pytest.mark.parametrize(
    "change,key,line,said",
    [
        (("\n[sources.sim]", '\n[leaderboard]\nviews = ["overall", "source:simm"]\n\n[sources.sim]'), "leaderboard.views", 19, 'did you mean "sim"?'),
        (("cadence_days = 14", "cadence_days = 7"), "rounds.open_days_before_due", 9, "is more than rounds.cadence_days = 7"),
    ],
)
def test_a_setting_check_config_refuses_stops_every_command(tmp_path, change, key, line, said):
    root = write_hub(tmp_path / "hub", SMALL_HUB.replace(*change))
    for command in (("check-config",), ("nightly", "--as-of", AT), ("leaderboard",), ("build", "--no-mkdocs")):
        stderr = refused(root, *command)
        assert "[bad-value]" in stderr and key in stderr and said in stderr, (command, stderr)
        if line is not None:
            assert f"hub.toml, row {line}, column '{key}': [bad-value]" in stderr, stderr
    assert not (root / "data" / "questions").exists(), "the nightly wrote nothing"


def test_open_days_up_to_the_cadence_and_a_view_of_an_imported_source_are_accepted(tmp_path):
    text = SMALL_HUB.replace("open_days_before_due = 10", "open_days_before_due = 14").replace(
        "\n[sources.sim]", '\n[leaderboard]\nviews = ["overall", "source:sim", "source:acled"]\n\n[sources.sim]'
    )
    root = write_hub(tmp_path / "hub", text)
    done = prescient("check-config", "--hub", str(root))
    assert done.returncode == 0, done.stderr


def test_codeowners_out_of_step_stops_every_command_not_only_check_config(tmp_path):
    from generator.pipeline.hubinit import codeowners_script, codeowners_text

    root = write_hub(tmp_path / "hub")
    (root / ".github").mkdir()
    (root / ".github" / "CODEOWNERS").write_text(codeowners_script().render([]), encoding="utf-8")
    for command in (("check-config",), ("nightly", "--as-of", AT), ("leaderboard",), ("verify",), ("build", "--no-mkdocs")):
        stderr = refused(root, *command)
        assert "[codeowners-stale]" in stderr and "hub-maintainer" in stderr, (command, stderr)
    assert not (root / "data" / "questions").exists(), "the nightly wrote nothing"
    (root / ".github" / "CODEOWNERS").write_text(codeowners_text(root), encoding="utf-8")
    done = prescient("nightly", "--hub", str(root), "--as-of", AT)
    assert done.returncode == 0, done.stderr
