"""Canonical forecast-file bytes, fast: the same bytes as ``csvio.to_csv_bytes(frame, FORECASTS)``.

An import writes thousands of forecast files; the general writer checks and formats cell by cell.
Here the cells are joined directly. Any cell that would need CSV quoting (a comma, quote or line
break), or a value outside the schema, sends the frame to the general writer instead, so the
output never differs (tests compare both).
"""

from __future__ import annotations

import math
import re

import pandas as pd

from ..schemas import FORECASTS
from ..store.csvio import to_csv_bytes

_DATE = re.compile(r"^(\d{4}-\d{2}-\d{2})?$")


def _plain(values: list) -> bool:
    """Every value a str needing no CSV quoting."""
    if not all(type(v) is str for v in values):
        return False
    joined = "\x00".join(values)
    return not any(c in joined for c in ',"\r\n')


def forecast_bytes(frame: pd.DataFrame) -> bytes:
    """The canonical CSV bytes of a FORECASTS frame."""
    ids, dates = frame["question_id"].tolist(), frame["resolution_date"].fillna("").tolist()
    reasons, probs = frame["reasoning"].fillna("").tolist(), frame["probability"].tolist()
    ok = (_plain(ids) and _plain(dates) and _plain(reasons) and all(ids) and len(set(zip(ids, dates))) == len(ids)
          and all(_DATE.match(d) for d in set(dates))
          and all(type(p) is float and not math.isnan(p) and 0.0 <= p <= 1.0 for p in probs))
    if not ok:
        return to_csv_bytes(frame, FORECASTS)
    rows = sorted(zip(ids, dates, probs, reasons), key=lambda r: (r[0], r[1]))
    body = "".join(f"{a},{b},{c + 0.0:.6f},{d}\n" for a, b, c, d in rows)
    return (",".join(FORECASTS.names) + "\n" + body).encode("utf-8")
