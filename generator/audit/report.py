"""The audit's report, led by causes: what was changed first, then what follows from it, counted.

One edited score file makes every page built from it differ too; a report that prints each of them in
full buries the one line that matters. So the problems are grouped (``causes``):

- a **cause** is a file with its problems, errors first and, among them, the record's own before what is
  recomputed from it: the git history's and the receipts' problems (a forged receipt, a rewritten ledger
  row, a commit the hub's bot did not make), then the seals that rest on them (``SEALS``), then the derived
  files that differ from their recompute (scores, history: ``DERIVED``), then anything else;
- the generated pages that differ (``PAGES``) **follow** from the causes when there are any (a build reads
  those files): they are counted under the first cause and listed with ``--details``; with no other cause
  they are causes themselves (a page edited by hand);
- warnings come after the errors, at most ``SHOWN_WARNINGS`` of a code unless ``--details``.

A difference in a binary file (a gzip of the API) is summarised (``difference``), never printed as bytes.
"""

from __future__ import annotations

import gzip
import hashlib
import zlib
from collections import Counter
from dataclasses import dataclass, field

from ..errors import Problem

PAGES = frozenset({"page-differs", "page-missing", "page-extra"})
DERIVED = frozenset({"derived-differs", "derived-missing", "history-differs"})
SEALS = frozenset({"seal-differs", "seal-broken", "seal-unchecked"})  # a seal rests on the receipts: after them
LATER = frozenset({"timing-unproven", "no-maintainers"})  # about the state, not a change: after the record's
SHOWN_WARNINGS = 3  # of one code, without --details
WINDOW = 160  # characters of a differing line shown


@dataclass
class Cause:
    """A file and its problems (``problems``), and the page problems that follow from it (``follows``)."""

    file: str
    problems: list[Problem]
    follows: list[Problem] = field(default_factory=list)

    @property
    def severity(self) -> str:
        return "error" if any(p.severity == "error" for p in self.problems) else "warning"


def _tier(problem: Problem) -> int:
    """0: the record's (git history, receipts, anchor); 1: a seal; 2: a derived file; 3: other; 4: a page;
    warnings after."""
    code = problem.code
    tier = 4 if code in PAGES else 2 if code in DERIVED else 3 if code in LATER else 1 if code in SEALS else 0
    return tier + (5 if problem.severity != "error" else 0)


def causes(problems: list[Problem]) -> list[Cause]:
    """The problems grouped by file, the files ordered by their first problem's tier (see the module);
    the pages that differ follow from the first cause that is not a page when there is one."""
    by_file: dict[str, list[Problem]] = {}
    for problem in sorted(problems, key=_tier):  # stable: each check's own order within a tier
        by_file.setdefault(problem.file, []).append(problem)
    grouped = [Cause(file, found) for file, found in by_file.items()]
    root = next((c for c in grouped if c.severity == "error" and not any(p.code in PAGES for p in c.problems)), None)
    if root is None:
        return grouped
    pages = [c for c in grouped if c.problems and all(p.code in PAGES and p.severity == "error" for p in c.problems)]
    root.follows = [p for c in pages for p in c.problems]
    return [c for c in grouped if c not in pages]


def render_causes(problems: list[Problem], details: bool = False) -> list[str]:
    """The report's lines of problems: the causes, each with what follows from it, then the warnings."""
    lines: list[str] = []
    found = causes(problems)
    errors = [c for c in found if c.severity == "error"]
    if errors:
        lines.append(f"{len(errors)} cause(s)" + (", the record's own first:" if len(errors) > 1 else ":"))
    shown: Counter[str] = Counter()
    hidden: Counter[str] = Counter()
    for cause in found:
        for problem in cause.problems:
            if problem.severity != "error" and not details:
                shown[problem.code] += 1
                if shown[problem.code] > SHOWN_WARNINGS:
                    hidden[problem.code] += 1
                    continue
            lines.append(f"{problem.severity}: {problem}")
        if cause.follows:
            lines.append(
                f"  → {len(cause.follows)} generated page(s) differ from a build of the data as it stands, which reads "
                f"{'this file and the others above' if len(errors) > 1 else 'this file'}: they follow from it"
                + ("" if details else " (--details lists them)")
            )
            if details:
                lines += [f"    {p.severity}: {p}" for p in cause.follows]
    for code, n in sorted(hidden.items()):
        lines.append(f"warning: … and {n} more [{code}] (--details lists them)")
    return lines


def to_json(problems: list[Problem]) -> list[dict]:
    """The causes for ``verify --format json``: each file, its problems' codes, and the pages that follow."""
    return [
        {"file": c.file, "severity": c.severity, "codes": sorted({p.code for p in c.problems}), "follows": [p.file for p in c.follows]}
        for c in causes(problems)
    ]


# -- one file's difference, readable whatever its bytes ----------------------------------------------------


def difference(expected: bytes, actual: bytes) -> tuple[int | None, str] | None:
    """(row, what differs) between a file's recomputed and stored bytes; None when equal. Text: the first
    differing line (row), each side cut to ``WINDOW`` characters around where they part; a gzip: the same of
    its decompressed text, said so; other binary bytes: their sizes and sha256s."""
    if expected == actual:
        return None
    if expected[:2] == actual[:2] == b"\x1f\x8b":
        try:
            inner = gzip.decompress(expected), gzip.decompress(actual)
        except (OSError, EOFError, zlib.error):
            return None, _summary(expected, actual, "gzip file (does not decompress)")
        if inner[0] == inner[1]:
            return None, "the same content, compressed to other bytes (gzip header or level)"
        found = difference(*inner)
        return (found[0], "decompressed: " + found[1]) if found else None
    if _is_binary(expected) or _is_binary(actual):
        return None, _summary(expected, actual, "binary file")
    want, have = expected.split(b"\n"), actual.split(b"\n")
    line = differing_line(want, have)
    a = want[line].decode("utf-8", "replace") if line < len(want) else None
    b = have[line].decode("utf-8", "replace") if line < len(have) else None
    start = _parting(a or "", b or "")
    return line + 1, f"recomputed: {_cut(a, start)!r}; on disk: {_cut(b, start)!r}"


def differing_line(want: list[bytes], have: list[bytes]) -> int:
    """The 0-based index of the first line that differs (past the shorter's end when one is a prefix)."""
    return next((i for i, (a, b) in enumerate(zip(want, have, strict=False)) if a != b), min(len(want), len(have)))


def _is_binary(data: bytes) -> bool:
    if b"\0" in data[:8192]:
        return True
    try:
        data[:8192].decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start < min(len(data), 8192) - 3  # a multi-byte character cut at the end is still text
    return False


def _summary(expected: bytes, actual: bytes, what: str) -> str:
    return f"{what} differs: recomputed {len(expected):,} bytes (sha256 {_sha(expected)}), on disk {len(actual):,} bytes (sha256 {_sha(actual)})"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16] + "…"


def _parting(a: str, b: str) -> int:
    """Where to start showing two differing lines: a little before their first differing character."""
    at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    return max(0, at - WINDOW // 4) if max(len(a), len(b)) > WINDOW else 0


def _cut(text: str | None, start: int) -> str:
    if text is None:
        return "(end of file)"
    part = text[start : start + WINDOW]
    return ("…" if start else "") + part + ("…" if start + WINDOW < len(text) else "")
