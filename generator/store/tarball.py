"""ForecastBench's bundles (``forecast_sets.tar.gz``, ``processed_forecast_sets.tar.gz``) read as
published: every member is checked before a byte of it is written, then the regular files are
unpacked into a private temporary folder that is removed afterwards (``unpacked``).

A member is refused (``SchemaError``, nothing unpacked, each problem with the bundle's name, the
member's position as its row and its name in the message) when its name is absolute, has a ``..``
part, a backslash or a control character, when it is a link, a device or anything but a file or a
folder (``unsafe-member``), or when its size, or the bundle's total, is over the cap
(``member-too-large``): a header's size is read before its data, so a member that claims 10 GB is
refused at once. A file that is not a gzip-compressed tar is ``bad-archive``.
"""

from __future__ import annotations

import contextlib
import tarfile
import tempfile
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from ..codes import reported
from ..errors import Problem, SchemaError

MAX_MEMBER = 2 * 2**30  # bytes: one forecast set is a few MB; ForecastBench's largest files are far below this
MAX_TOTAL = 16 * 2**30  # bytes unpacked from one bundle
MAX_MEMBERS = 500_000
SUFFIXES = (".tar.gz", ".tgz")
_CHUNK = 2**20


def is_bundle(path: Path | None) -> bool:
    return path is not None and path.is_file() and path.name.lower().endswith(SUFFIXES)


@contextlib.contextmanager
def unpacked(path: Path | None, max_member: int = MAX_MEMBER, max_total: int = MAX_TOTAL) -> Iterator[Path | None]:
    """``path`` itself when it is a folder (or None); a bundle's checked files in a temporary folder
    while the block runs. SchemaError (nothing unpacked) on any refused member."""
    if not is_bundle(path):
        yield path
        return
    assert path is not None
    with tempfile.TemporaryDirectory(prefix="prescient-bundle-") as tmp:
        _unpack(path, Path(tmp), max_member, max_total)
        yield Path(tmp)


def _unpack(path: Path, dest: Path, max_member: int, max_total: int) -> None:
    label = path.name
    try:
        with tarfile.open(path, "r:gz") as archive:
            members = _checked(archive, label, max_member, max_total)
            for member in members:
                _write(archive, member, dest / PurePosixPath(member.name), max_member)
    except (tarfile.TarError, EOFError, OSError) as exc:  # the temporary folder goes with the block
        problem = reported("bad-archive", label, None, None, f"not a readable gzip-compressed tar: {exc}")
        raise SchemaError(f"ForecastBench bundle rejected: {problem}", [problem]) from None


def _checked(archive: tarfile.TarFile, label: str, max_member: int, max_total: int) -> list[tarfile.TarInfo]:
    """Every member, each checked as its header is read (so a refused one stops the reading)."""
    members, total = [], 0
    for row, member in enumerate(archive, start=1):
        problem = _member_problem(member, label, row, max_member)
        total += member.size if member.isfile() else 0
        if problem is None and total > max_total:
            problem = reported(
                "member-too-large", label, row, None, f"the bundle's files add up to more than {max_total:,} bytes by member {member.name!r}"
            )
        if problem is None and row > MAX_MEMBERS:
            problem = reported("member-too-large", label, row, None, f"more than {MAX_MEMBERS:,} members")
        if problem is not None:
            raise SchemaError(f"ForecastBench bundle rejected, nothing unpacked: {problem}", [problem])
        if member.isfile():
            members.append(member)
    return members


def _member_problem(member: tarfile.TarInfo, label: str, row: int, max_member: int) -> Problem | None:
    name = member.name
    parts = PurePosixPath(name).parts
    if not name or name.startswith("/") or "\\" in name or ".." in parts or any(ord(c) < 32 or c == "\x7f" for c in name):
        return reported("unsafe-member", label, row, None, f"member {name!r}: an absolute path, a `..` part, a backslash or a control character")
    if not (member.isfile() or member.isdir()):
        return reported("unsafe-member", label, row, None, f"member {name!r} is a link, a device or a pipe, not a file")
    if member.size > max_member:
        return reported("member-too-large", label, row, None, f"member {name!r} claims {member.size:,} bytes; the cap is {max_member:,}")
    return None


def _write(archive: tarfile.TarFile, member: tarfile.TarInfo, target: Path, max_member: int) -> None:
    """The member's bytes to ``target`` (inside the temporary folder: its name was checked), no more
    than its header said."""
    source = archive.extractfile(member)
    if source is None:
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    with source, open(target, "xb") as out:
        while chunk := source.read(_CHUNK):
            written += len(chunk)
            if written > max_member:
                raise OSError(f"member {member.name!r} is longer than its header says")
            out.write(chunk)
