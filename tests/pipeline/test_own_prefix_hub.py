"""A lab's hub names its own forecasters (`[hub] own_prefix`): an `init`-made hub set to `acmelab`
writes its baselines as `acmelab.*`, refuses a team's `acmelab.x` as reserved while `prescient.x` is an
ordinary team there, checks its own files as its own, and keeps the prefix fixed from its first nightly
on, both in every command and in the git audit. Real executable, real git, as a maintainer types it."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from generator.config import BOT_EMAIL

from helpers import INIT_AT, PRESCIENT, sim_only
from helpers import scene_commit as commit
from helpers import scene_ok as ok
from helpers import scene_run as run

pytestmark = pytest.mark.e2e

DUE = "2026-03-08"


def _team_pr(hub: Path, base: str, model: str, at: str) -> tuple[str, str]:
    """A branch adding ``model`` and its forecasts for the first round; its head and the validation's stdout."""
    ok("git", "checkout", "-q", "-b", model, base, cwd=hub)
    (hub / f"data/models/{model}.yml").write_text("name: X\norganization: A team\nkind: llm\nmaintainers: [bob]\n")
    questions = pd.read_csv(hub / f"data/rounds/{DUE}/questions.csv", dtype=str, keep_default_na=False)
    rows = "".join(f"{q},{d},0.6,\n" for q, d in zip(questions["question_id"], questions["resolution_date"], strict=True))
    (hub / f"data/forecasts/{DUE}/{model}.csv").write_text("question_id,resolution_date,probability,reasoning\n" + rows)
    commit(hub, f"{model} for round {DUE}", at)
    head = ok("git", "rev-parse", "HEAD", cwd=hub).strip()
    checked = run(PRESCIENT, "validate", "--hub", str(hub), "--base", base, "--head", head, "--author", "bob", "--at", at)
    ok("git", "checkout", "-q", "main", cwd=hub)
    return head, checked.stdout


def test_a_lab_hub_runs_its_season_under_its_own_prefix_which_is_fixed_from_its_first_nightly(tmp_path):
    hub = tmp_path / "lab"
    ok(PRESCIENT, "init", str(hub), "--title", "Acme Lab", "--maintainer", "alice", "--as-of", INIT_AT)
    text = sim_only((hub / "data/hub.toml").read_text())
    assert '\nown_prefix = "prescient"\n' in text, "init writes the key, for the lab to set before its first nightly"
    (hub / "data/hub.toml").write_text(text.replace('\nown_prefix = "prescient"\n', '\nown_prefix = "acmelab"\n'))
    commit(hub, "A new hub, its forecasters named acmelab", INIT_AT)

    ok(PRESCIENT, "nightly", "--hub", str(hub), "--as-of", "2026-03-02T12:00:00Z")
    commit(hub, "nightly", "2026-03-02T12:05:00Z", email=BOT_EMAIL)
    own = sorted(p.name for p in (hub / f"data/forecasts/{DUE}").iterdir())
    assert own == ["acmelab.always-0.5.csv", "acmelab.always-0.csv", "acmelab.always-1.csv", "acmelab.random-uniform.csv"]
    assert (hub / "data/models/acmelab.naive.yml").is_file() and not list((hub / "data/models").glob("prescient.*"))
    base = ok("git", "rev-parse", "HEAD", cwd=hub).strip()

    # A team may not take the hub's prefix; on this hub `prescient` is a team like any other.
    _, refused = _team_pr(hub, base, "acmelab.x", "2026-03-03T09:00:00Z")
    assert refused.startswith("Failed") and "reserved-prefix" in refused and "the team prefix acmelab." in refused, refused
    _, passed = _team_pr(hub, base, "prescient.x", "2026-03-03T09:00:00Z")
    assert passed.startswith("Passed"), passed
    ok("git", "merge", "-q", "--no-ff", "-m", "Merge prescient.x's forecasts", "prescient.x", cwd=hub, at="2026-03-03T10:00:00Z")

    for at in ("2026-03-04T02:00:00Z", "2026-03-09T02:00:00Z", "2026-03-17T02:00:00Z"):
        ok(PRESCIENT, "nightly", "--hub", str(hub), "--as-of", at)
        commit(hub, f"nightly {at}", at, email=BOT_EMAIL)
    seals = "".join(p.read_text() for p in (hub / "data/seals").glob("*.csv"))
    assert f"{DUE},prescient.x,forecast,sealed," in seals, "a team's file, sealed as one"
    assert (hub / f"data/forecasts/{DUE}/acmelab.naive.csv").is_file(), "the after-due baselines, under the prefix"

    # The hub's own files are checked as its own; the board's skill scores are against the hub's Naive.
    mine = run(PRESCIENT, "validate", "--hub", str(hub), f"data/forecasts/{DUE}/acmelab.always-0.5.csv", cwd=hub)
    assert mine.returncode == 0 and "the hub's own forecasters' files (acmelab.*)" in mine.stdout, mine.stdout
    theirs = run(PRESCIENT, "validate", "--hub", str(hub), f"data/forecasts/{DUE}/prescient.x.csv", cwd=hub)
    assert "hub's own" not in theirs.stdout, theirs.stdout
    printed = ok(PRESCIENT, "leaderboard", "--hub", str(hub), "--board", "preliminary", "--replicates", "0", "--format", "json")
    board = {r["model"]: r["bss"] for r in json.loads(printed)}
    assert board["acmelab.naive"] == 0 and board["prescient.x"] is not None and "acmelab.always-0.5" in board, board
    audited = run(PRESCIENT, "verify", "--hub", str(hub), "--git", "--full")
    assert audited.returncode == 0, (audited.stdout, audited.stderr)

    # Renamed after the first nightly: every command refuses the hub...
    toml = (hub / "data/hub.toml").read_text()
    (hub / "data/hub.toml").write_text(toml.replace('own_prefix = "acmelab"', 'own_prefix = "prescient"'))
    changed = run(PRESCIENT, "check-config", "--hub", str(hub))
    assert changed.returncode == 2 and "own-prefix-changed" in changed.stdout + changed.stderr, changed
    assert "'prescient'" in changed.stdout + changed.stderr and "'acmelab'" in changed.stdout + changed.stderr
    assert run(PRESCIENT, "nightly", "--hub", str(hub), "--as-of", "2026-03-18T02:00:00Z").returncode == 2
    # ... and the audit, which reads the prefix as the first nightly left it, even with the files renamed too.
    for path in sorted((hub / "data").rglob("acmelab.*")):
        path.rename(path.with_name(path.name.replace("acmelab.", "prescient.", 1)))
    commit(hub, "Rename the hub's forecasters", "2026-03-17T12:00:00Z")
    audited = run(PRESCIENT, "verify", "--hub", str(hub), "--git", "--full")
    assert audited.returncode != 0 and "own-prefix-changed" in audited.stdout and "hub-ledger-edited" in audited.stdout, audited.stdout
