"""The one module that forks (``generator.parallel``): its one rule for when forking is sound, and
its three shapes giving the results the work gives done here (the site's boards in the background,
the rounds' scores and after-due files by ``forked_map``, the import's parsing workers)."""

from __future__ import annotations

import os
import signal
import threading

import numpy as np
import pandas as pd
import pytest

from generator import parallel
from generator.interop.forecastbench import workers
from generator.parallel import fork_sound, forked_map, in_background
from generator.store.atomic import FAULT_ENV

HOSTILE = ['a "quoted", name', "two\nlines\r\nand a CR\r", "ünïcödé ✓ 模型 🙂", "", "=1+1", "back\\slash\t"]


def test_one_rule_says_when_forking_is_sound_and_every_user_follows_it(monkeypatch):
    """Not with another thread alive, not under the crash tests' write counter (and, on a machine of
    one core or without fork, never): then the map is left to the caller, the background work is
    done when asked for, and the import parses its files itself."""
    assert fork_sound() and workers.pooled(10**6)
    assert forked_map(lambda i: os.getpid(), [1, 2], 2) is not None
    for unsound in ("thread", "fault"):
        stop = threading.Event()
        other = threading.Thread(target=stop.wait)
        if unsound == "thread":
            other.start()
        else:
            monkeypatch.setenv(FAULT_ENV, "99")
        try:
            assert not fork_sound() and not workers.pooled(10**6)
            assert forked_map(lambda i: os.getpid(), [1, 2], 2) is None
            assert in_background(os.getpid)() == os.getpid()
        finally:
            stop.set()
            if other.is_alive():
                other.join()
            monkeypatch.delenv(FAULT_ENV, raising=False)
    monkeypatch.setattr(parallel.os, "cpu_count", lambda: 1)
    assert not fork_sound() and forked_map(lambda i: os.getpid(), [1, 2], 2) is None


def test_forked_map_gives_the_results_in_order_and_leaves_a_failure_to_the_caller():
    assert forked_map(lambda i: (i, os.getpid()), list(range(6)), 2)[3][0] == 3
    assert {pid for _, pid in forked_map(lambda i: (i, os.getpid()), list(range(6)), 2)} != {os.getpid()}
    assert forked_map(lambda i: 1 // (i - 3), list(range(6)), 2) is None  # one call raised: the caller does it


def test_a_value_made_in_the_worker_is_the_value_made_here():
    frame = pd.DataFrame({"x": np.arange(5, dtype=float) / 3, "name": HOSTILE[:5]})
    taken = in_background(lambda: (frame, {"attrs": [1, 2]}))()
    pd.testing.assert_frame_equal(taken[0], frame, check_exact=True)
    assert taken[1] == {"attrs": [1, 2]}


def test_the_value_is_made_in_another_process_unless_other_threads_are_alive():
    assert in_background(os.getpid)() != os.getpid()  # forked: made by the worker
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:  # a fork would copy the other thread's locks as held: no worker then
        assert in_background(os.getpid)() == os.getpid()
    finally:
        stop.set()
        other.join()


def test_a_worker_that_fails_leaves_the_error_to_the_main_process():
    calls = []

    def make():
        calls.append(1)  # in the worker, a copy of this list; here, this one
        raise ValueError("no board")

    pending = in_background(make)
    with pytest.raises(ValueError, match="no board"):
        pending()
    assert calls == [1]  # raised here, by the main process's own call


def test_a_result_the_worker_cannot_send_is_made_here():
    pending = in_background(lambda: lambda: "made")  # a function: not picklable
    assert pending()() == "made"


def _counting(stop_at: int | None = None):
    """An answer that keeps state between requests (a companion's memory) and reports its process."""
    seen: list[int] = []

    def answer(request: int) -> tuple[int, int, list[int]]:
        if request == stop_at:
            raise ValueError(f"request {request} refused")
        seen.append(request)
        return request * 2, os.getpid(), list(seen)

    return answer


def test_a_companion_answers_in_order_and_keeps_its_memory():
    with parallel.Companion(_counting()) as companion:
        answers = []
        for request in (1, 2, 3):
            companion.ask(request)
            answers.append(companion.result())
    assert [a[0] for a in answers] == [2, 4, 6] and answers[-1][2] == [1, 2, 3]  # what it learnt, kept
    assert {a[1] for a in answers} != {os.getpid()} and len({a[1] for a in answers}) == 1  # one other process


def test_a_companion_without_a_sound_fork_gives_the_same_answers_here(monkeypatch):
    monkeypatch.setattr(parallel, "fork_sound", lambda: False)
    with parallel.Companion(_counting()) as companion:
        assert companion.process is None
        companion.ask(5)
        assert companion.result()[:2] == (10, os.getpid())


@pytest.mark.parametrize("sound", [True, False])
def test_a_companions_failure_is_raised_here_and_turns_are_kept(monkeypatch, sound):
    monkeypatch.setattr(parallel, "fork_sound", lambda: sound)
    with parallel.Companion(_counting(stop_at=2)) as companion:
        with pytest.raises(parallel.CompanionError, match="no request asked"):
            companion.result()
        companion.ask(1)
        with pytest.raises(parallel.CompanionError, match="one request at a time"):
            companion.ask(2)
        assert companion.result()[0] == 2
        companion.ask(2)
        with pytest.raises((parallel.CompanionError, ValueError), match="request 2 refused"):
            companion.result()


def test_closing_a_companion_mid_request_waits_for_a_large_answer():
    """A companion whose answer is larger than a pipe holds blocks until it is read: closed while it works,
    it is read and dropped, not left blocked for ever (the demo's lane, closed by an error mid-season)."""
    previous = signal.signal(signal.SIGALRM, signal.default_int_handler)
    signal.alarm(30)  # a close that waited on the blocked companion would hang here
    try:
        with parallel.Companion(lambda n: b"x" * n) as companion:
            companion.ask(4 << 20)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert companion.process is None


@pytest.mark.parametrize("sound", [True, False])
def test_told_requests_are_done_in_turn_before_the_next_answer(monkeypatch, sound):
    """``tell``: work handed ahead whose answer is not wanted; the next asked request sees it done."""
    monkeypatch.setattr(parallel, "fork_sound", lambda: sound)
    with parallel.Companion(_counting()) as companion:
        companion.tell(1)
        companion.tell(2)
        companion.ask(3)
        assert companion.result()[2] == [1, 2, 3]
        companion.ask(4)
        with pytest.raises(parallel.CompanionError, match="one request at a time"):
            companion.tell(5)
        assert companion.result()[2] == [1, 2, 3, 4]


@pytest.mark.parametrize("sound", [True, False])
def test_a_told_requests_failure_is_raised_at_the_next_result(monkeypatch, sound):
    monkeypatch.setattr(parallel, "fork_sound", lambda: sound)
    with parallel.Companion(_counting(stop_at=1)) as companion:
        companion.tell(1)
        companion.ask(2)  # sent after the companion ended: the failure waits to be read
        with pytest.raises((parallel.CompanionError, ValueError), match="request 1 refused"):
            companion.result()
