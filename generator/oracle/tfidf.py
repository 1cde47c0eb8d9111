"""Where the oracle's scikit-learn arithmetic runs: the day's hot topics (``selection.day_topics``) and
the questions' similarities to the articles (``retrieval.similarities``).

Importing scikit-learn takes about a second (it imports scipy.stats), more than a night of the demo,
so the oracle's modules import it only inside those two functions, and ``call`` runs them here,
unless a block ``elsewhere`` is open: there a companion process (``parallel.Companion``), forked when
the block opens, imports scikit-learn on the other core while the caller goes on, and then makes
each call in turn. The demo's season opens one: its oracle nights come last, and the season's main
process never imports scikit-learn. The same values either way (the arguments and the answers cross a
pipe, pickled); a call that fails in the companion is made again here, so an error is raised where
it would have been raised without one (``tests/oracle/test_tfidf.py``).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import Any, TypeVar

from ..parallel import Companion, CompanionError

T = TypeVar("T")


class _Elsewhere:
    """The block's companion (None once it has failed) and the process that opened the block. The
    companion is told to import scikit-learn first (``Companion.tell``): the first call's answer waits
    for it, and a failed import is raised there as a failed call."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.companion: Companion[tuple[Callable[..., Any], tuple], Any] | None = Companion(_answer)
        self.companion.tell((_import_sklearn, ()))

    def call(self, fn: Callable[..., T], args: tuple) -> T:
        companion = self.companion
        if companion is None or os.getpid() != self.pid:  # failed, or a process forked in the block
            return fn(*args)
        try:
            companion.ask((fn, args))
            return companion.result()
        except CompanionError:
            self.close()
            return fn(*args)

    def close(self) -> None:
        companion, self.companion = self.companion, None
        if companion is not None:
            companion.close()


_ELSEWHERE: ContextVar[_Elsewhere | None] = ContextVar("the oracle's scikit-learn companion", default=None)


@contextlib.contextmanager
def elsewhere(wanted: bool = True) -> Iterator[None]:
    """Within the block, ``call`` runs in a companion process that imports scikit-learn from the
    block's start (when ``wanted``: a block with no oracle night would start it for nothing)."""
    if not wanted:
        yield
        return
    there = _Elsewhere()
    token = _ELSEWHERE.set(there)
    try:
        yield
    finally:
        _ELSEWHERE.reset(token)
        there.close()


def call(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)``: in the open ``elsewhere`` block's companion, else here. ``fn``: a module-level
    function (it is sent by name)."""
    there = _ELSEWHERE.get()
    return fn(*args) if there is None else there.call(fn, args)


def _answer(request: tuple[Callable[..., Any], tuple]) -> Any:
    fn, args = request
    return fn(*args)


def _import_sklearn() -> None:
    import sklearn.cluster  # noqa: F401
    import sklearn.feature_extraction.text  # noqa: F401
