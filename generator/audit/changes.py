"""The first-parent history of the hub's ``data/`` as one record per changed path (``FileChange``).

The history is read through ``store.git`` (the one module that runs git): ``git log --first-parent
--raw`` lists every commit of the branch with the paths it changed under ``data/`` (a rename is a
deletion plus an addition). ``audit.git`` judges these changes, ``audit.ledgers`` compares a
ledger's versions, ``audit.digests`` checks the nights' digests along them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from ..store import git
from ..timeutil import format_ts


@dataclass(frozen=True)
class FileChange:
    """One path changed by one commit: its status letter, and the modes and blob ids before and after."""

    commit: str
    time: str  # committer date, ISO UTC
    status: str
    path: str
    old_blob: str
    new_blob: str
    old_mode: str = "100644"
    new_mode: str = "100644"
    committer: str = ""  # the commit's committer e-mail
    parents: int = 1  # 2 or more: a merge (a pull request's, on GitHub)

    @property
    def where(self) -> str:
        return f"commit {self.commit[:12]} ({self.time})"


def history(repo: Path, rev: str = "HEAD") -> list[FileChange]:
    """Every change under ``data/`` along the first-parent line of ``rev``, oldest first."""
    return parse_log(git.first_parent_raw_log(repo, git.resolve_commit(repo, rev), "data/"))


def parse_log(out: bytes) -> list[FileChange]:
    """The changes in ``store.git.first_parent_raw_log`` output. A copy (C) is an addition of its new
    path; a rename (R, when detected) is a deletion of its old path and an addition of its new one."""
    changes = []
    for record in out.split(b"\x01")[1:]:
        header, _, body = record.partition(b"\0")
        sha, seconds, *rest = header.decode("utf-8", "replace").split(" ")
        when = format_ts(datetime.fromtimestamp(int(seconds), tz=UTC))
        who, parents = (rest[0], len([p for p in rest[1:] if p])) if rest else ("", 1)
        fields, i = body.lstrip(b"\n").split(b"\0"), 0
        while i < len(fields) and fields[i].startswith(b":"):
            old_mode, new_mode, old_blob, new_blob, status = fields[i].decode().lstrip(":").split()
            letter, paths = status[0], [f.decode("utf-8", "surrogateescape") for f in fields[i + 1 : i + 3]]
            if letter in "RC":
                if letter == "R":
                    changes.append(FileChange(sha, when, "D", paths[0], old_blob, "0" * len(old_blob), old_mode, "000000", who, parents))
                changes.append(FileChange(sha, when, "A", paths[1], "0" * len(new_blob), new_blob, "000000", new_mode, who, parents))
                i += 3
            else:
                changes.append(FileChange(sha, when, letter, paths[0], old_blob, new_blob, old_mode, new_mode, who, parents))
                i += 2
    return changes
