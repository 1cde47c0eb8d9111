"""The digested ledgers as they stood at an earlier night of the same commit.

A commit normally records one night, and that night's ``ledger_digest`` is the digest of the manifest,
receipts, seals and model-log files the commit holds (``audit.digests``). ``nightly --catch-up`` runs
several nights before anything is committed; committed as one commit, its earlier nights' digests
were taken of ledgers that no commit holds. They are not lost: each digested ledger is append-only,
kept in its canonical order, and every row names the run that recorded it (``recorded_at``, or the
seals' ``sealed_at``), so the file as it stood at a night ``N`` is exactly the rows recorded at or
before ``N``, in the order the commit holds them, and a file none of whose rows was recorded by then
did not exist yet (a ledger file is written with its first row). ``digest_at`` rebuilds those bytes
and hashes them as ``store.manifest.ledger_digest`` did that night; a night whose rebuilt digest
differs from the published one is still ``ledger-digest-differs``. The rebuild reads only what the
commit holds, so the earlier nights are proven by the same bytes a later rewrite would have to change.
"""

from __future__ import annotations

import csv
import io

from ..store.manifest import root_hash, sha256

TIME_COLUMNS = ("recorded_at", "sealed_at")  # the column naming the run that wrote a row: the first of these a header has


def digest_at(files: dict[str, bytes], night: str) -> str | None:
    """``ledger_digest`` of ``files`` (path → bytes, as one commit holds them) as they stood at ``night``
    (an ISO UTC time, compared as text as the ledgers write it); None when a file cannot be cut by time
    (no time column, or a record that does not parse): the night cannot be proven from this commit."""
    hashes = {}
    for path, data in files.items():
        cut = rows_until(data, night)
        if cut is None:
            return None
        if cut:
            hashes[path] = sha256(cut)
    return root_hash(hashes)


def rows_until(data: bytes, night: str) -> bytes | None:
    """The bytes of ``data`` (a ledger CSV) keeping its header and the records whose time is at or before
    ``night``, each record's bytes as they are; b"" when no record was (the file did not exist then), and
    ``data`` itself for a file of a header alone. None when it has no time column or does not parse."""
    lines = data.splitlines(keepends=True)
    if not lines:
        return data
    try:
        header = next(csv.reader([lines[0].decode("utf-8")]))
    except (UnicodeDecodeError, StopIteration, csv.Error):
        return None
    column = next((header.index(name) for name in TIME_COLUMNS if name in header), None)
    if column is None:
        return None
    if len(lines) == 1:
        return data
    kept, any_row, start = [lines[0]], False, 1
    while start < len(lines):
        record, end = _record(lines, start)
        if record is None:
            return None
        if column >= len(record):
            return None
        any_row = True
        if record[column] <= night:
            kept.extend(lines[start:end])
        start = end
    return b"".join(kept) if any_row and len(kept) > 1 else b""


def _record(lines: list[bytes], start: int) -> tuple[list[str] | None, int]:
    """The record beginning at ``lines[start]`` (a quoted cell may hold line ends) and the index after it."""
    end = start + 1
    while True:
        chunk = b"".join(lines[start:end])
        if chunk.count(b'"') % 2 == 0 or end >= len(lines):
            break
        end += 1
    try:
        rows = list(csv.reader(io.StringIO(chunk.decode("utf-8"), newline="")))
    except (UnicodeDecodeError, csv.Error):
        return None, end
    return (rows[0] if len(rows) == 1 else None), end
