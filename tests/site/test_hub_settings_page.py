"""The Methodology page states this hub's numbers, not upstream's: "This hub's settings" is
generated from data/hub.toml, and changing a setting changes the page."""

from __future__ import annotations

from generator.site.render import environment, hub_settings_page
from generator.store.files import load_settings

from helpers import ROOT, SMALL_HUB, write_hub

LIVE = SMALL_HUB + "\n[sources.manifold]\nenabled = true\nmin_bettors = 17\n"


def page(tmp_path, text: str) -> str:
    return hub_settings_page(environment(), load_settings(write_hub(tmp_path, text)))


def test_changing_a_setting_changes_the_methodology_page(tmp_path):
    before = page(tmp_path / "a", LIVE)
    assert "due every other Sunday at 00:00 UTC" in before and "`min_bettors` = 17," in before
    assert "a round 20 days old" in before and "more than 5% of a round's rows" in before
    after = page(
        tmp_path / "b",
        LIVE.replace("cadence_days = 14", "cadence_days = 7")
        .replace("open_days_before_due = 10", "open_days_before_due = 7")
        .replace("min_bettors = 17", "min_bettors = 40")
        .replace("min_age_days = 20", "min_age_days = 30")
        .replace("[scoring]", "[scoring]\nmax_imputed_share = 0.1"),
    )
    assert "due every Sunday at 00:00 UTC" in after and "`min_bettors` = 40," in after
    assert "a round 30 days old" in after and "more than 10% of a round's rows" in after
    odd = page(tmp_path / "c", LIVE.replace("cadence_days = 14", "cadence_days = 10"))
    assert "due every 10 days at 00:00 UTC" in odd


def test_the_page_includes_the_snippet_and_a_hub_without_a_source_says_so(tmp_path):
    methodology = (ROOT / "site_src/docs/methodology.md").read_text(encoding="utf-8")
    assert '--8<-- "generated/hub-settings.md"' in methodology
    quiet = page(tmp_path, SMALL_HUB.replace("[sources.sim]\nenabled = true", "[sources.sim]\nenabled = false"))
    assert "| none | the nightly fetches nothing |" in quiet
