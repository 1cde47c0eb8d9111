"""Two runs at once: the second refuses with a clear message and writes nothing; a killed holder
leaves no stale lock."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from conftest import run_cli, tree_bytes

HOLD = """
import sys, time
from pathlib import Path
from generator.store.lock import hub_lock
with hub_lock(Path(sys.argv[1]), "a long nightly run"):
    print("locked", flush=True)
    time.sleep(60)
"""


def test_a_second_run_refuses_while_the_first_holds_the_lock_and_a_killed_run_frees_it(sim_hub: Path):
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(sim_hub / "data")], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        before = tree_bytes(sim_hub)
        refused = run_cli("nightly", "--hub", str(sim_hub), "--as-of", "2026-01-16T00:00:00Z")
        assert refused.returncode == 7, refused.stderr
        assert "a long nightly run" in refused.stderr and "Traceback" not in refused.stderr
        assert tree_bytes(sim_hub) == before
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=10)
    deadline = time.monotonic() + 10
    result = run_cli("nightly", "--hub", str(sim_hub), "--as-of", "2026-01-16T00:00:00Z")
    assert time.monotonic() < deadline and result.returncode == 0, result.stderr
    assert (sim_hub / "data/rounds/2026-01-25/questions.csv").is_file()
