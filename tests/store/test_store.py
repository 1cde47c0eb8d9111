"""The store: deterministic CSV bytes, schema checks on read, atomic writes, the append-only ledger."""

from __future__ import annotations

import os
import stat

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.errors import LedgerError, SchemaError
from generator.schemas import FORECASTS, HISTORY, OBSERVATIONS
from generator.store import atomic, csvio, ledger
from generator.store.cache import ReadCache
from generator.store.csvio import read_table, to_csv_bytes, write_table


def obs_rows(*rows):
    cols = ["question_id", "observed_at", "recorded_at", "value", "status", "outcome", "payload_sha256"]
    return pd.DataFrame([dict(zip(cols, r, strict=True)) for r in rows], columns=cols)


def test_bytes_are_canonical_whatever_the_input_order():
    a = obs_rows(
        ("q:2", "2026-01-02T00:00:00Z", "2026-01-02T00:00:00Z", 0.1 + 0.2, "open", None, "h"),
        ("q:1", "2026-01-02T00:00:00Z", "2026-01-02T00:00:00Z", -0.0, "open", None, "h"),
    )
    b = a.iloc[::-1]
    assert to_csv_bytes(a, OBSERVATIONS) == to_csv_bytes(b, OBSERVATIONS)
    assert to_csv_bytes(a, OBSERVATIONS).decode().splitlines() == [
        "question_id,observed_at,recorded_at,value,status,outcome,payload_sha256",
        "q:1,2026-01-02T00:00:00Z,2026-01-02T00:00:00Z,0,open,,h",
        "q:2,2026-01-02T00:00:00Z,2026-01-02T00:00:00Z,0.3,open,,h",
    ]


def test_probabilities_have_fixed_precision():
    frame = pd.DataFrame({"question_id": ["a:1"], "resolution_date": [""], "probability": [0.25], "reasoning": ["x, y"]})
    assert to_csv_bytes(frame, FORECASTS) == b'question_id,resolution_date,probability,reasoning\na:1,,0.250000,"x, y"\n'


def test_read_reports_every_problem_with_file_row_and_column(tmp_path):
    path = tmp_path / "f.csv"
    path.write_text("question_id,probability,extra\na:1,1.5,\na:1,nan,\n,0.2,\n", encoding="utf-8")
    with pytest.raises(SchemaError) as info:
        read_table(path, FORECASTS, "data/forecasts/x.csv")
    found = {(p.code, p.row, p.column) for p in info.value.problems}
    assert ("missing-column", 1, "resolution_date") in found
    assert ("missing-column", 1, "reasoning") in found
    assert ("unknown-column", 1, "extra") in found
    assert ("bad-value", 2, "probability") in found
    assert ("bad-value", 3, "probability") in found
    assert ("empty-value", 4, "question_id") in found
    assert all(p.file == "data/forecasts/x.csv" for p in info.value.problems)


def test_duplicate_keys_are_reported(tmp_path):
    path = tmp_path / "f.csv"
    path.write_text("question_id,resolution_date,probability,reasoning\na:1,,0.1,\na:1,,0.2,\n", encoding="utf-8")
    with pytest.raises(SchemaError) as info:
        read_table(path, FORECASTS)
    assert [(p.code, p.row) for p in info.value.problems] == [("duplicate-key", 3)]


def test_the_key_check_finds_duplicates_of_cells_that_are_not_text():
    """The set-of-tuples shortcut of the key check takes text cells only: a frame whose key holds
    other values (here a missing one, twice) goes through ``duplicated``, which finds the repeat."""
    raw = pd.DataFrame(
        {
            "question_id": ["a:1", "a:1", "b:1"],
            "resolution_date": [None, None, "2026-01-01"],
            "probability": ["0.1", "0.2", "0.3"],
            "reasoning": ["", "", ""],
        },
        dtype=object,
    )
    found = [(p.code, p.row) for p in csvio.check_frame(raw, FORECASTS, "f.csv")]
    assert ("duplicate-key", 3) in found
    assert [code for code, _ in found].count("duplicate-key") == 1
    unique = raw.iloc[1:].reset_index(drop=True)
    assert "duplicate-key" not in [p.code for p in csvio.check_frame(unique, FORECASTS, "f.csv")]


def test_not_utf8_is_a_clear_error(tmp_path):
    path = tmp_path / "f.csv"
    path.write_bytes("question_id,resolution_date,probability,reasoning\nä,,0.1,\n".encode("latin-1"))
    with pytest.raises(SchemaError) as info:
        read_table(path, FORECASTS)
    assert info.value.problems[0].code == "not-utf8"


def test_write_is_atomic_and_skips_identical_bytes(tmp_path):
    path = tmp_path / "sub" / "f.csv"
    frame = pd.DataFrame({"question_id": ["a:1"], "resolution_date": [""], "probability": [0.5], "reasoning": [""]})
    assert write_table(path, frame, FORECASTS) is True
    mtime = path.stat().st_mtime_ns
    assert write_table(path, frame.copy(), FORECASTS) is False
    assert path.stat().st_mtime_ns == mtime
    assert [p.name for p in path.parent.iterdir()] == ["f.csv"]  # no temp file left behind


def test_a_frame_this_command_wrote_last_is_not_serialised_again(tmp_path, monkeypatch):
    """With the command's cache, a file's second write takes the frame's digest and a third of the
    same frame to the untouched file is skipped; another frame, or a file changed since, is written."""
    path, cache = tmp_path / "f.csv", ReadCache()
    frame = pd.DataFrame({"question_id": ["a:1"], "resolution_date": [""], "probability": [0.5], "reasoning": [""]})
    serialised = []
    original = csvio.canonical_cells
    monkeypatch.setattr(csvio, "canonical_cells", lambda *a: serialised.append(1) or original(*a))
    assert cache.write_table(path, frame, FORECASTS) is True
    assert cache.write_table(path, frame.copy(), FORECASTS) is False
    assert cache.write_table(path, frame.copy(), FORECASTS) is False
    assert len(serialised) == 2  # the third was skipped
    assert cache.write_table(path, frame.assign(probability=0.25), FORECASTS) is True
    atomic.write_bytes_atomic(path, b"question_id,resolution_date,probability,reasoning\n")
    assert cache.write_table(path, frame.assign(probability=0.25), FORECASTS) is True
    assert read_table(path, FORECASTS)["probability"].tolist() == [0.25]


def test_refuses_to_write_a_frame_that_breaks_its_schema(tmp_path):
    frame = pd.DataFrame({"question_id": ["a:1"], "resolution_date": [""], "probability": [1.2], "reasoning": [""]})
    with pytest.raises(SchemaError):
        write_table(tmp_path / "f.csv", frame, FORECASTS)
    assert not (tmp_path / "f.csv").exists()


# --- the ledger ----------------------------------------------------------------------------------


def history(rows):
    cols = [
        "as_of",
        "board",
        "model",
        "rank",
        "n",
        "n_dataset",
        "n_market",
        "overall",
        "dataset",
        "market",
        "brier_overall",
        "provisional",
        "methodology_version",
    ]
    return pd.DataFrame([dict(zip(cols, r, strict=True)) for r in rows], columns=cols)


ROW1 = ("2026-01-01T00:00:00Z", "t", "a.b", 1, 10, 5, 5, 55.5, 50.1, 60.2, 0.2, 0, "1")
ROW2 = ("2026-01-02T00:00:00Z", "t", "a.b", 1, 12, 6, 6, 56.0, 51.0, 61.0, 0.19, 0, "1")


def test_append_then_same_rows_again_changes_nothing(tmp_path):
    path = tmp_path / "history.csv"
    assert len(ledger.append(path, history([ROW1]), HISTORY, "h")) == 1
    before = path.read_bytes()
    assert len(ledger.append(path, history([ROW1]), HISTORY, "h")) == 0
    assert path.read_bytes() == before


def test_later_rows_are_appended_after_the_existing_bytes(tmp_path):
    path = tmp_path / "history.csv"
    ledger.append(path, history([ROW1]), HISTORY, "h")
    before = path.read_bytes()
    ledger.append(path, history([ROW2]), HISTORY, "h")
    assert path.read_bytes().startswith(before)
    assert len(path.read_bytes().splitlines()) == 3


def test_conflicting_row_is_refused_and_nothing_is_written(tmp_path):
    path = tmp_path / "history.csv"
    ledger.append(path, history([ROW1, ROW2]), HISTORY, "data/leaderboard/history.csv")
    before = path.read_bytes()
    changed = ROW1[:7] + (57.5,) + ROW1[8:]
    with pytest.raises(LedgerError) as info:
        ledger.append(path, history([changed]), HISTORY, "data/leaderboard/history.csv")
    problem = info.value.problems[0]
    assert (problem.code, problem.row, problem.column) == ("ledger-conflict", 2, "overall")
    assert "55.5" in problem.message and "57.5" in problem.message
    assert path.read_bytes() == before


values = st.floats(min_value=0, max_value=1, allow_nan=False).map(lambda x: round(x, 4))
rows = st.lists(st.tuples(st.integers(0, 5), st.integers(1, 5), values), max_size=12)


def as_obs(items):
    return obs_rows(*[(f"q:{q}", f"2026-01-0{d}T00:00:00Z", f"2026-01-0{d}T00:00:00Z", v, "open", None, "") for q, d, v in items]).drop_duplicates(
        ["question_id", "observed_at", "recorded_at"]
    )


@settings(max_examples=60, deadline=None)
@given(rows, rows)
def test_merge_is_idempotent(a, b):
    """append(append(a, b), b) == append(a, b), whenever b does not conflict with a."""
    old, new = as_obs(a), as_obs(b)
    try:
        once, _ = ledger.merge(old, new, OBSERVATIONS, "x")
    except LedgerError:
        return
    twice, added = ledger.merge(once, new, OBSERVATIONS, "x")
    assert len(added) == 0
    assert to_csv_bytes(twice, OBSERVATIONS) == to_csv_bytes(once, OBSERVATIONS)


@pytest.fixture
def umask_022():
    """The usual umask, whatever the test runner's: new files then get 0644."""
    old = os.umask(0o022)
    atomic.new_file_mode.cache_clear()
    yield
    os.umask(old)
    atomic.new_file_mode.cache_clear()


def mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_written_files_get_the_normal_mode_not_mkstemps_0600(tmp_path, umask_022):
    fresh, table, log = tmp_path / "a.bin", tmp_path / "f.csv", tmp_path / "obs.csv"
    assert atomic.write_bytes_atomic(fresh, b"x") and mode(fresh) == 0o644
    assert atomic.write_bytes_atomic(fresh, b"y") and mode(fresh) == 0o644
    write_table(table, pd.DataFrame({"question_id": ["a:1"], "probability": [0.5]}), FORECASTS)
    for day, value in (("2026-01-01", 0.5), ("2026-01-02", 0.6)):  # a new file, then an append
        stamp = f"{day}T00:00:00Z"
        ledger.append(log, obs_rows(("q:1", stamp, stamp, value, "open", None, "h")), OBSERVATIONS, "obs")
    assert (mode(table), mode(log)) == (0o644, 0o644)
    table.chmod(0o664)  # a mode the maintainer chose is kept
    write_table(table, pd.DataFrame({"question_id": ["a:2"], "probability": [0.5]}), FORECASTS)
    assert mode(table) == 0o664


def test_new_file_mode_follows_the_umask(tmp_path):
    old = os.umask(0o077)
    atomic.new_file_mode.cache_clear()
    try:
        atomic.write_bytes_atomic(tmp_path / "private", b"x")
        assert mode(tmp_path / "private") == 0o600
    finally:
        os.umask(old)
        atomic.new_file_mode.cache_clear()


def test_a_failed_check_keeps_the_old_file_and_leaves_no_temp_file(tmp_path):
    path = tmp_path / "f.bin"
    atomic.write_bytes_atomic(path, b"old")

    def refuse(data: bytes) -> None:
        assert data == b"new"  # the check sees the temp file's bytes as written
        raise csvio.RoundTripError("no", [])

    with pytest.raises(csvio.RoundTripError):
        atomic.write_bytes_atomic(path, b"new", check=refuse)
    assert path.read_bytes() == b"old" and [p.name for p in tmp_path.iterdir()] == ["f.bin"]
