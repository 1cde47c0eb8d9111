"""The maintainers' ledger: what a hub maintainer decided about a question or a model, and why."""

from __future__ import annotations

from .table import Table
from .table import col as _c

VOID, CORRECT, EXCLUDE = "void", "correct", "exclude"
ACTIONS = (VOID, CORRECT, EXCLUDE)

MAINTAINER_ACTIONS = Table(
    name="maintainer_actions",
    path="data/maintainer/actions.csv",
    description=(
        "What the hub's maintainers decided, one row per decision, written by `prescient void`, `prescient correct` and "
        "`prescient exclude` and merged by pull request (checked by the validator: only appended, a known question or "
        "model, a reason, a maintainer, an effective time after the last night). `void` drops a question from scoring in "
        "every round that asks it; `correct` states its outcome; both act as a stated resolution recorded at `effective_at` "
        "(boards as of earlier nights ignore them). `exclude` takes a model off every board from `effective_at` on; its "
        "forecasts and scores stay, and boards of earlier nights are unchanged."
    ),
    columns=(
        _c("recorded_at", "ts", "When the command wrote the row (its as_of)."),
        _c("action", "enum", "`void`, `correct` or `exclude`.", choices=ACTIONS),
        _c("target", "str", "The question id (`void`, `correct`) or the model id `<team>.<model>` (`exclude`)."),
        _c(
            "resolution_date",
            "date",
            "A dataset question's resolution date (horizon) the action is for; empty: a market, or (`void`) every resolution date of the question.",
            nullable=True,
        ),
        _c("outcome", "float", "`correct`: the outcome stated (1 or 0, or a value in [0, 1]); empty otherwise.", nullable=True),
        _c(
            "resolved_at",
            "ts",
            "`correct`: when the question resolved (the source's time when it had resolved there, "
            "else `effective_at`; a dataset unit: its resolution date); empty otherwise.",
            nullable=True,
        ),
        _c(
            "effective_at",
            "ts",
            "From when it counts: boards and scores as of an earlier time ignore the row. Never "
            "before `recorded_at`, and later than every night the history recorded when it was merged.",
        ),
        _c("by", "str", "The maintainer's GitHub login (listed in `[hub] maintainers`)."),
        _c("reason", "str", "Why, in a sentence: shown on the site's Changes page beside the action."),
    ),
    key=("recorded_at", "action", "target", "resolution_date"),
    sort=("recorded_at", "action", "target", "resolution_date"),
    mutability="append-only",
)

DECISIONS_TAKEN = Table(
    name="decisions_taken",
    path="data/metadata/decisions.csv",
    description=(
        "When the hub's nightly took up each maintainer decision, and from when it acts: written only by the nightly, "
        "once per row of `data/maintainer/actions.csv`, at the first night that sees the row on main. A decision acts "
        "from its own `effective_at` when that is after the last night the history held before this night (it reached "
        "main in time), else from this night (it was checked before a night and merged after it). Scoring and "
        "`prescient verify` take a decision's time from here; a row of actions.csv no night has taken up yet acts only "
        "when it is on time. Created empty by the first nightly of a hub (0.14) before any decision; on a hub that "
        "already held decisions, that night takes each up at its own `effective_at`."
    ),
    columns=(
        _c("recorded_at", "ts", "The decision's `recorded_at` (with the next three columns: its key in actions.csv)."),
        _c("action", "enum", "The decision's `action`.", choices=ACTIONS),
        _c("target", "str", "The decision's `target`."),
        _c("resolution_date", "date", "The decision's `resolution_date`.", nullable=True),
        _c("taken_at", "ts", "The night that took it up (that nightly's as_of)."),
        _c(
            "effective_at",
            "ts",
            "From when it acts: the decision's `effective_at`, or `taken_at` when that was not after the last night the history held before it.",
        ),
    ),
    key=("recorded_at", "action", "target", "resolution_date"),
    sort=("recorded_at", "action", "target", "resolution_date"),
    mutability="append-only",
)
