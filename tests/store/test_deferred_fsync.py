"""``atomic.fsyncs_deferred``: the demo's season syncs each file it wrote once, at its end, not at each write."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from generator.store import atomic

pytestmark = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="reads the descriptors' paths from /proc")


@pytest.fixture
def synced(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths os.fsync is called on, in order (read from the descriptor's /proc link)."""
    calls: list[str] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        calls.append(os.readlink(f"/proc/self/fd/{fd}"))
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return calls


def test_writes_in_the_block_are_synced_once_at_its_end(tmp_path: Path, synced: list[str]):
    table, ledger = tmp_path / "a" / "table.csv", tmp_path / "b" / "ledger.csv"
    with atomic.fsyncs_deferred():
        for night in range(3):
            atomic.write_bytes_atomic(table, b"v%d\n" % night)
        ledger.parent.mkdir()
        ledger.write_bytes(b"x\n")
        for night in range(3):
            atomic.append_bytes_atomic(ledger, b"%d\n" % night)
        assert synced == []  # nothing synced while the block runs
    assert sorted(synced) == sorted(map(str, [table, ledger, table.parent, ledger.parent]))  # each once, with its folder
    assert table.read_bytes() == b"v2\n" and ledger.read_bytes() == b"x\n0\n1\n2\n"
    assert not [p for p in tmp_path.rglob(".*.tmp")]  # no journal or temp file left

    synced.clear()
    atomic.write_bytes_atomic(table, b"after\n")  # outside the block: synced as it is made
    assert len(synced) == 1 and synced[0].startswith(str(table.parent / ".table.csv."))


def test_a_forked_process_syncs_its_own_writes(tmp_path: Path, synced: list[str], monkeypatch: pytest.MonkeyPatch):
    """A worker forked in the block (``parallel.forked_map``) cannot leave its files to the block's end,
    which runs in its parent: it syncs each write itself."""
    path = tmp_path / "round.csv"
    with atomic.fsyncs_deferred():
        parent = os.getpid()
        monkeypatch.setattr(os, "getpid", lambda: parent + 1)  # as the child sees itself
        atomic.write_bytes_atomic(path, b"child\n")
        assert len(synced) == 1
        monkeypatch.setattr(os, "getpid", lambda: parent)
    assert len(synced) == 1  # the child's file is not in the parent's set


def test_the_files_are_synced_even_when_the_block_raises(tmp_path: Path, synced: list[str]):
    path = tmp_path / "x.csv"
    with pytest.raises(RuntimeError), atomic.fsyncs_deferred():
        atomic.write_bytes_atomic(path, b"1\n")
        raise RuntimeError("a night failed")
    assert str(path) in synced
