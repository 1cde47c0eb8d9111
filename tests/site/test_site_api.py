"""The static JSON API's file names and its question fixed effects (site/api.py), on hand-made boards.

The demo's API files are validated against their published schemas in test_site_speak.py."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pandas as pd

from generator.leaderboard.question_effects import DIFFICULTY, QuestionEffects
from generator.site.api import EFFECTS, api_files, question_effects
from generator.site.api_paths import path_name
from generator.site.render import SiteData
from generator.timeutil import parse_ts


def board(models: list[str], effects: list[tuple] | None = None) -> pd.DataFrame:
    frame = pd.DataFrame({"rank": range(1, len(models) + 1), "model": models, "overall": [80.0 - i for i in range(len(models))]})
    frame.attrs["difficulty"] = QuestionEffects(pd.DataFrame(effects or [], columns=DIFFICULTY))
    return frame


def site(boards: dict) -> SiteData:
    return SiteData(
        title="t",
        as_of=parse_ts("2026-01-01T00:00:00Z"),
        methodology_version="1",
        board=next(iter(boards.values())),
        history=pd.DataFrame(columns=["as_of", "model", "overall"]),
        models={},
        model_scores={},
        boards=boards,
    )


def test_a_view_named_with_a_slash_is_one_file_and_simple_names_keep_their_urls():
    views = ["overall", "category:economics", "category:Science/Tech", "category:Science-Tech", "category:../x"]
    files = api_files(site({("tournament", v): board(["a.x"]) for v in views}))
    index = json.loads(files["api/index.json"])
    paths = {(b["board"], b["view"]): b["json"] for b in index["boards"]}
    assert paths[("tournament", "overall")] == "boards/tournament/overall.json"
    assert paths[("tournament", "category:economics")] == "boards/tournament/category:economics.json"
    assert paths[("tournament", "category:Science-Tech")] == "boards/tournament/category:Science-Tech.json"
    slashed = paths[("tournament", "category:Science/Tech")]
    assert slashed.startswith("boards/tournament/category--Science-Tech-") and slashed.count("/") == 2
    assert paths[("tournament", "category:../x")].count("/") == 2 and ".." not in paths[("tournament", "category:../x")]
    assert len(set(paths.values())) == len(views), "two views were given one file"
    for (_, view), path in paths.items():
        assert json.loads(files[f"api/{path}"])["view"] == view and f"api/{path.removesuffix('.json')}.csv" in files
    assert not [p for p in files if p.startswith("api/boards/") and p.count("/") != 3]
    assert path_name("overall") == "overall" and path_name(".") != "." and "/" not in path_name("a/b")


def test_question_effects_give_each_unit_once_and_each_boards_b_by_index():
    tournament = board(
        ["a.x", "b.y"],
        [
            ("2026-01-04", "fred:d1", "2026-01-11", "dataset", 0.1234567891),
            ("2026-01-04", "manifold:m1", "", "binary", 0.085),
            ("2026-01-18", "fred:d1", "2026-01-25", "dataset", np.nan),
        ],
    )
    preliminary = board(["a.x"], [("2026-01-18", "fred:d1", "2026-01-25", "dataset", 0.2), ("2026-01-04", "fred:d1", "2026-01-11", "dataset", 0.11)])
    data = site(
        {
            ("tournament", "overall"): tournament,
            ("tournament", "dataset"): board(["a.x"], [("x", "y", "z", "dataset", 9.0)]),
            ("preliminary", "overall"): preliminary,
        }
    )
    effects = question_effects(data)
    assert effects["boards"] == ["tournament", "preliminary"]
    assert effects["questions"] == ["fred:d1", "manifold:m1"] and effects["rounds"] == ["2026-01-04", "2026-01-18"]
    assert effects["resolution_dates"] == ["", "2026-01-11", "2026-01-25"]
    units = list(zip(*(effects["units"][k] for k in ("question", "round", "resolution_date")), strict=True))
    assert units == [(0, 0, 1), (0, 1, 2), (1, 0, 0)]
    assert effects["b"] == {"tournament": [0.123457, None, 0.085], "preliminary": [0.11, 0.2, None]}
    written = json.loads(gzip.decompress(api_files(data)[f"api/{EFFECTS}"]))
    assert api_files(data)[f"api/{EFFECTS}"] == api_files(data)[f"api/{EFFECTS}"], "the same bytes each build"
    assert written["b"] == effects["b"] and written["view"] == "overall" and 9.0 not in written["b"]["tournament"]
    assert json.loads(api_files(data)["api/index.json"])["question_effects"] == EFFECTS


def test_boards_without_effects_give_an_empty_document():
    effects = question_effects(site({("tournament", "overall"): board(["a.x"])}))
    assert effects["questions"] == [] and effects["b"] == {"tournament": []}
