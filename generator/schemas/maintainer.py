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
        _c("resolution_date", "date", "A dataset question's resolution date (horizon) the action is for; empty: a market, "
                                      "or (`void`) every resolution date of the question.", nullable=True),
        _c("outcome", "float", "`correct`: the outcome stated (1 or 0, or a value in [0, 1]); empty otherwise.", nullable=True),
        _c("resolved_at", "ts", "`correct`: when the question resolved (the source's time when it had resolved there, "
                                "else `effective_at`; a dataset unit: its resolution date); empty otherwise.", nullable=True),
        _c("effective_at", "ts", "From when it counts: boards and scores as of an earlier time ignore the row. Never "
                                 "before `recorded_at`, and later than every night the history recorded when it was merged."),
        _c("by", "str", "The maintainer's GitHub login (listed in `[hub] maintainers`)."),
        _c("reason", "str", "Why, in a sentence: shown on the site's Changes page beside the action."),
    ),
    key=("recorded_at", "action", "target", "resolution_date"),
    sort=("recorded_at", "action", "target", "resolution_date"),
    mutability="append-only",
)
