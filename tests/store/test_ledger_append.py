"""A ledger append writes only the new bytes (``atomic.append_bytes_atomic``), in place, and is all
or nothing: the file's bytes are exactly those of a whole rewrite, a refused append leaves it as it
was, and an append killed after its bytes were added is rolled back by the next holder of the lock."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from generator.schemas import QUESTIONS
from generator.store import csvio, ledger
from generator.store.atomic import FAULT_ENV
from generator.store.cache import ReadCache
from generator.store.csvio import RoundTripError, read_table, to_csv_bytes
from generator.store.lock import hub_lock, remove_stale_temp_files

from helpers import ROOT

HOSTILE = [
    "plain",
    "a, comma",
    'say "hi"',
    "two\nlines",
    "a bare\rCR",
    "crlf\r\nend",
    " edge space ",
    "ünïcödé — ✓ 日本",
    "=SUM(A1)",
    "\u2028sep",
    "tab\there",
]


def questions(day: int, texts: list[str]) -> pd.DataFrame:
    """One question row per text, recorded on ``day`` of January 2026, with the text in every text column."""
    stamp = f"2026-01-{day:02d}T00:00:00Z"
    rows = [
        {
            "id": f"sim:{i}",
            "recorded_at": stamp,
            "source": "sim",
            "kind": "binary",
            "text": t,
            "background": t,
            "resolution_criteria": t,
            "url": "https://example.org/q",
            "category": t,
            "open_time": "",
            "close_time": "",
        }
        for i, t in enumerate(texts)
    ]
    return pd.DataFrame(rows, columns=list(QUESTIONS.names))


def temps(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_appended_bytes_are_those_of_a_whole_rewrite_on_hostile_text(tmp_path: Path):
    path = tmp_path / "sim.csv"
    nights = [questions(1, HOSTILE), questions(2, HOSTILE[::-1]), questions(3, [t + "!" for t in HOSTILE])]
    inode, cache = None, ReadCache()
    for n, rows in enumerate(nights, start=1):
        added = ledger.append(path, rows, QUESTIONS, "q", cache)
        assert len(added) == len(rows)
        whole = pd.concat(nights[:n], ignore_index=True)
        assert path.read_bytes() == to_csv_bytes(whole, QUESTIONS)  # the general writer's bytes
        inode = path.stat().st_ino if inode is None else inode
        assert path.stat().st_ino == inode  # appended in place, not replaced
        # what the append keeps for the next read is what a read of the file gives
        pd.testing.assert_frame_equal(cache.read_table(path, QUESTIONS, "q"), read_table(path, QUESTIONS, "q"))
    assert temps(tmp_path) == []


def test_a_last_line_without_its_line_end_gets_one_before_the_appended_rows(tmp_path: Path):
    path = tmp_path / "sim.csv"
    ledger.append(path, questions(1, HOSTILE[:3]), QUESTIONS, "q")
    path.write_bytes(path.read_bytes().rstrip(b"\n"))
    ledger.append(path, questions(2, HOSTILE[3:6]), QUESTIONS, "q")
    assert path.read_bytes() == to_csv_bytes(pd.concat([questions(1, HOSTILE[:3]), questions(2, HOSTILE[3:6])]), QUESTIONS)


def test_a_refused_append_truncates_the_file_back_and_leaves_no_journal(tmp_path: Path, monkeypatch):
    path = tmp_path / "sim.csv"
    ledger.append(path, questions(1, HOSTILE), QUESTIONS, "q")
    before, inode = path.read_bytes(), path.stat().st_ino
    monkeypatch.setattr(csvio, "read_back_problems", lambda *a, **k: [csvio.Problem("q", None, None, "write-read-back", "no")])
    with pytest.raises(RoundTripError):
        ledger.append(path, questions(2, HOSTILE), QUESTIONS, "q")
    assert path.read_bytes() == before and path.stat().st_ino == inode and temps(tmp_path) == []


KILLED_APPEND = """
import sys
import pandas as pd
from generator.schemas import QUESTIONS
from generator.store import ledger
rows = pd.read_json(sys.stdin, orient="records", dtype=False)
ledger.append(__import__("pathlib").Path(sys.argv[1]), rows, QUESTIONS, "q")
"""


def test_an_append_killed_after_its_bytes_were_added_is_rolled_back_by_the_next_lock(tmp_path: Path):
    """SIGKILL at the worst moment (the new bytes added and fsynced, the journal not yet removed):
    the journal is left; the next command to take the hub lock truncates the ledger back, and the
    same append then gives the bytes of an uninterrupted one."""
    data = tmp_path / "data"
    data.mkdir()
    path = data / "sim.csv"
    ledger.append(path, questions(1, HOSTILE), QUESTIONS, "q")
    before = path.read_bytes()
    night = questions(2, HOSTILE[::-1])
    killed = subprocess.run(
        [sys.executable, "-c", KILLED_APPEND, str(path)],
        input=night.to_json(orient="records"),
        text=True,
        capture_output=True,
        timeout=120,
        env={**os.environ, FAULT_ENV: "1", "PYTHONPATH": str(ROOT)},
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert len(path.read_bytes()) > len(before) and path.read_bytes().startswith(before)
    assert [t.startswith(".sim.csv.append-") for t in temps(data)] == [True]
    with hub_lock(data, "test"):
        assert path.read_bytes() == before and temps(data) == []
    ledger.append(path, night, QUESTIONS, "q")
    assert path.read_bytes() == to_csv_bytes(pd.concat([questions(1, HOSTILE), night]), QUESTIONS)


def test_a_journal_rolls_back_a_half_written_row_and_a_cut_short_journal_touches_nothing(tmp_path: Path):
    path = tmp_path / "sim.csv"
    ledger.append(path, questions(1, HOSTILE), QUESTIONS, "q")
    before = path.read_bytes()
    path.write_bytes(before + b'sim:9,2026-01-02T00:00:00Z,sim,binary,"half a ro')
    (tmp_path / ".sim.csv.append-abc123.tmp").write_bytes(b"%d\n" % len(before))
    (tmp_path / ".sim.csv.append-def456.tmp").write_bytes(b"")  # killed before its length was written
    (tmp_path / ".other.csv.x1.tmp").write_bytes(b"a rewrite's temp file")
    assert len(remove_stale_temp_files(tmp_path)) == 3
    assert path.read_bytes() == before and temps(tmp_path) == []


def test_the_rows_appended_since_a_mark_are_found_with_one_pass_over_the_file(tmp_path: Path):
    """``readers.appended_rows`` hashes the old length and the whole file in one pass: the marks are
    the files' sha256, the rows are the appended ones, and a changed old byte is found."""
    import hashlib

    from generator.store import readers
    from generator.store.hub import Hub

    hub = Hub(tmp_path)
    path = tmp_path / "data" / "questions" / "sim.csv"
    path.parent.mkdir(parents=True)
    ledger.append(path, questions(1, HOSTILE), QUESTIONS, "q", hub.cache)
    first, rows = readers.appended_rows(hub, path, QUESTIONS, None)
    assert first.sha256 == hashlib.sha256(path.read_bytes()).hexdigest() and len(rows) == len(HOSTILE)
    ledger.append(path, questions(2, HOSTILE[:4]), QUESTIONS, "q", hub.cache)
    second, rows = readers.appended_rows(hub, path, QUESTIONS, first)
    assert second.sha256 == hashlib.sha256(path.read_bytes()).hexdigest() and second.size == path.stat().st_size
    assert rows is not None and rows["text"].tolist() == HOSTILE[:4]
    path.write_bytes(path.read_bytes().replace(b"plain", b"PLAIN", 1))  # an old row changed, same length
    assert readers.appended_rows(hub, path, QUESTIONS, second)[1] is None


def test_no_row_to_add_reads_and_writes_nothing(tmp_path: Path, monkeypatch):
    """A night with nothing to append (the history before any score) costs no read: the file, even
    one that would not parse, is left as it is, and no file is made where there was none."""
    path = tmp_path / "questions.csv"
    ledger.append(path, questions(1, ["plain"]).iloc[:0], QUESTIONS, "questions.csv")
    assert not path.exists()
    path.write_bytes(b"not,a,ledger\n")
    monkeypatch.setattr(ledger, "_read", lambda *a: pytest.fail("an append of no row read the ledger"))
    added = ledger.append(path, questions(1, ["plain"]).iloc[:0], QUESTIONS, "questions.csv", ReadCache())
    assert added.empty and list(added.columns) == list(QUESTIONS.names)
    assert path.read_bytes() == b"not,a,ledger\n"
