"""`nightly --catch-up` committed as one commit: the audit accepts every night it carries.

Each night's ``ledger_digest`` was taken of the ledgers as they stood that night, which no commit
holds when the nights are committed together; the audit rebuilds them from the rows recorded by
then (``audit.night_state``). Driven through the real executable and real git on a hub made by
`prescient init` (the offline sim world its only source), each commit by the hub's bot."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from generator.config import BOT_EMAIL

from helpers import INIT_AT, PRESCIENT
from helpers import scene_commit as commit
from helpers import scene_ok as ok
from helpers import scene_run as run

pytestmark = pytest.mark.e2e

SETTINGS = {  # weekly rounds of four series, a model ranked from its first resolved question: history rows early
    'receipts = "github"': 'receipts = "ledger"',
    "cadence_days = 14": "cadence_days = 7",
    "open_days_before_due = 10": "open_days_before_due = 5",
    "dataset_questions = 25": "dataset_questions = 4",
    "min_age_days = 50": "min_age_days = 0",
    "min_resolved = 20": "min_resolved = 1",
}


def sim_hub(tmp_path: Path) -> Path:
    hub = tmp_path / "lab"
    ok(PRESCIENT, "init", str(hub), "--sources", "sim", "--title", "Lab", "--as-of", INIT_AT)
    text = (hub / "data/hub.toml").read_text()
    for old, new in SETTINGS.items():
        assert f"\n{old}\n" in text, old
        text = text.replace(f"\n{old}\n", f"\n{new}\n")
    (hub / "data/hub.toml").write_text(text)
    commit(hub, "A new hub (prescient init)", INIT_AT)
    done = run(PRESCIENT, "nightly", "--hub", str(hub), "--as-of", "2026-03-02T12:00:00Z", at="2026-03-02T12:00:00Z")
    assert done.returncode == 0, done.stderr
    commit(hub, "nightly: data as of 2026-03-02T12:00:00Z", "2026-03-02T12:00:00Z", email=BOT_EMAIL)
    return hub


def catch_up(hub: Path, until: str) -> list[str]:
    """The catch-up, then the nights history.csv gained (each with a digest)."""
    before = set(nights(hub))
    done = run(PRESCIENT, "nightly", "--hub", str(hub), "--catch-up", "--as-of", until, at=until)
    assert done.returncode == 0, done.stderr
    return [n for n in nights(hub) if n not in before]


def nights(hub: Path) -> list[str]:
    lines = (hub / "data/leaderboard/history.csv").read_text().splitlines() if (hub / "data/leaderboard/history.csv").exists() else []
    if not lines:
        return []
    header = lines[0].split(",")
    at, digest = header.index("as_of"), header.index("ledger_digest")
    return sorted({row.split(",")[at] for row in lines[1:] if row.split(",")[digest]})


def audit(hub: Path, at: str, *extra: str) -> dict:
    done = run(PRESCIENT, "verify", "--hub", str(hub), "--git", "--full", "--format", "json", *extra, at=at)
    return json.loads(done.stdout)


def test_a_catch_up_committed_as_one_commit_passes_the_audit_and_a_changed_night_still_fails(tmp_path):
    hub = sim_hub(tmp_path)
    carried = catch_up(hub, "2026-03-22T12:00:00Z")
    assert len(carried) >= 3, carried  # several nights with a digest, in one commit
    digests = {n: d for n, d in _digest_of(hub).items() if n in carried}
    assert len(set(digests.values())) >= 2, "the nights' ledgers differ: an earlier night is not the commit's own state"
    commit(hub, "nightly: catch-up to 2026-03-22T12:00:00Z", "2026-03-22T12:00:00Z", email=BOT_EMAIL)
    found = audit(hub, "2026-03-22T12:00:00Z", "--record-checkpoint")
    assert found["ok"], [p for p in found["problems"] if p["severity"] == "error"]
    commit(hub, "nightly: the audit's checkpoint", "2026-03-22T12:00:00Z", email=BOT_EMAIL)
    checked = run(PRESCIENT, "verify", "--hub", str(hub), "--git", at="2026-03-22T12:00:00Z")
    assert checked.returncode == 0 and "from checkpoint" in checked.stdout, checked.stdout

    # the next catch-up, one of its earlier nights' digests changed before the commit: that night, and only it, fails
    carried = catch_up(hub, "2026-03-26T12:00:00Z")
    changed = carried[1]
    history = hub / "data/leaderboard/history.csv"
    lines = history.read_text().splitlines(keepends=True)
    at = lines[0].split(",").index("as_of")
    history.write_text("".join(line.replace(_digest_of(hub)[changed], "0" * 64) if line.split(",")[at] == changed else line for line in lines))
    commit(hub, "nightly: catch-up to 2026-03-26T12:00:00Z", "2026-03-26T12:00:00Z", email=BOT_EMAIL)
    found = audit(hub, "2026-03-26T12:00:00Z")
    wrong = [p["message"] for p in found["problems"] if p["code"] == "ledger-digest-differs"]
    assert wrong and all(changed in m for m in wrong), wrong


def _digest_of(hub: Path) -> dict[str, str]:
    lines = (hub / "data/leaderboard/history.csv").read_text().splitlines()
    header = lines[0].split(",")
    at, digest = header.index("as_of"), header.index("ledger_digest")
    return {row.split(",")[at]: row.split(",")[digest] for row in lines[1:]}
