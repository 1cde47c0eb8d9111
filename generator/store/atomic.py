"""Atomic, staged and journalled writes of whole files' bytes, and the crash tests' fault hook.

The one place a file under the hub is replaced or grown:
- ``write_bytes_atomic``: a temp file beside the target (``.<name>.*.tmp``), written, fsynced,
  read back and checked if asked, then renamed over it; nothing happens when the bytes are the same;
- ``stage_bytes`` / ``commit_staged``: the same in two halves, for a file made in one place (a
  parsing worker of the ForecastBench import) and put in place in another;
- ``append_bytes_atomic`` / ``roll_back_append``: bytes added after a file's own, all or nothing,
  with a journal that lets the next writer under the hub lock undo an interrupted append;
- ``fsyncs_deferred``: a block whose writes are made durable once, at its end (the demo's season);
- ``FAULT_ENV``: the test hook that kills (or stops) a writer at its N-th write (tests/store/test_faults.py).

It knows nothing of CSV: ``csvio`` writes its canonical bytes through it, and so do the site's
pages, the model files and the disk cache.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import signal
import stat
import tempfile
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from pathlib import Path

# (the process that opened the block, the files whose fsync waits for its end)
_DEFERRED: ContextVar[tuple[int, set[Path]] | None] = ContextVar("deferred fsyncs", default=None)


@contextlib.contextmanager
def fsyncs_deferred() -> Iterator[None]:
    """Within the block, a durable write (``write_bytes_atomic``, ``append_bytes_atomic``) is not
    fsynced when it is made; at the block's end every file so written, and its folder, is fsynced
    once, whatever the block raised. For a command that writes the same files again and again before
    it returns (the demo's season: 197 nights, ~1,600 fsyncs of the same few hundred files): when it
    returns, its files are as durable as if each write had been synced. Meanwhile every write stays
    atomic (temp file and rename; an append's journal), so a killed process leaves each file whole
    and the next command under the hub lock rolls an interrupted append back; only a power cut in the
    block may lose its newest versions. A process forked inside the block (``parallel.forked_map``)
    syncs its own writes as it makes them: its set of files would end with it."""
    deferred: tuple[int, set[Path]] = (os.getpid(), set())
    token = _DEFERRED.set(deferred)
    try:
        yield
    finally:
        _DEFERRED.reset(token)
        written = deferred[1]
        for path in sorted(written | {p.parent for p in written}):
            _fsync_path(path)


def _fsync_path(path: Path) -> None:
    """fsync a file or folder by its name (one removed since it was written is skipped)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _sync(handle, path: Path) -> None:
    """Make what ``handle`` wrote durable: now, or at the end of a ``fsyncs_deferred`` block, as ``path``."""
    handle.flush()
    deferred = _DEFERRED.get()
    if deferred is None or deferred[0] != os.getpid():
        os.fsync(handle.fileno())
    else:
        deferred[1].add(path)


def write_bytes_atomic(path: Path, data: bytes, durable: bool = True, check: Callable[[bytes], None] | None = None, hub_file: bool = True) -> bool:
    """Replace ``path`` with ``data`` atomically; leave it untouched when already identical.

    The temp file gets the mode the file would get from ``open`` (an existing file keeps its own).
    ``check``, if given, is called with the temp file's bytes as read back from disk before the
    rename; whatever it raises leaves ``path`` as it was. ``durable=False`` skips the fsync, for
    output that is rebuilt from the ledgers anyway (the generated site pages): still never
    half-written, but a power cut may lose the newest version. ``hub_file=False`` for files outside
    the hub (the nightly's disk cache): the fault hook counts the hub's writes only."""
    if path.is_file() and path.read_bytes() == data:
        return False
    tmp = stage_bytes(path, data, durable)
    try:
        if check is not None:
            check(tmp.read_bytes())
        commit_staged(tmp, path, hub_file)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return True


def stage_bytes(path: Path, data: bytes, durable: bool = True) -> Path:
    """``write_bytes_atomic``'s first half: a new temp file beside ``path`` (``.<name>.*.tmp``, which
    a killed writer's successor removes: ``lock.remove_stale_temp_files``) holding ``data``, with the
    mode ``path`` has or would get, fsynced unless not ``durable``. ``commit_staged`` puts it in place;
    whoever stages a file removes it if it is not committed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = stat.S_IMODE(path.stat().st_mode) if path.is_file() else new_file_mode()
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), mode)
            handle.write(data)
            if durable:
                _sync(handle, path)  # the temp file is renamed to ``path``
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return Path(tmp)


def commit_staged(tmp: Path, path: Path, hub_file: bool = True) -> None:
    """Put a staged file (``stage_bytes``) in place of ``path``, atomically."""
    if hub_file:
        _fault_point()
    os.replace(tmp, path)


def put_bytes(path: Path, data: bytes | None) -> bool:
    """Make ``path`` hold ``data`` atomically (a symlink there is replaced by a file; None: remove the
    file); True when something changed."""
    if data is None:
        if path.is_file() or path.is_symlink():
            path.unlink()
            return True
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_symlink():
        path.unlink()
    return write_bytes_atomic(path, data)


def discard_staged(staged: list[Path]) -> None:
    """Remove staged files (``stage_bytes``) that were never committed, and the folders made for them
    that are left empty (best effort: what is left, the next command under the lock removes)."""
    for tmp in staged:
        tmp.unlink(missing_ok=True)
    for folder in sorted({tmp.parent for tmp in staged}, reverse=True):
        with contextlib.suppress(OSError):
            folder.rmdir()  # only an empty folder goes
            folder.parent.rmdir()


APPEND_JOURNAL = ".append-"  # in the name of an append's journal: ``.<name>.append-<random>.tmp``


def append_bytes_atomic(path: Path, tail: bytes, check: Callable[[bytes], None] | None = None) -> None:
    """Add ``tail`` after the bytes of the existing file at ``path``, in place: only the new bytes
    are written and fsynced, never the whole file, and the file keeps its inode and mode. All or
    nothing, as ``write_bytes_atomic``: ``check``, if given, is called with the added bytes as read
    back from disk, and whatever it or the write raises truncates the file back to its old length.
    Against a crash, a journal next to the file (``APPEND_JOURNAL``: its old length, fsynced before
    the file is touched) lasts as long as the append; a killed writer leaves it, and the next writer
    to take the hub lock truncates the file back (``roll_back_append``, from
    ``lock.remove_stale_temp_files``): an interrupted append leaves the bytes the file had."""
    size = path.stat().st_size
    fd, journal = tempfile.mkstemp(prefix=f".{path.name}{APPEND_JOURNAL}", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(b"%d\n" % size)
            _sync(handle, path)  # on disk, with its folder entry (ext4), before the first byte is added (deferred: the file's own sync covers it)
        with path.open("r+b") as handle:
            try:
                handle.seek(size)
                handle.write(tail)
                _sync(handle, path)
                _fault_point()  # the worst moment: the bytes are added, the journal still says to drop them
                handle.seek(size)
                if check is not None:
                    check(handle.read())
            except BaseException:
                handle.truncate(size)
                os.fsync(handle.fileno())
                raise
    finally:
        Path(journal).unlink(missing_ok=True)


def roll_back_append(journal: Path) -> Path | None:
    """Undo the interrupted append whose journal (``append_bytes_atomic``) is ``journal``: truncate
    its file back to the length it records. Return the file, or None when ``journal`` is not an
    append's journal (or was cut short: the file was then never touched). Call with the hub lock held."""
    name, found, _ = journal.name.rpartition(APPEND_JOURNAL)
    if not found or not name.startswith(".") or len(name) < 2:
        return None
    target = journal.with_name(name[1:])
    if not target.is_file():
        return None
    recorded = journal.read_bytes()
    if not re.fullmatch(rb"\d+\n", recorded):
        return None
    size = int(recorded)
    if target.stat().st_size > size:
        with target.open("r+b") as handle:
            handle.truncate(size)
            os.fsync(handle.fileno())
    return target


@functools.cache
def new_file_mode() -> int:
    """0666 less the process umask: the mode ``open`` gives a new file (0644 under umask 022)."""
    try:  # Linux states it; elsewhere reading the umask means setting it, so put it straight back
        status = Path("/proc/self/status").read_text(encoding="ascii", errors="replace")
    except OSError:
        status = ""
    if found := re.search(r"^Umask:\s*([0-7]+)", status, re.MULTILINE):
        mask = int(found.group(1), 8)
    else:
        mask = os.umask(0o022)
        os.umask(mask)
    return 0o666 & ~mask


# Test hook for the crash tests (tests/store/test_faults.py), inert unless the variable is set:
# PRESCIENT_FAULT_AFTER_WRITES=N sends this process SIGKILL at its N-th atomic write, after the
# temp file is written and fsynced but before the rename (the worst moment); "N:stop" sends SIGSTOP
# instead, freezing the writer there with the hub lock held.
FAULT_ENV = "PRESCIENT_FAULT_AFTER_WRITES"
_FAULT_WRITES = [0]


def _fault_point() -> None:
    spec = os.environ.get(FAULT_ENV)
    if not spec:
        return
    _FAULT_WRITES[0] += 1
    count, _, mode = spec.partition(":")
    if _FAULT_WRITES[0] == int(count):
        os.kill(os.getpid(), signal.SIGSTOP if mode == "stop" else signal.SIGKILL)
