"""The demo's commits reach ``git fast-import`` without waiting for it (``demo_git._Feed``)."""

from __future__ import annotations

import os
import signal
import threading

import pytest

from generator.errors import PrescientError
from generator.pipeline.demo_git import _Feed


def test_a_write_never_waits_for_git():
    """More than a pipe holds, with git not reading yet: the write returns at once, keeping the rest,
    and hands it on once git reads (``flush``, or the next write)."""
    read_end, write_end = os.pipe()
    got: list[bytes] = []
    with os.fdopen(read_end, "rb") as reader, os.fdopen(write_end, "wb") as pipe:
        feed = _Feed(pipe)
        chunks = [b"%d:" % i * 20_000 for i in range(100)]  # ~5 MB
        previous = signal.signal(signal.SIGALRM, signal.default_int_handler)
        signal.alarm(20)  # a write that waited for the reader would hang here
        try:
            for chunk in chunks:
                feed.write(chunk)
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)
        assert feed.pending  # kept, not waited for
        git = threading.Thread(target=lambda: got.append(reader.read()))  # as fast-import reads its stdin
        git.start()
        feed.flush()
        assert not feed.pending
        pipe.close()
        git.join(timeout=30)
    assert got == [b"".join(chunks)]


def test_git_stopping_to_read_is_an_error_not_a_hang():
    read_end, write_end = os.pipe()
    os.close(read_end)  # git has exited
    with os.fdopen(write_end, "wb") as pipe:
        feed = _Feed(pipe)
        with pytest.raises(PrescientError, match="git fast-import stopped reading"):
            feed.write(b"x" * 200_000)
