"""A team's submission pushed with git, without a clone of the hub: a bare scratch repository holds
one shallow, blob-less fetch of the commit to build on (the fork's branch, or its default branch),
the submitted files are written on top of its tree through a scratch index, and the new commit is
pushed to the fork's branch.

The token authenticates git through the environment alone: ``http.<origin>/.extraheader`` set with
``GIT_CONFIG_COUNT``/``GIT_CONFIG_KEY_n``/``GIT_CONFIG_VALUE_n`` for the one command, as GitHub's own
workflows pass it; never on a command line (which ``ps`` shows), in a URL or in ``.git/config``. A
git error is reported with the token masked, should git ever echo it.
"""

from __future__ import annotations

import base64
import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from ..errors import PrescientError, Unreachable

BLOB_MODE = "100644"
REMOTE = ("ls-remote", "fetch", "push")  # the commands that reach the remote: their failure is an outage (exit 6)...
REFUSED = ("rejected", "non-fast-forward", "denied", "protected")  # ...unless the remote answered and refused


@dataclass(frozen=True)
class Identity:
    name: str
    email: str


def credentials_env(url: str, token: str, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment git runs with: ``base`` (default os.environ), no terminal prompt, and for an
    http(s) ``url`` the token as an ``Authorization`` header scoped to the URL's origin, added after
    any ``GIT_CONFIG_KEY_n`` the environment already sets."""
    env = dict(os.environ if base is None else base)
    env.update({"GIT_TERMINAL_PROMPT": "0", "GIT_NO_REPLACE_OBJECTS": "1"})
    parts = urlsplit(url)
    if parts.scheme in ("http", "https") and token:
        count = int(env.get("GIT_CONFIG_COUNT", "0") or "0")
        basic = base64.b64encode(f"x-access-token:{token}".encode()).decode("ascii")
        env[f"GIT_CONFIG_KEY_{count}"] = f"http.{parts.scheme}://{parts.netloc}/.extraheader"
        env[f"GIT_CONFIG_VALUE_{count}"] = f"AUTHORIZATION: basic {basic}"
        env["GIT_CONFIG_COUNT"] = str(count + 1)
    return env


class Scratch:
    """A bare scratch repository at ``path`` where one submission's commit is made."""

    def __init__(self, path: Path, token: str = ""):
        self.path, self.token = path, token
        self._git(os.environ, "init", "-q", "--bare", str(path), here=False)

    def _git(self, env: Mapping[str, str], *args: str, stdin: bytes | None = None, here: bool = True) -> str:
        command = ["git", *(("-C", str(self.path)) if here else ()), *args]
        try:
            done = subprocess.run(command, input=stdin, capture_output=True, check=False, env=dict(env))
        except OSError as exc:
            raise PrescientError(f"cannot run git: {exc}") from None
        if done.returncode != 0:
            lines = [line for line in done.stderr.decode("utf-8", "replace").strip().splitlines() if line.strip()]
            message = lines[-1] if lines else f"exit {done.returncode}"
            error = Unreachable if args[0] in REMOTE and not any(word in message for word in REFUSED) else PrescientError
            raise error(f"git {args[0]} failed: {self.masked(message)}")
        return done.stdout.decode("utf-8", "replace").strip()

    def masked(self, text: str) -> str:
        return text.replace(self.token, "***") if self.token else text

    def remote_head(self, url: str, branch: str) -> str | None:
        """The commit ``branch`` points at in the repository at ``url`` (None: no such branch)."""
        out = self._git(credentials_env(url, self.token), "ls-remote", "--heads", url, f"refs/heads/{branch}")
        return out.split()[0] if out else None

    def fetch(self, url: str, branch: str) -> str:
        """One shallow fetch of ``branch`` without its files' contents; the commit it points at."""
        ref = f"refs/prescient/{len(self._git(os.environ, 'for-each-ref').splitlines())}"
        self._git(credentials_env(url, self.token), "fetch", "-q", "--depth=1", "--filter=blob:none", "--no-tags", url, f"+refs/heads/{branch}:{ref}")
        return self._git(os.environ, "rev-parse", ref)

    def entry(self, commit: str, path: str) -> str | None:
        """The blob id at ``path`` in ``commit``'s tree (read from the trees alone), else None."""
        out = self._git(os.environ, "ls-tree", commit, "--", path)
        return out.split()[2] if out and out.split()[1] == "blob" else None

    def blob_id(self, data: bytes) -> str:
        return self._git(os.environ, "hash-object", "--stdin", stdin=data)

    def commit(self, parent: str, files: Mapping[str, bytes], message: str, who: Identity) -> str | None:
        """A commit on ``parent`` whose tree is the parent's with ``files`` (path -> bytes) written; None
        when the parent already holds exactly these bytes."""
        index = self.path / "prescient-index"
        env = {**os.environ, "GIT_INDEX_FILE": str(index)}
        self._git(env, "read-tree", parent)
        for path, data in sorted(files.items()):
            blob = self._git(os.environ, "hash-object", "-w", "--stdin", stdin=data)
            self._git(env, "update-index", "--add", "--cacheinfo", f"{BLOB_MODE},{blob},{path}")
        tree = self._git(env, "write-tree", "--missing-ok")  # the files not submitted are never fetched
        index.unlink(missing_ok=True)
        if tree == self._git(os.environ, "rev-parse", f"{parent}^{{tree}}"):
            return None
        people = {"GIT_AUTHOR_NAME": who.name, "GIT_AUTHOR_EMAIL": who.email, "GIT_COMMITTER_NAME": who.name, "GIT_COMMITTER_EMAIL": who.email}
        return self._git({**os.environ, **people}, "commit-tree", tree, "-p", parent, "-m", message)

    def push(self, url: str, commit: str, branch: str) -> None:
        """``commit`` to ``branch`` of ``url``: a new branch, or a fast-forward of it (never forced)."""
        self._git(credentials_env(url, self.token), "push", "-q", url, f"{commit}:refs/heads/{branch}")
