"""Scoring oracle forecasts: accuracy of the argmax answer and the multi-class Brier score.

For a question with K offered options (K = 2 for true/false, 4 for multiple choice), a forecast
p_1..p_K and the one-hot answer o_1..o_K:
- **correct** = 1 when the answer's probability is strictly larger than every other offered
  option's; a tie for the top counts as wrong;
- **Brier** = Σ_k (p_k − o_k)² over the offered options (0 is perfect, 2 is certain and wrong);
- a **refusal** (every probability of the row empty) and a **missing** forecast (no row) are wrong,
  and their Brier is that of the uniform forecast 1/K: 1 − 1/K (0.5 for true/false, 0.75 for
  multiple choice).
Questions whose resolution date is after ``as_of`` are not scored.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

LETTERS = ("A", "B", "C", "D")
PROBS = ("prob_a", "prob_b", "prob_c", "prob_d")
ANSWERED, REFUSED, MISSING = "answered", "refused", "missing"
SCORE_COLUMNS = ("set", "model", "question_id", "kind", "category", "resolution_date", "month", "status", "correct", "brier")


def offered(kinds: pd.Series) -> np.ndarray:
    """Boolean (n × 4): which of the options A–D each question offers."""
    k = np.where(kinds.to_numpy() == "tf", 2, 4)
    return np.arange(4)[None, :] < k[:, None]


def score_model(questions: pd.DataFrame, forecasts: pd.DataFrame) -> pd.DataFrame:
    """One row per question of ``questions`` (current versions): status, correct (0/1) and Brier."""
    joined = questions.merge(forecasts, how="left", left_on="id", right_on="question_id", indicator=True)
    mask = offered(joined["kind"])
    probs = joined[list(PROBS)].to_numpy(dtype=float)
    given = ~np.isnan(probs) & mask
    answered = given.any(axis=1)
    status = np.where(answered, ANSWERED, np.where(joined["_merge"].to_numpy() == "both", REFUSED, MISSING))
    truth = (np.array(LETTERS)[None, :] == joined["answer"].to_numpy()[:, None]).astype(float)
    p = np.where(mask, np.nan_to_num(probs), 0.0)
    return pd.DataFrame(
        {
            "question_id": joined["id"].to_numpy(),
            "status": status,
            "correct": (answered & _argmax_is_answer(p, truth, mask)).astype("int64"),
            "brier": np.where(answered, ((p - truth) ** 2 * mask).sum(axis=1), 1.0 - 1.0 / mask.sum(axis=1)),
        }
    )


def _argmax_is_answer(p: np.ndarray, truth: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """True where the answer's probability beats every other offered option strictly (ties lose)."""
    top = (p * truth).sum(axis=1)
    others = np.where(mask & (truth == 0), p, -np.inf).max(axis=1)
    return top > others


def scorable(questions: pd.DataFrame, as_of_date: str | None) -> pd.DataFrame:
    """Questions resolved by ``as_of_date`` (YYYY-MM-DD; every question when None)."""
    return questions if as_of_date is None else questions[questions["resolution_date"] <= as_of_date]


def score_set(qset: str, questions: pd.DataFrame, forecasts: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Every model × question of one set (columns ``SCORE_COLUMNS``), sorted by model and question."""
    if not forecasts or questions.empty:
        return empty_scores()
    facts = questions[["id", "kind", "category", "resolution_date"]].rename(columns={"id": "question_id"})
    facts = facts.assign(month=facts["resolution_date"].str[:7])
    frames = [facts.merge(score_model(questions, f), on="question_id").assign(set=qset, model=model) for model, f in sorted(forecasts.items())]
    return (
        pd.concat(frames, ignore_index=True)[list(SCORE_COLUMNS)]
        .sort_values(["set", "model", "question_id"], kind="mergesort")
        .reset_index(drop=True)
    )


def empty_scores() -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype=float if c == "brier" else "int64" if c == "correct" else str) for c in SCORE_COLUMNS})
