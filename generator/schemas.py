"""Every CSV the hub reads or writes: its columns, types, key and sort order.

The same declarations drive reading (type checks that report file, row and column), writing
(fixed column order, sorted rows, fixed number formats) and the site's Data page.
"""

from __future__ import annotations

from dataclasses import dataclass

# Column types. "ts" is an ISO-8601 UTC timestamp with Z; "date" is YYYY-MM-DD;
# "prob" is a float in [0, 1] written with 6 decimals; "float" is written with 10 significant digits.
TYPES = ("str", "ts", "date", "float", "prob", "int", "enum")


@dataclass(frozen=True)
class Column:
    name: str
    type: str
    description: str
    nullable: bool = False
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class Table:
    name: str
    path: str
    description: str
    columns: tuple[Column, ...]
    key: tuple[str, ...]
    sort: tuple[str, ...]
    mutability: str

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)

    def column(self, name: str) -> Column:
        return next(c for c in self.columns if c.name == name)


def _c(name: str, type_: str, description: str, nullable: bool = False, choices: tuple[str, ...] = ()) -> Column:
    return Column(name, type_, description, nullable, choices)


KIND = ("binary", "dataset")
STATUS = ("open", "resolved", "void")

QUESTIONS = Table(
    name="questions",
    path="data/questions/<source>.csv",
    description="The question bank: one row per question version, appended when a source reports a new or changed question.",
    columns=(
        _c("id", "str", "`<source>:<native id>`"),
        _c("recorded_at", "ts", "When the hub recorded this version (the nightly run's as_of)."),
        _c("source", "str", "Source name, e.g. `manifold`, `fred`, `sim`."),
        _c("kind", "enum", "`binary` (a market that resolves YES/NO) or `dataset` (a series asked at horizons).", choices=KIND),
        _c("text", "str", "The question as asked."),
        _c("background", "str", "Background supplied by the source.", nullable=True),
        _c("resolution_criteria", "str", "How the question resolves.", nullable=True),
        _c("url", "str", "Link to the question at its source.", nullable=True),
        _c("category", "str", "Topic category.", nullable=True),
        _c("open_time", "ts", "When the question opened at its source.", nullable=True),
        _c("close_time", "ts", "When the market closes (binary) — empty for series.", nullable=True),
    ),
    key=("id", "recorded_at"),
    sort=("recorded_at", "id"),
    mutability="append-only",
)

OBSERVATIONS = Table(
    name="observations",
    path="data/observations/<source>/<YYYY-MM>.csv",
    description=(
        "Every value fetched from a source, partitioned by source and by the month it was recorded. "
        "A row is appended only when the value, status or outcome changed; a correction is a new row. "
        "The state of a question at time t is its latest row with observed_at ≤ t."
    ),
    columns=(
        _c("question_id", "str", "Question id."),
        _c("observed_at", "ts", "The time the value refers to: the snapshot time for a market, the series date for a dataset."),
        _c("recorded_at", "ts", "When the hub recorded the row."),
        _c("value", "float", "Market probability of YES, or the series value.", nullable=True),
        _c("status", "enum", "`open`, `resolved` or `void`.", choices=STATUS),
        _c("outcome", "float", "1 or 0 once a market resolved; empty otherwise.", nullable=True),
        _c("payload_sha256", "str", "sha256 of the raw payload the value was parsed from.", nullable=True),
    ),
    key=("question_id", "observed_at", "recorded_at"),
    sort=("recorded_at", "question_id", "observed_at"),
    mutability="append-only",
)

ROUND_QUESTIONS = Table(
    name="round_questions",
    path="data/rounds/<due>/questions.csv",
    description="A round's frozen question set. Dataset questions have one row per resolution date (horizon).",
    columns=(
        _c("question_id", "str", "Question id."),
        _c("resolution_date", "date", "For dataset questions: the date the series is compared with its due-date value. Empty for markets.", nullable=True),
        _c("source", "str", "Source name."),
        _c("kind", "enum", "`binary` or `dataset`.", choices=KIND),
        _c("category", "str", "Topic category.", nullable=True),
        _c("due", "ts", "The forecast deadline (UTC)."),
        _c("freeze_time", "ts", "When the question set was frozen."),
        _c("freeze_value", "float", "Market probability (or series value) at the freeze time.", nullable=True),
        _c("text", "str", "The question as asked."),
        _c("url", "str", "Link to the source.", nullable=True),
    ),
    key=("question_id", "resolution_date"),
    sort=("question_id", "resolution_date"),
    mutability="frozen once published",
)

FORECASTS = Table(
    name="forecasts",
    path="data/forecasts/<due>/<team>.<model>.csv",
    description="One forecaster's forecasts for one round.",
    columns=(
        _c("question_id", "str", "A question id from the round's question set."),
        _c("resolution_date", "date", "For dataset questions, one row per resolution date; empty for markets.", nullable=True),
        _c("probability", "prob", "Probability that the question resolves YES (in [0, 1])."),
        _c("reasoning", "str", "Optional free-text rationale.", nullable=True),
    ),
    key=("question_id", "resolution_date"),
    sort=("question_id", "resolution_date"),
    mutability="immutable after the due time",
)

SCORES = Table(
    name="scores",
    path="data/scores/<due>.csv",
    description="Per-forecast scores of one round's resolved questions (derived; recomputed from the ledgers every night).",
    columns=(
        _c("round", "date", "The round's due date."),
        _c("model", "str", "`<team>.<model>`"),
        _c("question_id", "str", "Question id."),
        _c("resolution_date", "date", "Resolution date (dataset questions).", nullable=True),
        _c("source", "str", "Source name."),
        _c("kind", "enum", "`binary` or `dataset`.", choices=KIND),
        _c("category", "str", "Topic category.", nullable=True),
        _c("probability", "prob", "The forecast (0.5 where imputed)."),
        _c("imputed", "int", "1 when the forecaster gave no forecast and 0.5 was imputed."),
        _c("outcome", "float", "1 or 0."),
        _c("resolved_at", "ts", "When the outcome became known."),
        _c("brier", "float", "(probability − outcome)²."),
    ),
    key=("round", "model", "question_id", "resolution_date"),
    sort=("round", "model", "question_id", "resolution_date"),
    mutability="derived",
)

HISTORY = Table(
    name="history",
    path="data/leaderboard/history.csv",
    description="One row per night × board × model: the headline numbers as published that night.",
    columns=(
        _c("as_of", "ts", "The nightly run's time."),
        _c("board", "str", "Board name."),
        _c("model", "str", "`<team>.<model>`"),
        _c("rank", "int", "Rank on the board that night (1 = best)."),
        _c("n", "int", "Resolved forecasts scored."),
        _c("n_dataset", "int", "Resolved dataset forecasts."),
        _c("n_market", "int", "Resolved market forecasts."),
        _c("brier", "float", "Headline score (lower is better)."),
        _c("brier_dataset", "float", "Mean Brier on dataset questions.", nullable=True),
        _c("brier_market", "float", "Mean Brier on market questions.", nullable=True),
        _c("provisional", "int", "1 while the model does not yet meet the stability rule."),
        _c("methodology_version", "str", "Scoring methodology version that produced the row."),
    ),
    key=("as_of", "board", "model"),
    sort=("as_of", "board", "rank", "model"),
    mutability="append-only",
)

RESOLUTIONS = Table(
    name="resolutions",
    path="data/resolutions/<source>.csv",
    description=(
        "Stated resolutions: outcomes a source states directly (e.g. a ForecastBench resolution set), "
        "for questions whose outcome the hub cannot compute from observations. A stated resolution of a "
        "round's unit, recorded at or before the board's as_of (the latest recorded wins), overrides the "
        "computed one. Append-only: a correction is a new row with a later recorded_at."
    ),
    columns=(
        _c("round", "date", "The round (due date) the statement is for; empty: every round that asks the question.", nullable=True),
        _c("question_id", "str", "Question id."),
        _c("resolution_date", "date", "For dataset questions: the resolution date (horizon) the statement is for. Empty for markets.", nullable=True),
        _c("recorded_at", "ts", "When the statement became known; boards as of an earlier time ignore it. ForecastBench imports: the resolution date at 00:00 UTC (FB sets carry no timestamp); a later change is recorded at the import's as_of."),
        _c("status", "enum", "`resolved`, `void` or `open` (stated as not yet resolved).", choices=STATUS),
        _c("outcome", "float", "1 or 0 when resolved; empty otherwise.", nullable=True),
        _c("resolved_at", "ts", "When the outcome became known (ForecastBench: the resolution date at 00:00 UTC); empty while open.", nullable=True),
        _c("value", "float", "The latest market probability for a market stated as open (used by the legacy market_proxy policy).", nullable=True),
        _c("payload_sha256", "str", "sha256 of the source row the statement was parsed from (canonical JSON).", nullable=True),
    ),
    key=("round", "question_id", "resolution_date", "recorded_at"),
    sort=("recorded_at", "round", "question_id", "resolution_date"),
    mutability="append-only",
)

ALL_TABLES = (QUESTIONS, OBSERVATIONS, RESOLUTIONS, ROUND_QUESTIONS, FORECASTS, SCORES, HISTORY)
