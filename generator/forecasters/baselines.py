"""The hub's own baseline forecasters, written as ordinary forecast files every round."""

from __future__ import annotations

from typing import Callable

import pandas as pd

from ..models import ModelMeta

Forecaster = Callable[[pd.DataFrame], pd.DataFrame]


def forecast_frame(questions: pd.DataFrame, probability, reasoning: str = "") -> pd.DataFrame:
    """A forecast file's frame for every row of a round's question set."""
    return pd.DataFrame({
        "question_id": questions["question_id"].to_numpy(),
        "resolution_date": questions["resolution_date"].to_numpy(),
        "probability": probability,
        "reasoning": reasoning,
    })


def constant(value: float) -> Forecaster:
    return lambda questions: forecast_frame(questions, float(value))


def _meta(model_id: str, name: str, method: str) -> ModelMeta:
    return ModelMeta(id=model_id, name=name, organization="Prescient", kind="baseline", method=method)


BASELINES: dict[str, tuple[ModelMeta, Forecaster]] = {
    "prescient.always-0.5": (_meta("prescient.always-0.5", "Always 0.5", "Forecasts 0.5 on every question."), constant(0.5)),
}
