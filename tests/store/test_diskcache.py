"""The cache kept between commands (``store.cache.disk``) changes no output byte and trusts nothing it reads.

Frames restored from it equal the frames saved (values, dtypes, index); an entry that is stale,
truncated, damaged, another hub's or hand-made is a miss; and nights run as fresh processes with
the cache (each night a new ``ReadCache`` over the same cache folder, which is damaged between
nights) write exactly the bytes of nights run without it, and a rerun with an intact cache scores
no round again.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.pipeline import headline as headline_module
from generator.pipeline import incremental
from generator.pipeline.nightly import nightly
from generator.schemas import OBSERVATIONS, QUESTIONS, RESOLUTIONS, SCORES, Table
from generator.store.cache import ReadCache
from generator.store.cache.disk import DiskCache, code_digest, decode_frame, default_dir, encode_frame
from generator.store.csvio import coerce, read_table, to_csv_bytes
from generator.store.hub import Hub
from generator.timeutil import days

from helpers import WORLD_EVENT, WORLD_HUB, WORLD_START, World, apply_event, data_bytes

pytestmark = pytest.mark.e2e

CELL = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=6)


def _text_frame(table: Table, rows: int, draw) -> pd.DataFrame:
    cells = {}
    for column in table.columns:
        if column.type in ("float", "prob") or column.type == "int":
            pick = st.sampled_from(
                ["", "0", "1", "-0.0", "0.25", "1e-300", "12345678901"]
                if column.type != "int" or column.nullable
                else ["0", "7", "-3", "9007199254740993"]
            )
        else:
            pick = CELL
        cells[column.name] = [draw(pick) for _ in range(rows)]
    return pd.DataFrame(cells, dtype=str)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), st.sampled_from([QUESTIONS, OBSERVATIONS, RESOLUTIONS, SCORES]), st.integers(0, 12))
def test_a_frame_reads_back_exactly(data, table: Table, rows: int):
    frame = coerce(_text_frame(table, rows, data.draw), table)
    back = decode_frame(encode_frame(frame, "n", "s"), "n", "s")
    assert back is not None
    pd.testing.assert_frame_equal(back, frame, check_exact=True)
    assert back.dtypes.tolist() == frame.dtypes.tolist() and back.index.equals(frame.index)
    for column in frame.columns:  # bit for bit: -0.0 stays -0.0, NaN stays NaN
        if frame[column].dtype.kind == "f":
            assert back[column].to_numpy().tobytes() == frame[column].to_numpy().tobytes()


def test_object_and_bool_columns_keep_their_dtype_and_others_are_not_kept():
    frame = pd.DataFrame({"o": pd.Series(["a", "é"], dtype=object), "b": [True, False], "i": np.array([1, 2], dtype="int32")})
    back = decode_frame(encode_frame(frame, "n", "s"), "n", "s")
    pd.testing.assert_frame_equal(back, frame, check_exact=True)
    assert encode_frame(pd.DataFrame({"o": pd.Series(["a", None], dtype=object)}), "n", "s") is None  # a missing value
    assert encode_frame(pd.DataFrame({"t": pd.to_datetime(["2026-01-01"])}), "n", "s") is None  # a dtype it does not hold
    assert encode_frame(pd.DataFrame({"o": ["\ud800"]}, dtype=object), "n", "s") is None  # a lone surrogate
    assert encode_frame(frame.set_index("o"), "n", "s") is None  # not the default index


def _sample() -> tuple[pd.DataFrame, bytes]:
    frame = pd.DataFrame(
        {
            "q": pd.Series(["a", "b", "a", "ç"], dtype="str"),
            "v": [0.5, np.nan, 1.0, -0.0],
            "n": np.array([1, 2, 3, 4]),
            "f": [True, False, True, True],
        }
    )
    return frame, encode_frame(frame, "n", "s")


def test_stale_other_and_damaged_entries_are_misses():
    frame, data = _sample()
    assert decode_frame(data, "n", "s") is not None
    assert decode_frame(data, "n", "other-hash") is None  # stale: the file's bytes changed since
    assert decode_frame(data, "other-name", "s") is None  # another file's (or another hub's) entry
    for cut in range(len(data)):  # truncated anywhere
        assert decode_frame(data[:cut], "n", "s") is None, cut
    assert decode_frame(data + b"\0", "n", "s") is None  # trailing bytes
    for at in range(0, len(data), 3):  # one byte damaged anywhere (header or buffers)
        damaged = bytearray(data)
        damaged[at] ^= 0x41
        back = decode_frame(bytes(damaged), "n", "s")
        assert back is None, at


def _forged(header_change: dict, body: bytes | None = None) -> bytes:
    """An entry built by hand around the sample: its header edited, its checksum made to match."""
    import hashlib
    import struct

    _, data = _sample()
    magic = b"PRESCIENT-FRAME\n"
    (size,) = struct.unpack_from("<Q", data, len(magic))
    header = json.loads(data[len(magic) + 8 : len(magic) + 8 + size])
    body = data[len(magic) + 8 + size : -32] if body is None else body
    header.update(header_change)
    raw = json.dumps(header).encode()
    forged = magic + struct.pack("<Q", len(raw)) + raw + body
    return forged + hashlib.sha256(forged).digest()  # the forger recomputes the checksum


def test_hand_made_entries_are_refused_not_trusted():
    frame, _ = _sample()
    assert decode_frame(_forged({}), "n", "s").equals(frame)  # the forger's baseline is a valid entry
    columns = json.loads(json.dumps(_columns()))
    huge = [dict(c, parts=[2**62] * len(c["parts"])) for c in columns]
    assert decode_frame(_forged({"columns": huge}), "n", "s") is None  # lengths beyond the file
    assert decode_frame(_forged({"rows": 10**12}), "n", "s") is None  # more rows than bytes
    assert decode_frame(_forged({"rows": -1}), "n", "s") is None
    assert decode_frame(_forged({"columns": [dict(columns[0], dtype="O")] + columns[1:]}), "n", "s") is None  # not a listed dtype
    assert decode_frame(_forged({"columns": [dict(columns[0], dtype="category")] + columns[1:]}), "n", "s") is None
    assert decode_frame(_forged({"columns": [dict(columns[0], uniques=1)] + columns[1:]}), "n", "s") is None  # codes out of range
    assert decode_frame(_forged({"columns": columns[:1] + [dict(columns[1], name="q")] + columns[2:]}), "n", "s") is None  # name twice
    assert decode_frame(_forged({"format": 0}), "n", "s") is None
    assert decode_frame(b"\x80\x04\x95" + b"pickle", "n", "s") is None  # a pickle is never read as one
    assert decode_frame(b"", "n", "s") is None
    _, data = _sample()
    import struct

    magic = b"PRESCIENT-FRAME\n"
    (size,) = struct.unpack_from("<Q", data, len(magic))
    bools = bytearray(data[len(magic) + 8 + size : -32])
    bools[-1] = 2  # the last buffer is the bool column: 2 is no bool
    assert decode_frame(_forged({}, bytes(bools)), "n", "s") is None


def _columns() -> list[dict]:
    import struct

    _, data = _sample()
    magic = b"PRESCIENT-FRAME\n"
    (size,) = struct.unpack_from("<Q", data, len(magic))
    return json.loads(data[len(magic) + 8 : len(magic) + 8 + size])["columns"]


def test_a_ledger_read_through_the_cache_equals_read_table_and_a_hostile_entry_is_ignored(tmp_path: Path):
    path = tmp_path / "resolutions.csv"
    path.write_bytes(
        b"round,question_id,resolution_date,recorded_at,status,outcome,resolved_at,value,payload_sha256\n"
        b',sim:a,,2026-01-02T00:00:00Z,void,,,,\n,"sim:b, c",,2026-01-03T00:00:00Z,resolved,1,2026-01-03T00:00:00Z,0.25,\n'
    )
    plain = read_table(path, RESOLUTIONS, "r.csv")
    folder = tmp_path / "cache"
    first = ReadCache(disk=DiskCache.open(folder, tmp_path)).read_table(path, RESOLUTIONS, "r.csv")
    again = ReadCache(disk=DiskCache.open(folder, tmp_path))  # another process
    second = again.read_table(path, RESOLUTIONS, "r.csv")
    for frame in (first, second):
        pd.testing.assert_frame_equal(frame, plain, check_exact=True)
    (entry,) = (folder / "frames").iterdir()
    text = pd.DataFrame({n: ["x"] for n in RESOLUTIONS.names}).assign(outcome="1", value="", recorded_at="2026-01-02T00:00:00Z")
    forged = coerce(text, RESOLUTIONS)
    disk = DiskCache.open(folder, tmp_path)
    name = f"table resolutions r.csv {os.path.abspath(path)}"
    assert disk.save_frame(name, "0" * 64, forged)  # an entry for other bytes: stale
    pd.testing.assert_frame_equal(ReadCache(disk=DiskCache.open(folder, tmp_path)).read_table(path, RESOLUTIONS, "r.csv"), plain)
    entry.write_bytes(entry.read_bytes()[:-5])  # truncated
    pd.testing.assert_frame_equal(ReadCache(disk=DiskCache.open(folder, tmp_path)).read_table(path, RESOLUTIONS, "r.csv"), plain)
    other = DiskCache.open(folder, tmp_path / "elsewhere")  # another hub's entry under the same file name
    assert other.save_frame(name, other.sha256(path), forged)
    pd.testing.assert_frame_equal(ReadCache(disk=DiskCache.open(folder, tmp_path)).read_table(path, RESOLUTIONS, "r.csv"), plain)
    older = DiskCache(folder, other.hub.replace(str(tmp_path / "elsewhere"), str(tmp_path)).replace(code_digest(), "0" * 64))
    assert older.save_frame(name, older.sha256(path), forged)  # this hub's entry, made by other code
    pd.testing.assert_frame_equal(ReadCache(disk=DiskCache.open(folder, tmp_path)).read_table(path, RESOLUTIONS, "r.csv"), plain)
    (folder / "digests.json").write_text('{"format": 1, "files": {"x": [[1, 2, 3], "no"]}}')  # junk in the index
    pd.testing.assert_frame_equal(ReadCache(disk=DiskCache.open(folder, tmp_path)).read_table(path, RESOLUTIONS, "r.csv"), plain)


def test_files_shared_among_forked_processes_read_as_read_here_and_are_kept(tmp_path: Path, monkeypatch):
    """``ReadCache.read_tables`` hands the files not parsed yet to forked processes (``parallel.forked_map``,
    as the site build does with the score files): the frames are ``read_table``'s, kept for the command (a
    second read parses nothing), a file changed since is parsed again, and a share that does not (None)
    leaves every file to this process, with a disk cache's digests learnt in the workers coming back."""
    from generator.parallel import fork_sound, forked_map
    from generator.store import csvio

    paths = []
    for i in range(3):
        path = tmp_path / f"{i}.csv"
        path.write_bytes(
            b"round,question_id,resolution_date,recorded_at,status,outcome,resolved_at,value,payload_sha256\n"
            + f",sim:{i},,2026-01-0{i + 2}T00:00:00Z,void,,,,\n".encode()
        )
        paths.append(path)
    labels = [p.name for p in paths]
    plain = [read_table(p, RESOLUTIONS, p.name) for p in paths]
    handed: list[list[int]] = []

    def share(work, items):
        handed.append(list(items))
        return forked_map(work, items, 2, carry=cache.disk)

    cache, here, parse = ReadCache(disk=DiskCache.open(tmp_path / "cache", tmp_path)), os.getpid(), csvio.read_table
    if fork_sound():  # else (one core) ``forked_map`` gives None and every file is parsed here
        monkeypatch.setattr(csvio, "read_table", lambda *args: pytest.fail("parsed here") if os.getpid() == here else parse(*args))
    for got, expected in zip(cache.read_tables(paths, RESOLUTIONS, labels, share), plain, strict=True):
        pd.testing.assert_frame_equal(got, expected, check_exact=True)
    assert handed == [[0, 1, 2]] and {str(p) for p in paths} <= set(cache.disk.digests)
    monkeypatch.setattr(csvio, "read_table", lambda *args: pytest.fail("parsed again"))
    cache.read_tables(paths, RESOLUTIONS, labels, share)  # every file known: nothing handed, nothing parsed
    assert handed == [[0, 1, 2]]
    monkeypatch.undo()
    paths[1].write_bytes(paths[1].read_bytes().replace(b"sim:1", b"sim:9"))
    again = cache.read_tables(paths, RESOLUTIONS, labels, share)  # one file changed: parsed here, alone
    assert handed == [[0, 1, 2]] and again[1]["question_id"].tolist() == ["sim:9"]
    fresh = ReadCache()
    for got, expected in zip(fresh.read_tables(paths, RESOLUTIONS, labels, lambda work, items: None), [plain[0], again[1], plain[2]], strict=True):
        pd.testing.assert_frame_equal(got, expected, check_exact=True)


def test_a_changed_file_is_hashed_again(tmp_path: Path):
    path = tmp_path / "f.csv"
    path.write_bytes(b"a\n1\n")
    disk = DiskCache.open(tmp_path / "c", tmp_path)
    before = disk.sha256(path)
    path.write_bytes(b"a\n2\n")  # same size; a new mtime/ctime
    assert disk.sha256(path) != before
    disk.flush()
    assert DiskCache.open(tmp_path / "c", tmp_path).sha256(path) == disk.sha256(path)


def test_the_default_folder_is_outside_the_hub_and_per_hub(tmp_path: Path):
    hub = tmp_path / "hub"
    env = {"XDG_CACHE_HOME": str(tmp_path / "xdg")}
    assert default_dir(hub, env).parent == tmp_path / "xdg" / "prescient"
    assert default_dir(hub, {"PRESCIENT_CACHE_DIR": str(tmp_path / "ci")}).parent == tmp_path / "ci"
    assert default_dir(hub, env) != default_dir(tmp_path / "other", env)
    assert hub not in default_dir(hub, env).parents


def _damage(folder: Path, night: int) -> None:
    """Between nights, the cache folder is damaged in one of several ways (or left alone)."""
    frames = sorted((folder / "frames").glob("*.frame")) if (folder / "frames").is_dir() else []
    memo = folder / "state" / "nightly-memo.json"
    kind = night % 6
    if kind == 1 and frames:
        frames[night % len(frames)].write_bytes(frames[night % len(frames)].read_bytes()[:40])
    elif kind == 2 and memo.is_file():
        body = json.loads(memo.read_text())
        for entry in body["body"]["rounds"].values():
            entry["token"] = "forged"
        memo.write_text(json.dumps(body))
    elif kind == 3 and (folder / "digests.json").is_file():
        (folder / "digests.json").write_text("{not json")
    elif kind == 4 and memo.is_file():
        memo.write_text('{"format": 1, "hub": "x", "body": {"as_of": "9999"}}')
    elif kind == 5 and (folder / "state" / "nightly-headline.json").is_file():
        headline = folder / "state" / "nightly-headline.json"
        body = json.loads(headline.read_text())
        body["body"]["lines"] = ["forged"]  # a kept board's lines changed: its key still matches
        headline.write_text(json.dumps(body))


@settings(max_examples=4, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(WORLD_EVENT, max_size=5), min_size=7, max_size=9))
def test_fresh_processes_with_the_cache_write_the_bytes_of_runs_without_it(tmp_path_factory, season):
    roots = [tmp_path_factory.mktemp("cached"), tmp_path_factory.mktemp("plain")]
    for root in roots:
        (root / "data").mkdir()
        (root / "data/hub.toml").write_text(WORLD_HUB, encoding="utf-8")
    folder = tmp_path_factory.mktemp("cache")
    world = World(
        {f"sim:m{i}": (0.5, "open", None) for i in range(5)},
        {f"sim:s{i}": {WORLD_START - days(2): 1.0, WORLD_START - days(1): 2.0} for i in range(2)},
    )

    def cached() -> Hub:  # a new process: a new read cache over the same cache folder
        return Hub.load(roots[0], ReadCache(disk=DiskCache.open(folder, roots[0])))

    for n, events in enumerate(season):
        night = WORLD_START + days(n)
        for event in events:
            apply_event(world, event, night, roots, n)
        if n % 3 == 2:  # a ledger changed behind the cache's back: its kept frame is stale
            apply_event(world, ("state", n, n, "void"), night, roots, n)
        hub = cached()
        nightly(hub, night, env={}, sources={"sim": world})
        hub.cache.disk.flush()
        nightly(Hub.load(roots[1]), night, env={}, sources={"sim": world})
        assert data_bytes(roots[0]) == data_bytes(roots[1]), f"night {n}: with and without the cache differ"
        _damage(folder, n)
    last = WORLD_START + days(len(season) - 1)
    nightly(cached(), last, env={}, sources={"sim": world})  # heal whatever the last damage broke
    hub, before = cached(), data_bytes(roots[0])
    scored: list = []
    boards: list = []
    original, original_history = incremental._rescore, headline_module.history_for
    try:
        incremental._rescore = lambda *a: scored.append(a) or original(*a)
        headline_module.history_for = lambda *a: boards.append(a) or original_history(*a)
        nightly(hub, last, env={}, sources={"sim": world})  # the same night again, in a new process
    finally:
        incremental._rescore, headline_module.history_for = original, original_history
    assert data_bytes(roots[0]) == before
    assert incremental.memo_of(hub).rounds and not scored, "a fresh process with the cache scored rounds again"
    assert not boards, "a fresh process with the cache computed the night's boards again"


def test_verify_and_plain_commands_use_no_disk_cache(tmp_path: Path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data/hub.toml").write_text(WORLD_HUB, encoding="utf-8")
    assert Hub.load(tmp_path).cache.disk is None  # what verify, build and the library calls load


@pytest.mark.parametrize("table", [QUESTIONS, RESOLUTIONS])
def test_empty_ledgers_round_trip(table: Table):
    frame = coerce(pd.DataFrame({n: pd.Series(dtype=str) for n in table.names}), table)
    pd.testing.assert_frame_equal(decode_frame(encode_frame(frame, "n", "s"), "n", "s"), frame, check_exact=True)
    assert to_csv_bytes(frame, table)


def test_a_cache_that_cannot_be_written_warns_and_changes_no_output_byte(tmp_path: Path):
    from helpers import run_cli, tree_bytes, write_hub

    hubs = [write_hub(tmp_path / "cached"), write_hub(tmp_path / "plain")]
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the cache folder should be\n", encoding="utf-8")
    for night in ("2026-01-10T00:00:00Z", "2026-01-11T00:00:00Z"):
        cached = run_cli("nightly", "--hub", str(hubs[0]), "--as-of", night, "--cache-dir", str(blocked / "cache"))
        plain = run_cli("nightly", "--hub", str(hubs[1]), "--as-of", night, "--no-cache")
        assert cached.returncode == 0 == plain.returncode, cached.stderr + plain.stderr
        warnings = [line for line in cached.stderr.splitlines() if "the cache was not kept" in line]
        assert len(warnings) == 1 and warnings[0].startswith("prescient nightly: warning:"), cached.stderr
        assert "Traceback" not in cached.stderr
        trees = [{k: v for k, v in tree_bytes(hub).items() if not k.endswith(".lock")} for hub in hubs]
        assert trees[0] == trees[1]
