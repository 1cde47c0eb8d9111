"""Independent pieces of a command's work shared among forked processes, the results in order.

``forked_map(work, items, processes, cache)`` calls ``work(item)`` for each item in ``processes``
forked processes (they see the command's memory as it is at the fork: its read cache, the ledger
view) and returns the results in the items' order, as ``[work(i) for i in items]`` would. What a
process learns of the files' digests (``store.cache.disk``) comes back to the command's disk cache,
so the cache ends as after one process. It returns None, and the caller does the work itself,
where forking is not sound or not possible: one process asked for or fewer than two items, no
``fork``, other threads alive (a fork copies their locks as held), the crash tests' write counter
set (``atomic.FAULT_ENV``: "the N-th write" means one process's), or a call that raised (the caller,
doing it again, raises as it would have).
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from .store.atomic import FAULT_ENV
from .store.cache import ReadCache

T = TypeVar("T")
R = TypeVar("R")

_WORK: list[tuple[Callable[[Any], Any], ReadCache]] = []  # the work the forked processes do, set before the fork


def default_processes() -> int:
    """Processes for a command's independent pieces: two, on a machine of two cores or more."""
    return min(2, os.cpu_count() or 1)


def forked_map(work: Callable[[T], R], items: list[T], processes: int, cache: ReadCache) -> list[R] | None:
    if processes < 2 or len(items) < 2 or "fork" not in multiprocessing.get_all_start_methods() \
            or threading.active_count() > 1 or os.environ.get(FAULT_ENV):
        return None
    _WORK[:] = [(work, cache)]
    try:
        with multiprocessing.get_context("fork").Pool(min(processes, len(items))) as pool:
            done = list(pool.imap(_call, items))
    finally:
        _WORK.clear()
    if any(d is None for d in done):
        return None
    disk = cache.disk
    for _, learnt in (d for d in done if d is not None):
        if disk is not None and learnt is not None:
            disk.absorb(learnt)
    return [d[0] for d in done if d is not None]


def _call(item: Any) -> tuple[Any, tuple[dict, str | None] | None] | None:
    """``work(item)`` in a forked process, with the digests learnt meanwhile; None if it raised."""
    work, cache = _WORK[0]
    disk = cache.disk
    mark = disk.mark() if disk is not None else {}
    try:
        result = work(item)
    except Exception:  # noqa: BLE001 - done again in the command's process, which raises it as it should
        return None
    return result, disk.since(mark) if disk is not None else None
