"""The registry of problem codes: each stable kebab-case code, its severity and one sentence.

``CODES`` holds the submission checks' codes: every problem they report is made through
``problem()``, so a code that is not registered there cannot be reported, and the Submit page's
table is checked against it (tests/submissions/test_validate_docs.py). ``OTHER_CODES`` holds, by group, the
codes the rest of the package reports (hub.toml, the ledgers and files, sources, the audit,
imports); the Data page's "Problem codes" table is generated from it. tests/foundations/test_codes.py reads
every module and holds each code written in a ``Problem(...)`` (or passed on as one) to this
registry.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import Problem

ERROR, WARNING = "error", "warning"


@dataclass(frozen=True)
class Code:
    severity: str
    meaning: str


CODES: dict[str, Code] = {
    # where the file is and what it is called
    "unsafe-path": Code(ERROR, "The path is absolute, contains `..`, a backslash or a control character."),
    "outside-submission-area": Code(
        ERROR,
        "A submission may only change files under `data/forecasts/`, `data/bets/`, `data/commitments/`, `data/oracle/<set>/forecasts/` and `data/models/`.",
    ),
    "hub-ledger": Code(
        ERROR,
        "The sources' records, rounds, scores, history, manifest, receipts, seals, checkpoints, news, run logs (`data/llm/`) and the hub's own forecasters' files (`<own_prefix>.*`, `[hub] own_prefix`) are written only by the hub's own runs; no pull request may add, change or delete them.",
    ),
    "bad-round-folder": Code(ERROR, "A forecast file must sit in `data/forecasts/<due date as YYYY-MM-DD>/`."),
    "bad-file-name": Code(ERROR, "The file name is not `<team>.<model>` in lower-case letters, digits and dashes."),
    "bad-extension": Code(ERROR, "Forecast files end in `.csv` or `.json`, model metadata files in `.yml`."),
    "not-a-regular-file": Code(ERROR, "The path is a symbolic link, a submodule or a folder, not a plain file."),
    "file-not-found": Code(ERROR, "The file to validate does not exist."),
    "duplicate-submission": Code(ERROR, "The model has both a `.csv` and a `.json` file for the same round; keep one."),
    # the round
    "unknown-round": Code(ERROR, "No round with this due date has been published in `data/rounds/`."),
    "round-closed": Code(ERROR, "The round's due time (UTC) had passed at the time the submission was checked."),
    "past-round-changed": Code(
        ERROR,
        "A forecast file of a round whose due time has passed was edited, renamed or deleted, and the result is not the version sealed at the due time.",
    ),
    "not-the-sealed-version": Code(
        ERROR, "A file of a round past its due time differs from the version that counts: the last one attested before the due time (its seal)."
    ),
    "sealed-round": Code(
        WARNING, "The round's due time has passed: the version that counts was fixed then (the last one pushed before it), whatever is merged now."
    ),
    # commit–reveal rounds (data/commitments/<due>/)
    "bad-commitment": Code(
        ERROR,
        "A commitment file is not one line `prescient-commit-v2 <64 hex digits>` (the first format, 64 hex digits alone, names no model and is refused), or a salt file not one line of 32 to 128 hex digits.",
    ),
    "commitment-required": Code(
        ERROR, "In a commit–reveal round only a commitment may be submitted before the due time; the forecast file is revealed after it."
    ),
    "not-commit-reveal": Code(ERROR, "A commitment or salt file was submitted for a round that is not a commit–reveal round."),
    "reveal-window-closed": Code(ERROR, "The round's reveal window has closed: a forecast revealed now never counts."),
    "reveal-without-commitment": Code(ERROR, "No commitment was sealed for this model at the round's due time, so nothing can be revealed."),
    "reveal-mismatch": Code(
        ERROR,
        "The revealed forecast file and its salt do not open the commitment that counts (sealed at the due time, or before the seal the last one the receipts attest), under this model, round and hub (or the salt file is missing).",
    ),
    "reveal-unchecked": Code(
        WARNING,
        "The commitment that counts for this model is a version whose bytes the check cannot read yet (a pull request's head not fetched): the reveal seal compares the file with it at the end of the window.",
    ),
    "commitment-copied": Code(
        ERROR,
        "The commitment equals another model's commitment of the round: a commitment names its model, so a copy can never be revealed; commit to your own file.",
    ),
    # bytes, encoding and syntax
    "file-too-large": Code(ERROR, "The file is larger than the size cap."),
    "too-many-files": Code(
        ERROR, "The pull request changes more than 100 files, so none of them was checked; a submission changes one model's files."
    ),
    "too-many-problems": Code(ERROR, "The file has more than 200 problems: the first 200 are listed and this one counts the rest."),
    "too-many-warnings": Code(WARNING, "The file has more than 200 warnings: the first 200 are listed and this one counts the rest."),
    "empty-file": Code(ERROR, "The file is empty or has no header row."),
    "not-utf8": Code(ERROR, "The file is not valid UTF-8 text."),
    "utf8-bom": Code(WARNING, "The file starts with a UTF-8 byte-order mark (a spreadsheet's); it is read without it, and never rewritten."),
    "crlf-line-endings": Code(
        WARNING,
        "The CSV has a carriage return that ends no CRLF pair (old Mac line endings, or endings mixed); it is read as a line end, and the file is never rewritten (CRLF throughout, as Python's `csv` and spreadsheets write, is fine).",
    ),
    "wrong-format": Code(
        ERROR, "The file's content is the other format: JSON in a `.csv` file or a CSV in a `.json` file; rename it, nothing else is checked."
    ),
    "bad-csv": Code(ERROR, "The CSV cannot be parsed (for example an unclosed quote or a NUL byte)."),
    "wrong-separator": Code(
        ERROR, "The CSV's fields are separated by semicolons, tabs or vertical bars, not commas (a spreadsheet's setting); nothing else is checked."
    ),
    "wrong-field-count": Code(ERROR, "A CSV row has more or fewer fields than the header."),
    "bad-json": Code(ERROR, "The JSON cannot be parsed or is not a ForecastBench forecast set."),
    "missing-field": Code(ERROR, "A required field is missing (JSON forecast item or model metadata)."),
    "question-set-mismatch": Code(
        ERROR,
        "The file answers another question set: the JSON's `question_set` names none of this round's sets, or most of its rows (at least 10) name questions the round does not have; the message names the set to take.",
    ),
    "null-forecast": Code(
        WARNING, 'A JSON forecast is `null` (ForecastBench\'s "no forecast"): the row is skipped and the question scored as missing (0.5).'
    ),
    # columns and values
    "missing-column": Code(ERROR, "A required column is missing from the header."),
    "unknown-column": Code(ERROR, "The header has a column that the forecast file format does not define."),
    "duplicate-column": Code(ERROR, "The header names the same column twice."),
    "empty-value": Code(ERROR, "A required cell is empty."),
    "probability-not-a-number": Code(ERROR, "The probability is not a plain decimal number (use a dot: `0.5`, not `0,5`)."),
    "probability-not-finite": Code(ERROR, "The probability is NaN or infinite."),
    "probability-out-of-range": Code(
        ERROR, "The probability is below 0 or above 1; a file written in percentages (most numbers from 1 to 100) is told once to divide by 100."
    ),
    "probability-as-text": Code(ERROR, 'A JSON forecast is a string (`"0.7"`), not a number; write it without quotes.'),
    "unreadable-cell": Code(
        ERROR,
        "The hub's reader (the nightly and the site build) cannot read the cell as its column's type, for example a number with a no-break space or non-ASCII digits.",
    ),
    "bad-date": Code(ERROR, "The resolution date is not a real date written as YYYY-MM-DD."),
    # the rows against the round's question set
    "unknown-question": Code(ERROR, "The question id is not in the round's question set."),
    "missing-resolution-date": Code(ERROR, "A dataset question needs one row per resolution date, and this row has none."),
    "unknown-resolution-date": Code(ERROR, "The resolution date is not one of this question's resolution dates in the round."),
    "market-resolution-date": Code(WARNING, "Market questions take no resolution date; the one given is ignored (as ForecastBench ignores it)."),
    "duplicate-forecast": Code(ERROR, "The same question and resolution date appear in more than one row."),
    "no-forecasts": Code(ERROR, "The file has a header but no forecast rows."),
    "low-coverage": Code(
        WARNING,
        "The file covers less than 95% of the round; missing forecasts are scored as 0.5 (where the hub's imputation line is looser than 5%).",
    ),
    "too-many-missing": Code(
        ERROR,
        "More of the round's questions × resolution dates have no probability (left out, empty, null or refused) than the hub's imputation line (`[scoring] max_imputed_share`, 5% unless the hub sets it): such a file is never ranked, so fill it in.",
    ),
    "formula-like-text": Code(
        WARNING,
        "A reasoning cell or a model metadata text starts with `=`, `+`, `-`, `@`, a tab or a carriage return, so a spreadsheet may run it as a formula.",
    ),
    # Arena bet files (data/bets/<due>/<team>.<model>.csv)
    "bad-bet-time": Code(ERROR, "The bet's `placed_at` is not a UTC timestamp written as YYYY-MM-DDTHH:MM:SSZ."),
    "bet-after-due": Code(ERROR, "The bet's `placed_at` is after the round's due time."),
    "bad-bet-side": Code(ERROR, "The bet's side is not `YES` or `NO`."),
    "bad-bet-amount": Code(ERROR, "The bet's amount is not a finite number greater than 0."),
    "bet-not-market": Code(ERROR, "Only market (binary) questions of the round can be bet on."),
    "bet-over-limit": Code(
        ERROR,
        "The bet is more than 25% of the cash left at its `placed_at` (bets replayed in time order, from the cash the cohort carries into the round).",
    ),
    "bad-bet-action": Code(ERROR, "The bet's action is not `buy` or `sell` (empty means `buy`)."),
    "sell-not-held": Code(ERROR, "A sale names a market and side in which the forecaster holds no position in its cohort at that time."),
    "sell-over-held": Code(ERROR, "A sale closes more than the stake the forecaster holds in that market and side at that time."),
    "duplicate-bet": Code(ERROR, "The same question and `placed_at` appear in more than one bet row."),
    # oracle question sets (data/oracle/<set>/forecasts/)
    "bad-oracle-folder": Code(
        ERROR, "An oracle forecast file must sit in `data/oracle/<set>/forecasts/`, the set named in lower-case letters, digits and dashes."
    ),
    "unknown-oracle-set": Code(ERROR, "No oracle question set with this name has been imported into `data/oracle/`."),
    "option-not-offered": Code(ERROR, "The row gives a probability for option C or D of a true/false question."),
    "probabilities-not-summing": Code(ERROR, "The option probabilities of a row that is not a refusal do not sum to 1 (within 1e-6)."),
    # model metadata and who may submit
    "missing-model-metadata": Code(ERROR, "There is no `data/models/<team>.<model>.yml` for this model."),
    "bad-yaml": Code(ERROR, "The model metadata is not valid YAML or not a mapping of fields."),
    "bad-model-id": Code(ERROR, "The model id in the metadata file name is not `<team>.<model>`."),
    "unknown-field": Code(ERROR, "The model metadata has a field that is not defined."),
    "bad-value": Code(ERROR, "A model metadata field has a value that is not allowed."),
    "control-character": Code(
        ERROR,
        "Model metadata text contains a control character or a bidirectional override (U+202A to U+202E, U+2066 to U+2069) that can disguise how it reads.",
    ),
    "invisible-character": Code(
        WARNING, "Model metadata text contains a zero-width character (U+200B to U+200D, U+2060, U+FEFF) that can make one name look like another."
    ),
    "metadata-deleted": Code(ERROR, "Model metadata may not be deleted or renamed by a submission."),
    "new-model": Code(WARNING, "The pull request registers a new model; a hub maintainer reviews it before merging."),
    "not-a-maintainer": Code(ERROR, "The pull request's author is not in the model's `maintainers` list."),
    "multiple-models": Code(ERROR, "A pull request may change the files of one model only."),
    "bad-maintainer": Code(
        ERROR, "An entry of `maintainers` is not a GitHub login (1 to 39 ASCII letters, digits and single hyphens, no hyphen first or last)."
    ),
    "reserved-prefix": Code(
        ERROR,
        "The hub's own team prefix (`[hub] own_prefix`, `prescient` unless set) belongs to its own forecasters; no pull request may add, edit or delete their files.",
    ),
    "reserved-kind": Code(ERROR, "The kind `baseline` belongs to the hub's own forecasters; no pull request may register or edit such a model."),
    "team-prefix-taken": Code(ERROR, "A new model uses the team prefix of existing models, and the pull request's author maintains none of them."),
    "scoring-metadata-changed": Code(
        ERROR,
        "A model's `kind`, `saw_crowd`, `release_date`, `knowledge_cutoff` or `ran_by` changes what boards count, so only a hub maintainer (`[hub] maintainers`) may change them.",
    ),
    # the maintainers' ledger (prescient void, correct, exclude)
    "action-malformed": Code(
        ERROR, "The maintainers' ledger (`data/maintainer/actions.csv`) does not read as its schema: a column, a type or a duplicate key."
    ),
    "action-rewritten": Code(ERROR, "A row of the maintainers' ledger was changed or deleted, or the ledger removed; it is append-only."),
    "action-not-maintainer": Code(
        ERROR, "A row of the maintainers' ledger was added by someone not in `[hub] maintainers`, or its `by` is not the pull request's author."
    ),
    "action-no-reason": Code(ERROR, "A row of the maintainers' ledger gives no reason."),
    "action-unknown-target": Code(ERROR, "A void or correction names no known question, or an exclusion no model with metadata."),
    "action-bad-outcome": Code(
        ERROR,
        "A correction lacks an outcome in [0, 1] or its resolved_at (or a dataset question its resolution date), or a void or exclusion carries one.",
    ),
    "action-backdated": Code(
        ERROR,
        "A maintainer's decision takes effect before it was recorded, or at or before a night the history already recorded: it would change a past night.",
    ),
    "author-unchecked": Code(
        WARNING,
        "Checking files on disk cannot know who will open the pull request: the rules on the author (maintainers, team prefix) are checked on the pull request.",
    ),
}


# The codes reported outside the submission checks, by group: group -> {code: Code}. A code of the
# submission table reused with the same meaning (``not-utf8``, ``bad-csv``) is not repeated here.
OTHER_CODES: dict[str, dict[str, Code]] = {
    "Configuration (`data/hub.toml`)": {
        "toml-syntax": Code(ERROR, "`data/hub.toml` is not valid TOML; the problem names the line."),
        "unknown-table": Code(ERROR, "`data/hub.toml` has a table the hub does not define."),
        "unknown-key": Code(ERROR, "A table of `data/hub.toml` has a key the hub does not define."),
        "missing-key": Code(ERROR, "A required key is missing (`[rounds] first_due`; in a ForecastBench file, a required key)."),
        "wrong-type": Code(ERROR, "A value has the wrong type, for example text where a number belongs."),
        "unknown-source": Code(ERROR, "A source is not one the hub knows (`[sources.<name>]`, or a ForecastBench question's `source`)."),
        "bad-timestamp": Code(
            ERROR, "A time in `data/hub.toml` (`[rounds] first_due`, `[sources.sim] start`) is not a UTC timestamp written as YYYY-MM-DDTHH:MM:SSZ."
        ),
        "bad-value": Code(ERROR, "A value is out of its range or not one of those allowed; the problem names the key and what is expected."),
        "own-prefix-changed": Code(
            ERROR,
            "`[hub] own_prefix` names another prefix than the one the hub's own forecasters' files were written under (its first nightly's): the prefix is fixed once it counts, so a change cannot make the hub's files a team's or a team's the hub's; put the old value back.",
        ),
        "due-not-midnight": Code(
            ERROR,
            "A round's due time (`[rounds] first_due`, `round open --due`) is not 00:00 UTC: a round has one due time, the date its folder is named by at 00:00:00Z, read alike by validation, the seals and the git audit.",
        ),
        "not-a-hub": Code(
            ERROR,
            "`--hub` names a folder that holds neither `data/hub.toml` nor `data/`: a hub is a folder whose `data/hub.toml` holds its settings, its ledgers beside it under `data/` (`prescient init` and `prescient demo` create one).",
        ),
        "codeowners-stale": Code(
            ERROR,
            "`.github/CODEOWNERS` does not give every path to the `[hub] maintainers` of `data/hub.toml`; `python .github/codeowners.py` rewrites it.",
        ),
        "hub-files-version": Code(
            WARNING,
            "The hub's workflows, `.ci/run` and site skeleton (`.github/prescient-hub.json`) were written by another version of Prescient than the one running: `prescient init --upgrade .` refreshes them (until then the site is built with the older skeleton's script and styles).",
        ),
        "receipts-mismatch": Code(
            WARNING,
            '`[hub] receipts` disagrees with the workflows the hub holds: GitHub\'s `validate.yml` and `nightly.yml` with `receipts = "ledger"` (the seals never read the pull requests\' validation runs, so a pull request checked before the due time and merged after it does not count), or `receipts = "github"` without them; `prescient check-config` says which to set.',
        ),
    },
    "Ledgers and data files": {
        "ledger-conflict": Code(ERROR, "An append would change a row already recorded under the same key: history is never rewritten."),
        "as-of-before-ledger": Code(ERROR, "`--as-of` is earlier than the latest time the ledgers record; time never runs backwards in a ledger."),
        "duplicate-key": Code(ERROR, "Two rows of a file have the same key."),
        "write-read-back": Code(ERROR, "A file just written does not read back as the values meant."),
        "os-error": Code(ERROR, "The operating system refused a read or write (disk full, read-only, permission); nothing was half-written."),
    },
    "Sources (`prescient nightly`, `prescient fetch`)": {
        "source-failed": Code(ERROR, "A source could not be fetched or parsed in this run; the other sources were written."),
        "response-too-large": Code(ERROR, "A source's response is larger than `max_response_bytes`; reading stopped there."),
    },
    "News intake and question making (`prescient oracle fetch-news`, `generate`, `answer`; the nightly)": {
        "feed-failed": Code(ERROR, "A news feed could not be fetched (HTTP error, timeout, too large); the other feeds were read and recorded."),
        "feed-unreadable": Code(ERROR, "A news feed's bytes are not RSS or Atom; nothing of it was recorded, and the other feeds were read."),
        "article-failed": Code(ERROR, "An article's page could not be fetched; it is not recorded, and the next run tries it again."),
        "article-too-large": Code(
            ERROR, "An article's page is larger than `[oracle] max_article_bytes`; reading stopped there and it is not recorded."
        ),
        "article-no-text": Code(WARNING, "No article text could be extracted from the page; it is not recorded."),
        "fetch-blocked": Code(
            ERROR,
            "A feed, an article or a redirect leads to an address that is not public (loopback, private, link-local, shared, "
            "multicast or reserved, judged after DNS resolution); it is not fetched and not recorded, and the rest is.",
        ),
        "robots-disallowed": Code(
            WARNING,
            "The article's host disallows it in its robots.txt (or its robots.txt could not be read this run); it is not fetched.",
        ),
        "llm-call-failed": Code(
            ERROR, "A call to the LLM endpoint failed (HTTP error, timeout); nothing of it is lost, the next run makes it again."
        ),
        "llm-malformed-json": Code(
            ERROR, "The LLM's answer is not the JSON its step asks for; it is logged, and the next run asks again (three times at most)."
        ),
        "llm-refused": Code(WARNING, "The LLM refused a step of the question maker; that article yields no question."),
        "llm-budget-spent": Code(
            WARNING, "The day's `[oracle]` budget is spent: the question maker stopped before its next call; the next day's budget goes on."
        ),
        "answer-unparseable": Code(
            WARNING, "The LLM's answer to an oracle question names no option; it is written as a refusal, which scores as wrong."
        ),
    },
    "A team's loop (`prescient round fetch`, `prescient submit`)": {
        "fetch-digest-mismatch": Code(
            ERROR,
            "A file of an open round fetched from the hub's site does not hash to the sha256 its `/api/rounds.json` publishes; nothing was written.",
        ),
    },
    "Arena agents (`prescient forecast llm --bets`; the nightly)": {
        "agent-answer-unparseable": Code(
            WARNING,
            "An agent's answer is not the JSON decisions its prompt asks for; it is logged with its status, makes no bet, and is not asked again for that round.",
        ),
        "agent-refused": Code(
            WARNING, "An agent refused to trade a round; the refusal is logged, makes no bet, and is not asked again for that round."
        ),
        "agent-decision-refused": Code(
            WARNING,
            "A decision of an agent is malformed or breaks a rule of bet files (its code is in the message); it is logged with that status and never becomes a bet.",
        ),
        "agent-budget-spent": Code(
            WARNING, "The night's `[arena]` budget is spent: the agent was not asked about the round, which waits for the next night."
        ),
        "agent-failed": Code(
            ERROR, "An agent could not run on a round (a changed prompt under the same name, a bet file that fails validation); the other agents ran."
        ),
    },
    "Audit (`prescient verify`)": {
        "derived-missing": Code(ERROR, "A file the ledgers recompute to is not on disk."),
        "derived-differs": Code(ERROR, "A score file on disk differs from the one recomputed from the ledgers."),
        "ledger-digest-differs": Code(
            ERROR, "A night's `ledger_digest` in `history.csv` is not the digest of the manifest and receipts files in the commit that recorded it."
        ),
        "history-differs": Code(ERROR, "`data/leaderboard/history.csv` differs from the one recomputed from the ledgers."),
        "page-missing": Code(ERROR, "A site page a build writes is not on disk."),
        "page-extra": Code(ERROR, "A site page on disk is not one a build writes."),
        "page-differs": Code(ERROR, "A site page on disk differs from the one a build writes."),
        "timing-unproven": Code(WARNING, "No record shows a forecast file's bytes before its round's due time."),
        "shallow-clone": Code(WARNING, "The clone lacks older history, so commits before its oldest one were not checked."),
        "git-status-unknown": Code(ERROR, "A commit changed a file in a way (git status) the audit cannot judge."),
        "file-type-changed": Code(ERROR, "A commit changed a file into a symbolic link, a submodule or back."),
        "git-object-missing": Code(ERROR, "A file version a commit names is not in the repository, so the change cannot be checked."),
        "ledger-deleted": Code(ERROR, "A commit deleted (or renamed away) an append-only ledger."),
        "ledger-unreadable": Code(WARNING, "A version of a ledger does not parse as CSV; its lines were compared instead."),
        "ledger-header-changed": Code(ERROR, "A commit changed a ledger's header."),
        "ledger-row-rewritten": Code(ERROR, "A commit edited an existing row of an append-only ledger."),
        "ledger-row-deleted": Code(ERROR, "A commit deleted an existing row of an append-only ledger."),
        "round-deleted": Code(ERROR, "A commit deleted (or renamed away) a file of a published round."),
        "round-changed": Code(ERROR, "A commit changed a published round's question set, which is frozen."),
        "forecast-changed-after-due": Code(ERROR, "A commit changed or deleted a forecast file after its round's due time."),
        "forecast-committed-after-due": Code(ERROR, "A forecast file was first committed after its round's due time."),
        "bets-changed-after-due": Code(ERROR, "A commit changed or deleted a bet file after its round's due time."),
        "bets-committed-after-due": Code(ERROR, "A bet file was first committed after its round's due time."),
        "late-file-pending": Code(
            WARNING,
            "A forecast, bet or commitment file was committed (or changed) after its round's due time and no nightly has run since: the next nightly's seal counts it only if a receipt attests these bytes before the due time, and otherwise removes it (then the audit says nothing more of it).",
        ),
        "commit-date-backwards": Code(ERROR, "A commit is dated earlier than its first parent."),
        "anchor-unknown": Code(
            ERROR,
            "The commit given to `verify --anchor` is not in the repository: the history was rewritten since it was published, or the clone lacks it.",
        ),
        "anchor-not-ancestor": Code(
            ERROR,
            "The commit given to `verify --anchor` is not an ancestor of the audited head: the history since it was rewritten, or it is another branch's.",
        ),
        "seal-broken": Code(
            ERROR,
            "A file of a sealed round differs from its seal: bytes that do not count are in place of the sealed ones, or a sealed file is missing.",
        ),
        "seal-differs": Code(ERROR, "A seal does not name the last version the receipts attest before the round's due time."),
        "seal-unchecked": Code(
            WARNING, "A seal rests on a receipt whose head commit is not in this clone, so that its blob is at its path cannot be checked."
        ),
        "hub-ledger-edited": Code(
            ERROR,
            "A commit that is not one of the hub's own runs (a merge, or another committer than the bot the hub was set up with) changed a file only the hub writes: a source's records, a round, scores, history, manifest, receipts, seals, checkpoints, news, a run log or a file of the hub's own forecasters (`[hub] own_prefix`).",
        ),
        "receipt-blob-mismatch": Code(ERROR, "A receipt names a blob that its head commit does not hold at its path: the row is forged or wrong."),
        "receipt-unchecked": Code(
            WARNING, "Receipts whose head commits are not in this clone cannot be checked against them (fetch `refs/pull/*/head`)."
        ),
        "replace-refs": Code(
            WARNING, "The repository has replace refs or grafts; the audit ignores them and reads the commits as their ids name them."
        ),
        "no-maintainers": Code(WARNING, "`data/hub.toml` names no `[hub] maintainers`, so CODEOWNERS has no owner and nobody's review is required."),
        "maintainer-commit-unauthorized": Code(
            ERROR,
            "A commit that added rows to the maintainers' ledger is not authored by a hub maintainer, or a row's `by` is not one (`[hub] maintainers` before the commit).",
        ),
        "maintainer-action-backdated": Code(
            ERROR,
            "A row of the maintainers' ledger acts at or before a night the history held when it reached main: its `effective_at` is not after that night and the nightly's record (`data/metadata/decisions.csv`) does not make it act from the first night after it.",
        ),
        "maintainer-action-pending": Code(
            WARNING,
            "A row of the maintainers' ledger reached main after a night it was meant to act from and no nightly has run since: the next nightly takes it up as of its own night (`data/metadata/decisions.csv`).",
        ),
        "data-not-tracked": Code(ERROR, "`verify --git` was asked of a hub whose `data/` is not in the git repository."),
    },
    "Seals (`prescient nightly`, `prescient seal`)": {
        "seal-deferred": Code(
            WARNING,
            "A round past its due time was not sealed in this run (GitHub's API could not be read for its receipts, or a sealed version's bytes are not here yet); the next run tries again, for at most two days after the due time, and the round is scored from its files meanwhile.",
        ),
        "seal-not-counted": Code(
            WARNING,
            "A model's file in a round just sealed does not count: its last version before the due time fails validation, cannot be read, or has no record before the due time; the seal says why and the file is removed.",
        ),
        "seal-enforced": Code(
            WARNING, "A file of a sealed round differed from its seal; the run put the sealed bytes back (or removed a file that does not count)."
        ),
        "salt-in-hub": Code(
            ERROR,
            "`prescient commit` was asked to keep a salt (or the forecast file it hides) inside the hub's `data/`, where a pull request or `git add -A` would publish it before the due time; nothing was written.",
        ),
        "salt-unreadable": Code(
            ERROR,
            "`prescient commit` found a file where it keeps this round, model and kind's salt that is not one line of 64 hex digits; it never overwrites a salt, so nothing was written.",
        ),
        "receipts-incomplete": Code(
            WARNING,
            "GitHub's API did not list or describe every validation run since the oldest unsealed round, so no round less than two days past its due time was sealed in this run; a round waits at most two days for the API, then is sealed with the receipts recorded.",
        ),
    },
    "Boards (`prescient leaderboard`, `prescient import forecastbench`)": {
        "orphan-units": Code(
            WARNING,
            "Units no estimation-sample forecaster answered (their difficulty is not identified) are scored at the average difficulty, each at its raw Brier; the board's `n_orphan` column counts them per model, and the warning names their rounds (ForecastBench refuses such a board).",
        ),
    },
    "Imports (ForecastBench and oracle question sets)": {
        "not-forecastbench": Code(ERROR, "The folder holds no ForecastBench `question_sets` and `resolution_sets`."),
        "bad-structure": Code(ERROR, "A ForecastBench file is not a JSON object, or a part of it that must be a list or an object is not."),
        "bad-id": Code(ERROR, "A question id is not a string, or (oracle) uses characters other than letters, digits and `. _ : -`."),
        "combination-id": Code(WARNING, "Rows with a list id (ForecastBench combination questions) are dropped."),
        "imputed-forecast": Code(
            WARNING,
            "Rows of a ForecastBench processed forecast set marked `imputed: true` are ForecastBench's imputations, not the model's forecasts: they are dropped, and the hub imputes those units itself (counting them for the 5% rule).",
        ),
        "unsafe-member": Code(
            ERROR,
            "A member of a ForecastBench bundle (`.tar.gz`) has an absolute name, a `..` part, a backslash or a control character, or is a link, a device or a pipe: nothing is unpacked.",
        ),
        "member-too-large": Code(
            ERROR,
            "A member of a ForecastBench bundle claims more bytes than the cap (2 GiB a member, 16 GiB in all, 500,000 members): nothing is unpacked.",
        ),
        "bad-archive": Code(ERROR, "A ForecastBench bundle is not a readable gzip-compressed tar."),
        "lfs-pointer": Code(ERROR, "The file is a Git LFS pointer, not the data: fetch the object (`git lfs pull`) and import that."),
        "unknown-question-set": Code(
            WARNING, "A ForecastBench forecast set's `question_set` names none of its round's question sets; it is scored on the whole round."
        ),
        "bad-outcome": Code(ERROR, "A ForecastBench resolution's `resolved_to` is not a number."),
        "bad-probability": Code(ERROR, "A ForecastBench forecast is not a probability between 0 and 1."),
        "bad-model": Code(ERROR, "A ForecastBench forecast set's model field is not a non-empty string."),
        "due-mismatch": Code(ERROR, "The due date in a ForecastBench file's name differs from the one inside it."),
        "duplicate-round": Code(ERROR, "Two ForecastBench resolution sets are for the same round."),
        "duplicate-model": Code(ERROR, "A model has two ForecastBench forecast sets for the same round."),
        "round-frozen": Code(WARNING, "The round is already published with other questions; it is kept as it is."),
        "forecast-immutable": Code(WARNING, "A different forecast file already exists for this round; it is kept."),
        "no-questions": Code(ERROR, "An oracle question file holds no questions."),
        "ignored-column": Code(WARNING, "An oracle question file has a column or key that is not part of the format; it is ignored."),
        "bad-choices": Code(ERROR, "An oracle question has neither four choices (multiple choice) nor none (true/false)."),
        "bad-answer": Code(ERROR, "An oracle question's answer is not True/False, a letter A-D or the text of a choice."),
        "bad-url": Code(ERROR, "An oracle question's url is not an http(s) address."),
        "duplicate-question": Code(ERROR, "An oracle question id is given twice in the file."),
    },
}


def problem(code: str, file: str, row: int | None, column: str | None, message: str) -> Problem:
    """A Problem whose severity comes from the registry (an unregistered code raises KeyError)."""
    return Problem(file, row, column, code, message, CODES[code].severity)


def reported(code: str, file: str, row: int | None, column: str | None, message: str) -> Problem:
    """A Problem of a code outside the submission checks, its severity from ``OTHER_CODES`` (an
    unregistered code raises KeyError)."""
    severity = next(group[code].severity for group in OTHER_CODES.values() if code in group)
    return Problem(file, row, column, code, message, severity)


def explain(code: str) -> str:
    return CODES[code].meaning if code in CODES else ""
