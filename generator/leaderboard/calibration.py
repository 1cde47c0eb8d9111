"""Calibration: reliability tables and the Murphy decomposition of the Brier score. Pure.

Bins (``strategy``):
- ``fixed``: ten equal-width bins [0, 0.1), [0.1, 0.2), ..., [0.9, 1.0] (1.0 falls in the last);
- ``quantile``: equal-count bins: forecasts sorted, bin = floor(bins · r / N) with r the 0-based
  rank of the first equal forecast, so tied forecasts always share a bin and counts are as equal
  as the ties allow.

Per non-empty bin: N, the bin centre as the **mean forecast in the bin** (never the bin's
midpoint), the observed frequency of the outcome and its Wilson score 95% interval.

Murphy decomposition over the same bins (N forecasts, bin k with n_k forecasts, mean forecast
f_k and observed frequency o_k; ō the overall frequency):

    REL = Σ n_k (f_k − o_k)² / N      RES = Σ n_k (o_k − ō)² / N      UNC = ō (1 − ō)
    WITHIN = Σ_k Σ_{i∈k} [(p_i − f_k)² − 2 (p_i − f_k)(o_i − o_k)] / N

and mean Brier = REL − RES + UNC + WITHIN exactly (up to floating point). WITHIN is the
within-bin remainder (forecast variance minus twice the forecast/outcome covariance inside the
bins; Stephenson et al. 2008). It is 0 when every bin holds a single forecast value, and it is
reported, not folded into REL, so the three classic terms keep their textbook meaning.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .stats import rankdata

Z95 = 1.959963984540054
STRATEGIES = ("fixed", "quantile")
TABLE_COLUMNS = ["bin", "n", "edge_low", "edge_high", "forecast", "observed", "ci_low", "ci_high"]
MURPHY_COLUMNS = ["n", "brier", "reliability", "resolution", "uncertainty", "within_bin"]


def wilson_interval(k, n, z: float = Z95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval of a proportion k/n (NaN where n = 0)."""
    k, n = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        centre = (k + z * z / 2) / (n + z * z)
        half = z / (n + z * z) * np.sqrt(k * (n - k) / n + z * z / 4)
    return np.clip(centre - half, 0, 1), np.clip(centre + half, 0, 1)


def bin_index(probability, bins: int = 10, strategy: str = "fixed") -> np.ndarray:
    """The bin (0 .. bins−1) of every forecast under ``strategy`` (see the module docstring)."""
    p = np.asarray(probability, dtype=float)
    if strategy == "fixed":
        return np.minimum(np.floor(p * bins), bins - 1).astype(np.int64).clip(0)
    if strategy == "quantile":
        first_rank = rankdata(p, method="min") - 1
        return np.floor(bins * first_rank / max(p.size, 1)).astype(np.int64)
    raise ValueError(f"unknown bin strategy {strategy!r}; expected one of {', '.join(STRATEGIES)}")


def _bins(probability, outcome, bins: int, strategy: str) -> pd.DataFrame:
    p, o = np.asarray(probability, dtype=float), np.asarray(outcome, dtype=float)
    return pd.DataFrame({"bin": bin_index(p, bins, strategy), "p": p, "o": o})


def reliability_table(probability, outcome, bins: int = 10, strategy: str = "fixed") -> pd.DataFrame:
    """``TABLE_COLUMNS`` per non-empty bin, in bin order."""
    frame = _bins(probability, outcome, bins, strategy)
    g = frame.groupby("bin", sort=True)
    out = pd.DataFrame({"n": g.size(), "forecast": g["p"].mean(), "observed": g["o"].mean(), "hits": g["o"].sum()}).reset_index()
    if strategy == "fixed":
        out["edge_low"], out["edge_high"] = out["bin"] / bins, (out["bin"] + 1) / bins
    else:
        out["edge_low"], out["edge_high"] = g["p"].min().to_numpy(), g["p"].max().to_numpy()
    out["ci_low"], out["ci_high"] = wilson_interval(out["hits"], out["n"])
    return out[TABLE_COLUMNS]


@dataclass(frozen=True)
class Murphy:
    n: int
    brier: float
    reliability: float
    resolution: float
    uncertainty: float
    within_bin: float

    @property
    def remainder(self) -> float:
        """Mean Brier − (REL − RES + UNC + WITHIN): zero up to floating point."""
        return self.brier - (self.reliability - self.resolution + self.uncertainty + self.within_bin)


def murphy(probability, outcome, bins: int = 10, strategy: str = "fixed") -> Murphy:
    """The Murphy decomposition of the mean Brier over ``bins`` (module docstring)."""
    frame = _bins(probability, outcome, bins, strategy)
    n = len(frame)
    if n == 0:
        return Murphy(0, *(float("nan"),) * 5)
    f_k = frame.groupby("bin")["p"].transform("mean")
    o_k = frame.groupby("bin")["o"].transform("mean")
    o_bar = frame["o"].mean()
    dp, do = frame["p"] - f_k, frame["o"] - o_k
    return Murphy(
        n=n,
        brier=float(((frame["p"] - frame["o"]) ** 2).mean()),
        reliability=float(((f_k - o_k) ** 2).mean()),
        resolution=float(((o_k - o_bar) ** 2).mean()),
        uncertainty=float(o_bar * (1 - o_bar)),
        within_bin=float((dp * dp - 2 * dp * do).mean()),
    )
