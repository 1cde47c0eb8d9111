"""`prescient validate FILE` on a file of the hub's own forecasters: checked by the rules the
nightly applies when it writes one, at the time the hub's manifest recorded its bytes, and the report
says so; before, it was refused with reserved-prefix (exit 9) and an auditor had no command for it."""

from __future__ import annotations

from helpers import prescient

DUE = "2026-01-25"
OPENED = "2026-01-20T00:00:00Z"


def test_the_hubs_own_file_is_checked_by_the_nightlys_rules_at_its_recorded_time(sim_hub):
    for night in (OPENED, "2026-01-27T00:00:00Z"):  # the second night is past the round's due time
        done = prescient("nightly", "--hub", str(sim_hub), "--as-of", night)
        assert done.returncode == 0, done.stderr
    own = sim_hub / f"data/forecasts/{DUE}/prescient.always-0.5.csv"
    done = prescient("validate", "--hub", str(sim_hub), str(own), str(sim_hub / "data/models/prescient.always-0.5.yml"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("Passed: 2 file(s)") and "reserved-prefix]" not in done.stdout
    assert (
        f"data/forecasts/{DUE}/prescient.always-0.5.csv: the hub's own forecasters' files (prescient.*), checked by the rules "
        f"the nightly applies when it writes them, at {OPENED} (when the hub's manifest first recorded these bytes)"
    ) in done.stdout

    late = prescient("validate", "--hub", str(sim_hub), "--as-of", "2026-01-27T00:00:00Z", str(own))  # a time given is the time checked
    assert "at 2026-01-27T00:00:00Z (the time given)" in late.stdout and "[sealed-round]" in late.stdout, late.stdout

    own.write_text(own.read_text().replace(",0.500000,", ",1.500000,", 1))  # bytes the hub never recorded, and out of range
    changed = prescient("validate", "--hub", str(sim_hub), str(own))
    assert changed.returncode == 9 and "no manifest row records these bytes" in changed.stdout, changed.stdout


def test_a_submitters_file_beside_the_hubs_own_is_still_checked_as_a_pull_request_would(sim_hub):
    assert prescient("nightly", "--hub", str(sim_hub), "--as-of", OPENED).returncode == 0
    theirs = sim_hub / f"data/forecasts/{DUE}/acme.bot.csv"
    theirs.write_text((sim_hub / f"data/forecasts/{DUE}/prescient.always-0.5.csv").read_text())
    done = prescient("validate", "--hub", str(sim_hub), "--as-of", OPENED, str(theirs), str(sim_hub / f"data/forecasts/{DUE}/prescient.always-0.csv"))
    assert "[author-unchecked]" in done.stdout and f"data/forecasts/{DUE}/acme.bot.csv" in done.stdout, done.stdout
    assert "the hub's own forecasters' files" in done.stdout and "2 file(s)" in done.stdout.splitlines()[0]
