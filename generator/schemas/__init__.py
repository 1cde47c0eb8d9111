"""Every CSV the hub reads or writes: its columns, types, key and sort order.

The same declarations drive reading (type checks that report file, row and column), writing
(fixed column order, sorted rows, fixed number formats) and the site's Data page.

- ``table``: ``Column`` and ``Table``, what every declaration is made of
- ``oracle``: the Daily Oracle's tables (questions, answers, the news and what was made of it)
- ``maintainer``: the maintainers' ledger (void, correct, exclude)
- ``trust``: the manifest, receipts, seals, the models' recorded metadata and the audit's checkpoints
- this module: every other table, and ``ALL_TABLES``
"""

from __future__ import annotations

from .maintainer import ACTIONS, CORRECT, DECISIONS_TAKEN, EXCLUDE, MAINTAINER_ACTIONS, VOID
from .oracle import (
    FILTER_PRINCIPLES,
    NEWS,
    ORACLE_ANSWER,
    ORACLE_ARTICLES,
    ORACLE_FORECASTS,
    ORACLE_GENERATED,
    ORACLE_KIND,
    ORACLE_QUESTIONS,
)
from .table import TYPES, Column, Table
from .table import col as _c
from .trust import AUDIT_CHECKPOINTS, MANIFEST, MODEL_LOG, RECEIPTS, SEAL_EVIDENCE, SEAL_KINDS, SEAL_STATUS, SEALS

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
        _c(
            "resolution_date",
            "date",
            "For dataset questions: the date the series is compared with its due-date value. Empty for markets.",
            nullable=True,
        ),
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

QUESTION_SETS = Table(
    name="question_sets",
    path="data/rounds/<due>/question_sets.csv",
    description=(
        "The question sets of a round that holds more than one (ForecastBench's 2024-07-21 round has a "
        "human and an LLM set): which units each set asks. A forecast file declaring a set (a JSON file's "
        "`question_set`) is scored, imputed and counted on that set's units only; a file declaring none, "
        "and every file of a round without this file, on the whole round."
    ),
    columns=(
        _c("question_set", "str", "The set's name as ForecastBench names it (e.g. `2024-07-21-human.json`)."),
        _c("question_id", "str", "Question id (a unit of `questions.csv`)."),
        _c("resolution_date", "date", "For dataset questions: the resolution date (horizon). Empty for markets.", nullable=True),
    ),
    key=("question_set", "question_id", "resolution_date"),
    sort=("question_set", "question_id", "resolution_date"),
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

BET_SIDES = ("YES", "NO")
BET_ACTIONS = ("buy", "sell")

BETS = Table(
    name="bets",
    path="data/bets/<due>/<team>.<model>.csv",
    description=(
        "One forecaster's bets in one round (the Arena view): each row buys shares of one side of a market question "
        "at its price at `placed_at`, or sells part of a position the forecaster holds in its cohort. A cohort starts "
        "with $10,000 and carries over its rounds (`[arena] cohort_rounds`); a buy may be at most 25% of the cash "
        "left. Secondary view only: bets are never ranked."
    ),
    columns=(
        _c(
            "question_id",
            "str",
            "A market (binary) question id from the round's question set; for a sale, a market whose position the forecaster holds in its cohort.",
        ),
        _c(
            "placed_at",
            "ts",
            "When the bet was placed (UTC, at or before the round's due time); it is priced at the market "
            "price then, or at the time a receipt, seal or the manifest first attests the file's bytes when "
            "that is later.",
        ),
        _c("action", "enum", "`buy` (also when empty) or `sell`.", nullable=True, choices=BET_ACTIONS),
        _c("side", "enum", "`YES` or `NO`: the side bought, or the side of the position sold.", choices=BET_SIDES),
        _c(
            "amount",
            "float",
            "Dollars: for a buy, the stake (more than 0, at most 25% of the cash left); for a sale, "
            "the part of the position's stake (cost) closed, at most what is held.",
        ),
        _c("reasoning", "str", "Optional free-text rationale.", nullable=True),
    ),
    key=("question_id", "placed_at"),
    sort=("placed_at", "question_id"),
    mutability="immutable after the due time",
    late=("action",),
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
        _c("outcome", "float", "1 or 0 (under `market_proxy`: the market value, for `proxy` rows)."),
        _c("resolved_at", "ts", "When the outcome became known (for `proxy` rows: the time of the market value)."),
        _c("brier", "float", "(probability − outcome)²."),
        _c(
            "proxy",
            "int",
            "1 when an open market was scored against its value of the day before (the `market_proxy` policy; the outcome is that value); empty otherwise.",
            nullable=True,
        ),
    ),
    key=("round", "model", "question_id", "resolution_date"),
    sort=("round", "model", "question_id", "resolution_date"),
    mutability="derived",
)

HISTORY = Table(
    name="history",
    path="data/leaderboard/history.csv",
    description=(
        "One row per night × board × view × model: the headline numbers of every view the Leaderboard shows "
        "(`[leaderboard] views`) as published that night (point estimates; the confidence intervals are on the site). "
        "`prescient leaderboard --as-of --view` reproduces them. Nights recorded before the `view` column existed "
        "hold the overall view only."
    ),
    columns=(
        _c("as_of", "ts", "The nightly run's time."),
        _c(
            "board",
            "str",
            "Board name: `tournament`, `baseline` or `preliminary` (as configured in `[leaderboard] boards`; "
            "a board added later has rows from the night it was added).",
        ),
        _c("model", "str", "`<team>.<model>`"),
        _c("rank", "int", "Rank on the board's view that night (1 = best); empty while provisional.", nullable=True),
        _c("n", "int", "Resolved forecasts scored (dataset + market)."),
        _c("n_dataset", "int", "Resolved dataset forecasts."),
        _c("n_market", "int", "Resolved market forecasts."),
        _c("overall", "float", "Brier Index, overall: 100·(1 − √D) with D = (D_dataset + D_market)/2. Higher is better.", nullable=True),
        _c("dataset", "float", "Brier Index on dataset questions.", nullable=True),
        _c("market", "float", "Brier Index on market questions.", nullable=True),
        _c("brier_overall", "float", "The difficulty-adjusted Brier score D behind `overall` (lower is better).", nullable=True),
        _c("provisional", "int", "1 while the model does not yet meet the stability rule."),
        _c("methodology_version", "str", "Scoring methodology version that produced the row."),
        _c(
            "ledger_digest",
            "str",
            "The night's anchor: the sha256 of the sorted `<path> <sha256>` lines (each ending in a newline) of "
            "every manifest, receipts, seals and model-log file (`data/manifest/*.csv`, `data/receipts/*.csv`, `data/seals/*.csv`, "
            "`data/metadata/models.csv`) as that night's run left them; the same on "
            "every row of the night, and shown on the Changes page. Empty on nights recorded before the column existed.",
            nullable=True,
        ),
        _c(
            "view",
            "str",
            "The Leaderboard view the row belongs to: `overall`, `dataset`, `market` or another configured view "
            "(`[leaderboard] views`). Empty on nights recorded before the column existed, which recorded the overall view only: "
            "read empty as `overall`.",
            nullable=True,
        ),
    ),
    key=("as_of", "board", "view", "model"),
    sort=("as_of", "board", "view", "model"),
    mutability="append-only",
    late=("ledger_digest", "view"),
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
        _c(
            "recorded_at",
            "ts",
            "When the hub learned the statement; boards as of an earlier time ignore it. ForecastBench imports: the import's as_of (FB sets carry no timestamp; import each published snapshot with its own time to replay what FB had published when).",
        ),
        _c("status", "enum", "`resolved`, `void` or `open` (stated as not yet resolved).", choices=STATUS),
        _c("outcome", "float", "1 or 0 when resolved; empty otherwise.", nullable=True),
        _c(
            "resolved_at",
            "ts",
            "When the outcome resolved (ForecastBench: its resolution date at 00:00 UTC, as FB states it, never after recorded_at); empty while open.",
            nullable=True,
        ),
        _c("value", "float", "The latest market probability for a market stated as open (used by the legacy market_proxy policy).", nullable=True),
        _c("payload_sha256", "str", "sha256 of the source row the statement was parsed from (canonical JSON).", nullable=True),
    ),
    key=("round", "question_id", "resolution_date", "recorded_at"),
    sort=("recorded_at", "round", "question_id", "resolution_date"),
    mutability="append-only",
)

ROUND_REVEAL = Table(
    name="round_reveal",
    path="data/rounds/<due>/reveal.csv",
    description=(
        'Present only in a commit–reveal round (`[rounds] secrecy = "commit-reveal"` when it opened): the end of its '
        "reveal window, frozen with the round. Before the due time teams submit only a commitment; the forecast file and "
        "its salt are revealed after it, until `reveal_by`."
    ),
    columns=(_c("reveal_by", "ts", "The end of the reveal window (UTC)."),),
    key=("reveal_by",),
    sort=("reveal_by",),
    mutability="frozen once published",
)

ALL_TABLES = (
    QUESTIONS,
    OBSERVATIONS,
    RESOLUTIONS,
    ROUND_QUESTIONS,
    QUESTION_SETS,
    ROUND_REVEAL,
    FORECASTS,
    BETS,
    SCORES,
    HISTORY,
    ORACLE_QUESTIONS,
    ORACLE_FORECASTS,
    NEWS,
    ORACLE_ARTICLES,
    ORACLE_GENERATED,
    MANIFEST,
    RECEIPTS,
    SEALS,
    MODEL_LOG,
    MAINTAINER_ACTIONS,
    DECISIONS_TAKEN,
    AUDIT_CHECKPOINTS,
)

__all__ = [
    "ACTIONS",
    "ALL_TABLES",
    "AUDIT_CHECKPOINTS",
    "BETS",
    "BET_SIDES",
    "CORRECT",
    "DECISIONS_TAKEN",
    "EXCLUDE",
    "Column",
    "FILTER_PRINCIPLES",
    "FORECASTS",
    "HISTORY",
    "KIND",
    "MAINTAINER_ACTIONS",
    "MANIFEST",
    "MODEL_LOG",
    "NEWS",
    "OBSERVATIONS",
    "ORACLE_ANSWER",
    "ORACLE_ARTICLES",
    "ORACLE_FORECASTS",
    "ORACLE_GENERATED",
    "ORACLE_KIND",
    "ORACLE_QUESTIONS",
    "QUESTIONS",
    "QUESTION_SETS",
    "RECEIPTS",
    "RESOLUTIONS",
    "ROUND_QUESTIONS",
    "ROUND_REVEAL",
    "SCORES",
    "SEALS",
    "SEAL_EVIDENCE",
    "SEAL_KINDS",
    "SEAL_STATUS",
    "STATUS",
    "TYPES",
    "VOID",
    "Table",
]
