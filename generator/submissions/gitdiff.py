"""The one place the validator talks to git, through plumbing commands run as subprocesses.

It lists what a pull request changed (``git diff --name-status`` from the merge base of ``base``
and ``head`` to ``head``, the same three-dot diff GitHub shows) and reads files as stored in a
commit (``git ls-tree`` for the mode and size, ``git cat-file`` for the bytes). Nothing from the
pull request is ever checked out or executed.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ..errors import PrescientError

_REV = re.compile(r"^[0-9A-Za-z][0-9A-Za-z._/^~-]*$")
_KINDS = {"100644": "file", "100755": "file", "120000": "link", "160000": "submodule", "040000": "dir"}


@dataclass(frozen=True)
class Change:
    """One changed path: status A (added), M (modified), D (deleted), R (renamed from ``old_path``)."""

    status: str
    path: str
    old_path: str | None = None


def _git(repo: Path, *args: str, stdin: bytes | None = None) -> bytes:
    try:
        done = subprocess.run(["git", "-C", str(repo), *args], input=stdin, capture_output=True, check=False)
    except OSError as exc:
        raise PrescientError(f"cannot run git: {exc}") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise PrescientError(f"git {args[0]} failed: {message[-1] if message else 'exit ' + str(done.returncode)}")
    return done.stdout


def resolve_commit(repo: Path, rev: str) -> str:
    """The full sha of ``rev``; a clear error when it is not a commit of this repository."""
    if not _REV.match(rev):
        raise PrescientError(f"{rev!r} is not a commit sha or ref")
    try:
        return _git(repo, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}").decode().strip()
    except PrescientError:
        raise PrescientError(f"{rev!r} is not a commit in {repo}; fetch it first (git fetch origin {rev})") from None


def changed_files(repo: Path, base: str, head: str) -> list[Change]:
    """Files changed by ``head`` since it left ``base`` (merge base), sorted by path."""
    out = _git(repo, "diff", "--name-status", "-z", "-M", "--no-ext-diff", "--no-textconv", f"{base}...{head}", "--")
    fields = [f.decode("utf-8", "surrogateescape") for f in out.split(b"\0") if f]
    changes, i = [], 0
    while i < len(fields):
        status = fields[i][0]
        if status in "RC":
            changes.append(Change("R" if status == "R" else "A", fields[i + 2], fields[i + 1]))
            i += 3
        else:
            changes.append(Change({"T": "M"}.get(status, status), fields[i + 1]))
            i += 2
    return sorted(changes, key=lambda c: (c.path, c.old_path or ""))


class GitTree:
    """Files as stored in one commit. ``entry`` gives (kind, size) or None; ``read`` the bytes."""

    def __init__(self, repo: Path, commit: str):
        self.repo, self.commit = repo, commit

    def entry(self, path: str) -> tuple[str, int] | None:
        out = _git(self.repo, "ls-tree", "-z", "--long", "--full-tree", self.commit, "--", path)
        for record in out.split(b"\0"):
            meta, _, name = record.partition(b"\t")
            if name.decode("utf-8", "surrogateescape") == path:
                mode, _type, _sha, size = meta.decode().split(maxsplit=3)
                return _KINDS.get(mode, "other"), int(size) if size.strip().isdigit() else 0
        return None

    def read(self, path: str) -> bytes:
        return _git(self.repo, "cat-file", "blob", f"{self.commit}:{path}")
