"""The schema of ``data/hub.toml``: every table and key, its type, default, range and meaning, in one place.

A key is a dataclass field declared with ``key(default, doc, ...)``: the settings tables of
``config.py`` (``[hub]``, ``[rounds]``, ``[scoring]``, ``[leaderboard]``, ``[oracle]``), ``[http]``
and each source's ``[sources.<name>]`` table (below). ``check_table`` checks one table against its
fields and collects every problem with its code and key: an unknown key (with the nearest known one,
"did you mean"), a wrong type (``true`` is never a number, a list's items are checked too), a value
out of range or not among its choices, an empty list that must not be. ``rows`` describes the same
fields for the Data page and the commented ``hub.toml`` that ``prescient init`` writes, so what is
checked, what is documented and what a new hub starts with cannot drift apart.

The sources read their options with these defaults (``tests/test_config_schema.py`` holds each
source module's ``opts.get`` defaults and ``DEFAULTS`` equal to its fields here).
"""

from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Mapping
from dataclasses import MISSING, Field, dataclass, field, fields
from datetime import datetime
from pathlib import Path
from typing import Any

from .errors import Problem
from .timeutil import day_start, format_date, format_ts, is_iso_date, parse_ts


@dataclass(frozen=True)
class KeyMeta:
    """What ``key`` attaches to a field: its meaning and the values it allows."""

    doc: str
    ge: float | None = None  # value >= ge
    gt: float | None = None  # value > gt
    le: float | None = None  # value <= le
    choices: tuple[str, ...] = ()
    nonempty: bool = False  # a list that must hold at least one item
    advanced: bool = False  # written commented out in a new hub.toml (its default is what most hubs want)
    example: Any = None  # what a new hub.toml shows for a key whose default is empty
    form: str = ""  # text of a form: "timestamp" (UTC, ISO 8601), "due" (a timestamp at 00:00 UTC), "date" (YYYY-MM-DD) or "url" (http or https)


def key(default: Any = MISSING, doc: str = "", **meta: Any) -> Any:
    """A settings field: its default (none: the key is required) and ``KeyMeta`` (doc, ranges, choices)."""
    info = {"key": KeyMeta(doc, **meta)}
    return field(metadata=info) if default is MISSING else field(default=default, metadata=info)


@dataclass(frozen=True)
class Spec:
    """One key of one table, as checked and documented."""

    table: str
    name: str
    kind: str  # str, int, float, bool, datetime (TOML text), list[str], list[int]
    default: Any  # MISSING: required
    meta: KeyMeta

    @property
    def required(self) -> bool:
        return self.default is MISSING

    @property
    def label(self) -> str:
        return f"{self.table}.{self.name}"


_KINDS = {
    "str": "str",
    "int": "int",
    "float": "float",
    "bool": "bool",
    "datetime": "datetime",
    "tuple[str, ...]": "list[str]",
    "tuple[int, ...]": "list[int]",
    "str | None": "str",
    "float | None": "float",
}


def specs(table: str, cls: type) -> dict[str, Spec]:
    """The keys of ``cls``'s fields (the ``key``-declared ones) as the table ``table``."""
    out = {}
    for f in fields(cls):
        meta = f.metadata.get("key")
        if meta is not None:
            out[f.name] = Spec(table, f.name, _KINDS[str(f.type)], _default(f), meta)
    return out


def _default(f: Field) -> Any:
    return f.default if f.default is not MISSING else MISSING


# -- [http], and the keys a source's table may set for itself -----------------------------------------

USER_AGENT = "prescient/0.1 (+https://github.com/prescient-forecasting/prescient; forecasting benchmark)"


@dataclass(frozen=True)
class HttpSettings:
    """[http]: how every source's requests are made. A source's table may set any of these but
    ``source_budget_seconds`` (its own is ``budget_seconds``) to override them for itself."""

    timeout: float = key(30.0, "Seconds to wait to connect, and for each read of a response.", gt=0)
    retries: int = key(3, "Times a failed request (a network error, 429 or 5xx) is tried again.", ge=0)
    backoff: float = key(0.5, "Seconds before the first retry; each later one waits twice as long (with jitter).", ge=0, advanced=True)
    max_wait: float = key(60.0, "The longest wait, in seconds, before a retry (a `Retry-After` included).", ge=0, advanced=True)
    concurrency: int = key(4, "Requests of one source in flight at once (each source has its own default).", ge=1, advanced=True)
    rate_per_second: float = key(0.0, "Requests per second to a source, at most; 0: no limit (each source has its own default).", ge=0, advanced=True)
    user_agent: str = key(USER_AGENT, "The User-Agent header the hub's requests carry.", advanced=True)
    source_budget_seconds: float = key(
        600.0,
        "Seconds one source may spend on its requests in a run (retries and waits "
        "included); past it, what was read is kept and the run reports it (exit 6).",
        gt=0,
    )
    request_seconds: float = key(120.0, "One request's whole time (connect, send, every read); a slow-drip server is cut off.", gt=0)
    max_response_bytes: int = key(20971520, "A response's largest body; past it the request fails (response-too-large), not retried.", gt=0)


@dataclass(frozen=True)
class SourceBase:
    """Keys every live source's table takes, besides its own."""

    enabled: bool = key(True, "Whether the nightly asks this source.")
    base_url: str | None = key(None, "The API's address (not set: the platform's public API).", form="url", advanced=True)
    budget_seconds: float | None = key(
        None, "This source's time budget in a run, in seconds (not set: `[http] source_budget_seconds`).", gt=0, advanced=True
    )


# Each source's table may override these [http] keys for itself.
HTTP_OVERRIDES = (
    "timeout",
    "retries",
    "backoff",
    "max_wait",
    "concurrency",
    "rate_per_second",
    "user_agent",
    "request_seconds",
    "max_response_bytes",
)


def in_flight(default: int) -> Any:
    """A source's own default of ``[http] concurrency``."""
    return key(default, "Requests in flight at once.", ge=1, advanced=True)


def per_second(default: float) -> Any:
    """A source's own default of ``[http] rate_per_second``."""
    return key(default, "Requests per second, at most.", ge=0, advanced=True)


@dataclass(frozen=True)
class MarketOptions(SourceBase):
    """Keys of the market platforms (``sources.shell.MarketSource``)."""

    max_markets: int = key(500, "Qualifying open markets taken into the question bank per night, at most.", ge=0)
    max_pages: int = key(10, "Discovery pages read per night, at most.", ge=1, advanced=True)
    page_size: int = key(100, "Markets asked for per discovery page.", ge=1, advanced=True)
    reread_days: int = key(
        30,
        "Resolved (or void) markets whose resolution is at most this many days old are read "
        "again, so a changed outcome at the source is recorded (a correction on the Changes page); "
        "0: never.",
        ge=0,
        le=3650,
    )
    reread_max: int = key(25, "Resolved markets read again per night, at most (one request each), taken in turn.", ge=0, le=10000)


@dataclass(frozen=True)
class ManifoldOptions(MarketOptions):
    concurrency: int = in_flight(4)
    rate_per_second: float = per_second(8.0)
    page_size: int = key(1000, "Markets asked for per discovery page.", ge=1, advanced=True)
    min_bettors: float = key(17, "A market qualifies with at least this many unique bettors (ForecastBench: 17).", ge=0)
    min_liquidity: float = key(120, "... and at least this much liquidity, in mana (ForecastBench: 120).", ge=0)
    include_cash: bool = key(False, "Also take sweepstakes-cash (`CASH`) markets.", advanced=True)


@dataclass(frozen=True)
class PolymarketOptions(MarketOptions):
    concurrency: int = in_flight(4)
    rate_per_second: float = per_second(10.0)
    max_pages: int = key(20, "Discovery pages read per night, at most.", ge=1, advanced=True)
    min_liquidity: float = key(1000, "A market qualifies with at least this much liquidity, in USD.", ge=0)
    min_volume: float = key(10000, "... and at least this much traded volume, in USD.", ge=0)


@dataclass(frozen=True)
class KalshiOptions(MarketOptions):
    concurrency: int = in_flight(4)
    rate_per_second: float = per_second(10.0)
    max_pages: int = key(25, "Discovery pages read per night, at most.", ge=1, advanced=True)
    page_size: int = key(200, "Events asked for per discovery page.", ge=1, advanced=True)
    min_volume: float = key(1000, "A market qualifies with at least this many contracts traded.", ge=0)


@dataclass(frozen=True)
class MetaculusOptions(MarketOptions):
    concurrency: int = in_flight(2)
    rate_per_second: float = per_second(2.0)
    min_forecasters: float = key(20, "A question qualifies with at least this many forecasters. Needs METACULUS_TOKEN.", ge=0)


@dataclass(frozen=True)
class SeriesOptions(SourceBase):
    """Keys of the data-series sources (``sources.shell.SeriesSource``)."""

    series: tuple[str, ...] = key((), "The series asked about (their ids at the source), each at every horizon.", example=())
    category: str = key("economics", "The category the series' questions are filed under.", advanced=True)


@dataclass(frozen=True)
class FredOptions(SeriesOptions):
    concurrency: int = in_flight(2)
    rate_per_second: float = per_second(2.0)
    series: tuple[str, ...] = key((), "FRED series ids, e.g. DGS10, UNRATE. Needs FRED_API_KEY.", example=("DGS10", "UNRATE"))
    observation_start: str = key("", "The first date read of each series (YYYY-MM-DD); empty: all of it.", form="date", advanced=True)


@dataclass(frozen=True)
class DbnomicsOptions(SeriesOptions):
    concurrency: int = in_flight(4)
    rate_per_second: float = per_second(4.0)
    series: tuple[str, ...] = key((), "DBnomics series codes, PROVIDER/DATASET/SERIES.", example=("ECB/EXR/D.USD.EUR.SP00.A",))


@dataclass(frozen=True)
class SimOptions:
    """``sim``: the offline world (no network); `prescient demo` builds a hub on it."""

    enabled: bool = key(True, "Whether the nightly asks this source.")
    seed: int = key(1, "The world's seed: the same seed, the same world.", ge=0)
    start: str = key("2026-01-04T00:00:00Z", "When the world's first markets open (UTC).", form="timestamp")
    markets: int = key(120, "Markets in the world.", ge=0)
    series: int = key(12, "Data series in the world.", ge=0)
    span_days: int = key(365, "Days over which its markets open and close.", ge=1)
    news_start: str | None = key(
        None, "When its own daily news feed starts (the Sim Wire, `sim:news`); not set: with the world.", form="timestamp", advanced=True
    )


SOURCE_OPTIONS: dict[str, type] = {
    "sim": SimOptions,
    "manifold": ManifoldOptions,
    "polymarket": PolymarketOptions,
    "kalshi": KalshiOptions,
    "metaculus": MetaculusOptions,
    "fred": FredOptions,
    "dbnomics": DbnomicsOptions,
}
NEEDS = {"metaculus": "METACULUS_TOKEN", "fred": "FRED_API_KEY"}  # the environment variable a source needs


def source_specs(name: str) -> dict[str, Spec]:
    """The keys ``[sources.<name>]`` may hold: its own, and (a live source) the [http] overrides."""
    table = f"sources.{name}"
    own = specs(table, SOURCE_OPTIONS[name])
    if name == "sim":
        return own
    http = {k: s for k, s in specs(table, HttpSettings).items() if k in HTTP_OVERRIDES}
    return {**http, **own}


# -- checking ----------------------------------------------------------------------------------------


def key_problem(path: Path | str, key_label: str, code: str, message: str) -> Problem:
    return Problem(str(path), None, key_label, code, message)


def _found(code: str, message: str) -> tuple[str, str]:
    """What ``check_value`` returns: a problem's code and message, its key given by the caller."""
    return code, message


def did_you_mean(word: str, known: list[str] | tuple[str, ...]) -> str:
    """``; did you mean "x"?`` for the nearest of ``known``, else nothing."""
    close = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    return f'; did you mean "{close[0]}"?' if close else ""


def check_table(given: Any, table_specs: Mapping[str, Spec], label: str, path: Path, problems: list[Problem]) -> dict[str, Any]:
    """``given`` (a TOML table) checked against ``table_specs``: every key's value, a default for each
    key not given (or given wrongly), and each problem appended to ``problems``."""
    if not isinstance(given, Mapping):
        problems.append(key_problem(path, label, "wrong-type", f"[{label}] must be a table of keys, not {_kind_of(given)}"))
        given = {}
    out: dict[str, Any] = {}
    for name in sorted(set(given) - set(table_specs)):
        problems.append(key_problem(path, f"{label}.{name}", "unknown-key", f"unknown key {label}.{name}{did_you_mean(name, sorted(table_specs))}"))
    for name, spec in table_specs.items():
        if name not in given:
            if spec.required:
                problems.append(key_problem(path, spec.label, "missing-key", f"{spec.label} is required"))
            out[name] = None if spec.required else spec.default
            continue
        found = check_value(spec, given[name])
        if found:
            problems.append(key_problem(path, spec.label, found[0], found[1]))
            out[name] = None if spec.required else spec.default
        else:
            out[name] = given[name]
    return out


def check_value(spec: Spec, value: Any) -> tuple[str, str] | None:
    """(code, message) when ``value`` is not one ``spec`` allows, else None."""
    if not _has_kind(value, spec.kind):
        return _found("wrong-type", f"{spec.label} = {_shown(value)} has the wrong type: expected {describe_kind(spec.kind)}")
    meta = spec.meta
    if spec.kind == "datetime" or meta.form:
        return _check_form(spec, value)
    if meta.nonempty and not value:
        return _found("bad-value", f"{spec.label} = []: give at least one value")
    items = value if isinstance(value, list) else [value]
    for item in items:
        if meta.choices and item not in meta.choices:
            return _found(
                "bad-value",
                f"{spec.label} = {_shown(item)}; expected one of {', '.join(map(_shown, meta.choices))}{did_you_mean(str(item), meta.choices)}",
            )
        if isinstance(item, (int, float)) and not _in_range(item, meta):
            return _found("bad-value", f"{spec.label} = {_shown(item)}; expected {describe_range(meta)}")
    return None


def _check_form(spec: Spec, value: str) -> tuple[str, str] | None:
    form = (spec.meta.form or "timestamp") if spec.kind == "datetime" else spec.meta.form
    if form in ("timestamp", "due"):
        try:
            when = parse_ts(value)
        except ValueError as exc:
            return _found("bad-timestamp", f'{spec.label} = {_shown(value)}: {exc}; write a UTC time such as "2026-12-06T00:00:00Z"')
        if form == "due" and (message := due_not_midnight(f"{spec.label} = {_shown(value)}", when)):
            return _found("due-not-midnight", message)
    elif form == "date" and value and not is_iso_date(value):
        return _found("bad-value", f'{spec.label} = {_shown(value)}: write a date as "YYYY-MM-DD"')
    elif form == "url" and not re.fullmatch(r"https?://[^\s<>\"'`]+", value):
        return _found("bad-value", f"{spec.label} = {_shown(value)}: give an http(s) address")
    return None


def due_not_midnight(given: str, when: datetime) -> str | None:
    """Why a round's due time ``when`` (written as ``given``) is refused (code ``due-not-midnight``), or None
    at 00:00 UTC. One due time per round: the round's folder is named by its date, and validation, the seals
    and the git audit all read the due time as that date at 00:00:00Z."""
    if when == day_start(when):
        return None
    return (
        f"{given} is {format_ts(when)}, not 00:00 UTC: a round is due at 00:00 UTC, one due time per round (its "
        f"folder is named by the date, and validation, the seals and the git audit all read that date at 00:00:00Z); "
        f'write "{format_date(when)}T00:00:00Z" or another day at 00:00:00Z'
    )


def _has_kind(value: Any, kind: str) -> bool:
    if kind.startswith("list["):
        return isinstance(value, list) and all(_has_kind(v, kind[5:-1]) for v in value)
    if isinstance(value, bool):
        return kind == "bool"
    if kind == "float":
        return isinstance(value, (int, float)) and math.isfinite(value)
    return isinstance(value, {"str": str, "datetime": str, "int": int, "bool": bool}[kind])


def _in_range(value: float, meta: KeyMeta) -> bool:
    return not ((meta.ge is not None and value < meta.ge) or (meta.gt is not None and value <= meta.gt) or (meta.le is not None and value > meta.le))


def describe_kind(kind: str) -> str:
    words = {
        "str": "text",
        "int": "a whole number",
        "float": "a number",
        "bool": "true or false",
        "datetime": 'a UTC time as text, e.g. "2026-12-06T00:00:00Z"',
        "list[str]": "a list of texts",
        "list[int]": "a list of whole numbers",
    }
    return words[kind]


def describe_range(meta: KeyMeta) -> str:
    if meta.ge is not None and meta.le is not None:
        return f"from {_number(meta.ge)} to {_number(meta.le)}"
    parts = []
    if meta.gt is not None:
        parts.append(f"more than {_number(meta.gt)}")
    if meta.ge is not None:
        parts.append("0 or more" if meta.ge == 0 else f"{_number(meta.ge)} or more")
    if meta.le is not None:
        parts.append(f"at most {_number(meta.le)}")
    return " and ".join(parts) or "any value"


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _kind_of(value: Any) -> str:
    return {bool: "true or false", int: "a number", float: "a number", str: "text", list: "a list"}.get(type(value), "a value")


def _shown(value: Any) -> str:
    return toml_value(value) if isinstance(value, (str, int, float, bool, list, tuple)) else repr(value)


# -- describing (the Data page, a new hub.toml) ------------------------------------------------------


def toml_value(value: Any) -> str:
    """``value`` written as TOML: text quoted (JSON's escapes are TOML's), numbers, true/false, lists."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, float):
        return repr(value) if not value.is_integer() else f"{value:.1f}"
    if isinstance(value, int):
        return str(value)
    return json.dumps(str(value), ensure_ascii=False)


def allowed(spec: Spec) -> str:
    """The values a key allows, in words (the Data page's column)."""
    meta = spec.meta
    if meta.choices:
        return "one of " + ", ".join(f"`{c}`" for c in meta.choices)
    if meta.form == "due":
        return "a day at `00:00:00Z`"
    text = describe_range(meta) if (meta.ge, meta.gt, meta.le) != (None, None, None) else ""
    if meta.nonempty:
        text = ("at least one; " + text) if text else "at least one"
    return text
