"""The tests' fixtures: small hubs on the offline sim world, the demo hub, a committed git season,
and the browser. Plain helpers (paths, hubs, the CLI run as a user runs it) are in ``helpers.py``."""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers import CHROMIUM, CHROMIUM_ARGS, build_git_season, write_hub

# `pytest` alone runs the fast suite; `--everything` (the README's command, and so `.ci/run`) adds these.
FULL_ONLY = ("slow", "browser", "e2e")


def pytest_addoption(parser):
    parser.addoption("--everything", action="store_true", help="also run the tests marked " + ", ".join(FULL_ONLY) + " (left out by default)")


def pytest_collection_modifyitems(config, items):
    """Mark every test that uses the demo e2e (it needs the demo built), then, unless ``--everything`` or a
    ``-m`` expression is given, leave out the tests marked slow, browser or e2e, saying how many."""
    for item in items:
        if "demo_hub" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.e2e)
    if config.getoption("--everything") or config.option.markexpr:
        return
    kept, left = [], []
    for item in items:
        (left if any(item.get_closest_marker(name) for name in FULL_ONLY) else kept).append(item)
    if left:
        config.hook.pytest_deselected(items=left)
        items[:] = kept


def pytest_report_header(config):
    if not (config.getoption("--everything") or config.option.markexpr):
        return f"the fast suite: tests marked {', '.join(FULL_ONLY)} are left out (--everything runs them)"
    return None


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


@pytest.fixture(scope="session")
def git_season(tmp_path_factory) -> Path:
    """A hub with four nightly runs, each committed an hour after its as_of (``build_git_season``):
    built once per test process, for the git audit's and verify's tests. Read it, or copy it to change it."""
    return build_git_season(tmp_path_factory.mktemp("season") / "hub")


@pytest.fixture(scope="module")
def browser() -> Iterator:
    """Headless Chromium for one test module (a ``playwright.sync_api.Browser``); a browser test
    module calls ``helpers.require_browser()`` before it imports Playwright."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()
