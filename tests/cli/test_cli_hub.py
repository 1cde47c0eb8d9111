"""The command line finds its hub and speaks plainly: the nearest folder holding
data/hub.toml, the hub and as-of time on stderr's first line, "nothing recorded yet" on an empty
hub, and one-line errors with the documented exit codes instead of tracebacks. Every test runs the
real program in a subprocess."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from helpers import installed, run_cli, write_hub

pytestmark = pytest.mark.e2e

AS_OF = "2026-01-16T00:00:00Z"
PRESCIENT = installed("prescient") or "prescient"


def console(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """The installed console script, as a user types it."""
    return subprocess.run([PRESCIENT, *args], capture_output=True, text=True, cwd=cwd, timeout=600)


def clean(result: subprocess.CompletedProcess, code: int, *fragments: str) -> None:
    assert result.returncode == code, result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    for fragment in fragments:
        assert fragment in result.stderr, result.stderr


def test_the_hub_is_found_from_a_subfolder_and_named_first(sim_hub: Path):
    deeper = sim_hub / "data" / "forecasts"
    deeper.mkdir(parents=True, exist_ok=True)
    result = console("sources", cwd=deeper)
    clean(result, 0)
    assert result.stderr.splitlines()[0] == f"prescient: hub {sim_hub.resolve()}"
    assert "sim         enabled" in result.stdout and "prescient:" not in result.stdout


def test_a_hub_inside_a_git_clone_wins_over_the_clone(tmp_path: Path):
    """Standing in demo/ inside a clone whose own hub is empty reads demo/, not the clone's hub."""
    clone = write_hub(tmp_path / "clone")
    subprocess.run(["git", "init", "-q", str(clone)], check=True)
    demo = write_hub(clone / "demo")
    result = console("leaderboard", "--as-of", AS_OF, cwd=demo)
    clean(result, 0, "nothing recorded yet")
    assert result.stderr.splitlines()[0] == f"prescient: hub {demo.resolve()} · as of {AS_OF}"
    assert result.stdout == "" and "Empty DataFrame" not in result.stdout


def test_no_hub_anywhere_is_a_usage_error_naming_what_was_looked_for(tmp_path: Path):
    result = run_cli("leaderboard", cwd=tmp_path)
    clean(result, 2, "no hub found", "data/hub.toml", "--hub DIR")


def test_verify_on_an_empty_hub_says_nothing_recorded_never_verified(sim_hub: Path):
    result = run_cli("verify", "--hub", str(sim_hub))
    clean(result, 0, "nothing recorded yet")
    assert "verified" not in result.stdout + result.stderr and "every check passed" not in result.stdout


def test_a_bare_build_shows_the_last_night_and_verify_agrees(demo_hub: Path, tmp_path: Path, monkeypatch):
    """Without --as-of (and no SOURCE_DATE_EPOCH), `build` uses the time `verify` checks the pages at:
    the latest the ledgers record. Built at the clock instead, the demo's pages all differed."""
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    hub = tmp_path / "demo"
    shutil.copytree(demo_hub, hub, symlinks=True, ignore=shutil.ignore_patterns("site"))
    built = console("build", "--no-mkdocs", cwd=hub)
    clean(built, 0, "(the latest time its ledgers record)")
    assert built.stdout.startswith("0 generated page(s) changed"), built.stdout  # the demo's own time
    clean(console("verify", cwd=hub), 0)


def test_a_build_through_the_nightlys_cache_writes_the_same_pages(demo_hub: Path, tmp_path: Path):
    """`build` reads the checked frames the nightly keeps (store.cache.disk): cold, warm or without a
    cache, it writes the demo's own pages (no page changes), and the cache then holds the ledgers."""
    hub, cache = tmp_path / "demo", tmp_path / "cache"
    shutil.copytree(demo_hub, hub, symlinks=True, ignore=shutil.ignore_patterns("site"))
    for options in (["--cache-dir", str(cache)], ["--cache-dir", str(cache)], ["--no-cache"]):
        built = console("build", "--no-mkdocs", "--as-of", "2026-07-19T00:00:00Z", *options, cwd=hub)
        clean(built, 0)
        assert built.stdout.startswith("0 generated page(s) changed"), (options, built.stdout)
    assert len(list((cache / "frames").glob("*.frame"))) > 100


def test_a_bare_build_of_a_hub_that_records_nothing_uses_the_clock(sim_hub: Path, monkeypatch):
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    result = console("build", "--no-mkdocs", cwd=sim_hub)
    clean(result, 0)
    assert "ledgers record" not in result.stderr and "1970" not in result.stderr


def test_csv_stays_parseable_with_the_header_on_stderr(sim_hub: Path):
    assert run_cli("nightly", "--hub", str(sim_hub), "--as-of", AS_OF).returncode == 0
    result = run_cli("arena", "--hub", str(sim_hub), "--as-of", AS_OF, "--format", "csv")
    clean(result, 0)
    assert result.stderr.splitlines()[0] == f"prescient: hub {sim_hub.resolve()} · as of {AS_OF}"
    assert result.stdout.startswith("cohort,model") and "prescient" not in result.stdout


def test_fetch_of_an_unknown_source_names_the_valid_ones(sim_hub: Path):
    result = run_cli("fetch", "--hub", str(sim_hub), "--as-of", AS_OF, "--source", "nosuch")
    clean(result, 2, "no such source", "manifold", "sim")


def test_fetch_of_a_disabled_source_says_it_is_disabled(sim_hub: Path):
    result = run_cli("fetch", "--hub", str(sim_hub), "--as-of", AS_OF, "--source", "manifold")
    clean(result, 2, "disabled", "[sources.manifold]")


def test_serve_on_a_busy_or_invalid_port_is_one_line(sim_hub: Path):
    (sim_hub / "site_src" / "site").mkdir(parents=True)
    (sim_hub / "site_src" / "site" / "index.html").write_text("<p>hi</p>")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = str(busy.getsockname()[1])
        result = run_cli("serve", "--hub", str(sim_hub), "--port", port)
    clean(result, 1, f"cannot listen on 127.0.0.1:{port}", "--port")
    invalid = run_cli("serve", "--hub", str(sim_hub), "--port", "99999")
    clean(invalid, 2, "not a port")


def test_serve_answers_a_missing_path_with_the_sites_own_404_page(sim_hub: Path):
    """Real HTTP against the real program: a missing path gets the site's 404.html with status 404
    (as GitHub Pages serves it), a present one its file, and HEAD no body."""
    site = sim_hub / "site_src" / "site"
    (site / "sub").mkdir(parents=True)
    (site / "index.html").write_text("<p>home</p>")
    (site / "404.html").write_bytes("<h1>Our own 404 · ünïcode</h1>".encode())
    server = subprocess.Popen([PRESCIENT, "serve", "--hub", str(sim_hub), "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline() if server.stdout else ""
        base = line.split(" at ", 1)[1].split(" ", 1)[0]
        assert urllib.request.urlopen(base, timeout=10).read() == b"<p>home</p>"
        for path in ("no/such/page/", "sub/missing.csv", "generated/models/x/"):
            with pytest.raises(urllib.error.HTTPError) as missing:
                urllib.request.urlopen(base + path, timeout=10)
            assert missing.value.code == 404
            assert missing.value.read() == (site / "404.html").read_bytes()
            assert missing.value.headers["Content-Type"] == "text/html; charset=utf-8"
        with pytest.raises(urllib.error.HTTPError) as head:
            urllib.request.urlopen(urllib.request.Request(base + "nothing", method="HEAD"), timeout=10)
        assert head.value.code == 404 and head.value.read() == b""
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_a_closed_pipe_exits_quietly(sim_hub: Path):
    assert run_cli("nightly", "--hub", str(sim_hub), "--as-of", AS_OF).returncode == 0
    done = subprocess.run(
        f"'{sys.executable}' -m generator oracle --hub '{sim_hub}' --format json; "
        f"'{sys.executable}' -m generator arena --hub '{sim_hub}' --as-of {AS_OF} --format csv "
        "| head -c 1",
        shell=True,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert "Traceback" not in done.stderr and "Broken pipe" not in done.stderr and "Exception" not in done.stderr


def test_bad_values_say_what_is_accepted(sim_hub: Path):
    clean(run_cli("leaderboard", "--hub", str(sim_hub), "--as-of", "yesterday"), 2, "2026-11-22T00:00:00Z")
    replicates = run_cli("leaderboard", "--hub", str(sim_hub), "--replicates", "-1")
    clean(replicates, 2, "--replicates")
    assert "n_replicates" not in replicates.stderr


def test_an_unknown_view_source_lists_the_valid_ones(sim_hub: Path):
    assert run_cli("nightly", "--hub", str(sim_hub), "--as-of", AS_OF).returncode == 0
    result = run_cli("leaderboard", "--hub", str(sim_hub), "--as-of", "2026-03-01T00:00:00Z", "--view", "source:nosuch")
    clean(result, 1, "--view 'source:nosuch'", "source")


@pytest.mark.parametrize("argv", [("--bogus",), ("leaderboard", "--no-such-option"), ("serve", "--port", "x")])
def test_usage_errors_use_the_documented_code(argv):
    from generator.errors import EXIT_CODES

    result = run_cli(*argv)
    clean(result, 2)
    assert "usage" in EXIT_CODES[2]
    assert "2 bad configuration or usage" in " ".join(run_cli("--help").stdout.split())


def test_a_reader_command_parses_each_ledger_once_when_the_ledgers_give_its_time(demo_hub: Path, tmp_path: Path, monkeypatch):
    """Without --as-of or SOURCE_DATE_EPOCH (the site job's ``prescient build --no-cache``), a reader command
    takes its time from the ledgers (``run_time``), which parses every observation file; the command's hub then
    takes those frames instead of parsing the files again (~2 s at six months of ForecastBench's density)."""
    from generator.cli import main
    from generator.store.cache import reads

    root = tmp_path / "demo"
    shutil.copytree(demo_hub, root, symlinks=True, ignore=shutil.ignore_patterns("site", "site_src"))
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    parsed, read_table = [], reads.csvio.read_table
    monkeypatch.setattr(reads.csvio, "read_table", lambda path, *a, **k: parsed.append(Path(path)) or read_table(path, *a, **k))
    assert main(["build", "--hub", str(root), "--no-cache", "--no-mkdocs"]) == 0
    observations = [p for p in parsed if "observations" in p.parts]
    assert observations and len(observations) == len(set(observations)), "an observation file parsed twice"
