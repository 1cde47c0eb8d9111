"""One writer at a time: an exclusive lock on ``data/.prescient.lock`` for the length of a run.

The lock is an OS advisory lock (``flock``) held on an open file, so it is released when the
process ends, even by SIGKILL: a crashed run never leaves a stale lock behind. A second run
refuses at once with LockError (exit code 7) rather than waiting, so a scheduler can retry; its
message names the lock file and the holder: what it is doing, its command line as typed (``prescient
nightly --hub …``), its pid and when it took the lock (the wall clock: this is not data, the lock file
is never committed). Once the lock is taken, temp files
that a killed writer left behind (``.<name>.*.tmp``, from ``atomic.write_bytes_atomic``) are
removed: no live writer can own one then; an interrupted append's journal (``atomic.append_bytes_atomic``)
first truncates its ledger back to the length it had. A process taking the lock again skips that
walk over ``data/`` when the lock file is as this process left it at its own release (same inode,
size 0, mtime): no other writer has held the lock since (holding it writes the holder line), so
no writer can have been killed in between leaving temp files (the demo takes it twice a night).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shlex
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from ..errors import LockError
from .atomic import roll_back_append

LOCK_NAME = ".prescient.lock"


@contextlib.contextmanager
def hub_lock(data_dir: Path, purpose: str) -> Iterator[None]:
    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / LOCK_NAME
    with open(path, "a+", encoding="utf-8", errors="replace") as handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            raise LockError(f"{path}: {holder} is writing to this hub; try again when it has finished") from None
        untouched = _RELEASED.get(str(path)) == _lock_stat(handle)
        handle.seek(0)
        handle.truncate()
        handle.write(holder_line(purpose) + "\n")
        handle.flush()
        if not untouched:
            remove_stale_temp_files(data_dir)
        try:
            yield
        finally:
            handle.seek(0)
            handle.truncate()
            handle.flush()
            _RELEASED[str(path)] = _lock_stat(handle)
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


# The lock files this process released, each with its stat at the release (``_lock_stat``).
_RELEASED: dict[str, tuple[int, int, int]] = {}


@contextlib.contextmanager
def new_hub_lock(root: Path, purpose: str) -> Iterator[None]:
    """``hub_lock`` on a hub that may not exist yet (``root``/data): if what it guards fails, no folder
    the lock made is left behind, so bad input writes nothing."""
    data = root / "data"
    made = [folder for folder in (root, data) if not folder.exists()]
    try:
        with hub_lock(data, purpose):
            yield
    except BaseException:
        if made and [p.name for p in data.iterdir()] == [LOCK_NAME]:
            (data / LOCK_NAME).unlink()
            for folder in reversed(made):
                with contextlib.suppress(OSError):
                    folder.rmdir()
        raise


def _lock_stat(handle) -> tuple[int, int, int]:
    st = os.fstat(handle.fileno())
    return st.st_ino, st.st_size, st.st_mtime_ns


def holder_line(purpose: str) -> str:
    """What the lock file says about its holder, e.g. ``prescient nightly --as-of … (pid 42, since
    2026-01-16T00:00:03Z, command: prescient nightly --hub /srv/hub)``."""
    started = datetime.now(tz=UTC)
    return f"{purpose} (pid {os.getpid()}, since {started:%Y-%m-%dT%H:%M:%SZ}, command: {command_line()})"


def command_line(argv: list[str] | None = None, orig_argv: list[str] | None = None) -> str:
    """The command as its user typed it: ``prescient …`` for the console script and for ``python -m
    generator``; any other program (a script using the library) as the interpreter saw it. One
    printable line of at most 500 characters."""
    argv = sys.argv if argv is None else argv
    if argv and (Path(argv[0]).name == "prescient" or Path(argv[0]).parts[-2:] == ("generator", "__main__.py")):
        text = shlex.join(["prescient", *argv[1:]])
    else:
        text = shlex.join(getattr(sys, "orig_argv", argv) if orig_argv is None else orig_argv)
    if not text.isprintable():
        text = text.encode("unicode_escape", "backslashreplace").decode("ascii")
    return text if len(text) <= 500 else text[:499] + "…"


def remove_stale_temp_files(data_dir: Path) -> list[Path]:
    """Delete the temp files of interrupted atomic writes under ``data_dir``, each interrupted
    append's journal once its ledger is truncated back (``atomic.roll_back_append``); call with the
    lock held."""
    # os.walk, and a Path only for a temp file's name: a night walks every file of the hub
    temps = (
        Path(folder, name)
        for folder, _, files in os.walk(data_dir)
        for name in files
        if name.startswith(".") and name.endswith(".tmp") and len(name) > 4
    )
    stale = sorted(path for path in temps if path.is_file())
    for path in stale:
        roll_back_append(path)
        path.unlink(missing_ok=True)
    return stale
