"""The one place the hub talks to git, through plumbing commands run as subprocesses.

For the validator, it lists what a pull request changed (``git diff --name-status`` from the merge
base of ``base`` and ``head`` to ``head``, the same three-dot diff GitHub shows) and reads files as
stored in a commit (``git ls-tree`` for the mode and size, ``git cat-file`` for the bytes). Nothing
from the pull request is ever checked out or executed.

For the history audit (``audit.git``), it lists the first-parent commits of a branch with their
dates, the raw changes each made under a folder (``git log --raw``), and reads blobs one at a time
from one ``git cat-file --batch`` process (``BlobReader``), so memory holds a file's versions only
while they are compared.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ..errors import PrescientError
from ..models import DEFAULT_OWN, own_prefix_problem

_REV = re.compile(r"^[0-9A-Za-z][0-9A-Za-z._/^~-]*$")
_KINDS = {"100644": "file", "100755": "file", "120000": "link", "160000": "submodule", "040000": "dir"}


@dataclass(frozen=True)
class Change:
    """One changed path: status A (added), M (modified), D (deleted), R (renamed from ``old_path``)."""

    status: str
    path: str
    old_path: str | None = None


# The object graph as the commit ids name it: replace refs (``refs/replace/*``) and grafts, which let
# whoever controls a clone show other commits or trees under the same ids, are ignored.
ENV = {**os.environ, "GIT_NO_REPLACE_OBJECTS": "1", "GIT_GRAFT_FILE": os.devnull}


def run_git(repo: Path, *args: str, stdin: bytes | None = None) -> bytes:
    try:
        done = subprocess.run(["git", "-C", str(repo), *args], input=stdin, capture_output=True, check=False, env=ENV)
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
        return run_git(repo, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}").decode().strip()
    except PrescientError:
        raise PrescientError(f"{rev!r} is not a commit in {repo}; fetch it first (git fetch origin {rev})") from None


def changed_files(repo: Path, base: str, head: str) -> list[Change]:
    """Files changed by ``head`` since it left ``base`` (merge base), sorted by path."""
    out = run_git(repo, "diff", "--name-status", "-z", "-M", "--no-ext-diff", "--no-textconv", f"{base}...{head}", "--")
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


def first_parent_dates(repo: Path, head: str) -> list[tuple[str, int]]:
    """(sha, committer time in epoch seconds) of every commit on the first-parent line of ``head``,
    newest first; in a shallow clone, down to its oldest commit."""
    out = run_git(repo, "log", "--first-parent", "--format=%H %ct", head, "--")
    return [(sha, int(seconds)) for sha, seconds in (line.split() for line in out.decode().splitlines() if line)]


def held_at(dates: list[tuple[str, int]], seconds: int) -> str | None:
    """The commit the branch held at ``seconds`` (epoch): of ``dates`` (its first-parent line, newest
    first, as ``first_parent_dates`` lists them), the newest whose time, raised to the latest committer
    date before it (as the audit reads a commit's time), is at or before ``seconds``; None before the
    first. Pure."""
    found, running = None, None
    for sha, when in reversed(dates):
        running = when if running is None else max(running, when)
        if running > seconds:
            break
        found = sha
    return found


def shares_history(repo: Path, base: str, head: str) -> bool:
    """True when ``head`` and ``base`` have a common ancestor (a pull request's head made from scratch has none)."""
    done = subprocess.run(["git", "-C", str(repo), "merge-base", base, head], capture_output=True, check=False, env=ENV)
    return done.returncode == 0


def first_parent_raw_log(repo: Path, head: str, folder: str, since: str | None = None) -> bytes:
    """``git log --raw -z`` of the first-parent line of ``head``, oldest first, limited to ``folder``
    (``since``: only the commits after that one, an ancestor of ``head`` on its first-parent line).

    Each commit starts with ``\\x01<sha> <committer epoch seconds> <committer e-mail> <parents>\\0``, followed by its raw
    change records (``:<old mode> <new mode> <old blob> <new blob> <status>\\0<path>\\0``, two
    paths for a status R or C). A merge is diffed against its first parent; renames are not
    detected (a rename is a deletion and an addition), whatever the user's git configuration says.
    """
    return run_git(
        repo,
        "log",
        "--first-parent",
        "--diff-merges=first-parent",
        "--reverse",
        "--no-renames",
        "--no-abbrev",
        "--no-ext-diff",
        "--no-textconv",
        "--raw",
        "-z",
        "--format=%x01%H %ct %ce %P",
        *([f"^{since}"] if since else []),
        head,
        "--",
        folder,
    )


def shallow_commits(repo: Path) -> set[str]:
    """The commits a shallow clone was cut at (empty for a full clone)."""
    if run_git(repo, "rev-parse", "--is-shallow-repository").strip() != b"true":
        return set()
    shallow = Path(run_git(repo, "rev-parse", "--git-path", "shallow").decode().strip())
    shallow = shallow if shallow.is_absolute() else repo / shallow
    return set(shallow.read_text(encoding="ascii").split()) if shallow.is_file() else set()


def blob_id(data: bytes, length: int = 40) -> str:
    """git's object id of a file's bytes (sha1, or sha256 in a sha256 repository), as ``git hash-object``."""
    algorithm = hashlib.sha1 if length == 40 else hashlib.sha256
    return algorithm(b"blob %d\0" % len(data) + data).hexdigest()


PATHS_PER_CALL = 200  # paths named on one git command line: any number of long paths stays far below the OS's limit


def blob_ids(repo: Path, commit: str, paths: list[str]) -> dict[str, str]:
    """path → blob id of each of ``paths`` that is a regular file in ``commit`` (others are left out)."""
    found: dict[str, str] = {}
    for start in range(0, len(paths), PATHS_PER_CALL):
        chunk = paths[start : start + PATHS_PER_CALL]
        found.update(_regular_blobs(run_git(repo, "ls-tree", "-z", "--full-tree", commit, "--", *chunk)))
    return {path: found[path] for path in paths if path in found}


def blob_sizes(repo: Path, commit: str, paths: list[str]) -> dict[str, int]:
    """path → size in bytes of each of ``paths`` that is a regular file in ``commit``."""
    sizes: dict[str, int] = {}
    for start in range(0, len(paths), PATHS_PER_CALL):
        out = run_git(repo, "ls-tree", "-z", "--long", "--full-tree", commit, "--", *paths[start : start + PATHS_PER_CALL])
        for record in out.split(b"\0"):
            meta, _, name = record.partition(b"\t")
            fields = meta.decode().split()
            if len(fields) == 4 and fields[0] in ("100644", "100755") and fields[3].isdigit():
                sizes[name.decode("utf-8", "surrogateescape")] = int(fields[3])
    return sizes


def is_work_tree(root: Path) -> bool:
    """True when ``root`` is the top of a git work tree (a hub kept in git)."""
    try:
        top = run_git(root, "rev-parse", "--show-toplevel").decode().strip()
    except PrescientError:
        return False
    return Path(top).resolve() == root.resolve()


def init_repository(root: Path) -> None:
    """Make ``root`` a git repository whose first branch is ``main`` (``prescient init``)."""
    run_git(root, "init", "-q")
    run_git(root, "symbolic-ref", "HEAD", "refs/heads/main")


def last_change(root: Path, folder: str) -> tuple[str, bool]:
    """(the last commit of HEAD that changed ``folder``, whether the work tree's ``folder`` holds changes not
    committed: modified, deleted or untracked files, ignored ones aside); ("", False) outside a git work tree
    or before its first commit. The commit the site's pages name (``site.build.gather``)."""
    if not is_work_tree(root):
        return "", False
    try:
        commit = run_git(root, "rev-list", "-1", "HEAD", "--", folder).decode().strip()
    except PrescientError:  # no commit yet
        return "", False
    status = run_git(root, "status", "--porcelain", "-z", "--untracked-files=all", "--", folder)
    return commit, bool(status.strip(b"\0"))


def tree_id(repo: Path, commit: str, folder: str) -> str:
    """The git tree id of ``folder`` in ``commit`` ("" when it holds no such folder)."""
    meta, _, _name = run_git(repo, "ls-tree", "-z", "--full-tree", commit, "--", folder.rstrip("/")).partition(b"\t")
    fields = meta.decode().split()
    return fields[2] if len(fields) == 3 and fields[1] == "tree" else ""


def tracked(repo: Path, commit: str, folder: str) -> bool:
    """True when ``commit`` holds anything under ``folder``."""
    return bool(run_git(repo, "ls-tree", "--full-tree", "--name-only", commit, "--", folder).strip())


def replaced(repo: Path) -> list[str]:
    """What could show other objects under the same ids: replace refs, and a grafts file."""
    refs = [line for line in run_git(repo, "for-each-ref", "--format=%(refname)", "refs/replace/").decode().splitlines() if line]
    grafts = Path(run_git(repo, "rev-parse", "--git-path", "info/grafts").decode().strip())
    grafts = grafts if grafts.is_absolute() else repo / grafts
    return refs + ([str(grafts)] if grafts.is_file() else [])


def first_held(repo: Path, head: str, path: str, blob: str) -> tuple[str, int] | None:
    """(commit, time) of the first commit on the first-parent line of ``head`` that put ``blob`` at
    ``path``; its time is its committer date raised to the latest of the commits before it, so a
    back-dated commit never counts earlier than its parent. None when no such commit."""
    running, times = 0, {}
    for sha, seconds in reversed(first_parent_dates(repo, head)):
        running = max(running, seconds)
        times[sha] = running
    out = run_git(
        repo,
        "log",
        "--first-parent",
        "--diff-merges=first-parent",
        "--reverse",
        "--no-renames",
        "--no-abbrev",
        "--raw",
        "-z",
        "--format=%x01%H",
        head,
        "--",
        path,
    )
    for record in out.split(b"\x01")[1:]:
        head_line, _, body = record.partition(b"\0")
        fields = body.lstrip(b"\n").split(b"\0")
        for i in range(0, len(fields) - 1, 2):
            if fields[i].startswith(b":") and fields[i].split()[3].decode() == blob:
                commit = head_line.decode().strip()
                return commit, times.get(commit, 0)
    return None


def tree_blobs(repo: Path, commit: str, folders: tuple[str, ...]) -> dict[str, str]:
    """path → blob id of every regular file under ``folders`` in ``commit``."""
    return _regular_blobs(run_git(repo, "ls-tree", "-r", "-z", "--full-tree", commit, "--", *folders))


def _regular_blobs(ls_tree: bytes) -> dict[str, str]:
    """path → blob id of the regular files (mode 100644 or 100755) in ``git ls-tree -z`` output."""
    found = {}
    for record in ls_tree.split(b"\0"):
        meta, _, name = record.partition(b"\t")
        fields = meta.decode().split()
        if len(fields) == 3 and fields[0] in ("100644", "100755") and fields[1] == "blob":
            found[name.decode("utf-8", "surrogateescape")] = fields[2]
    return found


class BlobReader:
    """Blobs read by id from one long-running ``git cat-file --batch``; a context manager.

    ``read`` returns the blob's bytes, or None when the repository does not hold that object (or
    it is not a blob)."""

    def __init__(self, repo: Path):
        self.repo = repo
        self._process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> BlobReader:
        try:
            self._process = subprocess.Popen(
                ["git", "-C", str(self.repo), "cat-file", "--batch"],
                env=ENV,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
        except OSError as exc:
            raise PrescientError(f"cannot run git: {exc}") from None
        return self

    def __exit__(self, *_exc) -> None:
        process, self._process = self._process, None
        if process is not None:
            for stream in (process.stdin, process.stdout):
                try:
                    if stream is not None:
                        stream.close()
                except OSError:
                    pass
            process.wait()  # every answer was read whole; its exit status changes none of them

    def _pipes(self) -> tuple[IO[bytes], IO[bytes]]:
        """The running process's stdin and stdout (both pipes, as ``__enter__`` opens them)."""
        process = self._process
        if process is None or process.stdin is None or process.stdout is None:
            raise RuntimeError("BlobReader is used outside its with block")
        return process.stdin, process.stdout

    def read(self, blob: str) -> bytes | None:
        stdin, stdout = self._pipes()
        try:
            stdin.write(blob.encode("ascii") + b"\n")
            stdin.flush()
            header = stdout.readline().split()
            if len(header) == 3 and header[1] == b"blob":
                size = int(header[2])
                data = stdout.read(size)
                if len(data) == size and stdout.read(1) == b"\n":
                    return data
            elif len(header) == 3:  # another kind of object: skip its body
                stdout.read(int(header[2]) + 1)
                return None
            elif header[-1:] in ([b"missing"], [b"ambiguous"]):
                return None
        except (OSError, ValueError, UnicodeEncodeError) as exc:
            raise PrescientError(f"git cat-file failed while reading {blob}: {exc}") from None
        raise PrescientError(f"git cat-file stopped while reading {blob}")


class GitTree:
    """Files as stored in one commit. ``entry`` gives (kind, size) or None; ``read`` the bytes."""

    def __init__(self, repo: Path, commit: str):
        self.repo, self.commit = repo, commit

    def entry(self, path: str) -> tuple[str, int] | None:
        out = run_git(self.repo, "ls-tree", "-z", "--long", "--full-tree", self.commit, "--", path)
        for record in out.split(b"\0"):
            meta, _, name = record.partition(b"\t")
            if name.decode("utf-8", "surrogateescape") == path:
                mode, _type, _sha, size = meta.decode().split(maxsplit=3)
                return _KINDS.get(mode, "other"), int(size) if size.strip().isdigit() else 0
        return None

    def read(self, path: str) -> bytes:
        return run_git(self.repo, "cat-file", "blob", f"{self.commit}:{path}")

    def names(self, folder: str, kind: str = "file") -> list[str]:
        """The names of the plain files (``kind="dir"``: the folders) directly in ``folder`` (none when it does not exist)."""
        out = run_git(self.repo, "ls-tree", "-z", "--full-tree", self.commit, "--", folder.rstrip("/") + "/")
        names = []
        for record in out.split(b"\0"):
            meta, _, name = record.partition(b"\t")
            if meta and _KINDS.get(meta.split()[0].decode(), "other") == kind:
                names.append(name.decode("utf-8", "surrogateescape").rpartition("/")[2])
        return sorted(names)


def commit_author(repo: Path, commit: str) -> tuple[str, str]:
    """A commit's author name and e-mail."""
    name, _, email = run_git(repo, "show", "-s", "--format=%an%x00%ae", commit).decode("utf-8", "replace").strip().partition("\0")
    return name, email


def parents(repo: Path, commit: str) -> list[str]:
    """A commit's parents, first parent first (none for a root commit)."""
    return run_git(repo, "show", "-s", "--format=%P", commit).decode().split()


def first_parent(repo: Path, commit: str) -> str | None:
    """A commit's first parent (None for a root commit)."""
    found = parents(repo, commit)
    return found[0] if found else None


HUB_TOML = "data/hub.toml"


def hub_table(tree: GitTree) -> dict | None:
    """The ``[hub]`` table of ``data/hub.toml`` as stored in ``tree`` ({} without one; None when the file
    is there but not TOML)."""
    if not tree.entry(HUB_TOML):
        return {}
    try:
        hub = tomllib.loads(tree.read(HUB_TOML).decode("utf-8")).get("hub", {})
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, PrescientError):
        return None
    return hub if isinstance(hub, dict) else {}


def hub_own_prefix(tree: GitTree) -> str:
    """``[hub] own_prefix`` as stored in ``tree`` (the default when unset, or when it cannot be read or is no team prefix)."""
    own = (hub_table(tree) or {}).get("own_prefix", DEFAULT_OWN)
    return own if isinstance(own, str) and not own_prefix_problem(own) else DEFAULT_OWN


def hub_maintainers(tree: GitTree) -> tuple[str, ...]:
    """``[hub] maintainers`` as stored in ``tree`` (none when it cannot be read)."""
    listed = (hub_table(tree) or {}).get("maintainers", [])
    return tuple(m for m in listed if isinstance(m, str)) if isinstance(listed, list) else ()
