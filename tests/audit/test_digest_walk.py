"""The digest check's fast path: ``audit.digests.digest_problems`` parses each version of
history.csv only past the version before it when that one is its prefix, and hashes each blob of the digested
ledgers once a walk. It must find exactly what the plain method finds (every version parsed whole, every blob
hashed at every night): the same problems, message for message, on honest histories and on every kind of edit."""

from __future__ import annotations

import random
import shutil
from collections import Counter
from pathlib import Path

import pytest

from generator.audit import digests
from generator.audit import git as audit_git
from generator.audit.changes import FileChange, history
from generator.audit.ledgers import records
from generator.store import git
from generator.store.csvio import parse_bytes

from helpers import commit_at, first_parent_line

HISTORY = digests.HISTORY_PATH
HEADER = ["as_of", "board", "model", "ledger_digest", "view"]
GOOD, BAD = "a" * 64, "b" * 64  # the fake tree digest of every commit is GOOD: a night published with BAD differs
EDITS = (
    "tamper",
    "late-row",
    "resort",
    "rename",
    "drop-digest",
    "add-column",
    "restore",
    "extra-cell",
    "short-row",
    "not-utf8",
    "open-quote",
    "blank-line",
    "crlf",
    "bom",
    "no-final-newline",
    "truncate",
    "empty",
    "header-only",
    "all-extra",
)


class Season:
    """A random history.csv, version after version: mostly nights appended, sometimes an edit of any kind."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.header, self.rows, self.night = list(HEADER), [], 0
        self.sep, self.bom, self.tail = "\n", "", "\n"

    def cells(self, night: int, k: int) -> list[str]:
        digest = self.rng.choice([GOOD, GOOD, GOOD, BAD, ""])
        model = self.rng.choice(["m1", "m2", '"m,3"', '"m\n4"'])  # quoted cells, one across lines
        values = {"as_of": f"2026-01-{night:02d}", "board": f"b{k}", "model": model, "ledger_digest": digest, "view": "v"}
        return [values.get(name, "x") for name in self.header]

    def append(self) -> None:
        self.header = self.header or list(HEADER)  # a file emptied is written afresh
        for _ in range(self.rng.randint(1, 2)):
            self.night += 1
            self.rows += [self.cells(self.night, k) for k in range(self.rng.randint(1, 3))]

    def edit(self, kind: str = "") -> None:
        """One edit of the kinds the audit must see through (or be unable to read); by default a random one."""
        rng, rows = self.rng, self.rows
        kind = kind or rng.choice(EDITS)
        where = self.header.index("ledger_digest") if "ledger_digest" in self.header else 0
        full = [r for r in rows if len(r) > where + 1]
        if kind == "tamper" and full:
            rng.choice(full)[where] = rng.choice([GOOD, BAD, ""])
        elif kind == "late-row" and full:  # a row of a night already published, with another digest
            rows.append([*rng.choice(full)[:-1], "w"])
            rows[-1][where] = rng.choice([GOOD, BAD])
        elif kind == "resort":
            rng.shuffle(rows)
        elif kind == "rename" and self.header:
            self.header[rng.choice([0, where])] = rng.choice(["when", "digest", "as_of"])
        elif kind == "drop-digest" and "ledger_digest" in self.header:
            i = self.header.index("ledger_digest")
            self.header.pop(i)
            self.rows = [r[:i] + r[i + 1 :] for r in rows]
        elif kind == "add-column":
            self.header.append(f"late{len(self.header)}")
            self.rows = [[*r, ""] for r in rows]
        elif kind == "restore":
            self.header, self.rows = list(HEADER), [r[: len(HEADER)] + [""] * (len(HEADER) - len(r)) for r in rows]
        elif kind == "extra-cell":
            rows.append([*self.cells(self.night + 1, 0), "extra"])
        elif kind == "short-row":
            rows.append(self.cells(self.night + 1, 0)[:2])
        elif kind == "not-utf8":
            rows.append(["2026-01-99", "\udcff", "m", BAD, "v"])
        elif kind == "open-quote":
            rows.append(["2026-01-98", '"open', "m", BAD, "v"])
        elif kind == "blank-line":
            rows.insert(rng.randint(0, len(rows)), [])
        elif kind == "crlf":
            self.sep = "\r\n" if self.sep == "\n" else "\n"
        elif kind == "bom":
            self.bom = "\ufeff" if not self.bom else ""
        elif kind == "no-final-newline":
            self.tail = "" if self.tail else "\n"
        elif kind == "truncate":
            del rows[rng.randint(0, len(rows)) :]
        elif kind == "empty":
            self.header, self.rows = [], []
        elif kind == "header-only":
            self.rows = []
        elif kind == "all-extra":
            self.rows = [[*r, "x"] for r in rows if r]

    def version(self) -> bytes:
        lines = [",".join(self.header)] if self.header else []
        lines += [",".join(r) for r in self.rows]
        text = self.bom + self.sep.join(lines) + (self.tail if lines else "")
        return text.encode("utf-8", "surrogateescape")


def changes_of(versions: list[bytes | None]) -> tuple[list[FileChange], dict[str, bytes]]:
    """One commit per version of history.csv (None: the file deleted; a blob id no object has: unreadable)."""
    blobs: dict[str, bytes] = {}
    changes, before = [], "0" * 40
    for i, data in enumerate(versions):
        commit = f"{i:02x}" * 20
        if data is None:
            if before != "0" * 40:
                changes.append(FileChange(commit, f"2026-02-{i % 28 + 1:02d}T00:00:00Z", "D", HISTORY, before, "0" * 40))
            before = "0" * 40
            continue
        blob = git.blob_id(data) if data != b"missing" else "f" * 40
        if blob != "f" * 40:
            blobs[blob] = data
        changes.append(FileChange(commit, f"2026-02-{i % 28 + 1:02d}T00:00:00Z", "A" if before == "0" * 40 else "M", HISTORY, before, blob))
        changes.append(FileChange(commit, "2026-02-01T00:00:00Z", "M", "data/observations/sim/2026-01.csv", "1" * 40, "2" * 40))
        before = blob
    return changes, blobs


def both(changes, blobs, checked=frozenset()):
    plain = digests.digest_problems(Path("."), changes, blobs.get, checked, plain=True)
    fast = digests.digest_problems(Path("."), changes, blobs.get, checked)
    return plain, fast


@pytest.fixture
def fake_trees(monkeypatch):
    """Every commit's manifest and receipts hash to GOOD (the walk's own hashing is tested on git below)."""
    monkeypatch.setattr(digests, "tree_digest", lambda repo, commit, read, hashes=None: GOOD)
    monkeypatch.setattr(digests, "rebuilt_digests", lambda repo, commit, read, nights: dict.fromkeys(nights))  # no earlier night provable


@pytest.mark.parametrize("seed", range(40))
def test_the_fast_path_finds_what_parsing_every_version_whole_finds(fake_trees, seed: int):
    season = Season(seed)
    versions: list[bytes | None] = []
    for _ in range(36):
        if season.rng.random() < 0.3:
            season.edit()
        else:
            season.append()
        roll = season.rng.random()
        versions.append(None if roll < 0.03 else b"missing" if roll < 0.05 else season.version())
    changes, blobs = changes_of(versions)
    checked = frozenset(f"2026-01-{n:02d}" for n in range(1, 4)) if seed % 4 == 0 else frozenset()
    plain, fast = both(changes, blobs, checked)
    assert fast == plain
    if seed == 1:  # the seeds do publish differing digests: the comparison is not between two empty lists
        assert any(p.code == "ledger-digest-differs" for p in plain)


def test_each_edit_alone_is_found_the_same_way_both_ways(fake_trees):
    """An honest season, then each kind of edit as one commit, then nights appended to the edited file."""
    found = 0
    for kind in EDITS:
        for seed in range(6):
            season = Season(seed)
            versions: list[bytes | None] = []
            for _ in range(5):
                season.append()
                versions.append(season.version())
            season.edit(kind)
            versions.append(season.version())
            for _ in range(3):
                season.append()
                versions.append(season.version())
            plain, fast = both(*changes_of(versions))
            assert fast == plain, (kind, seed)
            found += len(plain)
    assert found


def test_a_night_appended_with_a_wrong_digest_is_reported_with_its_commit(fake_trees):
    good = b"as_of,ledger_digest\n2026-01-01," + GOOD.encode() + b"\n"
    forged = good + b"2026-01-02," + BAD.encode() + b"\n2026-01-02," + BAD.encode() + b"\n"
    plain, fast = both(*changes_of([good, forged]))
    assert fast == plain and [p.code for p in fast] == ["ledger-digest-differs"]
    assert fast[0].message.startswith(f"the night 2026-01-02 published {BAD[:16]}…") and f"commit {'01' * 6} (" in fast[0].message


def test_a_row_after_the_header_that_does_not_fit_it_is_judged_as_in_the_whole_file():
    """The appended records, parsed under the last version's header, are what the whole version's parse reads."""
    walk = digests._NewNights()
    base = b"as_of,ledger_digest\n2026-01-01," + GOOD.encode() + b"\n"
    assert walk(base) == digests._digests(base) == {"2026-01-01": GOOD}
    for tail in (b"2026-01-02,x,y\n", b"2026-01-02\n", b'"2026-01-02\n', b"\xff,x\n", b"2026-01-02,c\n2026-01-03,d,e\n"):
        walk = digests._NewNights()
        walk(base)
        new = {k: v for k, v in digests._digests(base + tail).items() if k != "2026-01-01"}
        assert walk(base + tail) == new, tail
    # a header that is not the first line as it stands (a blank line before it, a quoted line end in it):
    # the next version is parsed whole, where a row that repeats the header is a row, not a header
    for header in (b"\nas_of,ledger_digest\n", b'as_of,"x\ny",ledger_digest\n'):
        cells = b"," * header.count(b",")
        base = header + b"2026-01-01" + cells + GOOD.encode() + b"\n"
        new = base + header.lstrip(b"\n") + b"2026-01-02" + cells + BAD.encode() + b"\n"
        walk = digests._NewNights()
        walk(base)
        assert walk(new) == digests._digests(new)
        assert digests._digests(new)["as_of"] == "ledger_digest"  # the repeated header is a row of the file


def test_records_are_the_parsed_frames_rows():
    data = 'a,b,c\n1,"x\ny",\n"q,r",,ü\n\n4,5,6\n7\n'.encode()  # a row of one cell: its others are ""
    frame = parse_bytes(data, "")
    assert records(data) == (("a", "b", "c"), list(frame.itertuples(index=False, name=None)))
    assert records(b"a,b\n") == (("a", "b"), [])


def forge_a_night(repo: Path) -> None:
    """Commit a night whose row of history.csv carries a digest no commit's ledgers hash to."""
    path = repo / HISTORY
    header, *rows = path.read_text().splitlines()
    forged = rows[-1].split(",")
    forged[0], forged[header.split(",").index("ledger_digest")] = "2026-03-02T00:00:00Z", "0" * 64
    path.write_text("\n".join([header, *rows, ",".join(forged)]) + "\n")
    commit_at(repo, "2026-03-02T01:00:00Z", "a night with a forged digest")


def test_hashing_each_blob_once_gives_every_commits_digest(git_season: Path, tmp_path: Path):
    repo = Path(shutil.copytree(git_season, tmp_path / "hub"))
    hashes: dict[str, str] = {}
    with git.BlobReader(repo) as blobs:
        for commit in reversed(first_parent_line(repo)):
            assert digests.tree_digest(repo, commit, blobs.read, hashes) == digests.tree_digest(repo, commit, blobs.read)
    assert hashes
    # on the real season, fast and plain agree, before and after a forged night
    forge_a_night(repo)
    changes = history(repo)
    with git.BlobReader(repo) as blobs:
        plain = digests.digest_problems(repo, changes, blobs.read, plain=True)
        fast = digests.digest_problems(repo, changes, blobs.read)
    assert fast == plain and [p.code for p in fast] == ["ledger-digest-differs"]


def test_the_walk_reads_each_version_of_history_once(git_season: Path, tmp_path: Path, monkeypatch):
    """The full audit's two checks of history.csv (the append-only rule, the digests) share one read of
    each version from git (there were three reads of each, 1.7 GB at 360 nights), and find
    what each check finds alone: the digest check's problems are the plain method's."""
    repo = Path(shutil.copytree(git_season, tmp_path / "hub"))
    forge_a_night(repo)
    reads: Counter[str] = Counter()
    read = git.BlobReader.read

    def counted(self, blob: str) -> bytes | None:
        reads[blob] += 1
        return read(self, blob)

    monkeypatch.setattr(git.BlobReader, "read", counted)
    changes, problems = audit_git.audit_history(repo)
    monkeypatch.undo()
    versions = {c.new_blob for c in changes if c.path == HISTORY and c.status in "AM"}
    assert len(versions) >= 3  # the first version, one a later night compared with, the forged one
    assert {blob: reads[blob] for blob in versions} == dict.fromkeys(versions, 1)
    with git.BlobReader(repo) as blobs:
        plain = digests.digest_problems(repo, changes, blobs.read, plain=True)
        alone = audit_git.file_problems(changes, blobs.read)
    assert [p.code for p in plain] == ["ledger-digest-differs"]
    assert [p for p in problems if p.code == "ledger-digest-differs"] == plain
    assert [p for p in problems if p not in plain and p.file.startswith("data/")] == alone
