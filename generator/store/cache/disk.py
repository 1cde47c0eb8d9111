"""The cache that outlives a command: what a nightly parsed, checked and derived, kept for the next one.

A ``DiskCache`` lives in one folder outside the hub's checkout (``default_dir``:
``$PRESCIENT_CACHE_DIR/<hub>``, else ``$XDG_CACHE_HOME/prescient/<hub>``, else
``~/.cache/prescient/<hub>``, ``<hub>`` a digest of the hub's absolute path; ``prescient nightly
--cache-dir DIR`` names the folder itself). Not under ``data/`` and not in the repository: a pull
request can commit any path, and a folder it could fill would let it hand the nightly frames of its
own making. Every entry also names the hub it was made for and the code that made it (a digest
of the package's source files, ``code_digest``); another hub's or another version's is a miss. It holds
- ``digests.json``: per file, the sha256 of its bytes with the ``os.stat`` it had then (inode, size,
  mtime and ctime in ns); a file whose stat is unchanged is not read again to know its hash, any
  other is hashed anew (a fresh clone hashes every file once);
- ``frames/<key>.frame``: frames, each filed under a name and the sha256 of the file(s) it came from;
- ``state/<name>.json``: small JSON documents (the incremental derive's memo, the night's headline
  boards), each with the sha256 of its body.

Nothing in it is ever unpickled or executed: frames are a JSON header and raw little-endian arrays of
a few plain dtypes (float64, int64, int32, bool; text as UTF-8 with code-point offsets and integer
codes), ending in the sha256 of all the bytes before it, read with ``numpy.frombuffer`` after the checksum and every
length, offset, code and name was checked. Any
entry that is missing, stale (another hash), truncated, of another format version or malformed is a
miss: the caller takes the full path (parse, check, derive) as if there were no cache. A frame
restored equals the frame saved, dtypes and index included (``tests/store/test_diskcache.py``).

``prescient verify`` never uses it: it recomputes from the files alone.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import struct
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..atomic import write_bytes_atomic
from ..layout import Stat, stat_key

FORMAT = 1  # bumped whenever the layout of an entry changes: older entries are then misses
_MAGIC = b"PRESCIENT-FRAME\n"
_PLAIN = {"float64": "<f8", "int64": "<i8", "int32": "<i4", "bool": "|b1"}  # numeric dtypes kept as raw arrays
_TEXT = {"str", "object"}  # text columns: every value a str (``read_table``'s are StringDtype "str")


def default_dir(root: Path, env: dict[str, str] | None = None) -> Path:
    """Where the cache of the hub at ``root`` lives unless ``--cache-dir`` says otherwise."""
    env = dict(os.environ) if env is None else env
    if env.get("PRESCIENT_CACHE_DIR"):
        base = Path(env["PRESCIENT_CACHE_DIR"])
    else:
        base = (Path(env["XDG_CACHE_HOME"]) if env.get("XDG_CACHE_HOME") else Path.home() / ".cache") / "prescient"
    return base / hashlib.sha256(str(Path(root).resolve()).encode()).hexdigest()[:16]


@functools.cache
def code_digest() -> str:
    """The sha256 of the package's Python sources: a cache made by other code is not used."""
    package = Path(__file__).resolve().parents[2]
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _stat(path: Path) -> Stat:
    return stat_key(path.stat())


@dataclass
class DiskCache:
    folder: Path
    hub: str  # the hub's absolute path and the code's digest: entries made for another are misses
    digests: dict[str, tuple[tuple[int, int, int, int], str]] = field(default_factory=dict)
    dirty: bool = False
    unwritable: str | None = None  # why the cache could not be written this command (then it stops trying)

    @classmethod
    def open(cls, folder: Path, hub: Path) -> DiskCache:
        """The cache of the hub at ``hub`` in ``folder`` (created when first saved); an unreadable
        index is an empty one."""
        cache = cls(Path(folder), f"{Path(hub).resolve()} {code_digest()}")
        cache.digests = _load_digests(cache.folder / "digests.json")
        return cache

    def sha256(self, path: Path) -> str:
        """The sha256 of the file's bytes, read again only when its stat changed since it was hashed."""
        key, stat = os.path.abspath(path), _stat(path)
        known = self.digests.get(key)
        if known is not None and known[0] == stat:
            return known[1]
        data = path.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        if _stat(path) == stat and len(data) == stat[1]:  # not changed while being read
            self.digests[key] = (stat, digest)
            self.dirty = True
        return digest

    def fingerprint(self, path: Path) -> tuple[int, str]:
        """(size, sha256) of the file: the same in any process and any checkout of the same bytes."""
        return path.stat().st_size, self.sha256(path)

    # -- frames ----------------------------------------------------------------------------------

    def _frame_path(self, name: str) -> Path:
        return self.folder / "frames" / (hashlib.sha256(name.encode()).hexdigest() + ".frame")

    def load_frame(self, name: str, source: str) -> pd.DataFrame | None:
        """The frame saved under ``name`` from the bytes whose digest is ``source``; None on any miss."""
        try:
            data = self._frame_path(name).read_bytes()
        except OSError:
            return None
        return decode_frame(data, self.entry_name(name), source)

    def save_frame(self, name: str, source: str, frame: pd.DataFrame) -> bool:
        """Keep ``frame`` under ``name`` for the bytes ``source``; False (nothing kept) when a column
        is of a type the format does not hold."""
        data = encode_frame(frame, self.entry_name(name), source)
        if data is None:
            return False
        return self.save_entry(name, data)

    def entry_name(self, name: str) -> str:
        """The name an entry filed under ``name`` carries (``encode_columns``): this hub's and code's."""
        return f"{self.hub} {name}"

    def save_entry(self, name: str, data: bytes) -> bool:
        """Keep an entry made elsewhere (``encode_columns`` with ``entry_name(name)``) under ``name``.
        Safe from several threads at once: each entry is its own file."""
        return self._write(self._frame_path(name), data)

    def know(self, path: Path, digest: str) -> None:
        """Record that the file at ``path``, as it is now, holds the bytes whose sha256 is ``digest``
        (the caller has just written them), so ``sha256`` does not read it back."""
        self.digests[os.path.abspath(path)] = (_stat(path), digest)
        self.dirty = True

    # -- small documents -------------------------------------------------------------------------

    def load_json(self, name: str) -> object | None:
        try:
            doc = json.loads((self.folder / "state" / f"{name}.json").read_bytes())
        except (OSError, ValueError, RecursionError):
            return None
        if (
            not isinstance(doc, dict)
            or doc.get("format") != FORMAT
            or doc.get("hub") != self.hub
            or doc.get("sha256") != _body_digest(doc.get("body"))
        ):
            return None  # another hub's or version's, or edited since written
        return doc.get("body")

    def save_json(self, name: str, body: object) -> None:
        doc = {"format": FORMAT, "hub": self.hub, "body": body, "sha256": _body_digest(body)}
        self._write(self.folder / "state" / f"{name}.json", json.dumps(doc, sort_keys=True).encode())

    def flush(self) -> None:
        """Write the file digests learnt this command (the frames and documents are written at once)."""
        if not self.dirty:
            return
        rows = {k: [list(stat), digest] for k, (stat, digest) in sorted(self.digests.items())}
        self._write(self.folder / "digests.json", json.dumps({"format": FORMAT, "files": rows}).encode())
        self.dirty = False

    # -- what a forked process learns (``parallel.forked_map``) ----------------------------------

    def mark(self) -> dict:
        """The file digests known now, for ``since`` in a forked process once its work is done."""
        return dict(self.digests)

    def since(self, mark: dict) -> tuple[dict, str | None]:
        """What this process learnt since ``mark``: the digests new or changed, and why the cache
        could not be written (if it could not), for ``absorb`` in the process it was forked from."""
        return {k: v for k, v in self.digests.items() if mark.get(k) != v}, self.unwritable

    def absorb(self, learnt: tuple[dict, str | None]) -> None:
        """Take what a forked process learnt (``since``) as if learnt here."""
        digests, unwritable = learnt
        if digests:
            self.digests.update(digests)
            self.dirty = True
        if unwritable and self.unwritable is None:
            self.unwritable = unwritable

    def _write(self, path: Path, data: bytes) -> bool:
        """Replace ``path`` with ``data``; False when it cannot be written. A cache that cannot be
        written (a full or read-only disk, a file-size limit) never fails the command: what is not
        kept is a miss next time, and after the first failure the command stops trying."""
        if self.unwritable is not None:
            return False
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_bytes_atomic(path, data, durable=False, hub_file=False)
        except OSError as exc:
            self.unwritable = f"{path}: {exc.strerror or exc}"
            return False
        return True


def _body_digest(body: object) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def _load_digests(path: Path) -> dict[str, tuple[tuple[int, int, int, int], str]]:
    try:
        doc = json.loads(path.read_bytes())
        files = doc["files"] if isinstance(doc, dict) and doc.get("format") == FORMAT else {}
        out = {}
        for key, (stat, digest) in files.items():
            stat = tuple(stat)
            if len(stat) == 4 and all(type(v) is int for v in stat) and isinstance(digest, str) and len(digest) == 64:
                out[str(key)] = (stat, digest)
        return out
    except (OSError, ValueError, TypeError, KeyError, AttributeError, RecursionError):
        return {}


# -- the frame format -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Column:
    """One column of an entry as ``encode_columns`` writes it: its name, dtype and buffers (a plain
    column's one array; a text column's UTF-8 text, code-point lengths and int64 codes)."""

    name: str
    dtype: str
    parts: tuple[bytes, ...]
    uniques: int | None = None  # a text column's number of distinct values


def plain_column(name: str, dtype: str, values: np.ndarray) -> Column:
    """A column of a plain dtype (``_PLAIN``) holding ``values``."""
    return Column(name, dtype, (np.ascontiguousarray(values, dtype=_PLAIN[dtype]).tobytes(),))


def text_column(name: str, dtype: str, uniques: Sequence[str], codes: np.ndarray) -> Column | None:
    """A text column whose row i holds ``uniques[codes[i]]`` (every unique a str, every code in
    range: the caller's to ensure); None when a unique has no UTF-8 form (a lone surrogate)."""
    try:
        text = "".join(uniques).encode("utf-8")
    except UnicodeEncodeError:
        return None
    lengths = np.fromiter(map(len, uniques), dtype="<i8", count=len(uniques))
    return Column(name, dtype, (text, lengths.tobytes(), np.asarray(codes).astype("<i8").tobytes()), len(uniques))


def encode_columns(name: str, source: str, rows: int, columns: Sequence[Column]) -> bytes:
    """The bytes of an entry for ``name`` made from the bytes whose digest is ``source``: a frame of
    ``rows`` rows and these columns, in order (``decode_frame`` reads it back)."""
    header = json.dumps(
        {
            "format": FORMAT,
            "name": name,
            "source": source,
            "rows": rows,
            "columns": [
                {"name": c.name, "dtype": c.dtype, "parts": [len(p) for p in c.parts], **({} if c.uniques is None else {"uniques": c.uniques})}
                for c in columns
            ],
        }
    ).encode()
    data = b"".join([_MAGIC, struct.pack("<Q", len(header)), header, *(p for c in columns for p in c.parts)])
    return data + hashlib.sha256(data).digest()


def encode_frame(frame: pd.DataFrame, name: str, source: str) -> bytes | None:
    """The bytes of ``frame`` (``encode_columns``). None when a column is neither of a plain dtype
    nor all text, or the index is not the default one."""
    if (
        not isinstance(frame.index, pd.RangeIndex)
        or frame.index.start != 0
        or frame.index.step != 1
        or not all(isinstance(c, str) for c in frame.columns)
        or frame.columns.has_duplicates
    ):
        return None
    columns: list[Column] = []
    for column in frame.columns:
        values, dtype = frame[column], str(frame[column].dtype)
        if dtype in _PLAIN:
            columns.append(plain_column(column, dtype, values.to_numpy()))
        elif dtype in _TEXT:
            codes, uniques = pd.factorize(values.to_numpy(dtype=object), use_na_sentinel=True)
            if len(codes) and codes.min() < 0 or not all(type(u) is str for u in uniques):
                return None  # a missing value or a non-text value: not kept
            text = text_column(column, dtype, list(uniques), codes)
            if text is None:
                return None
            columns.append(text)
        else:
            return None
    return encode_columns(name, source, len(frame), columns)


def decode_frame(data: bytes, name: str, source: str) -> pd.DataFrame | None:
    """The frame ``encode_frame`` made, or None when the bytes are not one for (``name``, ``source``)."""
    try:
        return _decode(memoryview(data), name, source)
    except (ValueError, TypeError, KeyError, IndexError, OverflowError, struct.error, UnicodeDecodeError, MemoryError, RecursionError):
        return None


def _decode(data: memoryview, name: str, source: str) -> pd.DataFrame | None:
    if bytes(data[: len(_MAGIC)]) != _MAGIC or len(data) < len(_MAGIC) + 8 + 32 or hashlib.sha256(data[:-32]).digest() != bytes(data[-32:]):
        return None  # not an entry, or its bytes damaged since written
    data = data[:-32]
    (size,) = struct.unpack_from("<Q", data, len(_MAGIC))
    at = len(_MAGIC) + 8
    if size > len(data) - at:
        return None
    header = json.loads(bytes(data[at : at + size]))
    at += size
    if not isinstance(header, dict) or header.get("format") != FORMAT or header.get("name") != name or header.get("source") != source:
        return None  # another file's entry, or one made from other bytes (stale)
    rows, columns = header["rows"], header["columns"]
    if type(rows) is not int or rows < 0 or not isinstance(columns, list):
        return None
    out: dict[str, object] = {}
    for column in columns:
        col_name, dtype, parts = column["name"], column["dtype"], column["parts"]
        if not isinstance(col_name, str) or col_name in out or not isinstance(parts, list) or not all(type(p) is int and p >= 0 for p in parts):
            return None
        if sum(parts) > len(data) - at:
            return None
        chunks = []
        for part in parts:
            chunks.append(data[at : at + part])
            at += part
        if dtype in _PLAIN and len(parts) == 1:
            width = np.dtype(_PLAIN[dtype]).itemsize
            if parts[0] != rows * width:
                return None
            array = np.frombuffer(chunks[0], dtype=_PLAIN[dtype]).astype(dtype)  # a native, writable copy
            if dtype == "bool" and not np.isin(np.frombuffer(chunks[0], dtype="u1"), (0, 1)).all():
                return None
            out[col_name] = pd.Series(array, index=pd.RangeIndex(rows), copy=False)
        elif dtype in _TEXT and len(parts) == 3:
            out[col_name] = _text_column(chunks, rows, column["uniques"], dtype)
            if out[col_name] is None:
                return None
        else:
            return None
    if at != len(data):
        return None
    return pd.DataFrame(out, index=pd.RangeIndex(rows), columns=list(out), copy=False)


def _text_column(chunks: list[memoryview], rows: int, count: object, dtype: str):
    text_bytes, length_bytes, code_bytes = chunks
    if type(count) is not int or count < 0 or len(length_bytes) != 8 * count or len(code_bytes) != 8 * rows:
        return None
    lengths = np.frombuffer(length_bytes, dtype="<i8")
    codes = np.frombuffer(code_bytes, dtype="<i8")
    text = str(text_bytes, "utf-8")
    if (lengths < 0).any() or int(lengths.sum()) != len(text) or rows and (codes.min() < 0 or codes.max() >= count):
        return None
    ends = np.cumsum(lengths).tolist()
    starts = [0, *ends[:-1]] if ends else []
    uniques = np.array([text[a:b] for a, b in zip(starts, ends, strict=True)] + [""], dtype=object)[:-1]  # 1-d even when empty
    values = uniques[codes] if rows else np.array([], dtype=object)
    return pd.Series(values, dtype="str" if dtype == "str" else object, index=pd.RangeIndex(rows))
