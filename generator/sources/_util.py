"""Helpers shared by the platform adapters: field access, time parsing and hashing. The source
shells they are built on (``MarketSource``, ``SeriesSource``) are in ``shell.py``.

Payload hashes: every observation's ``payload_sha256`` is ``item_hash`` of the single item it was
parsed from, i.e. sha256 of ``json.dumps(item, sort_keys=True, separators=(",", ":"),
ensure_ascii=False)``. The same market state hashes the same whether it came from a list page
or a single-item read. A lone surrogate (JSON may carry ``"\\ud800"``, which has no UTF-8 form) is
hashed as U+FFFD, the same replacement the ledger writer makes in text (``store/csvio.py``), so no
payload can stop a source.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from ..errors import SourceError
from .base import payload_hash
from .http import FetchError


class ParseError(ValueError):
    """One item's payload does not have the shape we expect (schema drift, missing field)."""


def require(item: Mapping[str, Any], key: str) -> Any:
    """``item[key]``, or ParseError("missing <key>") when absent or null."""
    value = item.get(key) if isinstance(item, Mapping) else None
    if value is None:
        raise ParseError(f"missing {key}")
    return value


def to_float(value: Any, name: str) -> float:
    """A number from a number or numeric string; ParseError names the field otherwise."""
    if isinstance(value, bool):
        raise ParseError(f"{name} is not a number: {value!r}")
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError) as exc:
        raise ParseError(f"{name} is not a number: {value!r}") from exc
    if not math.isfinite(number):  # NaN or infinity would be refused by the ledger's schema
        raise ParseError(f"{name} is not a finite number: {value!r}")
    return number


def number_or(item: Mapping[str, Any], key: str, default: float = 0.0) -> float:
    """Lenient numeric read for filters: missing or malformed counts as ``default``."""
    try:
        return float(item.get(key, default))
    except (TypeError, ValueError, OverflowError):
        return default


def json_list(item: Mapping[str, Any], key: str) -> list[Any]:
    """A list that the API sends as a JSON-encoded string inside JSON (or, leniently, as a list)."""
    value = require(item, key)
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError as exc:
            raise ParseError(f"{key} is not valid JSON: {value[:40]!r}") from exc
    if not isinstance(value, list):
        raise ParseError(f"{key} is not a list")
    return value


def ms_to_dt(ms: Any) -> datetime | None:
    """Milliseconds since the epoch → aware UTC datetime (None stays None)."""
    if ms is None:
        return None
    return s_to_dt(to_float(ms, "timestamp") / 1000.0)


def s_to_dt(seconds: Any) -> datetime:
    value = to_float(seconds, "timestamp")
    try:
        return datetime.fromtimestamp(value, tz=UTC)
    except (OverflowError, OSError, ValueError) as exc:
        raise ParseError(f"timestamp {seconds!r} is out of range") from exc


def parse_time(text: Any) -> datetime | None:
    """ISO-8601 (``Z``, ``+00``, space separator, fractions) → aware UTC; naive means UTC."""
    if text in (None, ""):
        return None
    try:
        moment = datetime.fromisoformat(str(text))
    except ValueError as exc:
        raise ParseError(f"bad timestamp {text!r}") from exc
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def date_to_dt(text: Any) -> datetime:
    """``YYYY-MM-DD`` → that date at 00:00 UTC."""
    moment = parse_time(str(text)[:10])
    if moment is None:
        raise ParseError("missing date")
    return moment


def item_hash(item: Any) -> str:
    """sha256 of the canonical JSON of one item (see the module docstring)."""
    canonical = json.dumps(item, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return payload_hash(_LONE_SURROGATE.sub("\ufffd", canonical))


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def check_text(question: Any) -> None:
    """ParseError when a question's text is blank (only whitespace, as ``str.strip`` sees it, which
    counts a few control characters too): the ledger requires text, so such an item is a failure."""
    if not str(question.text).strip():
        raise ParseError(f"question text is blank: {question.text!r}")


def unwrap(payload: Any, key: str) -> Mapping[str, Any]:
    """``payload[key]`` when the API wraps a single item (``{"market": {...}}``)."""
    inner = payload.get(key) if isinstance(payload, Mapping) else None
    if not isinstance(inner, Mapping):
        raise FetchError(f"response has no {key!r} object")
    return inner


def list_at(payload: Any, what: str, *path: str) -> list[Any]:
    """The list at ``payload[path...]``; a missing list is a source-level schema change."""
    node = payload
    for key in path:
        node = node.get(key) if isinstance(node, Mapping) else None
    if not isinstance(node, list):
        where = ".".join(path) or "top level"
        raise SourceError(f"{what}: no list at {where} (schema change?)")
    return node
