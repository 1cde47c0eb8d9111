"""A sim hub started today runs its season with no date tricks: no --as-of, no SOURCE_DATE_EPOCH, git's
own dates. Its time is simulated: each `prescient nightly` runs the night after the latest its ledgers
record (the first one: now), so a maintainer trying a season sees rounds open, fall due, get sealed and
scored, one run a night; the readers (`verify`, `validate`) read the hub at its ledgers' time. Driven
with the real executable and real git, one bot commit a night and the full audit after each, as
nightly.yml runs them; a team's pull request is merged with `--no-ff`."""

from __future__ import annotations

import os
import re
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from generator.config import BOT_EMAIL
from generator.timeutil import parse_ts

from helpers import PRESCIENT

pytestmark = pytest.mark.e2e


def run(*args: str, cwd: Path | None = None, email: str = "alice@example.org") -> subprocess.CompletedProcess:
    """As a maintainer types it today: the clock is the machine's, git dates its commits itself."""
    env = {k: v for k, v in os.environ.items() if k != "SOURCE_DATE_EPOCH" and not k.startswith("GIT_")}
    env.update(GIT_AUTHOR_NAME="alice", GIT_AUTHOR_EMAIL=email, GIT_COMMITTER_NAME="alice", GIT_COMMITTER_EMAIL=email)
    env.update(GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
    done = subprocess.run(list(args), cwd=cwd, capture_output=True, text=True, env=env, timeout=300, check=False)
    assert "Traceback" not in done.stderr, done.stderr
    return done


def ok(*args: str, **kw) -> str:
    done = run(*args, **kw)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout


def commit(hub: Path, message: str, email: str = "alice@example.org") -> None:
    ok("git", "add", "-A", cwd=hub, email=email)
    ok("git", "commit", "-q", "-m", message, cwd=hub, email=email)


def night(hub: Path) -> str:
    """`prescient nightly` as the workflow runs it, its commit by the bot, the full audit recording its
    checkpoint; returns the night's time, as the run's first line names it."""
    done = run(PRESCIENT, "nightly", "--hub", str(hub))
    assert done.returncode == 0, done.stderr
    at = re.search(r"as of (\S+Z) \(([^)]*)\)", done.stderr.splitlines()[0])
    assert at, done.stderr
    commit(hub, f"nightly: data as of {at[1]}", email=BOT_EMAIL)
    audit = run(PRESCIENT, "verify", "--hub", str(hub), "--git", "--full", "--record-checkpoint")
    assert audit.returncode == 0, (at[1], audit.stdout, audit.stderr)
    assert f"as of {at[1]} (the latest time its ledgers record)" in audit.stderr.splitlines()[0], audit.stderr
    if run("git", "status", "--porcelain", cwd=hub).stdout.strip():
        commit(hub, "nightly: the audit's checkpoint", email=BOT_EMAIL)
    return at[1]


def pull_request(hub: Path, due: str) -> str:
    """A team's model and forecasts on a branch, checked as the validate workflow checks it, merged with --no-ff."""
    base = ok("git", "rev-parse", "HEAD", cwd=hub).strip()
    ok("git", "checkout", "-q", "-b", "acme", cwd=hub)
    (hub / "data/models/acme.gpt-x.yml").write_text("name: GPT-X\norganization: acme\nkind: llm\nmaintainers: [alice]\n")
    lines = (hub / f"data/rounds/{due}/questions.csv").read_text().splitlines()
    header = lines[0].split(",")
    qid, date = header.index("question_id"), header.index("resolution_date")
    rows = "".join(f"{r.split(',')[qid]},{r.split(',')[date]},0.6,\n" for r in lines[1:])
    path = f"data/forecasts/{due}/acme.gpt-x.csv"
    (hub / path).write_text("question_id,resolution_date,probability,reasoning\n" + rows)
    commit(hub, "acme.gpt-x for the first round")
    head = ok("git", "rev-parse", "HEAD", cwd=hub).strip()
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")  # the validation run's creation time, as the workflow passes it
    report = run(PRESCIENT, "validate", "--hub", str(hub), "--base", base, "--head", head, "--author", "alice", "--at", now)
    assert report.stdout.startswith("Passed"), report.stdout
    ok("git", "checkout", "-q", "main", cwd=hub)
    ok("git", "merge", "-q", "--no-ff", "-m", "Merge pull request from acme", "acme", cwd=hub)
    return path


def test_a_sim_hub_started_today_advances_one_night_a_run_and_its_audit_stays_green(tmp_path):
    hub = tmp_path / "lab"
    ok(PRESCIENT, "init", str(hub), "--sources", "sim", "--title", "Lab", "--maintainer", "alice")
    text = (hub / "data/hub.toml").read_text().replace('\nreceipts = "github"\n', '\nreceipts = "ledger"\n')  # run by hand: no GitHub
    (hub / "data/hub.toml").write_text(text.replace("\ndataset_questions = 25\n", "\ndataset_questions = 4\n"))
    first_due = re.search(r'\nfirst_due = "(\S+)"\n', text)[1]
    commit(hub, "A new hub (prescient init)")

    times = [parse_ts(night(hub))]
    due = first_due[:10]
    assert (hub / f"data/rounds/{due}/questions.csv").is_file(), "the first night opens the first round"
    forecast = pull_request(hub, due)
    second = (parse_ts(first_due) + timedelta(days=14)).date().isoformat()
    while not (hub / f"data/rounds/{second}").is_dir():
        times.append(parse_ts(night(hub)))
        assert times[-1] - times[-2] == timedelta(days=1), times  # one night a run, past the clock
        assert len(times) <= 16, "the second round never opened"
    assert times[-1] > parse_ts(first_due), "the first round fell due"
    seals = "".join(p.read_text() for p in (hub / "data/seals").glob("*.csv"))
    assert re.search(rf"^{due},acme\.gpt-x,forecast,sealed,", seals, re.M), seals  # the pull request merged on time counts
    assert (hub / forecast).is_file()
    checked = run(PRESCIENT, "verify", "--hub", str(hub), "--git")
    assert checked.returncode == 0 and "from checkpoint" in checked.stdout, checked.stdout
