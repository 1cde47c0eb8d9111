"""The audit's report leads with causes: the record's own problems first, the pages that follow from an
edited file counted under it (listed with --details), binary differences summarised, not printed."""

from __future__ import annotations

import gzip
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from generator.audit.report import causes, difference, render_causes
from generator.errors import Problem
from generator.site.build import build_site
from generator.timeutil import parse_ts

from helpers import SEASON_NIGHTS

PRESCIENT = str(Path(sys.executable).with_name("prescient"))


def page(n: int) -> Problem:
    return Problem(f"site_src/docs/generated/models/m{n}.md", 3, None, "page-differs", "recomputed: 'a'; on disk: 'b'")


SCORES = Problem("data/scores/2026-01-25.csv", 4, None, "derived-differs", "recomputed: '0.1'; on disk: '0.2'")
FORGED = Problem("data/receipts/2026.csv", 7, None, "receipt-blob-mismatch", "the receipt names a blob its head does not hold")
SEAL = Problem("data/seals/2026.csv", None, "blob", "seal-differs", "the seal names another blob than the receipts")
TIMING = Problem("data/forecasts/2026-01-25/a.b.csv", None, None, "timing-unproven", "no record", "warning")


def test_the_forgery_comes_first_and_the_pages_follow_from_the_edited_file_counted():
    problems = [*(page(n) for n in range(22)), SCORES, SEAL, TIMING, FORGED]  # in the order the checks ran
    found = causes(problems)
    assert [c.file for c in found] == [FORGED.file, SEAL.file, SCORES.file, TIMING.file]
    assert len(found[0].follows) == 22 and found[1].follows == []
    lines = render_causes(problems)
    assert lines[1] == f"error: {FORGED}" and lines[2].startswith("  → 22 generated page(s) differ")
    assert "(--details lists them)" in lines[2] and not any("page-differs" in line for line in lines)
    assert sum("page-differs" in line for line in render_causes(problems, details=True)) == 22


def test_one_edited_score_file_is_named_first():
    lines = render_causes([*(page(n) for n in range(5)), SCORES])
    assert lines[1] == f"error: {SCORES}" and "5 generated page(s) differ" in lines[2] and "this file" in lines[2]


def test_pages_alone_are_causes_themselves():
    found = causes([page(1), page(2)])
    assert [c.file for c in found] == [page(1).file, page(2).file] and all(not c.follows for c in found)


def test_many_warnings_of_one_code_are_counted_beyond_the_first_few():
    warnings = [Problem(f"data/forecasts/2026-01-25/m{n}.csv", None, None, "timing-unproven", "no record", "warning") for n in range(10)]
    lines = render_causes(warnings)
    assert sum("[timing-unproven]" in line for line in lines) == 4 and lines[-1] == "warning: … and 7 more [timing-unproven] (--details lists them)"
    assert len(render_causes(warnings, details=True)) == 10


def test_a_gzip_difference_is_read_inside_and_binary_bytes_are_summarised():
    row, said = difference(gzip.compress(b'{"b":[1,2,3]}\n', mtime=0), gzip.compress(b'{"b":[1,2,4]}\n', mtime=0))
    assert row == 1 and said.startswith("decompressed: recomputed: ") and "\\x" not in said
    row, said = difference(b"\x00\x01\x02", b"\x00\x01\x03")
    assert row is None and said.startswith("binary file differs: recomputed 3 bytes (sha256 ")
    assert difference(b"same", b"same") is None
    row, said = difference(b"x" * 400 + b"A\n", b"x" * 400 + b"B\n")
    assert row == 1 and "A" in said and "B" in said and len(said) < 400


@pytest.mark.e2e
def test_verify_names_one_edited_score_file_first_and_counts_the_pages_it_changed(git_season: Path, tmp_path: Path):
    hub = Path(shutil.copytree(git_season, tmp_path / "hub"))
    build_site(hub, parse_ts(SEASON_NIGHTS[-1]), run_mkdocs=False)
    scores = hub / "data/scores/2026-01-25.csv"
    lines = scores.read_text(encoding="utf-8").splitlines(keepends=True)
    header = lines[0].rstrip("\n").split(",")
    at = header.index("brier")
    row = next(i for i, line in enumerate(lines[1:], start=1) if line.split(",")[at])
    cells = lines[row].rstrip("\n").split(",")
    cells[at] = "0" if cells[at] != "0" else "1"
    lines[row] = ",".join(cells) + "\n"
    scores.write_text("".join(lines), encoding="utf-8")
    done = subprocess.run([PRESCIENT, "verify", "--hub", str(hub)], capture_output=True, text=True, check=False)
    assert done.returncode == 10 and "Traceback" not in done.stderr, done.stdout + done.stderr
    out = done.stdout.splitlines()
    first = next(line for line in out if line.startswith(("error:", "warning:")))
    assert first.startswith("error: data/scores/2026-01-25.csv") and "[derived-differs]" in first
    follows = out[out.index(first) + 1]
    pages = int(re.match(r"  → (\d+) generated page\(s\) differ", follows).group(1))
    assert pages > 0 and not any("[page-differs]" in line for line in out)
    detailed = subprocess.run([PRESCIENT, "verify", "--hub", str(hub), "--details"], capture_output=True, text=True, check=False).stdout
    assert sum("[page-differs]" in line for line in detailed.splitlines()) == pages
