"""The demo hub as a git repository: each simulated night committed as the nightly workflow commits it.

``prescient demo`` makes ``demo/`` its own repository (branch ``main``). The hub's setup (its
``hub.toml`` and ``.gitignore``) is the first commit, by the demo's maintainer; then each night's
changes under the hub are one commit by the hub's bot (``[hub] bot_email``), author and committer
dated at the night's time, with the workflow's message (``nightly: data as of <as_of>``); the site's
sources, once built, are a last commit by the maintainer. So ``git log data/``, ``git blame`` on a
ledger and ``prescient verify --git`` work on the demo as on a real hub.

One ``git fast-import`` process takes every commit of a run: a night's changed files are found by
their stats (and kept out when their bytes are those already committed), so a night costs a scan of
the hub's folders and the bytes of what changed, not a ``git add`` of the whole tree. What git
ignores in a hub (the generated pages, the built site, the lock) is never committed. A rerun that
changes nothing commits nothing, and a run cut short leaves its changes to the next run's first commit.
"""

from __future__ import annotations

import os
import subprocess
from datetime import datetime, timedelta
from pathlib import Path
from typing import IO

from ..errors import PrescientError
from ..store.git import ENV, blob_id, run_git
from ..timeutil import format_ts

BRANCH = "refs/heads/main"
BOT_NAME = "github-actions[bot]"  # as the workflows commit
MAINTAINER = ("Demo Maintainer", "maintainer@demo.invalid")  # who set the demo hub up
DEMO_TEAMS = ("Demo Teams", "teams@demo.invalid")  # the synthetic forecasters' self-reported oracle answers
IGNORED = ("site_src/docs/generated/", "site_src/site/", "data/.prescient.lock")  # the demo's .gitignore

Stat = tuple[int, int]  # (mtime_ns, size)


def gitignore() -> bytes:
    return "".join(f"{p}\n" for p in IGNORED).encode()


def _scan(root: Path) -> dict[str, Stat]:
    """Every file git would track in the hub, by path relative to it, with its stat."""
    out: dict[str, Stat] = {}
    for folder, dirs, files in os.walk(root):
        rel = os.path.relpath(folder, root)
        prefix = "" if rel == "." else rel.replace(os.sep, "/") + "/"
        dirs[:] = sorted(d for d in dirs if not (prefix == "" and d == ".git") and not _ignored(f"{prefix}{d}/"))
        for name in files:
            path = prefix + name
            if not _ignored(path):
                st = os.stat(os.path.join(folder, name))
                out[path] = (st.st_mtime_ns, st.st_size)
    return out


def _ignored(path: str) -> bool:
    return any(path == p or path.startswith(p) for p in IGNORED)


class NightlyCommits:
    """Commits of a demo run, each made by ``commit`` (``with NightlyCommits(root, bot) as commits``)."""

    def __init__(self, root: Path, bot_email: str):
        self.root, self.bot = Path(root), bot_email
        self.stats: dict[str, Stat] = {}
        self.blobs: dict[str, str] = {}  # path → blob id as last committed
        self.made = 0
        self.git_cpu = 0.0  # CPU seconds of the fast-import process, once it ended (benchmarks/bench_demo.py)
        self._parent = False
        self._proc: subprocess.Popen | None = None

    def __enter__(self) -> NightlyCommits:
        if not (self.root / ".git").exists():  # never the repository of a folder above (the clone the demo is in)
            run_git(self.root, "init", "-q", "-b", "main")
        try:
            run_git(self.root, "rev-parse", "--verify", "--quiet", f"{BRANCH}^{{commit}}")
            self._parent = True
        except PrescientError:  # a repository with no commit yet
            self._parent = False
        if self._parent:
            listing = run_git(self.root, "ls-tree", "-r", "--full-tree", BRANCH).decode()
            self.blobs = {line.split("\t", 1)[1]: line.split()[2] for line in listing.splitlines() if "\t" in line}
        # what differs from the last commit (a run cut short): seen as changed by the first commit
        self.stats = {p: s for p, s in _scan(self.root).items() if p in self.blobs
                      and blob_id((self.root / p).read_bytes()) == self.blobs[p]}
        # zlib's fastest level and no delta search: a season commits ~190 MB of file versions (each
        # night's version of a ledger is a whole blob), which git's defaults take ~8 CPU s to pack and
        # these ~2.4 (33 MB on disk; `git gc` packs it tighter whenever one likes)
        answers, self._answers_w = os.pipe()  # fast-import's answers (``get-mark``: a pull request's head commit)
        self._answers = os.fdopen(answers, "rb")
        self._proc = subprocess.Popen(["git", "-C", str(self.root), "-c", "pack.compression=1", "-c", "core.compression=1",
                                       "fast-import", "--quiet", "--done", "--depth=0", f"--cat-blob-fd={self._answers_w}"],
                                      stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV,
                                      pass_fds=(self._answers_w,))
        os.close(self._answers_w)
        return self

    def commit(self, when: datetime, message: str, author: tuple[str, str] | None = None) -> bool:
        """One commit of everything changed since the last, dated ``when``, by ``author`` (default: the
        hub's bot); False (no commit) when nothing changed."""
        now = _scan(self.root)
        changed: list[tuple[str, bytes]] = []
        for path, stat in sorted(now.items()):
            if self.stats.get(path) == stat:
                continue
            data = (self.root / path).read_bytes()
            blob = blob_id(data)
            if self.blobs.get(path) != blob:
                changed.append((path, data))
                self.blobs[path] = blob
        removed = sorted(p for p in self.blobs if p not in now)
        self.stats = now
        if not changed and not removed:
            return False
        for path in removed:
            del self.blobs[path]
        name, email = author or (BOT_NAME, self.bot)
        stamp = f"{int(when.timestamp())} +0000"
        out = self._stdin()
        text = message.encode() + b"\n"
        out.write(f"commit {BRANCH}\nmark :{self.made + 1}\nauthor {name} <{email}> {stamp}\n"
                  f"committer {name} <{email}> {stamp}\ndata {len(text)}\n".encode() + text)
        if self._parent and self.made == 0:
            out.write(f"from {BRANCH}^0\n".encode())
        for path in removed:
            out.write(f"D {path}\n".encode())
        for path, data in changed:
            out.write(f"M 100644 inline {path}\ndata {len(data)}\n".encode() + data + b"\n")
        out.write(b"\n")
        self.made += 1
        return True

    def pull_request(self, number: int, when: datetime, author: tuple[str, str], files: dict[str, bytes],
                     title: str) -> str:
        """A pull request as GitHub records one merged with its merge button: the head commit adding
        ``files`` (paths relative to the hub, already written there) on the branch's tip, kept as
        ``refs/pull/<number>/head``, then the branch's merge commit of it by the same author a minute
        later. Returns the head commit's id (what a receipt names)."""
        out, mark = self._stdin(), self.made + 1
        head = self._commit_text(f"refs/pull/{number}/head", author, when, title, mark)
        if self._parent or self.made:
            head += f"from {BRANCH}{'^0' if self._parent and self.made == 0 else ''}\n".encode()
        out.write(head + self._files(files))
        merge = self._commit_text(BRANCH, author, when + timedelta(minutes=1),
                                  f"Merge pull request #{number}\n\n{title}", mark + 1)
        if self._parent and self.made == 0:
            merge += f"from {BRANCH}^0\n".encode()
        out.write(merge + f"merge :{mark}\n".encode() + self._files(files))
        out.write(f"get-mark :{mark}\n".encode())
        out.flush()
        self.made += 2
        self.blobs.update({path: blob_id(data) for path, data in files.items()})
        return self._answers.readline().decode().strip()

    @staticmethod
    def _commit_text(ref: str, author: tuple[str, str], when: datetime, message: str, mark: int) -> bytes:
        stamp, text = f"{int(when.timestamp())} +0000", message.encode() + b"\n"
        return (f"commit {ref}\nmark :{mark}\nauthor {author[0]} <{author[1]}> {stamp}\n"
                f"committer {author[0]} <{author[1]}> {stamp}\ndata {len(text)}\n").encode() + text

    @staticmethod
    def _files(files: dict[str, bytes]) -> bytes:
        return b"".join(f"M 100644 inline {path}\ndata {len(data)}\n".encode() + data + b"\n"
                        for path, data in sorted(files.items())) + b"\n"

    def checkpoint(self) -> str:
        """Write what the stream holds so far (pack and refs) to the repository, so that other git
        processes see it; the branch's tip commit id."""
        if not self.made:
            raise PrescientError("no commit to write yet")
        out = self._stdin()
        out.write(f"checkpoint\nget-mark :{self.made}\n".encode())
        out.flush()
        return self._answers.readline().decode().strip()

    def nightly(self, as_of: datetime) -> bool:
        """The night's commit, as the nightly workflow makes it."""
        return self.commit(as_of, f"nightly: data as of {format_ts(as_of)}")

    def _stdin(self) -> IO[bytes]:
        if self._proc is None or self._proc.stdin is None:
            raise PrescientError("the demo's commits are made inside `with NightlyCommits(...)`")
        return self._proc.stdin

    def __exit__(self, *exc) -> None:
        proc, self._proc = self._proc, None
        if proc is None or proc.stdin is None:
            return
        proc.stdin.write(b"done\n")
        proc.stdin.close()
        self._answers.close()
        err = proc.stderr.read().decode("utf-8", "replace") if proc.stderr else ""
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode, self.git_cpu = os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime
        if proc.returncode != 0:
            raise PrescientError(f"git fast-import failed: {err.strip().splitlines()[-1:] or proc.returncode}")
        if self.made:
            run_git(self.root, "reset", "-q")  # the index follows the branch (the files are already there)
