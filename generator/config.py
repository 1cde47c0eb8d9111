"""Hub settings from ``data/hub.toml``, and the one place the run's ``as_of`` is resolved.

``settings_from_toml`` collects every problem in the file (unknown tables and keys with the nearest known
one, wrong types, values out of range, unknown sources and their options, ``[http]``) and raises one
ConfigError listing them all, each with its TOML key. Every key is declared once, with its default,
range and meaning, by ``config_schema.key`` in the dataclasses below and in ``config_schema``.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from types import MappingProxyType
from typing import Any

from .config_checks import cross_key_problems, own_prefix_problems
from .config_schema import SOURCE_OPTIONS, HttpSettings, Spec, check_table, did_you_mean, key, source_specs, specs, toml_value
from .config_schema import key_problem as schema_problem
from .errors import ConfigError, Problem
from .models import DEFAULT_OWN
from .timeutil import UTC, parse_ts
from .vocabulary import BOARDS, DEFAULT_BOARDS, REPLICATES, known_sources

HUB_FILE = "data/hub.toml"
SUBMIT_DOCS = "site_src/docs/submit.md"  # the Submit page's source, named where no site_url is set
HORIZONS = (7, 30, 90, 180, 365, 1095, 1825, 3650)
BOT_EMAIL = "41898282+github-actions[bot]@users.noreply.github.com"  # GitHub Actions' committer, as the workflows set it


@dataclass(frozen=True)
class RoundSettings:
    first_due: datetime = key(
        doc="The first round's due time, a day at 00:00:00Z (e.g. a Sunday); every later round is "
        "due cadence_days after the one before. Any other time of day, or one that is not "
        "00:00 in UTC once its offset is applied, is refused (due-not-midnight): a round has "
        "one due time, the date its folder is named by at 00:00 UTC, in every check.",
        form="due",
    )
    cadence_days: int = key(14, "Days between two rounds' due times (14: every other week, as ForecastBench).", ge=1)
    open_days_before_due: int = key(
        10,
        "Days before its due time that a round's question set is frozen and published "
        "(the freeze time; forecasters have these days to submit). 0 only in a hub of "
        "imported rounds, with no source: the nightly never opens a round frozen at its "
        "due time.",
        ge=0,
    )
    market_questions: int = key(50, "Market questions per round, at most (stratified by source and category).", ge=0)
    dataset_questions: int = key(25, "Data-series questions per round, at most, each asked at every horizon.", ge=0)
    horizons: tuple[int, ...] = key(
        HORIZONS, "Days after the due time at which a data-series question resolves; each horizon is a separately scored unit.", ge=1, nonempty=True
    )
    # "open": forecast files are submitted before the due time; "commit-reveal": only a commitment
    # before it, the file and its salt after it, within reveal_days (Submit page, "Sealed rounds").
    secrecy: str = key(
        "open",
        '"open": forecast files are submitted before the due time; "commit-reveal": only a '
        "commitment before it, the file and its salt within reveal_days after it.",
        choices=("open", "commit-reveal"),
    )
    reveal_days: int = key(2, "Commit-reveal rounds: days after the due time during which forecasts are revealed.", ge=1)


@dataclass(frozen=True)
class ScoringSettings:
    methodology_version: str = key("1", "Recorded with every published number; change it when the scoring rules change.")
    impute_value: float = key(0.5, "The probability a missing forecast is scored at (ForecastBench: 0.5).", ge=0, le=1)
    max_imputed_share: float = key(0.05, "A model is unranked in a round where more than this share of its rows is imputed (0.05: 5%).", ge=0, le=1)
    min_resolved: int = key(20, "A model is provisional (on the board, unranked) until it has this many resolved, non-imputed forecasts.", ge=0)
    min_age_days: int = key(50, "... and until its first round is this many days past its due time.", ge=0)
    unresolved_markets: str = key(
        "ignore",
        'Open markets of rounds already due: "ignore" (ForecastBench) or "market_proxy" (scored against the previous day\'s market value).',
        choices=("ignore", "market_proxy"),
    )
    # The hub's crowd aggregates forecast a unit only when at least this many submitted forecasts answer it.
    crowd_min_forecasters: int = key(
        2, "The hub's crowd aggregates forecast a question only when at least this many submitted forecasts answer it.", ge=1
    )
    # Model ids, or teams (the part before the dot), exempt from the max_imputed_share rule (FB exempts its own files).
    imputation_exempt: tuple[str, ...] = key(
        (), 'Model ids, or teams (the part before the dot), exempt from max_imputed_share (e.g. ["forecastbench"]).', advanced=True
    )


@dataclass(frozen=True)
class LeaderboardSettings:
    boards: tuple[str, ...] = key(
        DEFAULT_BOARDS,
        '"tournament" (every forecaster), "baseline" (those that saw no crowd '
        'value) and "preliminary" (ForecastBench\'s: dataset questions only, no '
        "50-day rule); the first is the headline.",
        choices=BOARDS,
        nonempty=True,
    )
    views: tuple[str, ...] = key(
        ("overall", "dataset", "market"),
        "Rows each board ranks: overall, market, dataset, resolved-only, source:NAME, category:NAME, horizon:DAYS.",
        nonempty=True,
    )
    replicates: int = key(REPLICATES, "Bootstrap replicates for the confidence and rank intervals.", ge=1)
    seed: int = key(0, "The bootstrap's seed.", ge=0, advanced=True)
    # a model id, matched exactly (not on a board: no reference); empty: the top model
    reference: str = key("", "p-values are against this model id; empty: the top model.", advanced=True)
    market_difficulty: str = key(
        "estimated",
        '"estimated" (fixed effects) or "crowd" (a market\'s difficulty fixed '
        "at the crowd's Brier: ForecastBench's rule, for the tournament board's markets).",
        choices=("estimated", "crowd"),
        advanced=True,
    )
    missing_crowd: str = key(
        "estimate",
        'A market with no crowd value at its due time, on a crowd board: "estimate" its difficulty, or "drop" it (ForecastBench).',
        choices=("estimate", "drop"),
        advanced=True,
    )
    public_reference: str = key(
        "", 'A second model id (ForecastBench: the public\'s median) for the "Forecaster > Public?" p-values; empty: none.', advanced=True
    )
    min_dataset_rows: int = key(
        0, "ForecastBench's per-round filter: a round counts once it has this many resolved dataset units ...", ge=0, advanced=True
    )
    min_market_questions: int = key(0, "... and this many resolved markets.", ge=0, advanced=True)


@dataclass(frozen=True)
class OracleSettings:
    """[oracle]: the daily news-to-questions stage (off without the table). Methodology page, "Daily Oracle"."""

    question_set: str = key("daily-news", "The oracle set the questions land in: data/oracle/<question_set>/.")
    feeds: tuple[str, ...] = key(
        (), 'RSS/Atom feed addresses; "sim:news" is the offline world\'s own feed.', example=("https://example.org/world/rss.xml",)
    )
    maker: str = key(
        "llm", '"llm" (the PRESCIENT_LLM_* endpoint) or "template" (the demo\'s template maker, not an LLM).', choices=("llm", "template")
    )
    model: str = key("", "The endpoint's model that writes the questions (empty: $PRESCIENT_LLM_MODEL).")
    daily_budget_usd: float = key(
        0.0, "Generation stops for the day once its calls cost this much (0: no limit; needs PRESCIENT_LLM_PRICE_IN and _OUT).", ge=0
    )
    daily_budget_tokens: int = key(0, "... or once they used this many tokens (0: no limit).", ge=0)
    random_articles: int = key(3, "Articles drawn at random each news day.", ge=0, advanced=True)
    hot_topics: int = key(3, "One article from each of the day's largest coherent clusters.", ge=0, advanced=True)
    min_score: int = key(
        13,
        "A question is kept when its filter scores sum to at least this (the seven principles score 0 to 14 together).",
        ge=0,
        le=14,
        advanced=True,
    )
    lookback_days: int = key(2, "News days before the run's date that generation looks at.", ge=0, advanced=True)
    per_feed: int = key(50, "New articles read from one feed in one run, at most.", ge=1, advanced=True)
    host_rate_per_second: float = key(1.0, "Requests per second to one host.", gt=0, advanced=True)
    max_article_bytes: int = key(2097152, "A larger article page is refused (article-too-large).", gt=0, advanced=True)
    text_days: int = key(
        60,
        "Days an article's full text is kept in the cache folder after the run that recorded it; older texts are deleted "
        "(the news ledger keeps the article's address, title and summary).",
        ge=1,
        advanced=True,
    )
    answer_models: tuple[str, ...] = key((), "Models the nightly answers the set with, closed-book (the board's hub runs).")


@dataclass(frozen=True)
class ArenaSettings:
    """[arena]: cohorts of the Arena view and the hub's LLM agents that trade in them. Methodology page, "Arena view"."""

    cohort_rounds: int = key(1, "Rounds per cohort: a cohort starts with fresh balances and carries portfolios over its rounds.", ge=1)
    agent_models: tuple[str, ...] = key((), "The endpoint's models (PRESCIENT_LLM_*) the nightly trades with as the hub's Arena agents; empty: off.")
    nightly_budget_usd: float = key(
        0.0, "The agents stop for the night once their calls cost this much (0: no limit of this kind; needs PRESCIENT_LLM_PRICE_IN and _OUT).", ge=0
    )
    nightly_budget_tokens: int = key(
        0, "... or once they used this many tokens (0: no limit of this kind); with agents, one of the two budgets is required.", ge=0
    )


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
    own_prefix: str = DEFAULT_OWN  # [hub] own_prefix: the team prefix of the hub's own forecasters
    oracle: OracleSettings | None = None  # None: no [oracle] table, the stage is off
    description: str = ""
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

    title: str = key("Prescient", "The hub's name: the site's title, and the heading of every validation report.")
    description: str = key("A forecasting benchmark that lives in a git repository", "One sentence under the title (the site's description).")
    repo_url: str = key("", 'The hub\'s repository, e.g. "https://github.com/OWNER/REPO" (the site then links its files).')
    # The published site's address (e.g. https://OWNER.github.io/REPO/); reports link its Submit page.
    site_url: str = key(
        "",
        'The published site, e.g. "https://OWNER.github.io/REPO/" (reports then end with its Submit page\'s address; the sitemap lists its pages).',
    )
    # GitHub logins or @org/team names; .github/codeowners.py writes CODEOWNERS from them.
    maintainers: tuple[str, ...] = key(
        (), "GitHub logins or @org/team names who review every change outside the submission areas; .github/CODEOWNERS is written from them."
    )
    # Where the nightly's seals learn of pull-request pushes: "github" (it reads every validation run
    # GitHub created since the oldest unsealed round, through the API) or "ledger" (only the receipts
    # data/receipts/ holds: a hub without pull requests, or run by hand).
    receipts: str = key(
        "ledger",
        'Where the seals learn of pull-request pushes: "github" (the validation runs, read '
        'through GitHub\'s API by the nightly) or "ledger" (only data/receipts/: a hub run by hand).',
        choices=("ledger", "github"),
    )
    # The committer e-mail of the hub's own commits (the nightly's): the only one that may change a file
    # only the hub writes (`prescient verify --git`, audit/bot.py). Empty: not checked. The audit reads it
    # as this file stood at the hub's first nightly, so set it before that run.
    bot_email: str = key(
        BOT_EMAIL,
        "The committer e-mail of the nightly's commits, the only one that may change "
        "what the hub writes (sources, scores, receipts, seals, logs; empty: not checked); "
        "the audit reads it as it stood at the hub's first nightly.",
        advanced=True,
    )
    own_prefix: str = key(
        DEFAULT_OWN,
        "The team prefix of the hub's own forecasters (<own_prefix>.always-0.5, <own_prefix>.<model>-arena); no pull request "
        "may use it. Fixed at the hub's first nightly: the audit reads it as it stood then.",
    )


# table -> {key: Spec}, each default written once, in its dataclass (``config_schema.key``).
TABLES: dict[str, type] = {
    "hub": HubTable,
    "rounds": RoundSettings,
    "scoring": ScoringSettings,
    "leaderboard": LeaderboardSettings,
    "http": HttpSettings,
    "oracle": OracleSettings,
    "arena": ArenaSettings,
}
_SCHEMA: dict[str, dict[str, Spec]] = {name: specs(name, cls) for name, cls in TABLES.items()}


def hub_schema() -> dict[str, list[Spec]]:
    """Every table of hub.toml and its keys, in order (``[sources.<name>]``: the source's own keys; each
    may also set the ``[http]`` keys of ``config_schema.HTTP_OVERRIDES``): the Data page's reference."""
    tables = {name: list(keys.values()) for name, keys in _SCHEMA.items()}
    tables.update({f"sources.{name}": list(specs(f"sources.{name}", cls).values()) for name, cls in SOURCE_OPTIONS.items()})
    return tables


def settings_from_toml(root: Path, text: str, path: Path, marks: Mapping[str, bytes] | None = None) -> Settings:
    """The hub's settings from the ``text`` of its data/hub.toml (``path``, for the messages; the file is
    read by ``store.files.load_settings``); every problem at once in one ConfigError (exit 2). ``marks``: see ``own_prefix_problems``."""
    raw = _parse_toml(text, path)
    problems: list[Problem] = []
    tables = {name: check_table(raw.get(name, {}), spec, name, path, problems) for name, spec in _SCHEMA.items()}
    sources = _sources(raw.get("sources", {}), path, problems)
    for extra in sorted(set(raw) - set(_SCHEMA) - {"sources"}):
        problems.append(_problem(path, extra, "unknown-table", f"unknown table [{extra}]{did_you_mean(extra, [*_SCHEMA, 'sources'])}"))
    first_due = _first_due(tables["rounds"]["first_due"])
    _check_rounds(tables["rounds"], any(s.enabled for s in sources), path, problems)
    problems += cross_key_problems(tables, path)  # keys against each other, the views against the sources
    _check_site_url(tables["hub"].get("site_url"), path, problems)
    problems += own_prefix_problems(tables["hub"].get("own_prefix"), marks or {}, path)  # a team id, and the one the data holds
    scoring = _scoring(tables["scoring"], path, problems)
    _check_oracle(tables["oracle"], path, problems)
    _check_arena(tables["arena"], path, problems)
    if problems:
        raise ConfigError(f"{path}: {len(problems)} problem(s) in the hub configuration", _located(text, problems))
    rounds = dict(_tuples(tables["rounds"]), first_due=first_due)
    hub = _tuples(tables["hub"])
    return Settings(
        root=root,
        title=hub["title"],
        repo_url=hub["repo_url"],
        site_url=hub["site_url"],
        description=hub["description"],
        maintainers=hub["maintainers"],
        receipts=hub["receipts"],
        bot_email=hub["bot_email"],
        own_prefix=hub["own_prefix"],
        rounds=RoundSettings(**rounds),
        scoring=ScoringSettings(**scoring),
        http=MappingProxyType(dict(raw.get("http", {}))),
        sources=sources,
        leaderboard=LeaderboardSettings(**_tuples(tables["leaderboard"])),
        oracle=OracleSettings(**_tuples(tables["oracle"])) if "oracle" in raw else None,
        arena=ArenaSettings(**_tuples(tables["arena"])),
    )


def _located(text: str, problems: list[Problem]) -> list[Problem]:
    """Each problem with the line of the file where its key (or its table) is written, when it is."""
    lines: dict[str, int] = {}
    table = ""
    for number, line in enumerate(text.splitlines(), start=1):
        header = re.match(r"\s*\[\s*([A-Za-z0-9_.\-\"]+)\s*\]", line)
        if header:
            table = header[1].replace('"', "")
            parts = table.split(".")
            for end in range(1, len(parts) + 1):  # [sources.kalshi] is where [sources] (or a typo of it) is written
                lines.setdefault(".".join(parts[:end]), number)
            continue
        assignment = re.match(r"\s*([A-Za-z0-9_\-]+)\s*=", line)
        if assignment:
            lines.setdefault(f"{table}.{assignment[1]}" if table else assignment[1], number)
    return [replace(p, row=lines.get(p.column or "", lines.get((p.column or "").rsplit(".", 1)[0]))) for p in problems]


def _tuples(table: dict[str, Any]) -> dict[str, Any]:
    """TOML values, each checked against its field's type by check_table; an array becomes the field's tuple."""
    return {k: tuple(v) if isinstance(v, list) else v for k, v in table.items()}


def _parse_toml(text: str, path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        problem = Problem(str(path), _toml_line(exc), None, "toml-syntax", str(exc))
        raise ConfigError(f"{path}: not valid TOML", [problem]) from None


def _toml_line(exc: tomllib.TOMLDecodeError) -> int | None:
    text = str(exc)
    if "(at line " in text:
        return int(text.split("(at line ")[1].split(",")[0])
    return None


def _problem(path: Path, key_label: str, code: str, message: str) -> Problem:
    return schema_problem(path, key_label, code, message)


def _sources(raw: Any, path: Path, problems: list[Problem]) -> tuple[SourceSettings, ...]:
    """``[sources.<name>]`` tables, each checked against its source's keys (``config_schema.source_specs``)."""
    known = known_sources()
    if not isinstance(raw, Mapping):
        problems.append(_problem(path, "sources", "wrong-type", "[sources] must hold one table per source, e.g. [sources.manifold]"))
        return ()
    out = []
    for name in sorted(raw):
        if name not in known:
            problems.append(
                _problem(
                    path,
                    f"sources.{name}",
                    "unknown-source",
                    f"unknown source {name!r}{did_you_mean(name, known)}; known sources: {', '.join(known)}",
                )
            )
            continue
        before = len(problems)
        options = raw[name]
        checked = check_table(options, source_specs(name), f"sources.{name}", path, problems)
        if len(problems) == before:
            given = {k: v for k, v in options.items() if k != "enabled"}
            out.append(SourceSettings(name, checked["enabled"], MappingProxyType(given)))
    return tuple(out)


def _check_rounds(table: dict, enabled: bool, path: Path, problems: list[Problem]) -> None:
    """What one key's range cannot say: a round with questions, frozen before its due time where a source is
    enabled, horizons once each (ranges: ``check_table``)."""
    if table["market_questions"] == 0 and table["dataset_questions"] == 0:
        problems.append(
            _problem(
                path,
                "rounds.market_questions",
                "bad-value",
                "rounds.market_questions and rounds.dataset_questions are both 0: a round would have no "
                "question and would never open; ask for at least one",
            )
        )
    if table["open_days_before_due"] == 0 and enabled:
        problems.append(
            _problem(
                path,
                "rounds.open_days_before_due",
                "bad-value",
                "rounds.open_days_before_due = 0: a round would be frozen at its due time, leaving no time "
                "to submit, and the nightly would never open one; give 1 or more (0 is for a hub of "
                "imported rounds, with every source disabled)",
            )
        )
    horizons = table["horizons"]
    if len(set(horizons)) != len(horizons):
        problems.append(_problem(path, "rounds.horizons", "bad-value", f"rounds.horizons = {toml_value(horizons)}: each horizon once"))


def _scoring(table: dict[str, Any], path: Path, problems: list[Problem]) -> dict[str, Any]:
    """The [scoring] table with the unresolved-market policy folded into the version."""
    table = dict(table, imputation_exempt=tuple(table["imputation_exempt"]))
    if not all(table["imputation_exempt"]):
        problems.append(
            _problem(
                path,
                "scoring.imputation_exempt",
                "bad-value",
                "scoring.imputation_exempt: expected a list of model ids or team names (non-empty strings)",
            )
        )
        table["imputation_exempt"] = ()
    return dict(table, methodology_version=methodology_label(table["methodology_version"], table["unresolved_markets"]))


def methodology_label(version: str, policy: str) -> str:
    """The version recorded with every published number: ``1``, or ``1+market_proxy`` under that policy."""
    return version if policy == "ignore" else f"{version}+{policy}"


def _check_oracle(table: dict, path: Path, problems: list[Problem]) -> None:
    """What the [oracle] keys' ranges cannot say (types and ranges: ``check_table``); code ``bad-value``."""

    def bad(key_name: str, message: str) -> None:
        problems.append(_problem(path, f"oracle.{key_name}", "bad-value", f"oracle.{key_name}: {message}"))

    if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", table["question_set"]):
        bad("question_set", f"{table['question_set']!r}: a set name is lower-case letters, digits and dashes")
    for feed in table["feeds"]:
        if not (feed == "sim:news" or re.fullmatch(r"https?://[^\s<>\"'`]+", feed)):
            bad("feeds", f"{feed!r}: give a feed's http(s) address (or \"sim:news\", the offline world's feed)")
    if not all(m.strip() for m in table["answer_models"]):
        bad("answer_models", "expected a list of the endpoint's model names (non-empty strings)")


def _check_arena(table: dict, path: Path, problems: list[Problem]) -> None:
    """What the [arena] keys' ranges cannot say (types and ranges: ``check_table``); code ``bad-value``."""

    def bad(key_name: str, message: str) -> None:
        problems.append(_problem(path, f"arena.{key_name}", "bad-value", f"arena.{key_name}: {message}"))

    models = table["agent_models"]
    if not all(isinstance(m, str) and m.strip() for m in models):
        bad("agent_models", "expected a list of the endpoint's model names (non-empty strings)")
    elif models and table["nightly_budget_usd"] <= 0 and table["nightly_budget_tokens"] <= 0:
        bad(
            "nightly_budget_tokens",
            "the agents need a per-night budget: set nightly_budget_tokens or nightly_budget_usd "
            "(with PRESCIENT_LLM_PRICE_IN and PRESCIENT_LLM_PRICE_OUT) above 0",
        )


def _check_site_url(value: Any, path: Path, problems: list[Problem]) -> None:
    if isinstance(value, str) and value and not re.fullmatch(r"https?://[^\s/<>\"'`]+(/[^\s<>\"'`]*)?", value):
        hint = 'give the site\'s address, e.g. "https://OWNER.github.io/REPO/", or ""'
        problems.append(_problem(path, "hub.site_url", "bad-value", f"hub.site_url = {value!r}: {hint}"))


def _first_due(value: str | None) -> datetime:
    """``[rounds] first_due`` (checked by ``check_table``: a bad or missing one was reported and is None here)."""
    return parse_ts(value) if value else datetime(1970, 1, 4, tzinfo=UTC)


def resolve_as_of(cli_value: str | None, env: Mapping[str, str] | None = None) -> datetime:
    """The run's "now": ``--as-of``, else ``SOURCE_DATE_EPOCH``, else the UTC clock. Called once."""
    env = os.environ if env is None else env
    if cli_value:
        try:
            return parse_ts(cli_value)
        except ValueError as exc:
            raise ConfigError(f"--as-of {cli_value!r}: {exc}; write a UTC time such as 2026-11-22T00:00:00Z or a date such as 2026-11-22") from None
    if env.get("SOURCE_DATE_EPOCH"):
        try:
            return datetime.fromtimestamp(int(env["SOURCE_DATE_EPOCH"]), tz=UTC)
        except ValueError:
            raise ConfigError(f"SOURCE_DATE_EPOCH={env['SOURCE_DATE_EPOCH']!r} is not an integer") from None
    return datetime.now(tz=UTC).replace(microsecond=0)
