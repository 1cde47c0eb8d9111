"""One writer at a time: an exclusive lock on ``data/.prescient.lock`` for the length of a run.

The lock is an OS advisory lock (``flock``) held on an open file, so it is released when the
process ends, even by SIGKILL: a crashed run never leaves a stale lock behind. A second run
refuses at once with LockError (exit code 7) rather than waiting, so a scheduler can retry; its
message names the lock file and the holder's command and pid. Once the lock is taken, temp files
that a killed writer left behind (``.<name>.*.tmp``, from ``csvio.write_bytes_atomic``) are
removed: no live writer can own one then.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path
from typing import Iterator

from ..errors import LockError

LOCK_NAME = ".prescient.lock"


@contextlib.contextmanager
def hub_lock(data_dir: Path, purpose: str) -> Iterator[None]:
    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / LOCK_NAME
    with open(path, "a+", encoding="utf-8") as handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            raise LockError(f"{path}: {holder} is writing to this hub; try again when it has finished") from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"{purpose} (pid {os.getpid()})\n")
        handle.flush()
        remove_stale_temp_files(data_dir)
        try:
            yield
        finally:
            handle.seek(0)
            handle.truncate()
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def remove_stale_temp_files(data_dir: Path) -> list[Path]:
    """Delete the temp files of interrupted atomic writes under ``data_dir``; call with the lock held."""
    stale = sorted(p for p in data_dir.rglob(".*.tmp") if p.is_file())
    for path in stale:
        path.unlink(missing_ok=True)
    return stale
