"""Each night's ``ledger_digest`` in history.csv against the ledgers of the commit that recorded it.

The digest is ``store.manifest.ledger_digest`` of the manifest and receipts files (``DIGESTED``); the
walk (``digest_problems``) recomputes it in the first-parent commit that added each night's row, so a
later rewrite of those ledgers (or of the digest) shows, and against every copy of the digest
published before it. A commit carrying several nights (``nightly --catch-up`` committed at once) proves
each earlier one by the ledgers' rows recorded by then (``night_state.digest_at``). Each version of
history.csv that is the last one followed by more records is parsed only past it (``_NewNights``),
and each digested blob is hashed once a walk (``tree_digest``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..errors import Problem
from ..schemas import HISTORY
from ..store import git
from ..store.manifest import root_hash, sha256
from .changes import FileChange
from .ledgers import appended, records
from .night_state import digest_at

HISTORY_PATH = HISTORY.path
DIGESTED = ("data/manifest/", "data/receipts/", "data/seals/", "data/metadata/models.csv")


def digest_problems(repo: Path, changes: list[FileChange], read, checked: frozenset[str] = frozenset(), plain: bool = False) -> list[Problem]:
    """Each night's ``ledger_digest`` in history.csv equals the digest of the manifest and receipts
    files in the first-parent commit that recorded that night: a later rewrite of those ledgers (or
    of the digest) shows here, and against every copy of the digest published before it. ``checked``:
    the nights already checked (a checkpointed walk's: those of history.csv in its start commit).
    ``plain``: parse every version of history.csv whole (``_digests``), the method that ``_NewNights``,
    used otherwise, gives the same problems as in time linear in what each version appended."""
    walk = DigestWalk(repo, read, checked, plain)
    return [problem for c in changes for problem in walk(c)]


class DigestWalk:
    """``digest_problems`` one change at a time, in the order of the history: ``audit.git.audit_history``
    calls it beside the ledger check of each change. ``version(path, blob)`` gives a version of
    history.csv (by default ``read(blob)``): the walk passes the ledger check's cache, so each version
    is read from git once for both checks."""

    def __init__(
        self, repo: Path, read, checked: frozenset[str] = frozenset(), plain: bool = False, version: Callable[[str, str], bytes | None] | None = None
    ):
        self.repo, self.read, self.plain = repo, read, plain
        self.version = version or (lambda path, blob: read(blob))
        self.seen = set(checked)
        self.nights_of: Callable[[bytes], dict[str, str]] = _digests if plain else _NewNights()
        self.hashes: dict[str, str] = {}

    def __call__(self, c: FileChange) -> list[Problem]:
        data = self.version(c.path, c.new_blob) if c.path == HISTORY_PATH and c.status in "AM" else None
        nights = self.nights_of(data) if data is not None else {}
        fresh = {night: digest for night, digest in nights.items() if night not in self.seen}
        if not fresh:
            return []
        self.seen.update(fresh)
        actual = tree_digest(self.repo, c.commit, self.read, None if self.plain else self.hashes)
        wrong = {night: digest for night, digest in fresh.items() if digest != actual}
        last = max(fresh)
        earlier = [night for night in wrong if night < last]  # a commit carrying several nights (a catch-up)
        if earlier:
            at = rebuilt_digests(self.repo, c.commit, self.read, earlier)
            wrong = {night: digest for night, digest in wrong.items() if night == last or at[night] != digest}
        return [
            Problem(
                HISTORY_PATH,
                None,
                "ledger_digest",
                "ledger-digest-differs",
                f"the night {night} published {digest[:16]}…, but the manifest and receipts files of {c.where} hash to {actual[:16]}…"
                + ("" if night == last else " (and their rows recorded by that night to another digest)"),
            )
            for night, digest in sorted(wrong.items())
        ]


def rebuilt_digests(repo: Path, commit: str, read, nights: list[str]) -> dict[str, str | None]:
    """Each of ``nights``' digest of the digested ledgers as ``commit`` holds them, cut to the rows recorded
    by that night (``night_state.digest_at``; None where they cannot be cut)."""
    files = {path: read(blob) or b"" for path, blob in git.tree_blobs(repo, commit, DIGESTED).items()}
    return {night: digest_at(files, night) for night in nights}


def digested_nights_at(repo: Path, commit: str) -> frozenset[str]:
    """The nights whose digests history.csv holds in ``commit``: those a walk up to it has checked."""
    tree = git.GitTree(repo, commit)
    return frozenset(_digests(tree.read(HISTORY_PATH))) if tree.entry(HISTORY_PATH) else frozenset()


def _digests(data: bytes) -> dict[str, str]:
    """as_of → ledger_digest of the nights of a history.csv version that have one."""
    try:
        columns, rows = records(data)
    except ValueError:
        return {}
    return _night_digests(columns, rows)


def _night_digests(columns: tuple[str, ...], rows: list[tuple[str, ...]]) -> dict[str, str]:
    if "ledger_digest" not in columns or "as_of" not in columns:
        return {}
    when, digest = columns.index("as_of"), columns.index("ledger_digest")
    return {row[when]: row[digest] for row in rows if row[digest]}


class _NewNights:
    """``_digests`` of the successive versions of history.csv a walk meets, for ``digest_problems``: a
    version that is the last one followed by more records (``appended``) is parsed only past it (its
    header line, then the bytes after), and gives the digests of the nights of those records. They are
    the digests ``_digests`` finds in the whole version for every night the caller has not seen yet: the
    nights of the rows before are the last version's, which the caller saw, and a night's later row
    replaces an earlier one either way. Any other version is parsed whole, as are the appended records
    when they do not parse under the same header (the whole version's parse then says what they are)."""

    def __init__(self) -> None:
        self.data, self.header = b"", b""
        self.columns: tuple[str, ...] = ()

    def __call__(self, data: bytes) -> dict[str, str]:
        if self.columns and appended(self.data, data):
            try:
                columns, rows = records(self.header + data[len(self.data) :])
            except ValueError:
                columns = ()
            if columns == self.columns:
                self.data = data
                return _night_digests(columns, rows)
        try:
            columns, rows = records(data)
        except ValueError:
            columns, rows = (), []
        line = data.partition(b"\n")[0] + b"\n"  # the header, when it is one line as the parser reads it
        self.data, self.header = data, line
        self.columns = columns if line.strip() and b'"' not in line and b"\r" not in line else ()
        return _night_digests(columns, rows)


def tree_digest(repo: Path, commit: str, read, hashes: dict[str, str] | None = None) -> str:
    """``store.manifest.ledger_digest`` of the manifest and receipts files as stored in ``commit``;
    ``hashes``: blob id → sha256 of the blobs hashed before (a walk reads each version once)."""
    blobs = git.tree_blobs(repo, commit, DIGESTED)
    if hashes is None:
        return root_hash({path: sha256(read(blob) or b"") for path, blob in blobs.items()})
    for blob in blobs.values():
        if blob not in hashes:
            hashes[blob] = sha256(read(blob) or b"")
    return root_hash({path: hashes[blob] for path, blob in blobs.items()})
