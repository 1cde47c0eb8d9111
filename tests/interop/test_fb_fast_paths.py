"""ForecastBench's import made fast gives what the plain code gives: forecast sets checked by column
(``parse.fast_forecasts``) equal the row checks; a set's rows on a round's units (``frames.forecast_columns``)
equal the same done on a DataFrame; files parsed and made by the worker processes (``workers``) equal
those made one by one, to the byte, the report and the frames handed to the scoring."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.errors import Problem
from generator.interop.forecastbench import frames as fb_frames
from generator.interop.forecastbench import parse as fb_parse
from generator.schemas import FORECASTS
from generator.store.cache import ReadCache
from generator.store.fast_forecasts import as_read, forecast_bytes, forecast_file
from generator.store.hub import Hub

from helpers import HOSTILE_IDS, HOSTILE_REASONS, bytes_or_error, forecast_columns_strategy, hostile_fb

ODD = [
    None,
    True,
    False,
    0,
    1,
    2,
    -1,
    0.0,
    -0.0,
    1.0,
    0.5,
    1.5,
    -0.25,
    float("nan"),
    float("inf"),
    10**400,
    "0.5",
    "",
    " ",
    "x",
    [],
    {},
    "2026-01-01",
    "2026-1-1",
    "٢٠٢٦-٠١-٠١",
    "2026-01-01\n",
    "manifold",
    "fred",
    "acled",
]

ROW_KEYS = ("id", "source", "forecast", "resolution_date", "reasoning")


fb_rows = st.lists(
    st.one_of(
        st.fixed_dictionaries(
            {
                "id": st.sampled_from(["a", "b", "", "c,d"]) | st.sampled_from(ODD),
                "source": st.sampled_from(fb_parse.SOURCES) | st.sampled_from(ODD),
                "forecast": st.floats(0, 1) | st.none() | st.sampled_from(ODD) | st.integers(-2, 2),
            },
            optional={
                "resolution_date": st.sampled_from(["2026-01-01", "2026-02-01"]) | st.none() | st.sampled_from(ODD),
                "reasoning": st.text(max_size=4) | st.none() | st.sampled_from(ODD),
            },
        ),
        st.dictionaries(st.sampled_from(ROW_KEYS), st.sampled_from(ODD), max_size=5),
        st.sampled_from(ODD),
    ),
    max_size=8,
)

good_rows = st.lists(
    st.fixed_dictionaries(
        {
            "id": st.sampled_from(["a", "b", "c", "q1"]),
            "source": st.sampled_from(fb_parse.SOURCES),
            "forecast": st.floats(0, 1) | st.none() | st.sampled_from([0, 1, 0.0, -0.0, 1.0]),
        },
        optional={"resolution_date": st.sampled_from(["2026-01-01", "2026-02-01"]) | st.none(), "reasoning": st.text(max_size=4) | st.none()},
    ),
    max_size=10,
)


def fast_forecasts_rowwise(items: object) -> dict | None:
    """``fb_parse.fast_forecasts`` checked row by row (the reference its column checks are tested against)."""
    if not isinstance(items, list) or not all(type(r) is dict for r in items) or (fields := fb_parse._fields(items)) is None:
        return None
    ids, sources, values, dates, reasons = fields
    if not (
        all(type(i) is str and i for i in ids)
        and all(type(s) is str for s in sources)
        and set(sources) <= set(fb_parse.SOURCES)
        and all(v is None or (type(v) in (int, float) and 0.0 <= v <= 1.0) for v in values)
        and all(d is None or type(d) is str for d in dates)
        and all(d is None or fb_parse._DATE.match(d) for d in set(dates))
    ):
        return None
    keep = [i for i, v in enumerate(values) if v is not None]
    markets = set(fb_parse.MARKET_SOURCES)
    return {
        "question_id": [f"{sources[i]}:{ids[i]}" for i in keep],
        "resolution_date": ["" if sources[i] in markets or dates[i] is None else dates[i] for i in keep],
        "probability": [float(values[i]) for i in keep],
        "reasoning": [reasons[i] if type(reasons[i]) is str else "" for i in keep],
    }


@settings(max_examples=400, deadline=None)
@given(fb_rows | good_rows)
def test_column_checked_forecast_sets_equal_the_row_checks(items):
    got, want = fb_parse.fast_forecasts(items), fast_forecasts_rowwise(items)
    assert got == want
    if got is not None:  # same values, same types (1 and 1.0 compare equal)
        assert [type(p) for p in got["probability"]] == [type(p) for p in want["probability"]]
        assert [repr(p) for p in got["probability"]] == [repr(p) for p in want["probability"]]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from([{}, {"id": "a"}, {fb_parse.MEMBER_KEY: 1}, {fb_parse.MEMBER_KEY: None, "id": "b"}, [], "user_id", None, 3]), max_size=6)
)
def test_the_individual_file_check_equals_the_row_by_row_check(items):
    """A forecasts list is an individual file's when a row is an object with ``user_id``, whatever the other rows are."""
    assert fb_parse._any_member(items) == any(isinstance(r, dict) and fb_parse.MEMBER_KEY in r for r in items)


def _unit_frame(pairs) -> pd.DataFrame:
    return pd.DataFrame({"question_id": pd.Series([q for q, _ in pairs], dtype=str), "resolution_date": pd.Series([d for _, d in pairs], dtype=str)})


def forecast_rows(fset: fb_parse.Parsed, units: pd.DataFrame) -> tuple[pd.DataFrame, list]:
    """``fb_frames.forecast_columns`` done on a DataFrame (the reference it is tested against): the
    forecast set's rows on the round's units (others dropped with one warning)."""
    unit = ["question_id", "resolution_date"]
    frame = pd.DataFrame(fset.rows[0] if fset.rows else {}, columns=[*unit, "probability", "reasoning"])
    dup = frame.duplicated(unit, keep="first")
    allowed = set(zip(units["question_id"], units["resolution_date"], strict=True))
    inside = np.fromiter((u in allowed for u in zip(frame["question_id"], frame["resolution_date"], strict=True)), bool, len(frame))
    problems = []
    if dup.any():
        problems.append(
            Problem(
                fset.label, None, "id", "duplicate-forecast", f"{int(dup.sum())} repeated (id, resolution_date) row(s); the first is kept", "warning"
            )
        )
    if (~inside).any():
        problems.append(
            Problem(
                fset.label,
                None,
                "id",
                "unknown-question",
                f"{int((~inside).sum())} forecast(s) for questions or dates not in round {fset.due} dropped",
                "warning",
            )
        )
    return frame[inside & ~dup.to_numpy()].reset_index(drop=True), problems


@pytest.mark.slow  # hundreds of examples, 5-10 s of CPU; `-m slow` runs it
@settings(max_examples=300, deadline=None)
@given(
    forecast_columns_strategy,
    st.lists(
        st.sampled_from([("fred:a", "2026-01-01"), ("fred:a", ""), ("fred:b", "2026-02-01"), ("manifold:c", ""), ("x", ""), (" ", "")]),
        max_size=6,
        unique=True,
    ),
)
def test_forecast_columns_equal_forecast_rows(columns, units):
    fset = fb_parse.Parsed("f.json", due="2026-01-01", rows=[columns])
    frame, problems = forecast_rows(fset, _unit_frame(units))
    got, got_problems = fb_frames.forecast_columns(fset, fb_frames.unit_keys(_unit_frame(units)))
    assert got_problems == problems
    assert {c: got[c] for c in frame.columns} == {c: frame[c].tolist() for c in frame.columns}
    assert bytes_or_error(lambda: forecast_file(got)[0]) == bytes_or_error(lambda: forecast_bytes(frame))


def test_parsing_in_worker_processes_equals_parsing_one_by_one(tmp_path, monkeypatch):
    from generator.interop.forecastbench import importer as forecastbench
    from generator.interop.forecastbench import workers

    datasets, forecasts = tmp_path / "datasets", tmp_path / "forecasts"
    (datasets / "question_sets").mkdir(parents=True)
    (datasets / "resolution_sets").mkdir()
    forecasts.mkdir()
    q = {"id": "m1", "source": "manifold", "question": "Q?", "resolution_dates": "N/A", "freeze_datetime": "2025-12-25T00:00:00+00:00"}
    (datasets / "question_sets" / "2026-01-04-llm.json").write_text(
        json.dumps({"forecast_due_date": "2026-01-04", "question_set": "2026-01-04-llm.json", "questions": [q, {"id": ["a", "b"], "source": "fred"}]})
    )
    (datasets / "resolution_sets" / "2026-01-04_resolution_set.json").write_text(
        json.dumps(
            {
                "forecast_due_date": "2026-01-04",
                "question_set": "x",
                "resolutions": [
                    {"id": "m1", "source": "manifold", "resolution_date": "2026-01-20", "resolved_to": 1.0, "resolved": True},
                    {"id": "m2", "source": "manifold", "resolution_date": "bad", "resolved_to": "x", "resolved": 1},
                ],
            }
        )
    )
    bodies = [b"{not json", b"[]", '{"a": "\u00e9"}'.encode(), b"\xff\xfe", b"[" * 20_000 + b"]" * 20_000]
    rows = [
        {"id": "m1", "source": "manifold", "forecast": 0.25},
        {"id": "m1", "source": "manifold", "forecast": 2},
        {"id": "F1", "source": "fred", "forecast": None, "resolution_date": "2026-01-11"},
        {"id": 3, "source": "nope", "forecast": "x"},
    ]
    for i in range(40):
        header = {"organization": f"Team {i % 3}", "model": f"M{i}", "model_organization": "L", "question_set": "2026-01-04-llm.json"}
        body = bodies[i] if i < len(bodies) else json.dumps({**header, "forecasts": rows[: i % 5] * (1 + i % 2)}).encode()
        (forecasts / f"f{i:02d}.json").write_bytes(body)
    one_by_one = forecastbench.read_inputs(datasets, forecasts)
    monkeypatch.setattr(workers, "_POOL_MIN_FILES", 0)
    pooled = forecastbench.read_inputs(datasets, forecasts)
    assert repr(pooled) == repr(one_by_one)
    assert [len(f.problems) for f in one_by_one.fsets].count(0) > 5 and one_by_one.problems  # both kinds present


def _imported(root: Path, data: Path, forecasts: Path):
    from generator.interop.forecastbench.importer import import_forecastbench

    hub = Hub(root, ReadCache())
    report = import_forecastbench(hub, data, forecasts, as_of="2026-08-21T00:00:00Z")
    files = {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file() and ".lock" not in p.name}
    frames = {key[2]: frame for key, (_, frame) in hub.cache.tables.items()}
    return repr(report), files, frames


@pytest.mark.parametrize("frozen", [False, True])
def test_forecast_files_made_by_the_parsing_workers_equal_those_made_one_by_one(tmp_path, monkeypatch, frozen):
    """The pooled import (each file made in a worker against the round) writes the same bytes, says
    the same and hands the scoring the same frames as the one-by-one import; ``frozen``: the round was
    published before with fewer questions, so the workers' round is not the one kept."""
    from generator.interop.forecastbench import workers

    data, forecasts = hostile_fb(tmp_path / "in", HOSTILE_IDS)
    outcomes = []
    for name, least in (("one", 10**9), ("pooled", 0)):
        monkeypatch.setattr(workers, "_POOL_MIN_FILES", least)
        if frozen:
            monkeypatch.setattr(workers, "_POOL_MIN_FILES", 10**9)
            _imported(tmp_path / name, *hostile_fb(tmp_path / f"early-{name}", HOSTILE_IDS[:3]))
            monkeypatch.setattr(workers, "_POOL_MIN_FILES", least)
        outcomes.append(_imported(tmp_path / name, data, forecasts))
    (report, files, frames), (report2, files2, frames2) = outcomes
    assert report2 == report and files2 == files
    assert frames2.keys() == frames.keys() and sum("forecasts/" in k for k in frames if k) >= 4
    for key, frame in frames.items():
        pd.testing.assert_frame_equal(frames2[key], frame, check_exact=True)
    assert "forecast-immutable" not in report and ("round-frozen" in report) == frozen


def test_a_worker_makes_the_file_the_import_makes_or_leaves_it_to_the_import():
    """``workers.prepare`` against a round: the bytes of ``forecast_file`` and the frame ``as_read``
    gives (None for a set the worker leaves, an individual one or one of another round)."""
    from generator.interop.forecastbench import workers
    from generator.interop.forecastbench.parse import Parsed

    questions = pd.DataFrame(
        {
            "question_id": pd.array([f"manifold:{i}" for i in HOSTILE_IDS] + ["fred:F1"], dtype=str),
            "resolution_date": pd.array([""] * len(HOSTILE_IDS) + ["2026-01-11"], dtype=str),
        }
    )
    ids = questions["question_id"].to_numpy(dtype=object)
    dates = questions["resolution_date"].to_numpy(dtype=object)
    allowed = fb_frames.unit_keys(questions)
    workers._ROUNDS["2026-01-04"] = workers.RoundUnits.of(questions)
    try:
        for k, reason in enumerate(HOSTILE_REASONS):
            rows = {
                "question_id": [f"manifold:{i}" for i in HOSTILE_IDS[k % 3 :]] + ["fred:F1", "manifold:zz"],
                "resolution_date": [""] * len(HOSTILE_IDS[k % 3 :]) + ["2026-01-11", ""],
                "probability": [0.5 + k / 100] * (len(HOSTILE_IDS[k % 3 :]) + 2),
                "reasoning": [reason or ""] * (len(HOSTILE_IDS[k % 3 :]) + 2),
            }
            fset = Parsed("x.json", "2026-01-04", header={"individual": False}, rows=[rows])
            columns, problems = fb_frames.forecast_columns(fset, allowed)
            data, cells = forecast_file(columns)
            made = workers.prepare(fset)
            assert made is not None and made.data == data and made.problems == problems
            expected = as_read(cells) if cells is not None else None
            got = workers.frame_of(made, ids, dates)
            assert (got is None) == (expected is None)
            if expected is not None:
                pd.testing.assert_frame_equal(got, expected, check_exact=True)
        assert workers.prepare(Parsed("y.json", "2026-01-18", header={}, rows=[rows])) is None
        assert workers.prepare(Parsed("z.json", "2026-01-04", header={"individual": True}, rows=[rows])) is None
    finally:
        workers._ROUNDS.clear()


# Rounds of plain units and sets of clean cells, each example with at most one oddity: a unit
# that is not plain (each check of ``plain_units`` has its own), one odd cell, repeated rows or rows
# outside the round. A fast path's check that let a single odd value through would be caught.
_PLAIN_UNITS = [
    ("fred:a", "2026-01-01"),
    ("fred:a", ""),
    ("fred:b", "2026-02-01"),
    ("manifold:\u00e9", ""),
    ("B", ""),
    ("b", ""),
    ("fred:a\u00e9", ""),
]

_ODD_UNITS = [
    (" ", ""),
    ("", ""),
    ("a,b", ""),
    ('q"', ""),
    ("t\tab", ""),
    ("n\nl", ""),
    ("\ufeffb", ""),
    ("\x85", ""),
    ("\u2028", ""),
    ("fred:a ", ""),
    ("\ud800", ""),
    ("fred:c", "2026-1-1"),
    ("fred:c", "\u0662\u0660\u0662\u0666-01-01"),
    ("fred:c", "2026-01-01\n"),
    ("fred:c", " 2026-01-01"),
]

_ODD_CELLS = [
    ("probability", 1),
    ("probability", float("nan")),
    ("probability", 1.5),
    ("probability", -1e-9),
    ("reasoning", "a,b"),
    ("reasoning", "x\ny"),
    ("reasoning", "\x00"),
    ("reasoning", "\ufeff"),
    ("reasoning", " "),
    ("reasoning", "\ud800"),
    ("reasoning", "\x7f"),
    ("reasoning", None),
]

_OUTSIDE = [("fred:zz", ""), (1, ""), ("fred:a", None), ("fred:a", "2026-03-01")]

_ODDITIES = [None, "repeated", "outside", *(("unit", u) for u in _ODD_UNITS), *(("cell", c) for c in _ODD_CELLS)]  # each its own test


@pytest.mark.parametrize("oddity", _ODDITIES)
@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from(_PLAIN_UNITS), min_size=1, max_size=6, unique=True), st.data())
def test_files_put_in_order_by_the_units_ranks_equal_the_files_sorted_by_their_texts(oddity, units, data):
    """``workers.in_file_order`` (rows ordered by the round's unit ranks, cells checked once per
    unit) makes what ``forecast_columns`` then ``forecast_file`` make, or leaves the set to them:
    the bytes, the problems, the rows' positions, probabilities and reasonings (``prepare``), or
    the writer's refusal of a unit no round holds (a malformed date)."""
    from generator.interop.forecastbench import workers
    from generator.interop.forecastbench.parse import Parsed

    odd_unit = [oddity[1]] if isinstance(oddity, tuple) and oddity[0] == "unit" else []
    questions = pd.DataFrame(
        {
            "question_id": pd.array([u[0] for u in units + odd_unit], dtype=str),
            "resolution_date": pd.array([u[1] for u in units + odd_unit], dtype=str),
        }
    )
    round_units = workers.RoundUnits.of(questions)
    rows = data.draw(st.permutations(units))  # every unit once, in any order; or some of them
    rows = data.draw(st.permutations(rows[: data.draw(st.integers(1, len(rows)))] + odd_unit))
    if oddity == "repeated":
        rows = data.draw(st.permutations(rows + data.draw(st.lists(st.sampled_from(rows), min_size=1, max_size=3))))
    if oddity == "outside":
        rows = data.draw(st.permutations(rows + data.draw(st.lists(st.sampled_from(_OUTSIDE), min_size=1, max_size=2))))
    n = len(rows)
    columns = {
        "question_id": [r[0] for r in rows],
        "resolution_date": [r[1] for r in rows],
        "probability": data.draw(st.lists(st.floats(0, 1) | st.sampled_from([-0.0, 1e-9, 0.9999995]), min_size=n, max_size=n)),
        "reasoning": data.draw(st.lists(st.sampled_from(["", "ok", "\u00fc", "a b"]), min_size=n, max_size=n)),
    }
    if isinstance(oddity, tuple) and oddity[0] == "cell":
        columns[oddity[1][0]][data.draw(st.integers(0, n - 1))] = oddity[1][1]
    fset = Parsed("x.json", "2026-01-04", header={"individual": False}, rows=[columns])
    workers._ROUNDS["2026-01-04"] = round_units
    original = workers.in_file_order
    try:
        fast = bytes_or_error(lambda: workers.prepare(fset))
        workers.in_file_order = lambda *args: None
        general = bytes_or_error(lambda: workers.prepare(fset))
    finally:
        workers.in_file_order = original
        workers._ROUNDS.clear()
    assert fast == general


def test_a_well_formed_set_of_plain_units_is_put_in_order_by_the_units_ranks():
    """The set the test above compares most often takes the rank path (it is not always left to the general one)."""
    from generator.interop.forecastbench import workers
    from generator.interop.forecastbench.parse import Parsed

    units = [("fred:b", "2026-02-01"), ("manifold:\u00e9", ""), ("fred:a", "2026-01-01"), ("fred:a", "")]
    round_units = workers.RoundUnits.of(
        pd.DataFrame({"question_id": pd.array([u[0] for u in units], dtype=str), "resolution_date": pd.array([u[1] for u in units], dtype=str)})
    )
    rows = [units[1], units[0], units[3]]
    fset = Parsed(
        "x.json",
        "2026-01-04",
        header={},
        rows=[
            {
                "question_id": [r[0] for r in rows],
                "resolution_date": [r[1] for r in rows],
                "probability": [0.25, 1.0, 0.0],
                "reasoning": ["", "why", ""],
            }
        ],
    )
    data, (positions, values, reasons) = workers.in_file_order(fset, round_units)
    assert (
        data == b"question_id,resolution_date,probability,reasoning\nfred:a,,0.000000,\nfred:b,2026-02-01,1.000000,why\n"
        b"manifold:\xc3\xa9,,0.250000,\n"
    )
    assert positions.tolist() == [3, 0, 1] and values == [0.0, 1.0, 0.25] and reasons == ["", "why", ""]


def test_a_worker_stages_the_file_in_the_hub_and_keeps_the_entry_of_the_frame_it_reads_as(tmp_path):
    """Given the hub, ``workers.prepare`` stages the file beside its place (the bytes the import makes,
    not yet in place) and, with a disk cache, keeps its frame as a cache entry: once the file is in
    place, the cache gives the frame ``as_read`` does. A file the general writer writes (no frame
    from ``as_read``) gets no entry; without a disk cache the frame comes back as rows."""
    from generator.interop.forecastbench import workers
    from generator.interop.forecastbench.parse import Parsed
    from generator.store.cache.disk import DiskCache
    from generator.timeutil import parse_ts

    clean = ["m1", "\u00e9\u2713 \u00fc", "p2", "p3", "p4"]  # ids written as they are (the fast path)
    ids = [*HOSTILE_IDS, *clean[2:]]
    questions = pd.DataFrame(
        {
            "question_id": pd.array([f"manifold:{i}" for i in ids] + ["fred:F1"], dtype=str),
            "resolution_date": pd.array([""] * len(ids) + ["2026-01-11"], dtype=str),
        }
    )
    allowed = fb_frames.unit_keys(questions)
    workers._ROUNDS["2026-01-04"] = workers.RoundUnits.of(questions)
    entries = 0
    try:
        for disk in (True, False):
            root = tmp_path / f"hub-{disk}"
            hub = Hub(root, ReadCache(disk=DiskCache.open(tmp_path / "cache", root) if disk else None))
            workers._HUB[:] = [hub]
            for k, reason in enumerate(HOSTILE_REASONS):
                kept = clean[k % 3 :] if k % 2 == 0 else HOSTILE_IDS[k % 4 :]
                rows = {
                    "question_id": ["fred:F1"] + [f"manifold:{i}" for i in reversed(kept)] + ["manifold:zz"],
                    "resolution_date": ["2026-01-11"] + [""] * len(kept) + [""],
                    "probability": [0.25 + k / 100] * (len(kept) + 2),
                    "reasoning": [reason or "", *["x", reason or ""] * len(kept)][: len(kept) + 2],
                }
                fset = Parsed("x.json", "2026-01-04", header={"organization": "Org", "model": f"m{k}"}, rows=[rows])
                data, cells = forecast_file(fb_frames.forecast_columns(fset, allowed)[0])
                expected = as_read(cells) if cells is not None else None
                made = workers.prepare(fset)
                path = hub.layout.forecast(parse_ts("2026-01-04"), fb_frames.model_id(fset))
                staged = Path(made.staged)
                assert made.data is None and staged.parent == path.parent and staged.name.endswith(".tmp")
                assert staged.read_bytes() == data and made.digest == hashlib.sha256(data).hexdigest() and not path.exists()
                staged.replace(path)
                if made.entry_kept:
                    entries += 1
                    assert disk and expected is not None and made.rows is None
                    pd.testing.assert_frame_equal(hub.cache.disk_frame(path, FORECASTS, hub.layout.relative(path)), expected, check_exact=True)
                else:
                    assert (made.rows is None) == (expected is None) and (expected is None or not disk)
                    got = workers.frame_of(made, questions["question_id"].to_numpy(dtype=object), questions["resolution_date"].to_numpy(dtype=object))
                    assert (got is None) == (expected is None)
                    if expected is not None:
                        pd.testing.assert_frame_equal(got, expected, check_exact=True)
        assert entries >= 2
    finally:
        workers._ROUNDS.clear()
        workers._HUB.clear()


@pytest.mark.parametrize("questions", [HOSTILE_IDS, ["m1", "\u00e9\u2713", "m2"]], ids=["hostile", "plain"])
def test_the_pooled_import_keeps_cache_entries_that_read_as_the_files_do(tmp_path, monkeypatch, questions):
    """An import with a disk cache, its forecast files made by the parsing workers: the next command
    reads each forecast file's frame from the cache (the workers' entries), equal to parsing the file,
    and the files are those of the one-by-one import. In a round of plain ids, the hub's baselines'
    files (made by the workers too) have entries; a hostile id (a control character) leaves them none."""
    from generator.interop.forecastbench import workers
    from generator.interop.forecastbench.importer import import_forecastbench
    from generator.schemas import FORECASTS
    from generator.store.cache.disk import DiskCache
    from generator.store.csvio import read_table

    data, forecasts = hostile_fb(tmp_path / "in", questions)
    outcomes = []
    for name, least in (("one", 10**9), ("pooled", 0)):
        monkeypatch.setattr(workers, "_POOL_MIN_FILES", least)
        root, folder = tmp_path / name, tmp_path / f"cache-{name}"
        hub = Hub(root, ReadCache(disk=DiskCache.open(folder, root)))
        report = import_forecastbench(hub, data, forecasts, as_of="2026-08-21T00:00:00Z")
        hub.cache.close()
        remembered = {key[2] for key in hub.cache.tables}
        later = Hub(root, ReadCache(disk=DiskCache.open(folder, root)))  # the next command
        kept = {}
        for path in sorted(root.glob("data/forecasts/**/*.csv")):
            label = hub.layout.relative(path)
            frame = later.cache.disk_frame(path, FORECASTS, label)
            if frame is not None:
                pd.testing.assert_frame_equal(frame, read_table(path, FORECASTS, label), check_exact=True)
                kept[label] = label in remembered
        files = {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file() and ".lock" not in p.name}
        outcomes.append((repr(report), files, kept))
    assert outcomes[1][:2] == outcomes[0][:2]
    one, pooled = outcomes[0][2], outcomes[1][2]
    assert pooled.keys() == one.keys() and len(one) >= 4 and all(one.values())
    assert not any(pooled.values())  # the workers' entries, no frame held in memory
    assert sum("prescient.always-" in label for label in pooled) == (0 if questions is HOSTILE_IDS else 3)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.text(max_size=4) | st.sampled_from(["", "\x1f", "a\x1fb", "\ud800", "\x00"]), max_size=6)
    | st.lists(st.floats(allow_nan=False) | st.sampled_from([-0.0, 1e-300, 0.1]), max_size=6)
    | st.lists(st.integers() | st.floats() | st.none() | st.text(max_size=2), max_size=6)
)
def test_columns_packed_for_the_trip_from_a_worker_come_back_as_they_were(values):
    from generator.interop.forecastbench import workers

    back = workers.unpack(workers.packed(list(values)))
    assert repr(back) == repr(values) and [type(v) for v in back] == [type(v) for v in values]
