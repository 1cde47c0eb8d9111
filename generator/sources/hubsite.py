"""A hub's published site, read as a team reads it: the open rounds and their question sets from the
static API (``/api/rounds.json``), each file checked against the sha256 the API publishes for it.

- ``fetch_open_rounds``: ``rounds.json``, then every file of every open round (``files``: its path
  under ``/api/``, its sha256 and size), through ``Http``; a file whose bytes do not hash to the
  published sha256 stops the fetch (``fetch-digest-mismatch``), so nothing unchecked is ever written;
- ``parse_rounds``: the open rounds of ``rounds.json`` (pure).

The site is the one the hub builds (``site.api``): the files of an open round are its question set
as committed in the hub's repository, byte for byte, so their sha256 is the repository file's too.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

from ..codes import reported
from ..errors import SourceError
from ._util import ParseError
from .http import Http, get_bytes

API = "api/"
_DUE = re.compile(r"\d{4}-\d{2}-\d{2}")
_NAME = re.compile(r"[a-z][a-z_]*\.(csv|json)")  # a round's files (questions.csv, questions.json, question_sets.csv): plain names, no path
_SHA256 = re.compile(r"[0-9a-f]{64}")
MAX_FILE_BYTES = 64 * 2**20  # a question set far larger than ForecastBench's is refused before it is read


@dataclass(frozen=True)
class PublishedFile:
    name: str  # questions.csv, questions.json, question_sets.csv
    path: str  # under /api/
    sha256: str
    size: int


@dataclass(frozen=True)
class OpenRound:
    due: str  # YYYY-MM-DD
    due_time: str  # ISO UTC
    files: tuple[PublishedFile, ...]


@dataclass(frozen=True)
class FetchedRound:
    round: OpenRound
    contents: dict[str, bytes]  # file name -> bytes, each checked against its published sha256


def api_base(site: str) -> str:
    """The API's base URL of a site given by its address (with or without a trailing ``/``)."""
    parts = urlsplit(site.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ParseError(f"{site!r} is not an http(s) address of a hub's site")
    return urljoin(site.strip().rstrip("/") + "/", API)


def parse_rounds(payload: Any) -> list[OpenRound]:
    """The open rounds ``rounds.json`` lists, each with its published files (pure)."""
    rounds = payload.get("rounds") if isinstance(payload, Mapping) else None
    if not isinstance(rounds, list):
        raise ParseError("rounds.json has no list of rounds")
    out = []
    for item in rounds:
        if not isinstance(item, Mapping) or item.get("state") != "open":
            continue
        due = str(item.get("due") or "")
        if not _DUE.fullmatch(due):
            raise ParseError(f"a round's due is not YYYY-MM-DD: {due!r}")
        files = item.get("files")
        if not isinstance(files, list) or not files:
            raise ParseError(f"round {due}: rounds.json publishes no files with their sha256 (the site was built by an older Prescient)")
        out.append(OpenRound(due, str(item.get("due_time") or f"{due}T00:00:00Z"), tuple(_file(due, f) for f in files)))
    return sorted(out, key=lambda r: r.due)


def _file(due: str, item: Any) -> PublishedFile:
    if not isinstance(item, Mapping):
        raise ParseError(f"round {due}: a file entry is not an object")
    name, path, digest, size = item.get("name"), item.get("path"), item.get("sha256"), item.get("bytes")
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ParseError(f"round {due}: unexpected file name {name!r}")
    if path != f"rounds/{due}/{name}":
        raise ParseError(f"round {due}: file {name} is published at {path!r}, not rounds/{due}/{name}")
    if not isinstance(digest, str) or not _SHA256.fullmatch(digest):
        raise ParseError(f"round {due}: {name} has no sha256")
    if isinstance(size, bool) or not isinstance(size, int) or not 0 <= size <= MAX_FILE_BYTES:
        raise ParseError(f"round {due}: {name} has no size, or one over {MAX_FILE_BYTES:,} bytes")
    return PublishedFile(name, path, digest, size)


def fetch_open_rounds(http: Http, site: str) -> list[FetchedRound]:
    """Every open round of the hub whose site is at ``site``, its files fetched and checked."""
    base = api_base(site)
    try:
        payload, _raw = http.get(urljoin(base, "rounds.json"))
        rounds = parse_rounds(payload)
    except ParseError as exc:
        raise SourceError(f"{base}rounds.json: {exc}") from None
    return [FetchedRound(r, {f.name: _checked(http, base, f) for f in r.files}) for r in rounds]


def _checked(http: Http, base: str, published: PublishedFile) -> bytes:
    url = urljoin(base, published.path)
    _type, data = get_bytes(http.client, url, headers=http.headers, retries=http.retries, backoff=http.backoff, sleep=http.sleep)
    digest = hashlib.sha256(data).hexdigest()
    if digest != published.sha256:
        problem = reported(
            "fetch-digest-mismatch", url, None, None, f"{len(data):,} bytes whose sha256 is {digest}; rounds.json publishes {published.sha256}"
        )
        raise SourceError(f"{url}: the file is not the one the hub publishes; nothing was written", [problem])
    return data
