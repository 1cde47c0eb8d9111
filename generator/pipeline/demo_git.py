"""The demo hub as a git repository: each simulated night committed as the nightly workflow commits it.

``prescient demo`` makes ``demo/`` its own repository (branch ``main``). The hub's setup (its
``hub.toml`` and ``.gitignore``) is the first commit, by the demo's maintainer; then each night's
changes under the hub are one commit by the hub's bot (``[hub] bot_email``), author and committer
dated at the night's time, with the workflow's message (``nightly: data as of <as_of>``); the site's
sources, once built, are a last commit by the maintainer. So ``git log data/``, ``git blame`` on a
ledger and ``prescient verify --git`` work on the demo as on a real hub.

The synthetic teams submit as a real hub's teams do, by pull request (``pull_request``): one a model
and round, its head commit (the model's forecast file, and its bets when it bets) authored by the
teams (``TEAM``) on the night's main commit and kept as GitHub keeps it, ``refs/pull/<n>/head``; the
demo's maintainer merges it into ``main`` with a merge commit (``git merge --no-ff``), and the
receipts workflow's file for its validation run is committed to the ``prescient-receipts`` branch
(``runs/<run id>.csv``, by the bot), from which the next nightly run records it in ``data/receipts/``.

One ``git fast-import`` process takes every commit of a run: a night's changed files are found by
their stats (and kept out when their bytes are those already committed), so a night costs a scan of
the hub's folders and the bytes of what changed, not a ``git add`` of the whole tree. What git
ignores in a hub (the generated pages, the built site, the lock) is never committed. A rerun that
changes nothing commits nothing, and a run cut short leaves its changes to the next run's first commit.
"""

from __future__ import annotations

import collections
import contextlib
import fcntl
import os
import select
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import IO

from ..errors import PrescientError
from ..forecasters.synthetic import TEAM_LOGIN
from ..store import files
from ..store.git import ENV, blob_id, run_git
from ..timeutil import format_ts

BRANCH = "refs/heads/main"
RECEIPTS_BRANCH = "refs/heads/prescient-receipts"  # where the receipts workflow pushes each run's file
PULL_REFS = "refs/pull/"  # a pull request's head as GitHub keeps it: refs/pull/<n>/head
BOT_NAME = "github-actions[bot]"  # as the workflows commit
MAINTAINER = ("Demo Maintainer", "maintainer@demo.invalid")  # who set the demo hub up
DEMO_TEAMS = ("Demo Teams", "teams@demo.invalid")  # the synthetic forecasters (their pull requests, their oracle answers)
IGNORED = ("site_src/docs/generated/", "site_src/site/", "data/.prescient.lock")  # the demo's .gitignore

Stat = tuple[int, int]  # (mtime_ns, size)


def gitignore() -> bytes:
    return "".join(f"{p}\n" for p in IGNORED).encode()


@dataclass(frozen=True)
class Held:
    """Files another process writes meanwhile (``pipeline.fetch_lane``): every file under ``folders``
    is committed as ``files`` give it (the bytes the night left, by path), never as read from disk."""

    folders: tuple[str, ...]
    files: Mapping[str, bytes]

    def holds(self, path: str) -> bool:
        return any(path.startswith(folder) for folder in self.folders)


def _scan(root: Path, held: Held | None = None) -> dict[str, Stat]:
    """Every file git would track in the hub, by path relative to it, with its stat (none under
    ``held``'s folders)."""
    out: dict[str, Stat] = {}
    for folder, dirs, names in os.walk(root):
        rel = os.path.relpath(folder, root)
        prefix = "" if rel == "." else rel.replace(os.sep, "/") + "/"
        dirs[:] = sorted(
            d for d in dirs if not (prefix == "" and d == ".git") and not _ignored(f"{prefix}{d}/") and not (held and held.holds(f"{prefix}{d}/"))
        )
        for name in names:
            path = prefix + name
            if not _ignored(path):
                st = os.stat(os.path.join(folder, name))
                out[path] = (st.st_mtime_ns, st.st_size)
    return out


def _nightly_message(as_of: datetime) -> str:
    return f"nightly: data as of {format_ts(as_of)}"


def _ignored(path: str) -> bool:
    return any(path == p or path.startswith(p) for p in IGNORED)


class _Feed:
    """What the commits send to ``git fast-import``, written to its stdin without waiting. The pipe
    holds 64 KiB (1 MiB here, where Linux allows it) and a night's changed ledgers are megabytes
    (each a whole blob): a blocking write would keep the demo waiting while git compresses them.
    Each ``write`` hands the pipe what it takes now and keeps the rest, handed on at the next write,
    so git works on a second core while the demo computes the next night (no thread: the demo's
    forked workers need a process of one thread). ``flush`` waits until everything is written
    (before reading git's answer to ``get-mark``, and at the end)."""

    def __init__(self, pipe: IO[bytes]):
        self.fd = pipe.fileno()
        with contextlib.suppress(OSError, AttributeError):  # not Linux, or above /proc/sys/fs/pipe-max-size
            fcntl.fcntl(self.fd, fcntl.F_SETPIPE_SZ, 1 << 20)
        os.set_blocking(self.fd, False)
        self.pending: collections.deque[memoryview] = collections.deque()

    def write(self, data: bytes) -> None:
        self.pending.append(memoryview(data))
        self._hand_on()

    def _hand_on(self) -> None:
        """Write what the pipe takes now."""
        while self.pending:
            try:
                written = os.write(self.fd, self.pending[0])
            except BlockingIOError:
                return
            except OSError as exc:  # git has exited: its own message says why
                raise PrescientError(f"git fast-import stopped reading its input ({exc})") from None
            if written < len(self.pending[0]):
                self.pending[0] = self.pending[0][written:]
            else:
                self.pending.popleft()

    def flush(self) -> None:
        while self.pending:
            select.select([], [self.fd], [])
            self._hand_on()


class NightlyCommits:
    """Commits of a demo run, each made by ``commit`` (``with NightlyCommits(root, bot) as commits``)."""

    def __init__(self, root: Path, bot_email: str):
        self.root, self.bot = Path(root), bot_email
        self.stats: dict[str, Stat] = {}
        self.blobs: dict[str, str] = {}  # path → blob id as last committed
        self.made = 0
        self.git_cpu = 0.0  # CPU seconds of the fast-import process, once it ended (benchmarks/bench_demo.py)
        self._parent = False
        self._tip = ""  # main's last commit, as fast-import names it ("" while main has none)
        self._tip_time = 0  # its time (seconds since the epoch): main's next plain commit is never dated earlier
        self._receipts = ""  # the receipts branch's parent for its first commit of this run ("" none; then fast-import's own)
        self._marks = 0
        self._proc: subprocess.Popen | None = None
        self._feed: _Feed | None = None
        self.held: Held | None = None  # files another process writes meanwhile: every commit takes them from here

    def __enter__(self) -> NightlyCommits:
        if not (self.root / ".git").exists():  # never the repository of a folder above (the clone the demo is in)
            run_git(self.root, "init", "-q", "-b", "main")
        try:
            run_git(self.root, "rev-parse", "--verify", "--quiet", f"{BRANCH}^{{commit}}")
            self._parent = True
        except PrescientError:  # a repository with no commit yet
            self._parent = False
        if self._parent:
            self._tip = f"{BRANCH}^0"
            self._tip_time = int(run_git(self.root, "log", "-1", "--format=%ct", BRANCH).strip() or 0)
            listing = run_git(self.root, "ls-tree", "-r", "--full-tree", BRANCH).decode()
            self.blobs = {line.split("\t", 1)[1]: line.split()[2] for line in listing.splitlines() if "\t" in line}
        # what differs from the last commit (a run cut short): seen as changed by the first commit
        self.stats = {p: s for p, s in _scan(self.root).items() if p in self.blobs and blob_id(files.read_bytes(self.root / p)) == self.blobs[p]}
        # zlib's fastest level and no delta search: a season commits ~190 MB of file versions (each
        # night's version of a ledger is a whole blob), which git's defaults take ~8 CPU s to pack and
        # these ~2.4 (33 MB on disk; `git gc` packs it tighter whenever one likes)
        if run_git(self.root, "for-each-ref", "--format=%(refname)", RECEIPTS_BRANCH).strip():
            self._receipts = f"{RECEIPTS_BRANCH}^0"
        # its stdout answers `get-mark` (a pull request's head commit id, which its receipt names)
        self._proc = subprocess.Popen(
            ["git", "-C", str(self.root), "-c", "pack.compression=1", "-c", "core.compression=1", "fast-import", "--quiet", "--done", "--depth=0"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=ENV,
        )
        if self._proc.stdin is not None:
            self._feed = _Feed(self._proc.stdin)
        return self

    def commit(self, when: datetime, message: str, author: tuple[str, str] | None = None) -> bool:
        """One commit of everything changed since the last, dated ``when``, by ``author`` (default: the
        hub's bot); False (no commit) when nothing changed. A commit after the pull requests merged on
        the night ``when`` (the teams' oracle answers, the site's sources: a demo stopped on such a
        night) is dated at the last merge instead: never before its parent, which `verify --git`
        refuses (``commit-date-backwards``). Files ``held`` (``self.held``) are taken from it, never
        from disk (one held that is not in its ``files`` is as last committed)."""
        held = self.held
        now = _scan(self.root, held)
        touched = [(path, files.read_bytes(self.root / path)) for path, stat in sorted(now.items()) if self.stats.get(path) != stat]
        changed: list[tuple[str, bytes]] = []
        for path, data in touched + sorted(held.files.items() if held else ()):
            blob = blob_id(data)
            if self.blobs.get(path) != blob:
                changed.append((path, data))
                self.blobs[path] = blob
        removed = sorted(p for p in self.blobs if p not in now and not (held and held.holds(p)))
        self.stats = now
        if not changed and not removed:
            return False
        for path in removed:
            del self.blobs[path]
        out = self._header(BRANCH, when, message, author or (BOT_NAME, self.bot), self._tip)
        self._tip = f":{self._marks}"
        for path in removed:
            out.write(f"D {path}\n".encode())
        for path, data in changed:
            out.write(f"M 100644 inline {path}\ndata {len(data)}\n".encode())
            out.write(data)
            out.write(b"\n")
        out.write(b"\n")
        return True

    def pull_request(
        self,
        number: int,
        paths: list[str],
        title: str,
        pushed: datetime,
        merged: datetime,
        author: tuple[str, str] = DEMO_TEAMS,
        login: str = TEAM_LOGIN,
    ) -> str:
        """Pull request ``number``: a head commit by ``author`` (GitHub login ``login``) at ``pushed``
        holding the hub's files at ``paths`` (as they are now) on main's last commit, kept as
        ``refs/pull/<number>/head``, then merged into main by the maintainer at ``merged`` with a merge
        commit. Returns the head's id."""
        out, blobs = self._stdin(), {}
        for path in sorted(paths):
            data = files.read_bytes(self.root / path)
            self._marks += 1
            blobs[path] = self._marks
            out.write(f"blob\nmark :{self._marks}\ndata {len(data)}\n".encode())
            out.write(data)
            out.write(b"\n")
            self.blobs[path] = blob_id(data)
            st = os.stat(self.root / path)
            self.stats[path] = (st.st_mtime_ns, st.st_size)
        listing = "".join(f"M 100644 :{mark} {path}\n" for path, mark in blobs.items()).encode()
        out = self._header(f"{PULL_REFS}{number}/head", pushed, title, author, self._tip)
        head = self._marks
        out.write(listing + b"\n")
        message = f"Merge pull request #{number} from {login}/{title.split(':')[0]}\n\n{title}"
        out = self._header(BRANCH, merged, message, MAINTAINER, self._tip)
        self._tip = f":{self._marks}"
        out.write(f"merge :{head}\n".encode() + listing + b"\n")
        return self._commit_id(f":{head}", f"pull request #{number}")

    def checkpoint(self) -> str:
        """Write what the stream holds so far (pack and refs) to the repository, so that other git
        processes see it (a benchmark's clone); returns main's last commit id."""
        if not self._tip.startswith(":"):
            raise PrescientError("no commit of this run to write yet")
        self._stdin().write(b"checkpoint\n")
        return self._commit_id(self._tip, "main's last commit")

    def _commit_id(self, mark: str, what: str) -> str:
        """The commit id fast-import gave the commit marked ``mark`` (its answer on its stdout)."""
        out = self._stdin()
        out.write(f"get-mark {mark}\n".encode())
        out.flush()
        answer = self._proc.stdout.readline().decode().strip() if self._proc and self._proc.stdout else ""
        if len(answer) not in (40, 64):
            raise PrescientError(f"git fast-import gave no commit id for {what} ({answer!r})")
        return answer

    def receipt(self, run_id: int, data: bytes, when: datetime) -> None:
        """The receipts workflow's commit of one run's file, ``runs/<run_id>.csv`` on the receipts branch."""
        out = self._header(RECEIPTS_BRANCH, when, f"receipt of run {run_id}", (BOT_NAME, self.bot), self._receipts)
        self._receipts = ""  # then fast-import follows the branch itself
        out.write(f"M 100644 inline runs/{run_id}.csv\ndata {len(data)}\n".encode() + data + b"\n\n")

    def _header(self, ref: str, when: datetime, message: str, who: tuple[str, str], parent: str) -> _Feed:
        """Start a commit on ``ref`` (its mark: the next one) whose first parent is ``parent`` ("": the
        ref's own tip in this stream, or none)."""
        name, email = who
        seconds = int(when.timestamp())
        if ref == BRANCH:
            seconds = self._tip_time = max(seconds, self._tip_time)
        stamp = f"{seconds} +0000"
        out, text = self._stdin(), message.encode() + b"\n"
        self._marks += 1
        out.write(
            f"commit {ref}\nmark :{self._marks}\nauthor {name} <{email}> {stamp}\ncommitter {name} <{email}> {stamp}\ndata {len(text)}\n".encode()
            + text
            + (f"from {parent}\n".encode() if parent else b"")
        )
        self.made += 1
        return out

    def has_nightly(self, as_of: datetime) -> bool:
        """Whether main already holds the night's commit (an earlier run finished that night's nightly)."""
        if not self._parent:
            return False
        found = run_git(self.root, "log", "-1", "--format=%H", "--fixed-strings", f"--grep={_nightly_message(as_of)}", BRANCH)
        return bool(found.strip())

    def nightly(self, as_of: datetime) -> bool:
        """The night's commit, as the nightly workflow makes it."""
        return self.commit(as_of, _nightly_message(as_of))

    def _stdin(self) -> _Feed:
        if self._feed is None:
            raise PrescientError("the demo's commits are made inside `with NightlyCommits(...)`")
        return self._feed

    def __exit__(self, *exc) -> None:
        proc, feed, self._proc, self._feed = self._proc, self._feed, None, None
        if proc is None or proc.stdin is None or feed is None:
            return
        try:
            feed.write(b"done\n")
            feed.flush()
        except PrescientError:
            pass  # git ended early: its own message, read below, says why
        with contextlib.suppress(OSError):
            proc.stdin.close()
        err = proc.stderr.read().decode("utf-8", "replace") if proc.stderr else ""
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode, self.git_cpu = os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime
        if proc.returncode != 0:
            raise PrescientError(f"git fast-import failed: {err.strip().splitlines()[-1:] or proc.returncode}")
        if self.made:
            run_git(self.root, "reset", "-q")  # the index follows the branch (the files are already there)
