"""A team's loop end to end, with the real executable: `prescient round fetch` from a hub's built site
served on 127.0.0.1, a forecast written, `prescient submit --wait` against a local fake of GitHub's API
(tests/_github_forks.py) whose git side is bare repositories on disk, and the hub's own check run by
the fake on every pushed head, as validate.yml runs it.

The hub: a small sim hub whose nightly (as of 2026-01-16) opened the round due 2026-01-25, with one
model registered to bob. Alice's token forks it, pushes one branch per (round, model) and opens one pull
request; a second version is a new commit on the same branch and updates the same pull request.
"""

from __future__ import annotations

import base64
import shutil
import socket
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from _github_forks import LOGIN, ForkingGitHub, head_of

from generator.pipeline.nightly import nightly
from generator.timeutil import parse_ts

from helpers import prescient, serve, write_hub

pytestmark = pytest.mark.e2e

DUE = "2026-01-25"
MODEL = "acme.gpt-x"
FILE = f"data/forecasts/{DUE}/{MODEL}.csv"
BRANCH = f"prescient/{DUE}/{MODEL}"
TOKEN = "ghp_e2eSecretTokenValue0123456789"
FIRST_RUN, SECOND_RUN = "2026-01-20T12:00:00Z", "2026-01-21T09:30:00Z"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout.strip()


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """The hub (a bare repository playing GitHub's), its site built as of 2026-01-16, and a fake GitHub."""
    base = tmp_path_factory.mktemp("submit")
    hub = write_hub(base / "hub")
    assert nightly(hub, parse_ts("2026-01-16T00:00:00Z")).rounds_opened == [DUE]
    (hub / "data/models/other.model.yml").write_text("name: Other\norganization: Other Labs\nkind: llm\nmaintainers: [bob]\n")
    (hub / ".gitignore").write_text("site_src/\n")
    git(hub, "init", "-q", "-b", "main")
    git(hub, "add", "-A")
    git(hub, "-c", "user.name=bot", "-c", "user.email=t@example.invalid", "commit", "-q", "-m", "an open round")
    built = prescient("build", "--hub", str(hub), "--as-of", "2026-01-16T00:00:00Z")
    assert built.returncode == 0, built.stderr
    upstream = base / "acme-hub.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(hub), str(upstream)], check=True)
    git(upstream, "config", "uploadpack.allowFilter", "true")
    return base, hub, upstream


@pytest.fixture(scope="module")
def github(world):
    base, _hub, upstream = world
    fake = ForkingGitHub(base, upstream, TOKEN, clock=FIRST_RUN)
    with fake.serve() as env:
        fake.base_url = env["GITHUB_API_URL"]
        yield fake, {"GITHUB_API_URL": env["GITHUB_API_URL"], "GITHUB_TOKEN": TOKEN, "GH_TOKEN": "", "GITHUB_REPOSITORY": ""}


@pytest.fixture(scope="module")
def team(world, github):
    """The team's folder after `round fetch`, and every output of every run, for the token scan."""
    base, hub, _upstream = world
    outputs: list[str] = []
    with serve(hub / "site_src" / "site") as url:
        done = prescient("round", "fetch", "--site", url, "--dir", str(base / "team"), "--model", MODEL, "--as-of", "2026-01-16T06:00:00Z")
    outputs += [done.stdout, done.stderr]
    assert done.returncode == 0, done.stderr
    return base / "team", outputs


def fill(folder: Path, probability: float) -> None:
    frame = pd.read_csv(folder / FILE, dtype=str, keep_default_na=False)
    frame["probability"] = str(probability)
    frame.to_csv(folder / FILE, index=False, lineterminator="\n")


def submit(team, env: dict, *args: str, at: str = FIRST_RUN):
    folder, outputs = team
    done = prescient("submit", *args, "--repo", "acme/hub", "--as-of", at, cwd=folder, env=env)
    outputs += [done.stdout, done.stderr]
    return done


def test_fetch_writes_the_open_round_as_published_and_a_template(world, team):
    _base, hub, _upstream = world
    folder, _outputs = team
    for name in ("questions.csv", "questions.json"):
        assert (folder / f"data/rounds/{DUE}" / name).read_bytes() == (hub / f"data/rounds/{DUE}" / name).read_bytes()
    template = pd.read_csv(folder / FILE, dtype=str, keep_default_na=False)
    questions = pd.read_csv(hub / f"data/rounds/{DUE}/questions.csv", dtype=str, keep_default_na=False)
    assert len(template) == len(questions) and set(template["probability"]) == {""}


def test_fetch_finds_the_site_from_the_repository(world, github, tmp_path):
    _base, hub, _upstream = world
    fake, env = github
    with serve(hub / "site_src" / "site") as url:
        fake.site = url
        done = prescient("round", "fetch", "--repo", "acme/hub", "--dir", str(tmp_path), "--as-of", "2026-01-16T06:00:00Z", env=env)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / f"data/rounds/{DUE}/questions.csv").read_bytes() == (hub / f"data/rounds/{DUE}/questions.csv").read_bytes()


def test_a_tampered_site_file_is_refused_and_nothing_written(world, tmp_path):
    _base, hub, _upstream = world
    site = tmp_path / "site"
    shutil.copytree(hub / "site_src" / "site" / "api", site / "api")
    (site / "api/rounds" / DUE / "questions.csv").write_bytes(b"question_id,resolution_date\nsim:x,\n")
    with serve(site) as url:
        done = prescient("round", "fetch", "--site", url, "--dir", str(tmp_path / "team"), "--as-of", "2026-01-16T06:00:00Z")
    assert done.returncode == 5 and "[fetch-digest-mismatch]" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "team").exists()


def test_submit_forks_pushes_opens_and_waits_for_the_verdict(world, github, team):
    fake, env = github
    folder, _ = team
    fill(folder, 0.6)
    done = submit(team, env, FILE, "--wait", "--name", "GPT-X", "--organization", "Acme", "--kind", "llm", "--release-date", "2025-12-01")
    assert done.returncode == 0, done.stdout + done.stderr
    fork = fake.forks[LOGIN]
    head = head_of(fork, BRANCH)
    assert head and f"passed: {MODEL} round {DUE}, validation run" in done.stdout and FIRST_RUN in done.stdout
    assert "opened pull request #1" in done.stdout and "/actions/runs/" in done.stdout
    assert git(fork, "show", f"{head}:data/models/{MODEL}.yml") == (folder / f"data/models/{MODEL}.yml").read_text().strip()
    assert "maintainers:\n- alice" in (folder / f"data/models/{MODEL}.yml").read_text()
    pull = fake.pulls[1]
    digest = subprocess.run(["sha256sum", str(folder / FILE)], capture_output=True, text=True, check=True).stdout.split()[0]
    assert pull["head"]["sha"] == head and DUE in pull["body"] and MODEL in pull["body"] and digest in pull["body"]


def test_a_second_version_updates_the_same_pull_request(world, github, team):
    fake, env = github
    folder, _ = team
    first = head_of(fake.forks[LOGIN], BRANCH)
    fill(folder, 0.7)
    fake.clock = SECOND_RUN
    done = submit(team, env, FILE, "--wait", "--format", "json", at=SECOND_RUN)
    assert done.returncode == 0, done.stdout + done.stderr
    head = head_of(fake.forks[LOGIN], BRANCH)
    assert git(fake.forks[LOGIN], "rev-parse", f"{head}^") == first, "a new commit on the same branch"
    assert list(fake.pulls) == [1] and fake.pulls[1]["head"]["sha"] == head
    assert '"verdict": "passed"' in done.stdout and f'"created_at": "{SECOND_RUN}"' in done.stdout
    digest = subprocess.run(["sha256sum", str(folder / FILE)], capture_output=True, text=True, check=True).stdout.split()[0]
    assert digest in fake.pulls[1]["body"]
    again = submit(team, env, FILE, at=SECOND_RUN)  # the same bytes: nothing pushed, the same pull request
    assert again.returncode == 0 and "already at" in again.stdout and head_of(fake.forks[LOGIN], BRANCH) == head


def test_an_invalid_file_is_refused_here_and_nothing_is_sent(github, team):
    fake, env = github
    folder, _ = team
    before, requests, head = list(fake.writes), len(fake.requests), head_of(fake.forks[LOGIN], BRANCH)
    fill(folder, 1.7)
    done = submit(team, env, FILE, "--wait")
    assert done.returncode == 9 and "probability-out-of-range" in done.stdout and "nothing was sent" in done.stderr
    assert fake.writes == before and len(fake.requests) == requests and head_of(fake.forks[LOGIN], BRANCH) == head


def test_a_file_the_hub_refuses_gives_exit_9_with_its_report(github, team):
    fake, env = github
    folder, _ = team
    other = f"data/forecasts/{DUE}/other.model.csv"
    (folder / other).write_bytes((folder / FILE).read_bytes())
    fill(folder, 0.5)
    (folder / other).write_bytes((folder / FILE).read_bytes())
    done = submit(team, env, other, "--wait")
    assert done.returncode == 9, done.stdout + done.stderr
    assert "refused: other.model" in done.stdout and "`not-a-maintainer`" in done.stdout and "2026-01-21T09:30:00Z" in done.stdout
    assert any(p["head"]["label"] == f"{LOGIN}:prescient/{DUE}/other.model" for p in fake.pulls.values())


def test_an_unreachable_api_is_exit_6_with_a_clear_message(team):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nothing listens there once closed
    done = submit(team, {"GITHUB_API_URL": f"http://127.0.0.1:{port}", "GITHUB_TOKEN": TOKEN}, FILE)
    assert done.returncode == 6, done.stdout + done.stderr
    assert "could not be reached" in done.stderr and "Traceback" not in done.stderr


def test_the_token_is_in_no_output_and_no_file(world, team):
    base, _hub, _upstream = world
    _folder, outputs = team
    forms = [TOKEN.encode(), base64.b64encode(f"x-access-token:{TOKEN}".encode())]
    assert len(outputs) >= 10 and not any(TOKEN in text for text in outputs)
    leaked = [p for p in base.rglob("*") if p.is_file() and any(form in p.read_bytes() for form in forms)]
    assert leaked == []
