"""`[hub] own_prefix`: the team prefix of the hub's own forecasters, a team id no one else uses, read
from the hub and passed down to every rule that tells the hub's own models from a team's (the whole
season on an `init`-made hub: tests/pipeline/test_own_prefix_hub.py)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from generator.errors import ConfigError
from generator.forecasters.baselines import AtDeadline, at_open, baselines
from generator.leaderboard.rows import distinct_names
from generator.models import ModelMeta
from generator.oracle.answer import AnswerOptions, meta_for, model_id
from generator.oracle.board import run_by
from generator.site.arena_page import is_hub_agent
from generator.store.files import load_settings
from generator.submissions import paths, policy

from helpers import SMALL_HUB, write_hub

OWN = SMALL_HUB.replace("[hub]\n", '[hub]\nown_prefix = "acmelab"\n', 1)


def _problems(root: Path) -> list[tuple[str, int | None, str | None, str]]:
    with pytest.raises(ConfigError) as raised:
        load_settings(root)
    return [(p.code, p.row, p.column, p.message) for p in raised.value.problems]


@pytest.mark.parametrize("value", ['"Acme"', '"acme.lab"', '"-acme"', '"demo"', '"forecastbench"'])
def test_the_prefix_is_a_team_id_that_is_neither_the_demos_nor_forecastbenchs(tmp_path, value):
    write_hub(tmp_path, SMALL_HUB.replace("[hub]\n", f"[hub]\nown_prefix = {value}\n", 1))
    [(code, row, column, message)] = _problems(tmp_path)
    assert (code, row, column) == ("bad-value", 2, "hub.own_prefix") and value.strip('"') in message


def test_the_default_is_prescient_and_a_lab_names_its_own(tmp_path):
    assert load_settings(write_hub(tmp_path / "a", SMALL_HUB)).own_prefix == "prescient"
    assert load_settings(write_hub(tmp_path / "b", OWN)).own_prefix == "acmelab"
    assert list(baselines("acmelab")) == [m.replace("prescient.", "acmelab.") for m in baselines()]


def test_a_prefix_other_than_the_one_the_hubs_files_were_written_under_is_refused(tmp_path):
    """own-prefix-changed: the hub's own Always 0.5 metadata under another prefix; a team's model of that name
    (kind llm) and ForecastBench's (kind baseline, its organization) tell nothing."""
    write_hub(tmp_path, OWN)
    models = tmp_path / "data/models"
    models.mkdir(parents=True)
    (models / "acme.always-0.5.yml").write_text("name: Always 0.5\norganization: Prescient\nkind: llm\nmaintainers: [bob]\n")
    fb = ModelMeta("forecastbench.always-0.5", "Always 0.5", "ForecastBench", "baseline")
    (models / "forecastbench.always-0.5.yml").write_bytes(fb.to_yaml())
    assert load_settings(tmp_path).own_prefix == "acmelab"
    (models / "prescient.always-0.5.yml").write_bytes(at_open()["prescient.always-0.5"][0].to_yaml())
    [(code, row, column, message)] = _problems(tmp_path)
    assert (code, row, column) == ("own-prefix-changed", 2, "hub.own_prefix")
    assert "'acmelab'" in message and "'prescient'" in message and "data/models/prescient.always-0.5.yml" in message


def test_the_hubs_prefix_is_reserved_and_prescient_is_a_team_like_any_other():
    def target(model: str) -> paths.Target:
        return paths.classify(f"data/forecasts/2026-01-25/{model}.csv")[0]

    [refused] = policy.check_reserved_prefix(target("acmelab.x"), "acmelab")
    assert refused.code == "reserved-prefix" and "the team prefix acmelab." in refused.message
    assert policy.check_reserved_prefix(target("prescient.x"), "acmelab") == []
    assert [p.code for p in policy.check_reserved_prefix(target("prescient.x"))] == ["reserved-prefix"]  # the default hub
    assert paths.is_hub_written("data/bets/2026-01-25/acmelab.m-arena.csv", "acmelab")
    assert not paths.is_hub_written("data/bets/2026-01-25/prescient.m-arena.csv", "acmelab")
    assert paths.is_hub_written("data/models/prescient.naive.yml") and not paths.is_hub_written("data/models/acmelab.naive.yml")


def test_the_crowd_leaves_out_the_hubs_own_forecasters_and_counts_a_team_called_prescient():
    questions = pd.DataFrame({"question_id": ["q"], "resolution_date": [""], "kind": ["binary"], "due": ["2026-01-25T00:00:00Z"]})

    def frame(p: float) -> pd.DataFrame:
        return pd.DataFrame({"question_id": ["q"], "resolution_date": [""], "probability": [p], "reasoning": [""]})

    submitted = {"acmelab.always-1": frame(1.0), "prescient.x": frame(0.2), "acme.y": frame(0.4)}
    ctx = AtDeadline(None, pd.Timestamp("2026-01-25", tz="UTC"), submitted, own="acmelab")  # type: ignore[arg-type]
    median = baselines("acmelab")["acmelab.crowd-median"][1](questions, ctx)
    assert median["probability"].tolist() == [pytest.approx(0.3)]


def test_the_hubs_oracle_runs_are_named_by_its_prefix():
    options = AnswerOptions("GPT X", team="acmelab")
    assert model_id(options) == "acmelab.gpt-x-closed-book" and meta_for(model_id(options), options).organization == "acmelab"
    assert model_id(AnswerOptions("GPT X")) == "prescient.gpt-x-closed-book"


def test_the_site_and_boards_label_the_hubs_runs_by_its_prefix():
    assert distinct_names(["acmelab.always-1", "forecastbench.always-1"], ["Always 1", "Always 1"], "acmelab") == ["Always 1 (hub)", "Always 1"]
    assert run_by("acmelab.m-closed-book", "acmelab") == "hub" and run_by("prescient.m-closed-book", "acmelab") == "self-reported"
    assert is_hub_agent("acmelab.m-arena", "acmelab") and not is_hub_agent("prescient.m-arena", "acmelab")
