"""Every setting the hand-written pages state is this hub's value, and an excluded model's page says so.

The pages write ``{hub:table.key}`` where they state a setting; the ``settings`` MkDocs hook puts this
hub's value there, read from ``generated/hub-settings.json`` (``hub_settings.prose_values``). So a hub
set to 30 days never reads "`min_age_days` (50)"."""

from __future__ import annotations

import importlib.util
import json
import re

import pandas as pd

from generator.models import ModelMeta
from generator.schemas import DECISIONS_TAKEN, MAINTAINER_ACTIONS
from generator.site.hub_settings import prose_values
from generator.site.render import environment, hub_settings_page, render_site
from generator.site.sitedata import GENERATED, SiteData
from generator.store.files import load_settings
from generator.timeutil import parse_ts

from helpers import ROOT, SMALL_HUB, write_hub

DOCS = ROOT / "site_src/docs"


def hook():
    spec = importlib.util.spec_from_file_location("settings_hook", ROOT / "site_src/hooks/settings.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def built(tmp_path, page: str, text: str) -> str:
    """``page`` of site_src/docs as the hook gives it to MkDocs on a hub of ``text``."""
    settings = load_settings(write_hub(tmp_path / "hub", text))
    docs = tmp_path / "docs"
    (docs / "generated").mkdir(parents=True)
    (docs / "generated/hub-settings.json").write_text(json.dumps(prose_values(settings)))
    return hook().on_page_markdown((DOCS / page).read_text(encoding="utf-8"), None, {"docs_dir": str(docs)}, None)


def test_the_methodology_states_the_hubs_own_numbers(tmp_path):
    text = SMALL_HUB.replace("min_age_days = 20", "min_age_days = 30").replace("[scoring]", "[scoring]\nmax_imputed_share = 0.1")
    page = built(tmp_path, "methodology.md", text)
    assert "`min_age_days` (30) days past their due date" in page and "`max_imputed_share` (10%)" in page
    assert "`min_age_days` (50)" not in page and "(5%)" not in page and "{hub:" not in page
    assert "(here 5 and 30;" in page, "the stability rule's numbers too"
    assert "`random_articles` (3)" in page, "a hub without [oracle] states the defaults it would run with"


def test_every_setting_a_page_names_is_one_the_hub_has(tmp_path):
    values = prose_values(load_settings(write_hub(tmp_path, SMALL_HUB)))
    for page in DOCS.glob("*.md"):
        named = set(re.findall(r"\{hub:([a-z_]+\.[a-z_]+%?)\}", page.read_text(encoding="utf-8")))
        assert named <= set(values), (page.name, named - set(values))


def test_without_the_values_the_key_stands_in_place_of_a_number(tmp_path):
    out = hook().on_page_markdown("at least `min_age_days` ({hub:scoring.min_age_days}) days", None, {"docs_dir": str(tmp_path)}, None)
    assert out == "at least `min_age_days` (`min_age_days`) days"


def test_the_settings_bullets_are_each_on_their_own_line(tmp_path):
    page = hub_settings_page(environment(), load_settings(write_hub(tmp_path, SMALL_HUB)))
    assert re.search(r"before the due time\.\n- \*\*Scoring\*\*", page), page
    assert ".- **" not in page


def test_an_excluded_models_page_says_so_with_the_reason_and_the_date():
    models = {m: ModelMeta(id=m, name=m, organization="o", kind="llm") for m in ("acme.bot", "beta.bot")}
    blank = dict.fromkeys((*MAINTAINER_ACTIONS.names, *DECISIONS_TAKEN.names), "") | {"outcome": float("nan")}
    decisions = pd.DataFrame(
        [
            blank
            | {
                "recorded_at": "2026-01-20T00:00:00Z",
                "action": "exclude",
                "target": "acme.bot",
                "effective_at": "2026-01-21T00:00:00Z",
                "by": "alice",
                "reason": "its forecasts copied <b>another</b> team's",
            }
        ]
    )
    data = SiteData(
        title="t",
        as_of=parse_ts("2026-02-01T00:00:00Z"),
        methodology_version="1",
        board=pd.DataFrame(columns=["model"]),
        history=pd.DataFrame(columns=["as_of", "model", "overall"]),
        models=models,
        model_scores={},
        rounds=[],
        decisions=decisions,
    )
    files = render_site(data)
    excluded = files[f"{GENERATED}/models/acme.bot.md"].decode()
    assert "Excluded from the boards" in excluded and "<strong>2026-01-21T00:00:00Z</strong>" in excluded
    assert "copied &lt;b&gt;another&lt;/b&gt; team&#39;s" in excluded and "alice" in excluded
    assert "Excluded from the boards" not in files[f"{GENERATED}/models/beta.bot.md"].decode()
