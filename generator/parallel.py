"""The one place that forks: a command's independent work shared among forked worker processes.

One rule says when forking is sound (``fork_sound``): a second core, the ``fork`` start method, no
other thread alive in this process (a fork copies the locks other threads hold as held, and a
worker could wait on one for ever), and not under the crash tests' write counter
(``atomic.FAULT_ENV``: "the N-th write" means one process's writes). Where it is not, the work is
done here, in order. Either way the results are the same: every use hands over work whose result
does not depend on the process doing it (a round's scores are a function of its files, each
bootstrap draws from its own seeded generator), and a worker that fails makes the caller do the
work itself, where the error is raised as it would have been. Whether forking is *worth* it (how
many items, files or rows) is each caller's call.

Three shapes, one per kind of work:
- ``forked_map(work, items, processes, carry)``: ``[work(i) for i in items]`` by forked processes,
  in order; what they learnt of the files' digests (``carry``: the command's disk cache) comes back
  (``pipeline.recompute.write_round_scores_in_parallel``, ``pipeline.nightly``'s after-due files);
- ``in_background(make)``: ``make()`` in one forked worker while this process goes on
  (``site.boards``);
- ``worker_pool(n)``: forked workers taking a stream of jobs (``interop.forecastbench.workers``);
- ``Companion(answer)``: one forked process answering requests in order, one ahead of the caller,
  and keeping what it learns from one to the next; ``tell`` hands it work whose answer is not wanted
  (``pipeline.fetch_lane``: the demo's fetches; ``oracle.tfidf``: the oracle's scikit-learn work).

Workers are forked, never spawned: they run the code and see the memory of this process as it is
at the fork (the work is not pickled, only its items and results are).

Numbers that must not depend on the machine are computed with numpy's BLAS on one thread
(``one_blas_thread``): OpenBLAS starts a thread per core, and a matrix product shared among threads
adds in another order, so the last bits of a board's scores (and the order of models tied within
them) followed the number of cores; on a shared machine its idle threads also spun, at several times
the CPU of one thread. The processes are the unit of parallel work here, never BLAS's threads.
"""

from __future__ import annotations

import contextlib
import functools
import multiprocessing
import os
import sys
import threading
from collections.abc import Callable
from multiprocessing.pool import Pool
from typing import Any, Generic, Protocol, TypeVar

from threadpoolctl import ThreadpoolController

from .store.atomic import FAULT_ENV

T = TypeVar("T")
R = TypeVar("R")
Q = TypeVar("Q")


def fork_sound() -> bool:
    """Whether forking workers is sound here and now (see the module docstring): the one rule."""
    return (
        (os.cpu_count() or 1) >= 2
        and "fork" in multiprocessing.get_all_start_methods()
        and threading.active_count() == 1
        and not os.environ.get(FAULT_ENV)
    )


def one_blas_thread() -> contextlib.AbstractContextManager:
    """A block in which numpy's BLAS uses one thread in this process (see the module docstring): its
    results then do not depend on the machine's cores, and a forked worker running it uses one core."""
    return _pools(len(sys.modules)).limit(limits=1, user_api="blas")


@functools.lru_cache(maxsize=1)
def _pools(loaded: int) -> ThreadpoolController:
    """The process's thread pools while ``loaded`` modules are imported: listed again only after an import
    (listing them scans the loaded libraries, ~4 ms, against ~0.02 ms to limit a listed pool; a library
    such as scipy's BLAS is loaded by an import)."""
    return ThreadpoolController()


def default_processes() -> int:
    """Processes for a command's independent pieces: two, on a machine of two cores or more."""
    return min(2, os.cpu_count() or 1)


class Carried(Protocol):
    """What a forked process learns that the command keeps (``store.cache.DiskCache``): marked before
    the work, what was learnt since sent back, and absorbed by the command's process."""

    def mark(self) -> Any: ...

    def since(self, mark: Any) -> Any: ...

    def absorb(self, learnt: Any) -> None: ...


_WORK: list[tuple[Callable[[Any], Any], Carried | None]] = []  # the work the forked processes do, set before the fork


def forked_map(work: Callable[[T], R], items: list[T], processes: int, carry: Carried | None = None) -> list[R] | None:
    """``[work(i) for i in items]`` by ``processes`` forked processes, in the items' order, with what
    each learnt absorbed into ``carry``; None, and the caller does the work itself, when forking is
    not sound (``fork_sound``), not worth it (one process, fewer than two items) or a call raised
    (done again by the caller, it raises as it would have)."""
    if processes < 2 or len(items) < 2 or not fork_sound():
        return None
    _WORK[:] = [(work, carry)]
    try:
        with multiprocessing.get_context("fork").Pool(min(processes, len(items))) as pool:
            done = list(pool.imap(_call, items))
    finally:
        _WORK.clear()
    if any(d is None for d in done):
        return None
    for _, learnt in (d for d in done if d is not None):
        if carry is not None:
            carry.absorb(learnt)
    return [d[0] for d in done if d is not None]


def _call(item: Any) -> tuple[Any, Any] | None:
    """``work(item)`` in a forked process, with what it learnt meanwhile; None if it raised."""
    work, carry = _WORK[0]
    mark = carry.mark() if carry is not None else None
    try:
        result = work(item)
    except Exception:  # noqa: BLE001 - done again in the command's process, which raises it as it should
        return None
    return result, carry.since(mark) if carry is not None else None


def in_background(make: Callable[[], T], worth: bool = True) -> Callable[[], T]:
    """``make()`` run in a forked worker process: the function returned waits for its result. Where
    the work is not ``worth`` a worker (less than a worker costs to start), where forking is not sound
    (``fork_sound``), or when the worker fails (an exception, a result that cannot be sent, a killed
    process), ``make()`` runs here when the result is asked for: the same value either way, and an
    error raised where it would have been raised without a worker."""
    if not worth or not fork_sound():
        return make
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    worker = context.Process(target=_work, args=(make, send), daemon=True)  # forked: ``make`` is not pickled
    worker.start()
    send.close()

    def result() -> T:
        try:
            sent: Any = receive.recv()
        except (EOFError, OSError):
            sent = None
        finally:
            receive.close()
            worker.join()
        return sent[0] if isinstance(sent, tuple) else make()

    return result


def _work(make: Callable[[], Any], send: Any) -> None:
    """The background worker: send ``(make(),)``, or None when that fails (the caller then makes it
    itself). At the main process's priority: a lower one starved it on a busy machine while the
    build waited."""
    try:
        value = (make(),)
    except BaseException:  # noqa: BLE001 (any failure: the main process makes it again and raises it there)
        value = None
    try:
        send.send(value)  # pickled whole before a byte is written: a failure here sends nothing
    except Exception:  # noqa: BLE001 (a result that cannot be sent: the same fallback)
        with contextlib.suppress(Exception):
            send.send(None)
    finally:
        send.close()


def worker_pool(workers: int) -> Pool:
    """A pool of ``workers`` forked processes for a stream of jobs (``imap``, ``map_async``); the
    caller has checked ``fork_sound`` (and set, before calling, whatever the workers read)."""
    return multiprocessing.get_context("fork").Pool(workers)


class Companion(Generic[Q, R]):
    """``answer(request)`` for a stream of requests, in a forked process that keeps its memory from one
    request to the next: ``ask(request)`` hands it one and returns at once; ``result()`` waits for
    the answer to the last request asked. One request at a time. ``tell(request)`` hands it one whose
    answer is not wanted (work to do ahead, such as reading what a later request writes): the caller
    may ask the next one at once, answered once the told ones are done. Where forking is not sound
    (``fork_sound``) ``answer`` runs here when the result is asked for, each told request first: the
    same answers, in the same order, one after the other. A request (asked or told) that raises in the
    companion raises here, at the next result, as a ``CompanionError`` with its message, and the
    companion ends; ``close`` (or the ``with`` block) ends it in any case, once it has done what it
    was told."""

    def __init__(self, answer: Callable[[Q], R]):
        self.answer, self.process, self.pipe = answer, None, None
        self.asked: Q | None = None
        self.told: list[Q] = []  # told, to be answered here before the next result (no sound fork)
        self._waiting = False
        if fork_sound():
            context = multiprocessing.get_context("fork")
            self.pipe, theirs = context.Pipe(duplex=True)
            self.process = context.Process(target=_companion, args=(answer, theirs), daemon=True)
            self.process.start()
            theirs.close()

    def ask(self, request: Q) -> None:
        if self._waiting:
            raise CompanionError("a companion takes one request at a time: ask for the last one's result first")
        self._waiting, self.asked = True, request
        self._send((request, True))

    def tell(self, request: Q) -> None:
        if self._waiting:
            raise CompanionError("a companion takes one request at a time: ask for the last one's result first")
        if self.pipe is not None:
            self._send((request, False))
        else:
            self.told.append(request)

    def _send(self, message: tuple) -> None:
        if self.pipe is not None:
            with contextlib.suppress(OSError):  # a companion ended by a told request's failure: its reply waits to be read
                self.pipe.send(message)

    def result(self) -> R:
        if not self._waiting:
            raise CompanionError("no request asked")
        if self.pipe is None:
            self._waiting = False
            told, self.told = self.told, []
            for request in told:
                self.answer(request)
            return self.answer(self.asked)  # type: ignore[arg-type]  # asked: a Q since ask
        try:
            sent = self.pipe.recv()
        except (EOFError, OSError):
            sent = ("error", "the companion process ended without an answer")
        self._waiting = False
        if sent[0] != "ok":
            self.close()
            raise CompanionError(sent[1])
        return sent[1]

    def close(self) -> None:
        """End the companion, once it has answered the request it is working on and done those it was
        told (an answer is dropped: a companion stopped mid-request could leave its work half done)."""
        pipe, process, self.pipe, self.process = self.pipe, self.process, None, None
        if pipe is not None:
            if self._waiting:  # read its answer: a large one blocks the companion until it is read
                with contextlib.suppress(EOFError, OSError):
                    pipe.recv()
            with contextlib.suppress(OSError, ValueError):
                pipe.send(None)
            pipe.close()
        if process is not None:
            process.join()

    def __enter__(self) -> Companion[Q, R]:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class CompanionError(RuntimeError):
    """A companion's request failed (its message), or the companion was asked out of turn."""


def _companion(answer: Callable[[Any], Any], pipe: Any) -> None:
    """The companion's loop: each request ``(request, wanted)`` answered in turn (sent back when
    ``wanted``), until None or a failure (sent back, wanted or not: the caller's next result raises it)."""
    while True:
        try:
            request = pipe.recv()
        except (EOFError, OSError):
            return
        if request is None:
            return
        try:
            reply: tuple = ("ok", answer(request[0]))
        except BaseException as exc:  # noqa: BLE001 (told to the caller, which raises it)
            reply = ("error", f"{type(exc).__name__}: {exc}")
        if not request[1] and reply[0] == "ok":  # told, not asked: no answer wanted
            continue
        try:
            pipe.send(reply)
        except Exception as exc:  # noqa: BLE001 (an answer that cannot be sent)
            with contextlib.suppress(Exception):
                pipe.send(("error", f"the answer could not be sent: {type(exc).__name__}: {exc}"))
            return
        if reply[0] != "ok":
            return
