"""The demo's commits reach ``git fast-import`` through a writing thread (``demo_git._Feed``)."""

from __future__ import annotations

import os
import threading

import pytest

from generator.errors import PrescientError
from generator.pipeline.demo_git import _Feed


def test_the_feed_writes_everything_in_order():
    read_end, write_end = os.pipe()
    got: list[bytes] = []
    with os.fdopen(read_end, "rb") as reader:
        git = threading.Thread(target=lambda: got.append(reader.read()))  # as fast-import reads its stdin
        git.start()
        with os.fdopen(write_end, "wb") as pipe:
            feed = _Feed(pipe)
            chunks = [b"%d:" % i * 1000 for i in range(50)]  # more than a pipe holds
            for chunk in chunks:
                feed.write(chunk)
            feed.flush()
            feed.close()
        git.join(timeout=30)
    assert got == [b"".join(chunks)]


def test_git_stopping_to_read_is_an_error_not_a_hang():
    read_end, write_end = os.pipe()
    os.close(read_end)  # git has exited
    with os.fdopen(write_end, "wb") as pipe:
        feed = _Feed(pipe)
        feed.write(b"x" * 200_000)
        with pytest.raises(PrescientError, match="git fast-import stopped reading"):
            feed.flush()
        with pytest.raises(PrescientError):
            feed.write(b"more")
        with pytest.raises(PrescientError):
            feed.close()
