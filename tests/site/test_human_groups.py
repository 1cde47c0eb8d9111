"""Human comparison groups on a board table (generator/site/human_groups.py): the rows the p-values
compare against are found from the board itself, and FB's headers name the groups."""

from __future__ import annotations

import numpy as np
import pandas as pd

from generator.site.human_groups import human_columns


def _board(p_public: list[float]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "model": ["h.supers", "t.a", "h.public", "t.b"],
            "name": ["Supers", "A", "Public <b>", "B"],
            "kind": ["human", "llm", "human", "llm"],
            "overall": [70.0, 60.0, 55.0, np.nan],
            "p_value": [np.nan, 0.004, 0.0, np.nan],
            "p_public": p_public,
        }
    )


def test_fb_headers_name_the_human_reference_and_the_public_group() -> None:
    out = human_columns(_board([0.0, 0.05, np.nan, np.nan]), "overall")
    assert out["ref_header"] == "Supers > Forecaster?"
    assert out["public"] == "h.public" and out["public_header"] == "Forecaster > Public <b>?"  # escaped by the template
    assert out["public_cells"]["h.supers"] == ("Yes", "<0.001")
    assert out["public_cells"]["t.a"] == ("Likely", "0.05")
    assert out["public_cells"]["h.public"] == ("—", "—")


def test_no_public_p_value_no_public_column_and_a_model_reference_keeps_vs_ref() -> None:
    board = _board([np.nan] * 4)
    board.loc[0, "kind"] = "llm"
    out = human_columns(board, "overall")
    assert out["public"] == "" and out["public_cells"] == {}
    assert out["ref_header"] == ""  # the reference is no human group: the column stays "vs. ref"
