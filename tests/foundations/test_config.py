"""hub.toml: every problem reported with its key; as_of resolved once, in a documented order."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from generator.config import resolve_as_of
from generator.errors import ConfigError
from generator.store.files import load_settings

from helpers import SMALL_HUB, write_hub


def test_malformed_toml_names_the_file_and_line(tmp_path):
    root = write_hub(tmp_path, SMALL_HUB.replace('title = "Test hub"', 'title = "Test hub'))
    with pytest.raises(ConfigError) as info:
        load_settings(root)
    problem = info.value.problems[0]
    assert problem.code == "toml-syntax" and problem.row == 2 and problem.file.endswith("data/hub.toml")


def test_unknown_source_wrong_types_and_unknown_keys_are_all_reported(tmp_path):
    text = SMALL_HUB.replace("cadence_days = 14", 'cadence_days = "two weeks"\ncolour = "blue"')
    root = write_hub(tmp_path, text + "\n[sources.yahoo]\nenabled = true\n")
    with pytest.raises(ConfigError) as info:
        load_settings(root)
    found = {(p.code, p.column) for p in info.value.problems}
    assert found == {("wrong-type", "rounds.cadence_days"), ("unknown-key", "rounds.colour"), ("unknown-source", "sources.yahoo")}
    assert "known sources:" in next(p.message for p in info.value.problems if p.code == "unknown-source")


def test_missing_hub_file_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="not found"):
        load_settings(tmp_path)


def test_as_of_comes_from_the_option_then_source_date_epoch_then_the_clock():
    assert resolve_as_of("2026-03-01T12:00:00Z", {"SOURCE_DATE_EPOCH": "0"}) == datetime(2026, 3, 1, 12, tzinfo=UTC)
    assert resolve_as_of(None, {"SOURCE_DATE_EPOCH": "86400"}) == datetime(1970, 1, 2, tzinfo=UTC)
    assert resolve_as_of(None, {}).tzinfo is not None
    with pytest.raises(ConfigError):
        resolve_as_of("2026-03-01T12:00:00", {})  # no time zone: refused, never guessed


def test_request_limits_must_be_positive_numbers_in_http_or_a_source_table(tmp_path):
    root = write_hub(
        tmp_path / "hub",
        SMALL_HUB
        + '\n[http]\nrequest_seconds = 0\nmax_response_bytes = "20MB"\n'
        + "\n[sources.manifold]\nmax_response_bytes = -1\nrequest_seconds = true\n",
    )
    with pytest.raises(ConfigError) as caught:
        load_settings(root)
    assert {p.column: p.code for p in caught.value.problems} == {
        "http.request_seconds": "bad-value",
        "http.max_response_bytes": "wrong-type",
        "sources.manifold.max_response_bytes": "bad-value",
        "sources.manifold.request_seconds": "wrong-type",
    }
    ok = load_settings(write_hub(tmp_path / "ok", SMALL_HUB + "\n[http]\nrequest_seconds = 60\nmax_response_bytes = 1000000\n"))
    assert ok.http["request_seconds"] == 60 and ok.http["max_response_bytes"] == 1000000


def test_each_default_is_written_once_in_its_dataclass(tmp_path):
    """A hub.toml with only the required key gets every dataclass default; a missing required key
    (a field without a default) and a wrong board name are reported with their codes."""
    from generator.config import HubTable, LeaderboardSettings, RoundSettings, ScoringSettings

    settings = load_settings(write_hub(tmp_path / "min", '[rounds]\nfirst_due = "2026-01-04T00:00:00Z"\n'))
    assert settings.rounds == RoundSettings(first_due=settings.rounds.first_due)
    assert (settings.scoring, settings.leaderboard) == (ScoringSettings(), LeaderboardSettings())
    assert (settings.title, settings.repo_url) == (HubTable().title, HubTable().repo_url)
    with pytest.raises(ConfigError) as caught:
        load_settings(write_hub(tmp_path / "bad", '[leaderboard]\nboards = ["everyone"]\n'))
    assert {(p.code, p.column) for p in caught.value.problems} == {("missing-key", "rounds.first_due"), ("bad-value", "leaderboard.boards")}
    assert 'expected one of "tournament", "baseline"' in str(caught.value.problems)
