"""Hub settings from ``data/hub.toml``, and the one place the run's ``as_of`` is resolved.

``load_settings`` collects every problem in the file (unknown tables and keys, wrong types,
unknown sources) and raises one ConfigError listing them all, each with its TOML key.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import MISSING, dataclass, field, fields
from datetime import datetime
from pathlib import Path
from types import MappingProxyType
from typing import Any

from .errors import ConfigError, Problem
from .timeutil import UTC, parse_ts
from .vocabulary import BOARDS, REPLICATES, known_sources

HUB_FILE = "data/hub.toml"
SUBMIT_DOCS = "site_src/docs/submit.md"  # the Submit page's source, named where no site_url is set
HORIZONS = (7, 30, 90, 180, 365, 1095, 1825, 3650)
BOT_EMAIL = "41898282+github-actions[bot]@users.noreply.github.com"  # GitHub Actions' committer, as the workflows set it


@dataclass(frozen=True)
class RoundSettings:
    first_due: datetime
    cadence_days: int = 14
    open_days_before_due: int = 10
    market_questions: int = 50
    dataset_questions: int = 25
    horizons: tuple[int, ...] = HORIZONS
    # "open": forecast files are submitted before the due time; "commit-reveal": only a commitment
    # before it, the file and its salt after it, within reveal_days (Submit page, "Sealed rounds").
    secrecy: str = "open"
    reveal_days: int = 2


@dataclass(frozen=True)
class ScoringSettings:
    methodology_version: str = "1"
    impute_value: float = 0.5
    max_imputed_share: float = 0.05
    min_resolved: int = 20
    min_age_days: int = 50
    unresolved_markets: str = "ignore"
    # The hub's crowd aggregates forecast a unit only when at least this many submitted forecasts answer it.
    crowd_min_forecasters: int = 2
    # Model ids, or teams (the part before the dot), exempt from the max_imputed_share rule (FB exempts its own files).
    imputation_exempt: tuple[str, ...] = ()


@dataclass(frozen=True)
class LeaderboardSettings:
    boards: tuple[str, ...] = BOARDS
    views: tuple[str, ...] = ("overall", "dataset", "market")
    replicates: int = REPLICATES
    seed: int = 0
    reference: str = ""  # a model id, matched exactly (not on a board: no reference); empty: the top model
    market_difficulty: str = "estimated"  # or "crowd" (FB's tournament rule)


@dataclass(frozen=True)
class OracleSettings:
    """[oracle]: the daily news-to-questions stage (off without the table). Methodology page, "Daily Oracle"."""

    question_set: str = "daily-news"  # the oracle set the questions land in: data/oracle/<question_set>/
    feeds: tuple[str, ...] = ()  # RSS/Atom feed URLs; "sim:news" is the sim world's own feed (offline)
    maker: str = "llm"  # "llm" (PRESCIENT_LLM_*) or "template" (the demo's labelled template maker, not an LLM)
    model: str = ""  # the endpoint's model that writes the questions (default: $PRESCIENT_LLM_MODEL)
    daily_budget_usd: float = 0.0  # generation stops for the day once its calls cost this much (0: no limit)
    daily_budget_tokens: int = 0  # ... or used this many tokens (0: no limit)
    random_articles: int = 3  # articles drawn at random each day
    hot_topics: int = 3  # one article from each of the day's largest coherent clusters
    min_score: int = 13  # a question is kept when its filter scores sum to at least this (of 14)
    lookback_days: int = 2  # news days, before the run's date, that generate looks at
    per_feed: int = 50  # new articles read from one feed in one run, at most
    host_rate_per_second: float = 1.0  # requests per second to one host (robots-friendly)
    max_article_bytes: int = 2097152  # a larger page is refused (article-too-large)
    answer_models: tuple[str, ...] = ()  # models the nightly answers the set with (closed-book)


ORACLE_MAKERS = ("llm", "template")


@dataclass(frozen=True)
class ArenaSettings:
    """[arena]: cohorts of the Arena view and the hub's LLM agents that trade in them. Methodology page, "Arena view"."""

    cohort_rounds: int = 1  # rounds per cohort: a cohort starts with fresh balances and carries portfolios over its rounds
    agent_models: tuple[str, ...] = ()  # the endpoint's models the nightly trades with (PRESCIENT_LLM_*); empty: off
    nightly_budget_usd: float = 0.0  # the agents stop for the night once their calls cost this much (0: no limit of this kind)
    nightly_budget_tokens: int = 0  # ... or used this many tokens (0: no limit of this kind); with agents, one is required


@dataclass(frozen=True)
class SourceSettings:
    name: str
    enabled: bool
    options: Mapping[str, Any]


@dataclass(frozen=True)
class Settings:
    root: Path
    title: str
    repo_url: str
    rounds: RoundSettings
    scoring: ScoringSettings
    http: Mapping[str, Any]
    sources: tuple[SourceSettings, ...] = field(default_factory=tuple)
    leaderboard: LeaderboardSettings = LeaderboardSettings()
    site_url: str = ""
    maintainers: tuple[str, ...] = ()
    receipts: str = "ledger"
    bot_email: str = ""
    oracle: OracleSettings | None = None  # None: no [oracle] table, the stage is off
    arena: ArenaSettings = ArenaSettings()

    @property
    def submit_page(self) -> str:
        """Where a forecaster reads the rules: the published Submit page, else its source in the repository."""
        return f"{self.site_url.rstrip('/')}/submit/" if self.site_url else SUBMIT_DOCS

    @property
    def enabled_sources(self) -> tuple[SourceSettings, ...]:
        return tuple(s for s in self.sources if s.enabled)


@dataclass(frozen=True)
class HubTable:
    """The [hub] table's keys and defaults (Settings carries title, repo_url and site_url)."""

    title: str = "Prescient"
    repo_url: str = ""
    # The published site's address (e.g. https://OWNER.github.io/REPO/); reports link its Submit page.
    site_url: str = ""
    # GitHub logins or @org/team names; .github/codeowners.py writes CODEOWNERS from them.
    maintainers: tuple[str, ...] = ()
    # Where the nightly's seals learn of pull-request pushes: "github" (it reads every validation run
    # GitHub created since the oldest unsealed round, through the API) or "ledger" (only the receipts
    # data/receipts/ holds: a hub without pull requests, or run by hand).
    receipts: str = "ledger"
    # The committer e-mail of the hub's own commits (the nightly's): the only one that may change
    # receipts, seals and the model log (`prescient verify --git`). Empty: not checked.
    bot_email: str = BOT_EMAIL


# The type a TOML value must have, per field annotation (a tuple field is a TOML array).
_TOML_TYPES: dict[str, type | tuple[type, ...]] = {"str": str, "int": int, "float": (int, float), "datetime": str}


def _spec(table: type) -> dict[str, tuple[type | tuple[type, ...], Any]]:
    """{key: (TOML type, default)} of a settings dataclass; a field without a default is required (None)."""
    return {f.name: (list if str(f.type).startswith("tuple[") else _TOML_TYPES[str(f.type)],
                     None if f.default is MISSING else f.default) for f in fields(table)}


# table -> {key: (type, default)}, each default written once, in its dataclass.
_SCHEMA: dict[str, dict[str, tuple[type | tuple[type, ...], Any]]] = {
    "hub": _spec(HubTable), "rounds": _spec(RoundSettings),
    "scoring": _spec(ScoringSettings), "leaderboard": _spec(LeaderboardSettings),
    "oracle": _spec(OracleSettings), "arena": _spec(ArenaSettings),
}
# How an open market of a round past its due time is treated (methodology page, "Unresolved markets").
UNRESOLVED_POLICIES = ("ignore", "market_proxy")
RECEIPT_MODES = ("ledger", "github")
SECRECY = ("open", "commit-reveal")


def _check_choice(table: dict, name: str, key: str, choices: tuple[str, ...], path: Path, problems: list[Problem]) -> None:
    if table[key] not in choices:
        problems.append(_problem(path, f"{name}.{key}", "bad-value",
                                 f"{name}.{key} = {table[key]!r}; expected one of: {', '.join(map(_quoted, choices))}"))
        table[key] = choices[0]


def load_settings(root: Path) -> Settings:
    path = root / HUB_FILE
    if not path.is_file():
        raise ConfigError(f"{path}: not found. Is --hub pointing at a Prescient hub?")
    raw = _parse_toml(path)
    problems: list[Problem] = []
    tables = {name: _table(raw, name, spec, path, problems) for name, spec in _SCHEMA.items()}
    sources = _sources(raw.get("sources", {}), path, problems)
    for extra in sorted(set(raw) - set(_SCHEMA) - {"sources", "http"}):
        problems.append(_problem(path, extra, "unknown-table", f"unknown table [{extra}]"))
    first_due = _first_due(tables["rounds"].get("first_due"), path, problems)
    _check_leaderboard(tables["leaderboard"], path, problems)
    _check_budgets(raw, path, problems)
    _check_site_url(tables["hub"].get("site_url"), path, problems)
    _check_choice(tables["hub"], "hub", "receipts", RECEIPT_MODES, path, problems)
    _check_choice(tables["rounds"], "rounds", "secrecy", SECRECY, path, problems)
    if tables["rounds"]["reveal_days"] < 1:
        problems.append(_problem(path, "rounds.reveal_days", "bad-value",
                                 f"rounds.reveal_days = {tables['rounds']['reveal_days']}; expected 1 or more"))
    scoring = _scoring(tables["scoring"], path, problems)
    _check_oracle(tables["oracle"], path, problems)
    _check_arena(tables["arena"], path, problems)
    if problems:
        raise ConfigError(f"{path}: {len(problems)} problem(s) in the hub configuration", problems)
    rounds = dict(tables["rounds"], first_due=first_due)
    rounds["horizons"] = tuple(rounds["horizons"])
    leaderboard = _tuples(tables["leaderboard"])
    return Settings(
        root=root,
        title=tables["hub"]["title"],
        repo_url=tables["hub"]["repo_url"],
        site_url=tables["hub"]["site_url"],
        maintainers=tuple(tables["hub"]["maintainers"]),
        receipts=tables["hub"]["receipts"],
        bot_email=tables["hub"]["bot_email"],
        rounds=RoundSettings(**rounds),
        scoring=ScoringSettings(**scoring),
        http=MappingProxyType(dict(raw.get("http", {}))),
        sources=sources,
        leaderboard=LeaderboardSettings(**leaderboard),
        oracle=OracleSettings(**_tuples(tables["oracle"])) if "oracle" in raw else None,
        arena=ArenaSettings(**_tuples(tables["arena"])),
    )


def _tuples(table: dict[str, Any]) -> dict[str, Any]:
    """TOML values, each checked against its field's type by _table; an array becomes the field's tuple."""
    return {k: tuple(v) if isinstance(v, list) else v for k, v in table.items()}


def _parse_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text ({exc.reason})") from None
    except tomllib.TOMLDecodeError as exc:
        problem = Problem(str(path), _toml_line(exc), None, "toml-syntax", str(exc))
        raise ConfigError(f"{path}: not valid TOML", [problem]) from None


def _toml_line(exc: tomllib.TOMLDecodeError) -> int | None:
    text = str(exc)
    if "(at line " in text:
        return int(text.split("(at line ")[1].split(",")[0])
    return None


def _problem(path: Path, key: str, code: str, message: str) -> Problem:
    return Problem(str(path), None, key, code, message)


def _table(raw: Mapping, name: str, spec: Mapping, path: Path, problems: list[Problem]) -> dict:
    given = raw.get(name, {})
    out: dict[str, Any] = {}
    for key in sorted(set(given) - set(spec)):
        problems.append(_problem(path, f"{name}.{key}", "unknown-key", f"unknown key {name}.{key}"))
    for key, (kind, default) in spec.items():
        if key not in given:
            if default is None:
                problems.append(_problem(path, f"{name}.{key}", "missing-key", f"{name}.{key} is required"))
            out[key] = default
        elif not isinstance(given[key], kind) or isinstance(given[key], bool):
            problems.append(_problem(path, f"{name}.{key}", "wrong-type", f"{name}.{key} = {given[key]!r} has the wrong type"))
            out[key] = default
        else:
            out[key] = given[key]
    return out


def _sources(raw: Any, path: Path, problems: list[Problem]) -> tuple[SourceSettings, ...]:
    known = known_sources()
    out = []
    for name in sorted(raw):
        options = raw[name]
        if name not in known:
            problems.append(_problem(path, f"sources.{name}", "unknown-source",
                                     f"unknown source {name!r}; known sources: {', '.join(known)}"))
        elif not isinstance(options, dict) or not isinstance(options.get("enabled", True), bool):
            problems.append(_problem(path, f"sources.{name}", "wrong-type",
                                     f"[sources.{name}] must be a table with a boolean 'enabled'"))
        else:
            opts = {k: v for k, v in options.items() if k != "enabled"}
            out.append(SourceSettings(name, options.get("enabled", True), MappingProxyType(opts)))
    return tuple(out)


def _scoring(table: dict[str, Any], path: Path, problems: list[Problem]) -> dict[str, Any]:
    """The [scoring] table with the unresolved-market policy checked and folded into the version."""
    table = dict(table, imputation_exempt=tuple(table["imputation_exempt"]))
    if table["crowd_min_forecasters"] < 1:
        problems.append(_problem(path, "scoring.crowd_min_forecasters", "bad-value",
                                 f"scoring.crowd_min_forecasters = {table['crowd_min_forecasters']}; expected 1 or more"))
        table["crowd_min_forecasters"] = 2
    if not all(isinstance(x, str) and x for x in table["imputation_exempt"]):
        problems.append(_problem(path, "scoring.imputation_exempt", "bad-value",
                                 "scoring.imputation_exempt: expected a list of model ids or team names (non-empty strings)"))
        table["imputation_exempt"] = ()
    policy = table["unresolved_markets"]
    if policy not in UNRESOLVED_POLICIES:
        problems.append(_problem(path, "scoring.unresolved_markets", "bad-value",
                                 f"scoring.unresolved_markets = {policy!r}; expected one of: {', '.join(UNRESOLVED_POLICIES)}"))
        return dict(table, unresolved_markets="ignore")
    return dict(table, methodology_version=methodology_label(table["methodology_version"], policy))


def methodology_label(version: str, policy: str) -> str:
    """The version recorded with every published number: ``1``, or ``1+market_proxy`` under that policy."""
    return version if policy == "ignore" else f"{version}+{policy}"


def _check_leaderboard(table: dict, path: Path, problems: list[Problem]) -> None:
    """Values of [leaderboard] (types are checked by ``_table``); code ``bad-value``, naming the key."""
    from .vocabulary import parse_view

    def bad(key: str, message: str) -> None:
        problems.append(_problem(path, f"leaderboard.{key}", "bad-value", f"leaderboard.{key}: {message}"))

    boards = table["boards"]
    if not boards or any(b not in BOARDS for b in boards):
        bad("boards", f"{boards!r}: expected a non-empty list of {' and/or '.join(map(_quoted, BOARDS))}")
    for view in table["views"]:
        try:
            parse_view(view if isinstance(view, str) else repr(view))
        except ValueError as exc:
            bad("views", str(exc))
    if table["replicates"] < 1:
        bad("replicates", f"{table['replicates']}; expected at least 1")
    if table["market_difficulty"] not in ("estimated", "crowd"):
        bad("market_difficulty", f"{table['market_difficulty']!r}; expected \"estimated\" or \"crowd\"")


def _quoted(word: str) -> str:
    return f'"{word}"'


# sources.http's per-request limits, in [http] or a source's table: positive numbers.
_REQUEST_LIMITS = ("request_seconds", "max_response_bytes")


def _check_budgets(raw: Mapping, path: Path, problems: list[Problem]) -> None:
    """``[http] source_budget_seconds``, ``[sources.<name>] budget_seconds`` and the request limits:
    positive numbers."""
    given = [("http", key, raw.get("http")) for key in ("source_budget_seconds", *_REQUEST_LIMITS)]
    given += [(f"sources.{name}", key, table) for name, table in sorted(raw.get("sources", {}).items())
              for key in ("budget_seconds", *_REQUEST_LIMITS)]
    for table, key, values in given:
        value = values.get(key) if isinstance(values, dict) else None
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0):
            unit = " of seconds" if key.endswith("seconds") else " of bytes"
            problems.append(_problem(path, f"{table}.{key}", "bad-value",
                                     f"{table}.{key} = {value!r}; expected a positive number{unit}"))


def _check_oracle(table: dict, path: Path, problems: list[Problem]) -> None:
    """Values of [oracle] (types are checked by ``_table``); code ``bad-value``, naming the key."""
    def bad(key: str, message: str) -> None:
        problems.append(_problem(path, f"oracle.{key}", "bad-value", f"oracle.{key}: {message}"))

    if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", table["question_set"]):
        bad("question_set", f"{table['question_set']!r}: a set name is lower-case letters, digits and dashes")
    for feed in table["feeds"]:
        if not isinstance(feed, str) or not (feed == "sim:news" or re.fullmatch(r"https?://[^\s<>\"'`]+", feed)):
            bad("feeds", f"{feed!r}: give a feed's http(s) address (or \"sim:news\", the offline world's feed)")
    if table["maker"] not in ORACLE_MAKERS:
        bad("maker", f"{table['maker']!r}; expected \"llm\" or \"template\"")
    if not 0 <= table["min_score"] <= 14:
        bad("min_score", f"{table['min_score']}; the seven filter principles score 0 to 14 together")
    for key in ("daily_budget_usd", "daily_budget_tokens", "random_articles", "hot_topics", "lookback_days"):
        if table[key] < 0:
            bad(key, f"{table[key]}; expected 0 or more")
    for key in ("per_feed", "host_rate_per_second", "max_article_bytes"):
        if table[key] <= 0:
            bad(key, f"{table[key]}; expected a positive number")
    if not all(isinstance(m, str) and m.strip() for m in table["answer_models"]):
        bad("answer_models", "expected a list of the endpoint's model names (non-empty strings)")


def _check_arena(table: dict, path: Path, problems: list[Problem]) -> None:
    """Values of [arena] (types are checked by ``_table``); code ``bad-value``, naming the key."""
    def bad(key: str, message: str) -> None:
        problems.append(_problem(path, f"arena.{key}", "bad-value", f"arena.{key}: {message}"))

    if table["cohort_rounds"] < 1:
        bad("cohort_rounds", f"{table['cohort_rounds']}; expected 1 or more (rounds in a cohort)")
    for key in ("nightly_budget_usd", "nightly_budget_tokens"):
        if table[key] < 0:
            bad(key, f"{table[key]}; expected 0 or more")
    models = table["agent_models"]
    if not all(isinstance(m, str) and m.strip() for m in models):
        bad("agent_models", "expected a list of the endpoint's model names (non-empty strings)")
    elif models and table["nightly_budget_usd"] <= 0 and table["nightly_budget_tokens"] <= 0:
        bad("nightly_budget_tokens", "the agents need a per-night budget: set nightly_budget_tokens or nightly_budget_usd "
                                     "(with PRESCIENT_LLM_PRICE_IN and PRESCIENT_LLM_PRICE_OUT) above 0")


def _check_site_url(value: Any, path: Path, problems: list[Problem]) -> None:
    if isinstance(value, str) and value and not re.fullmatch(r"https?://[^\s/<>\"'`]+(/[^\s<>\"'`]*)?", value):
        problems.append(_problem(path, "hub.site_url", "bad-value",
                                 f"hub.site_url = {value!r}: give the site's address, e.g. \"https://OWNER.github.io/REPO/\", or \"\""))


def _first_due(value: str | None, path: Path, problems: list[Problem]) -> datetime:
    try:
        return parse_ts(value) if value else datetime(1970, 1, 4, tzinfo=UTC)
    except ValueError as exc:
        problems.append(_problem(path, "rounds.first_due", "bad-timestamp", str(exc)))
        return datetime(1970, 1, 4, tzinfo=UTC)


def resolve_as_of(cli_value: str | None, env: Mapping[str, str] | None = None) -> datetime:
    """The run's "now": ``--as-of``, else ``SOURCE_DATE_EPOCH``, else the UTC clock. Called once."""
    env = os.environ if env is None else env
    if cli_value:
        try:
            return parse_ts(cli_value)
        except ValueError as exc:
            raise ConfigError(f"--as-of {cli_value!r}: {exc}; write a UTC time such as 2026-11-22T00:00:00Z "
                              "or a date such as 2026-11-22") from None
    if env.get("SOURCE_DATE_EPOCH"):
        try:
            return datetime.fromtimestamp(int(env["SOURCE_DATE_EPOCH"]), tz=UTC)
        except ValueError:
            raise ConfigError(f"SOURCE_DATE_EPOCH={env['SOURCE_DATE_EPOCH']!r} is not an integer") from None
    return datetime.now(tz=UTC).replace(microsecond=0)
