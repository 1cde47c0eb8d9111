"""The trust tables: what a nightly recorded about when each submitted file existed and which version
counts (the manifest, the validation runs' receipts, the seals), the models' scoring metadata as the
nights saw it, and the audit's checkpoints."""

from __future__ import annotations

from .table import Table
from .table import col as _c

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
        _c(
            "attested_at",
            "ts",
            "The creation time GitHub reports for the pull-request workflow run on `head_sha` (set by GitHub, not by the submitter).",
        ),
        _c(
            "path",
            "str",
            "The forecast, bet or commitment file's path relative to the hub root (or `data/maintainer/actions.csv`, "
            "the maintainers' ledger, in a pull request by a hub maintainer).",
        ),
        _c("blob", "str", "The git blob id of the file at `head_sha` (`git hash-object` of its bytes)."),
        _c("head_sha", "str", "The pull request's head commit that the run was created for."),
        _c("pr", "int", "The pull request's number."),
        _c("run_id", "int", "The GitHub Actions run whose creation time is `attested_at` (look it up: `/actions/runs/<run_id>`)."),
        _c(
            "verdict",
            "str",
            "The run's conclusion as GitHub reports it (`success`, `failure`, ...; `pending` while it runs; "
            "`head-unavailable` on a row with path `*`: the run's head commit could not be read, so which files it held is unknown). "
            "Informative only: the time is the proof.",
        ),
        _c(
            "author",
            "str",
            "The account whose push created the run (GitHub's run `actor`; before 0.14, the pull request's author), "
            "whose right to submit for the file's model was checked against the default branch as it stood when the run was "
            "created. Empty on rows written before the column existed.",
            nullable=True,
        ),
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
        _c(
            "kind",
            "enum",
            "`forecast`, `bets`, `commitment` (a commit–reveal round's sha256 commitment) or `reveal` (whether the "
            "revealed file matched its commitment by the end of the reveal window).",
            choices=SEAL_KINDS,
        ),
        _c(
            "status",
            "enum",
            "`sealed` (these bytes count), `invalid` (the last version fails validation: nothing counts), "
            "`unavailable` (the last version's bytes could not be read: nothing counts), `unproven` (a file with no record "
            "before the due time: nothing counts), `revealed` or `not-revealed`.",
            choices=SEAL_STATUS,
        ),
        _c("path", "str", "The sealed file's path relative to the hub root.", nullable=True),
        _c("blob", "str", "The git blob id of the sealed bytes (`git hash-object`).", nullable=True),
        _c("sha256", "str", "sha256 of the sealed bytes.", nullable=True),
        _c(
            "attested_at",
            "ts",
            "The time of the evidence that these bytes existed: the receipt's `attested_at`, the manifest's "
            "`recorded_at` or the commit's date; bets are priced no earlier than this.",
            nullable=True,
        ),
        _c(
            "evidence",
            "enum",
            "`receipt`, `manifest`, `git`, `import` (written by `prescient import` for a past round), "
            "`legacy` (a round a hub had scored before it sealed rounds, whose file has no record before the due time: kept as "
            "it was) or `none`.",
            choices=SEAL_EVIDENCE,
        ),
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
        _c(
            "ran_by",
            "str",
            "The model's `ran_by` (`forecastbench` or `team`: who ran it; the estimation sample follows it), or "
            "empty. Absent from logs written before the column existed: read as empty.",
            nullable=True,
        ),
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
        _c(
            "recorded_at",
            "ts",
            "The run that audited the history and wrote the row: the as_of its recompute was made at "
            "(a pull request's recompute compares the rounds' resolutions now with theirs at this time).",
        ),
        _c("commit", "str", "The audited commit (full sha): every commit up to it on its first-parent line was checked."),
        _c("committed_at", "ts", "The audited commit's committer date, the latest on the first-parent line up to it."),
        _c("data_tree", "str", "The git tree id of `data/` in the audited commit: what the checkpoint vouches for."),
        _c("commits", "int", "How many commits touching `data/` the full audit read, up to and including the audited commit."),
        _c("warnings", "int", "How many warnings the full audit reported (a checkpoint is written only when it found no error)."),
        _c(
            "audit_version",
            "int",
            "The version of the audit's rules (`audit.checkpoint.AUDIT_VERSION`): a checkpoint of other "
            "rules is ignored, so a new rule is applied to the whole history once.",
        ),
        _c(
            "code",
            "str",
            "The sha256 of the Python sources of the `prescient` that recomputed the audited commit's derived "
            "files and found them equal (`store.cache.disk.code_digest`). A pull request's `verify --git` takes the rounds and "
            "nights its changes cannot affect from the checkpoint only when its own code is this one; empty in rows written "
            "before the column, which are trusted for the git walk but not for the recompute.",
            nullable=True,
        ),
    ),
    key=("commit",),
    sort=("recorded_at", "commit"),
    mutability="append-only",
    late=("code",),
)
