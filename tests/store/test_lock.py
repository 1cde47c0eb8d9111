"""Two runs at once: the second refuses with a clear message naming the holder (what it does, its
command line, pid and start time) and writes nothing; a killed holder leaves no stale lock."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from generator.store.atomic import FAULT_ENV
from generator.store.lock import command_line

from helpers import ROOT, run_cli, tree_bytes

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
        assert f"(pid {holder.pid}, since " in refused.stderr and "command: " in refused.stderr
        assert tree_bytes(sim_hub) == before
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=10)
    result = run_cli("nightly", "--hub", str(sim_hub), "--as-of", "2026-01-16T00:00:00Z")
    assert result.returncode == 0, result.stderr  # the lock never blocks: a stale one would be exit 7
    assert (sim_hub / "data/rounds/2026-01-25/questions.csv").is_file()


def test_the_refusal_names_the_command_that_holds_the_lock_not_another(sim_hub: Path):
    """A `prescient fetch` frozen at its first write holds the lock; a nightly is refused with the
    fetch's own command line (the lock used to say `prescient nightly` for a fetch)."""
    as_of = "2026-01-16T00:00:00Z"
    command = [sys.executable, "-m", "generator", "fetch", "--hub", str(sim_hub), "--source", "sim", "--as-of", as_of]
    holder = subprocess.Popen(command, env=dict(os.environ, **{FAULT_ENV: "1:stop"}), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while Path(f"/proc/{holder.pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "T":
            assert holder.poll() is None and time.monotonic() < deadline, "the fetch never reached its first write"
            time.sleep(0.05)
        refused = run_cli("nightly", "--hub", str(sim_hub), "--as-of", as_of)
    finally:
        holder.kill()
        holder.wait(timeout=30)
    assert refused.returncode == 7 and "Traceback" not in refused.stderr, refused.stderr
    holder_is = (
        re.escape(f"prescient fetch --as-of {as_of} (pid {holder.pid}, since ")
        + r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"
        + re.escape(f", command: prescient fetch --hub {sim_hub} --source sim --as-of {as_of}) is writing to this hub")
    )
    assert re.search(holder_is, refused.stderr), refused.stderr


def test_the_command_line_is_one_printable_line():
    assert command_line(["/venv/bin/prescient", "nightly", "--hub", "/srv/my hub"]) == "prescient nightly --hub '/srv/my hub'"
    assert command_line(["/src/generator/__main__.py", "fetch"]) == "prescient fetch"
    assert command_line(["-c", "x"], ["python3", "-c", "import a\nrun()", "x"]) == "python3 -c 'import a\\nrun()' x"
    assert command_line(["prescient", "build", "--hub", "/h\udcff"]) == "prescient build --hub '/h\\udcff'"
    assert len(command_line(["prescient", "x" * 2000])) == 500


KILLED_WRITER = """
import os, signal, sys
from pathlib import Path
from generator.store.lock import hub_lock
data = Path(sys.argv[1])
with hub_lock(data, "a writer killed mid-write"):
    (data / ".ledger.csv.abc123.tmp").write_bytes(b"half a file")
    os.kill(os.getpid(), signal.SIGKILL)
"""


def test_taking_the_lock_again_removes_what_a_writer_killed_in_between_left(tmp_path: Path):
    """A process that takes the lock again skips the walk for temp files only while no one else has
    held it since its own release; a writer killed in between (another process) leaves its temp
    file, and this process's next lock removes it, as a fresh process's would."""
    from generator.store.lock import hub_lock

    data = tmp_path / "data"
    with hub_lock(data, "first"):
        pass
    with hub_lock(data, "again"):  # nobody held it in between: nothing to look for (and nothing there)
        pass
    code = str(ROOT)
    killed = subprocess.run([sys.executable, "-c", KILLED_WRITER, str(data)], env={**os.environ, "PYTHONPATH": code})
    assert killed.returncode == -signal.SIGKILL and (data / ".ledger.csv.abc123.tmp").is_file()
    with hub_lock(data, "after the crash"):
        assert not (data / ".ledger.csv.abc123.tmp").exists()
