"""What one command has read, written and derived, so that it does none of it twice (``ReadCache``).

The cache wraps the plain reader and writer rather than living inside them: ``csvio.read_table``
and ``csvio.write_table`` know nothing of it, and ``ReadCache.read_table`` / ``write_table`` call
them only when the file changed since (or was never) read or written by this command. A file is
known by its signature (inode, mtime, size): every write replaces a file atomically (a new inode)
or appends to it (a new size), so a kept frame is never stale.

Values derived from files (the fetch's state of the ledgers, the nightly's memo, the night's
boards...) sit in typed slots: a ``Slot[T]`` is declared once, by the module that keeps the value,
and the cache gives back a ``T`` (``kept``: the value while what it was made from is unchanged;
``state``: one mutable value per command). Nothing is cached process-wide: the command's ``Hub``
owns its one ``ReadCache`` (``store.hub``). With ``disk`` (``cache.disk.DiskCache``, the nightly's,
the build's and the import's), the ledgers' checked frames are also kept between commands, by the
sha256 of the files' bytes; without it nothing outlives the command.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, TypeVar, cast

import pandas as pd

from ...models import ModelMeta
from ...schemas import FORECASTS, Table
from .. import csvio
from ..fast_forecasts import ProbabilityTexts, read_together
from ..files import load_model
from .disk import DiskCache

T = TypeVar("T")


@dataclass(frozen=True)
class Slot(Generic[T]):
    """A place in a command's cache for one kind of value, declared once by the module that keeps
    it. ``make(cache)``: the value a command starts with (``ReadCache.state``). ``of(item)``: the
    slot of one item of a family (a round's key, a ledger's last row...)."""

    name: str
    make: Callable[[ReadCache], T] | None = field(default=None, compare=False)

    def of(self, item: Hashable) -> Slot[T]:
        return Slot(f"{self.name} {item}", self.make)


def file_signature(path: Path) -> tuple:
    """(inode, mtime, size): changed by every write of the file (a replacement or an append)."""
    stat = path.stat()
    return stat.st_ino, stat.st_mtime_ns, stat.st_size


def signatures(paths: Sequence[Path]) -> tuple:
    """A key for "these files, as they are now": a write to any of them, or a file more or less, changes it."""
    return tuple((str(p), file_signature(p)) for p in paths)


# A map over forked processes (``parallel.forked_map`` bound to its processes and carry): the results in
# order, or None when the caller is to do the work itself.
Share = Callable[[Callable[[int], tuple[tuple, pd.DataFrame]], list[int]], "list[tuple[tuple, pd.DataFrame]] | None"]


@dataclass
class ReadCache:
    disk: DiskCache | None = None  # the cache kept between commands, if any (``cache.disk``)
    tables: dict[tuple, tuple[tuple, pd.DataFrame]] = field(default_factory=dict)  # parsed files by (path, table, label)
    written: dict[str, tuple[str | None, tuple]] = field(default_factory=dict)  # frames written, by path
    probabilities: ProbabilityTexts = field(default_factory=dict)  # forecast files' probability texts (``fast_forecasts``)
    models: dict[str, tuple[tuple, ModelMeta]] = field(default_factory=dict)  # model files' metadata, by path
    hashes: dict[str, tuple[tuple, str]] = field(default_factory=dict)  # sha256 by file signature, without ``disk``
    _kept: dict[Slot, tuple[object, object]] = field(default_factory=dict)  # slot -> (what it was made from, value)
    _state: dict[Slot, object] = field(default_factory=dict)

    # -- files -----------------------------------------------------------------------------------

    def read_table(self, path: Path, table: Table, label: str | None = None) -> pd.DataFrame:
        """``csvio.read_table(path, table, label)``, parsed once per command while the file is
        unchanged (and, with a disk cache, once while its bytes are); a copy each time."""
        key, signature = (str(path), table.name, label), file_signature(path)
        cached = self.tables.get(key)
        if cached is None or cached[0] != signature:
            frame = self.disk_frame(path, table, label)
            if frame is None:
                frame = csvio.read_table(path, table, label)
                self._to_disk(path, table, label, frame)
            self.tables[key] = (signature, frame)
        return self.tables[key][1].copy()

    def read_tables(self, paths: Sequence[Path], table: Table, labels: Sequence[str | None], share: Share | None = None) -> list[pd.DataFrame]:
        """``[read_table(p, table, label) for p, label in zip(paths, labels)]``, the files this command has
        not parsed as they are now first handed to ``share`` (``parallel.forked_map`` over forked processes,
        which the store cannot import): each is parsed there as ``read_table`` parses it, and comes back with
        the signature it was read under. When ``share`` does not (None), each is parsed here."""
        keys, todo = self._unparsed(paths, table, labels)
        shared = share(lambda i: self._parsed(paths[i], table, labels[i]), todo) if share is not None and len(todo) > 1 else None
        for i, kept in zip(todo, shared, strict=True) if shared is not None else ():
            self.tables[keys[i]] = kept
        return [self.read_table(path, table, label) for path, label in zip(paths, labels, strict=True)]

    def read_forecasts_together(self, paths: Sequence[Path], labels: Sequence[str]) -> None:
        """Keep, as what ``read_table(path, FORECASTS, label)`` returns, the frames of the forecast files this
        command has not parsed as they are now that ``fast_forecasts.read_together`` parses as one; any other
        file is parsed by ``read_table`` when asked for. Not with a disk cache, which a file's own
        read consults first."""
        keys, todo = self._unparsed(paths, FORECASTS, labels)
        if self.disk is not None or len(todo) < 2:
            return
        read = [(file_signature(paths[i]), paths[i].read_bytes()) for i in todo]  # a file changed meanwhile: read again when asked
        for i, (signature, _), frame in zip(todo, read, read_together([data for _, data in read], [labels[i] for i in todo]), strict=True):
            if frame is not None:
                self.tables[keys[i]] = (signature, frame)

    def _unparsed(self, paths: Sequence[Path], table: Table, labels: Sequence[str | None]) -> tuple[list[tuple], list[int]]:
        """The files' keys in ``tables``, and the positions of those this command has not parsed as they are now."""
        keys = [(str(p), table.name, label) for p, label in zip(paths, labels, strict=True)]
        todo = [
            i for i, (path, key) in enumerate(zip(paths, keys, strict=True)) if key not in self.tables or self.tables[key][0] != file_signature(path)
        ]
        return keys, todo

    def _parsed(self, path: Path, table: Table, label: str | None) -> tuple[tuple, pd.DataFrame]:
        """What ``read_table`` keeps of the file: its signature when read, and the frame."""
        self.read_table(path, table, label)
        return self.tables[(str(path), table.name, label)]

    def write_table(self, path: Path, frame: pd.DataFrame, table: Table, label: str | None = None) -> bool:
        """``csvio.write_table``; skipped when this command last wrote the very same frame to the file
        and the file is untouched since (writing again could not change a byte). The frame's digest is
        taken from the command's second write of a file on (a file written once is never hashed)."""
        known = self.written.get(str(path))
        digest = frame_digest(frame, table) if known is not None else None
        if known is not None and digest is not None and path.is_file() and known == (digest, file_signature(path)):
            return False
        changed = csvio.write_table(path, frame, table, label)
        self.written[str(path)] = (digest, file_signature(path))
        return changed

    def remember(self, path: Path, table: Table, label: str | None, frame: pd.DataFrame) -> None:
        """Keep ``frame`` as what ``read_table(path, table, label)`` returns for the file's current
        bytes (the caller has just written them); any later change of the file makes it read again.
        ``frame`` must be exactly the frame ``csvio.read_table`` would return (checked and typed)."""
        self.tables[(str(path), table.name, label)] = (file_signature(path), frame)
        self._to_disk(path, table, label, frame)

    def read_model(self, path: Path, label: str) -> ModelMeta:
        """A model file's metadata, parsed once per command while the file is unchanged
        (``ModelMeta`` is frozen, so the one object can be shared)."""
        signature, cached = file_signature(path), self.models.get(str(path))
        if cached is None or cached[0] != signature:
            cached = self.models[str(path)] = (signature, load_model(path, label))
        return cached[1]

    def fingerprint(self, path: Path) -> tuple:
        """What identifies the file's bytes: (size, sha256) with a disk cache (the same in any process
        and checkout), else its signature (inode, mtime, size: this process only)."""
        return self.disk.fingerprint(path) if self.disk is not None else file_signature(path)

    def sha256(self, path: Path) -> str:
        """The sha256 of the file's bytes, read only when its stat changed (as ``read_table`` trusts
        a file whose signature is unchanged; kept between commands with a disk cache)."""
        if self.disk is not None:
            return self.disk.sha256(path)
        signature, known = file_signature(path), self.hashes.get(str(path))
        if known is None or known[0] != signature:
            known = self.hashes[str(path)] = (signature, hashlib.sha256(path.read_bytes()).hexdigest())
        return known[1]

    # -- values derived from files ---------------------------------------------------------------

    def kept(self, slot: Slot[T], key: object, make: Callable[[], T]) -> T:
        """The value kept in ``slot`` while ``key``, what it is made from (``signatures`` of files, or
        their stats), equals the key it was kept with; else ``make()``, kept so."""
        entry = self._kept.get(slot)
        if entry is not None and entry[0] == key:
            return cast(T, entry[1])
        value = make()
        self._kept[slot] = (key, value)
        return value

    def kept_entry(self, slot: Slot[T]) -> tuple[object, T] | None:
        """What ``slot`` keeps, as (what it was made from, the value); None when it keeps nothing."""
        entry = self._kept.get(slot)
        return None if entry is None else (entry[0], cast(T, entry[1]))

    def keep(self, slot: Slot[T], key: object, value: T) -> None:
        """Keep ``value`` in ``slot`` as made from ``key`` (the caller has just written the files)."""
        self._kept[slot] = (key, value)

    def state(self, slot: Slot[T]) -> T:
        """The command's value in ``slot``: ``slot.make(self)`` on the first ask, then that value
        (or the last one ``put`` there)."""
        if slot not in self._state:
            if slot.make is None:
                raise KeyError(f"{slot.name}: a slot without make() is read with kept()")
            self._state[slot] = slot.make(self)
        return cast(T, self._state[slot])

    def put(self, slot: Slot[T], value: T) -> None:
        self._state[slot] = value

    # -- the disk cache --------------------------------------------------------------------------

    def close(self) -> None:
        """Write what the command learnt for the next one (the disk cache's file digests)."""
        if self.disk is not None:
            self.disk.flush()

    @property
    def unkept(self) -> str | None:
        """Why the disk cache could not be written this command (the next one then reads the files), or None."""
        return None if self.disk is None else self.disk.unwritable

    def disk_frame(self, path: Path, table: Table, label: str | None) -> pd.DataFrame | None:
        """The checked frame of the file's current bytes kept by an earlier command, if any and valid."""
        if self.disk is None:
            return None
        frame = self.disk.load_frame(table_entry(path, table, label), self.disk.sha256(path))
        return frame if frame is not None and _typed_as(frame, table) else None

    def _to_disk(self, path: Path, table: Table, label: str | None, frame: pd.DataFrame) -> None:
        if self.disk is not None:
            self.disk.save_frame(table_entry(path, table, label), self.disk.sha256(path), frame)


def table_entry(path: Path, table: Table, label: str | None) -> str:
    """The name under which the disk cache files the checked frame of the file at ``path``
    (``DiskCache.entry_name`` of it names an entry made elsewhere: the import's workers make them)."""
    return f"table {table.name} {label} {os.path.abspath(path)}"


def _typed_as(frame: pd.DataFrame, table: Table) -> bool:
    """Whether ``frame`` has the columns and dtypes ``coerce`` gives ``table`` (a kept frame must)."""
    return list(frame.columns) == list(table.names) and [str(t) for t in frame.dtypes] == csvio.table_dtypes(table)


def frame_digest(frame: pd.DataFrame, table: Table) -> str | None:
    """A digest of the frame's values, or None when it holds a lone surrogate (no UTF-8 form)."""
    present = [c for c in table.names if c in frame.columns]
    try:
        rows = pd.util.hash_pandas_object(frame[present], index=False).to_numpy()
    except UnicodeEncodeError:
        return None
    return hashlib.sha256(rows.tobytes() + ",".join(present).encode()).hexdigest()
