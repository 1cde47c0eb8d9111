"""Shared fixtures: small hubs on the offline sim world, and a helper to run the CLI."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from _browser import browser  # noqa: F401 (the browser tests' Chromium, a fixture: tests/_browser.py)

from generator.timeutil import parse_ts

SMALL_HUB = """\
[hub]
title = "Test hub"
maintainers = ["hub-maintainer"]
bot_email = "t@example.invalid"  # the committer of the tests' git histories, playing the hub's nightly

[rounds]
first_due = "2026-01-25T00:00:00Z"
cadence_days = 14
open_days_before_due = 10
market_questions = 12
dataset_questions = 4
horizons = [7, 30]

[scoring]
min_resolved = 5
min_age_days = 20

[sources.sim]
enabled = true
seed = 3
start = "2026-01-04T00:00:00Z"
markets = 60
series = 6
span_days = 120
"""


MANIFOLD_API = Path(__file__).parent / "data" / "api" / "manifold"
MANIFOLD_HUB = """\
[rounds]
first_due = "2026-08-16T00:00:00Z"
market_questions = 3
dataset_questions = 0

[sources.manifold]
enabled = true
min_bettors = 5
min_liquidity = 100
rate_per_second = 0
retries = 0
"""  # a hub on the recorded Manifold payloads of tests/data/api/manifold


def installed(script: str) -> str | None:
    """The console script installed beside this Python (the environment the tests run in, which
    need not be activated: the README runs `.venv/bin/python -m pytest -n auto`), else one on PATH."""
    beside = Path(sys.executable).parent / script
    return str(beside) if beside.is_file() else shutil.which(script)


PRESCIENT = installed("prescient") or "prescient"


def write_hub(root: Path, text: str = SMALL_HUB) -> Path:
    (root / "data").mkdir(parents=True, exist_ok=True)
    (root / "data" / "hub.toml").write_text(text, encoding="utf-8")
    return root


@pytest.fixture(scope="session", autouse=True)
def _nightly_cache_in_tmp(tmp_path_factory):
    """``prescient nightly`` keeps a disk cache, by default under ~/.cache/prescient; the tests'
    nightlies (the CLI in subprocesses included) keep theirs in this run's temporary folder, so a
    test run leaves nothing in the home folder and never reads what an earlier run left there."""
    previous = os.environ.get("PRESCIENT_CACHE_DIR")
    os.environ["PRESCIENT_CACHE_DIR"] = str(tmp_path_factory.mktemp("nightly-cache"))
    yield
    if previous is None:
        os.environ.pop("PRESCIENT_CACHE_DIR", None)
    else:
        os.environ["PRESCIENT_CACHE_DIR"] = previous


@pytest.fixture
def sim_hub(tmp_path: Path) -> Path:
    """An empty hub with only the sim source enabled."""
    return write_hub(tmp_path / "hub")


def ts(text: str):
    return parse_ts(text)


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Run ``python -m generator`` as a user would; never raises."""
    return subprocess.run([sys.executable, "-m", "generator", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=600)


def tree_bytes(root: Path) -> dict[str, bytes]:
    """Every file under root/data, as bytes: to prove a run changed nothing."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted((root / "data").rglob("*")) if p.is_file()}


@pytest.fixture(scope="session")
def demo_hub(tmp_path_factory) -> Path:
    """The demo exactly as `prescient demo` makes it (the default season), built once per test run
    and copied into each pytest-xdist worker's own folder (some tests rebuild the site in it).

    ``PRESCIENT_TEST_DEMO`` may name a demo that `prescient demo` has just built from this
    checkout; ``.ci/run`` sets it to the README quickstart's demo, so the season runs once."""
    built = os.environ.get("PRESCIENT_TEST_DEMO")
    source = Path(built) if built else _demo_of_this_run(tmp_path_factory)
    if not (source / "data/hub.toml").is_file() or not (source / "site_src/site/index.html").is_file():
        pytest.fail(f"PRESCIENT_TEST_DEMO={built}: not a built demo hub")
    target = tmp_path_factory.mktemp("demo") / "demo"
    shutil.copytree(source, target, symlinks=True)
    return target


def _demo_of_this_run(tmp_path_factory) -> Path:
    """One demo per test run, whatever the number of xdist workers: the first worker builds it
    under a lock, the others wait for it."""
    from generator.pipeline.demo import run_demo

    run = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        run = run.parent  # the run's folder, shared by its workers (each has a popen-gwN below it)
    with open(run / "demo.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        demo = run / "demo"
        if not (demo / "site_src/site/index.html").is_file():
            run_demo(demo)  # resumes a demo an interrupted worker left
        return demo


class InFlight:
    """Wraps a request handler and records the most requests ever in flight at once."""

    def __init__(self, respond, delay: float = 0.01):
        import threading

        self.respond, self.delay, self.lock = respond, delay, threading.Lock()
        self.now = self.max = 0

    def __call__(self, request):
        import time

        with self.lock:
            self.now += 1
            self.max = max(self.max, self.now)
        time.sleep(self.delay)
        with self.lock:
            self.now -= 1
        return self.respond(request)


def score_rows(forecasts: dict, outcome: dict, round_: str = "2026-01-04", imputed=()) -> pd.DataFrame:
    """A SCORES frame from ``{model: {question: p}}``: questions named ``m…`` are manifold markets,
    the others fred dataset questions resolving 2026-01-11; ``outcome`` maps question → 0/1."""
    rows = []
    for model, given in forecasts.items():
        for q, p in given.items():
            market = q.startswith("m")
            rows.append({"round": round_, "model": model, "question_id": f"{'manifold' if market else 'fred'}:{q}",
                         "resolution_date": "" if market else "2026-01-11", "source": "manifold" if market else "fred",
                         "kind": "binary" if market else "dataset", "category": "", "probability": p,
                         "imputed": int((model, q) in imputed), "outcome": outcome[q],
                         "resolved_at": "2026-01-20T00:00:00Z", "brier": (p - outcome[q]) ** 2})
    return pd.DataFrame(rows)
