"""Every CSV the hub reads or writes: its columns, types, key and sort order.

The same declarations drive reading (type checks that report file, row and column), writing
(fixed column order, sorted rows, fixed number formats) and the site's Data page.

- ``table``: ``Column`` and ``Table``, what every declaration is made of
- ``oracle``: the Daily Oracle's tables (questions, answers, the news and what was made of it)
- ``maintainer``: the maintainers' ledger (void, correct, exclude)
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
        _c("question_id", "str", "A market (binary) question id from the round's question set; for a sale, a market "
                                 "whose position the forecaster holds in its cohort."),
        _c("placed_at", "ts", "When the bet was placed (UTC, at or before the round's due time); it is priced at the market "
                              "price then, or at the time a receipt, seal or the manifest first attests the file's bytes when "
                              "that is later."),
        _c("action", "enum", "`buy` (also when empty) or `sell`.", nullable=True, choices=BET_ACTIONS),
        _c("side", "enum", "`YES` or `NO`: the side bought, or the side of the position sold.", choices=BET_SIDES),
        _c("amount", "float", "Dollars: for a buy, the stake (more than 0, at most 25% of the cash left); for a sale, "
                              "the part of the position's stake (cost) closed, at most what is held."),
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
        _c("proxy", "int", "1 when an open market was scored against its value of the day before (the `market_proxy` policy; the outcome is that value); empty otherwise.", nullable=True),
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
        _c("board", "str", "Board name: `tournament`, `baseline` or `preliminary` (as configured in `[leaderboard] boards`; "
           "a board added later has rows from the night it was added)."),
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
        _c("ledger_digest", "str", "The night's anchor: the sha256 of the sorted `<path> <sha256>` lines (each ending in a newline) of "
           "every manifest, receipts, seals and model-log file (`data/manifest/*.csv`, `data/receipts/*.csv`, `data/seals/*.csv`, "
           "`data/metadata/models.csv`) as that night's run left them; the same on "
           "every row of the night, and shown on the Changes page. Empty on nights recorded before the column existed.", nullable=True),
        _c("view", "str", "The Leaderboard view the row belongs to: `overall`, `dataset`, `market` or another configured view "
           "(`[leaderboard] views`). Empty on nights recorded before the column existed, which recorded the overall view only: "
           "read empty as `overall`.", nullable=True),
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
        _c("recorded_at", "ts", "When the hub learned the statement; boards as of an earlier time ignore it. ForecastBench imports: the import's as_of (FB sets carry no timestamp; import each published snapshot with its own time to replay what FB had published when)."),
        _c("status", "enum", "`resolved`, `void` or `open` (stated as not yet resolved).", choices=STATUS),
        _c("outcome", "float", "1 or 0 when resolved; empty otherwise.", nullable=True),
        _c("resolved_at", "ts", "When the outcome resolved (ForecastBench: its resolution date at 00:00 UTC, as FB states it, never after recorded_at); empty while open.", nullable=True),
        _c("value", "float", "The latest market probability for a market stated as open (used by the legacy market_proxy policy).", nullable=True),
        _c("payload_sha256", "str", "sha256 of the source row the statement was parsed from (canonical JSON).", nullable=True),
    ),
    key=("round", "question_id", "resolution_date", "recorded_at"),
    sort=("recorded_at", "round", "question_id", "resolution_date"),
    mutability="append-only",
)

MANIFEST = Table(
    name="manifest",
    path="data/manifest/<YYYY>.csv",
    description=(
        "The manifest: the sha256 of every submitted file of a round (forecast, bet and commitment files) a nightly run "
        "found, recorded the first time a run saw that exact content, partitioned by the year it was recorded. A run that "
        "saw a new set of files also adds one row with path `*`: the sha256 of the sorted `<path> <sha256>` lines of "
        "every such file present, one hash ready for an external timestamping service. "
        "It is the hub's own record that a file existed before its round's due time (the seals use it where no receipt does)."
    ),
    columns=(
        _c("recorded_at", "ts", "The nightly run that first saw this content (its as_of)."),
        _c("path", "str", "The file's path relative to the hub root, or `*` for the run's root hash."),
        _c("sha256", "str", "sha256 of the file's bytes (for `*`: of the sorted `<path> <sha256>` lines, each ending in a newline)."),
    ),
    key=("path", "sha256"),
    sort=("recorded_at", "path", "sha256"),
    mutability="append-only",
)

RECEIPTS = Table(
    name="receipts",
    path="data/receipts/<YYYY-MM>.csv",
    description=(
        "Receipts: when GitHub attests that a pull request's head commit, holding these exact bytes at this path, "
        "had been pushed. One row per head commit × submitted forecast or bet file, written by the trusted "
        "`receipts` workflow after each validation run (or by the nightly's catch-up), partitioned by the month "
        "it was recorded. A file counts at the earliest `attested_at` of a row with its path and blob."
    ),
    columns=(
        _c("recorded_at", "ts", "When the hub wrote this row (the receipts command's as_of)."),
        _c("attested_at", "ts", "The creation time GitHub reports for the pull-request workflow run on `head_sha` (set by GitHub, not by the submitter)."),
        _c("path", "str", "The forecast, bet or commitment file's path relative to the hub root (or `data/maintainer/actions.csv`, "
           "the maintainers' ledger, in a pull request by a hub maintainer)."),
        _c("blob", "str", "The git blob id of the file at `head_sha` (`git hash-object` of its bytes)."),
        _c("head_sha", "str", "The pull request's head commit that the run was created for."),
        _c("pr", "int", "The pull request's number."),
        _c("run_id", "int", "The GitHub Actions run whose creation time is `attested_at` (look it up: `/actions/runs/<run_id>`)."),
        _c("verdict", "str", "The run's conclusion as GitHub reports it (`success`, `failure`, ...; `pending` while it runs; "
           "`head-unavailable` on a row with path `*`: the run's head commit could not be read, so which files it held is unknown). "
           "Informative only: the time is the proof."),
        _c("author", "str", "The account whose push created the run (GitHub's run `actor`; before 0.14, the pull request's author), "
           "whose right to submit for the file's model was checked against the default branch as it stood when the run was "
           "created. Empty on rows written before the column existed.", nullable=True),
    ),
    key=("head_sha", "path"),
    sort=("recorded_at", "head_sha", "path"),
    mutability="append-only",
    late=("author",),
)

SEAL_KINDS = ("forecast", "bets", "commitment", "reveal")
SEAL_STATUS = ("sealed", "invalid", "unavailable", "unproven", "revealed", "not-revealed")
SEAL_EVIDENCE = ("receipt", "manifest", "git", "import", "legacy", "none")

SEALS = Table(
    name="seals",
    path="data/seals/<YYYY>.csv",
    description=(
        "The seals: which exact bytes count for each model in each round, fixed by the first nightly run after the "
        "round's due time and never changed (partitioned by the year of the due date). The version sealed is the last one "
        "attested before the due time: by a receipt (GitHub's time of a pull-request push) when there is one for that model "
        "and round, else by the hub's own records (the manifest, or the first-parent git history). The nightly then makes "
        "the file in `data/forecasts/` (or `data/bets/`) equal the sealed bytes; a file that does not match its seal is never "
        "scored. In a commit–reveal round the commitment is sealed at the due time, and the reveal at the end of the reveal "
        "window (kind `reveal`). The Methodology page explains the rule and what it proves."
    ),
    columns=(
        _c("due", "date", "The round's due date."),
        _c("model", "str", "`<team>.<model>`"),
        _c("kind", "enum", "`forecast`, `bets`, `commitment` (a commit–reveal round's sha256 commitment) or `reveal` (whether the "
           "revealed file matched its commitment by the end of the reveal window).", choices=SEAL_KINDS),
        _c("status", "enum", "`sealed` (these bytes count), `invalid` (the last version fails validation: nothing counts), "
           "`unavailable` (the last version's bytes could not be read: nothing counts), `unproven` (a file with no record "
           "before the due time: nothing counts), `revealed` or `not-revealed`.", choices=SEAL_STATUS),
        _c("path", "str", "The sealed file's path relative to the hub root.", nullable=True),
        _c("blob", "str", "The git blob id of the sealed bytes (`git hash-object`).", nullable=True),
        _c("sha256", "str", "sha256 of the sealed bytes.", nullable=True),
        _c("attested_at", "ts", "The time of the evidence that these bytes existed: the receipt's `attested_at`, the manifest's "
           "`recorded_at` or the commit's date; bets are priced no earlier than this.", nullable=True),
        _c("evidence", "enum", "`receipt`, `manifest`, `git`, `import` (written by `prescient import` for a past round), "
           "`legacy` (a round a hub had scored before it sealed rounds, whose file has no record before the due time: kept as "
           "it was) or `none`.", choices=SEAL_EVIDENCE),
        _c("run_id", "int", "The receipt's workflow run (evidence `receipt`).", nullable=True),
        _c("head_sha", "str", "The receipt's head commit, or the commit that first held these bytes (evidence `git`).", nullable=True),
        _c("versions", "int", "How many distinct versions of this model's file were attested before the due time (the last counts)."),
        _c("sealed_at", "ts", "The run that wrote the seal (its as_of)."),
        _c("detail", "str", "Why nothing counts (status other than `sealed`/`revealed`), in a sentence.", nullable=True),
    ),
    key=("due", "model", "kind"),
    sort=("due", "model", "kind"),
    mutability="append-only",
)

MODEL_LOG = Table(
    name="model_log",
    path="data/metadata/models.csv",
    description=(
        "The scoring-relevant metadata of every model as the nightly runs recorded it: a row each time a run finds a "
        "model's `kind`, `saw_crowd`, `release_date`, `knowledge_cutoff` or `ran_by` different from its last row. A night's boards use "
        "the values recorded at or before that night (a model's earliest row for nights before it), so a later edit of a "
        "model file never changes a past night's board."
    ),
    columns=(
        _c("recorded_at", "ts", "The nightly run that recorded these values (its as_of)."),
        _c("model", "str", "`<team>.<model>`"),
        _c("kind", "str", "The model's `kind`."),
        _c("saw_crowd", "int", "1 when the model saw the market value (`saw_crowd: true`)."),
        _c("release_date", "str", "The model's `release_date`, or empty.", nullable=True),
        _c("knowledge_cutoff", "str", "The model's `knowledge_cutoff`, or empty.", nullable=True),
        _c("ran_by", "str", "The model's `ran_by` (`forecastbench` or `team`: who ran it; the estimation sample follows it), or "
           "empty. Absent from logs written before the column existed: read as empty.", nullable=True),
    ),
    key=("model", "recorded_at"),
    sort=("recorded_at", "model"),
    mutability="append-only",
    late=("ran_by",),
)

AUDIT_CHECKPOINTS = Table(
    name="audit_checkpoints",
    path="data/metadata/checkpoints.csv",
    description=(
        "The audit's checkpoints: a row each time the nightly's full `prescient verify --git --full` found no error in the "
        "history up to a commit of the default branch, written by the hub's own run and committed after that commit. A "
        "pull request's `verify --git` starts from the newest one it can check (the commit is on the first-parent line, "
        "its `data/` tree and date are these, the row was added by a later non-merge commit of the hub's bot, with this "
        "audit version) and reads only the commits after it; any other row is ignored and the whole history is walked."
    ),
    columns=(
        _c("recorded_at", "ts", "The run that audited the history and wrote the row: the as_of its recompute was made at "
           "(a pull request's recompute compares the rounds' resolutions now with theirs at this time)."),
        _c("commit", "str", "The audited commit (full sha): every commit up to it on its first-parent line was checked."),
        _c("committed_at", "ts", "The audited commit's committer date, the latest on the first-parent line up to it."),
        _c("data_tree", "str", "The git tree id of `data/` in the audited commit: what the checkpoint vouches for."),
        _c("commits", "int", "How many commits touching `data/` the full audit read, up to and including the audited commit."),
        _c("warnings", "int", "How many warnings the full audit reported (a checkpoint is written only when it found no error)."),
        _c("audit_version", "int", "The version of the audit's rules (`audit.checkpoint.AUDIT_VERSION`): a checkpoint of other "
           "rules is ignored, so a new rule is applied to the whole history once."),
        _c("code", "str", "The sha256 of the Python sources of the `prescient` that recomputed the audited commit's derived "
           "files and found them equal (`store.cache.disk.code_digest`). A pull request's `verify --git` takes the rounds and "
           "nights its changes cannot affect from the checkpoint only when its own code is this one; empty in rows written "
           "before the column, which are trusted for the git walk but not for the recompute.", nullable=True),
    ),
    key=("commit",),
    sort=("recorded_at", "commit"),
    mutability="append-only",
    late=("code",),
)

ROUND_REVEAL = Table(
    name="round_reveal",
    path="data/rounds/<due>/reveal.csv",
    description=(
        "Present only in a commit–reveal round (`[rounds] secrecy = \"commit-reveal\"` when it opened): the end of its "
        "reveal window, frozen with the round. Before the due time teams submit only a commitment; the forecast file and "
        "its salt are revealed after it, until `reveal_by`."
    ),
    columns=(
        _c("reveal_by", "ts", "The end of the reveal window (UTC)."),
    ),
    key=("reveal_by",),
    sort=("reveal_by",),
    mutability="frozen once published",
)

ALL_TABLES = (QUESTIONS, OBSERVATIONS, RESOLUTIONS, ROUND_QUESTIONS, QUESTION_SETS, ROUND_REVEAL, FORECASTS, BETS, SCORES,
              HISTORY, ORACLE_QUESTIONS, ORACLE_FORECASTS, NEWS, ORACLE_ARTICLES, ORACLE_GENERATED, MANIFEST, RECEIPTS, SEALS,
              MODEL_LOG, MAINTAINER_ACTIONS, DECISIONS_TAKEN, AUDIT_CHECKPOINTS)

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
