"""A validation report and its three renderings: plain text, Markdown (the PR comment) and JSON.

Rendering is deterministic: problems are sorted by file, row, column and code, and nothing
depends on the clock. Every format prints submitter-controlled text (file names, cell values) as
``printable`` text: a control, format or line-separator character is shown as an escape such as
``\n`` or ``\u202e``, and a byte of a file name that is not UTF-8 (git gives bytes; they arrive
as surrogate escapes) as ``\xff``, so no name can forge a line or fail to encode. Markdown then
escapes every character that could turn that text into markup, links, mentions or HTML.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field, replace

from ..codes import ERROR, WARNING, explain
from ..config import SUBMIT_DOCS
from ..errors import Problem

MAX_MARKDOWN_ROWS = 200
FORMATS = ("text", "markdown", "json")
# What is said of a file of a round whose due time has passed: pushing again cannot change what counts
LATE = frozenset(("round-closed", "past-round-changed", "not-the-sealed-version", "sealed-round", "reveal-window-closed"))


def _sort_key(p: Problem) -> tuple:
    return (p.file, p.row if p.row is not None else 0, p.column or "", p.code, p.message)


@dataclass(frozen=True)
class Report:
    at: str
    files: tuple[str, ...]
    problems: tuple[Problem, ...] = ()
    notes: tuple[str, ...] = field(default=())
    open_rounds: tuple[str, ...] = ()  # the rounds open at ``at``, named when a file is past its round's due time

    def __post_init__(self) -> None:
        object.__setattr__(self, "problems", tuple(sorted(set(self.problems), key=_sort_key)))
        object.__setattr__(self, "files", tuple(sorted(set(self.files))))
        object.__setattr__(self, "notes", tuple(sorted(set(self.notes))))

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == ERROR]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == WARNING]

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def late_files(self) -> list[str]:
        """The files of a round past its due time: pushing them again cannot change what counts."""
        return sorted({p.file for p in self.problems if p.code in LATE})

    def after_due(self) -> str:
        """What a forecaster can still do when a file is past its round's due time ("" when none is)."""
        late = self.late_files
        if not late:
            return ""
        dues = sorted({parts[2] for f in late if len(parts := f.split("/")) > 2})
        rounds = f"round{'s' if len(dues) > 1 else ''} {', '.join(dues)}" if dues else "the round"
        head = (
            f"The due time of {rounds} has passed, so pushing again cannot change what counts there: the version that "
            "counts is the last one attested before the due time (the seal in data/seals/ names it). "
        )
        if self.ok:
            return head + "Nothing of it is left to merge: the hub puts that version in place itself."
        if self.open_rounds:
            first = self.open_rounds[0]
            which = f"the open round{'s are' if len(self.open_rounds) > 1 else ' is'} {', '.join(self.open_rounds)}"
            where = (
                f"forecast an open round instead ({which}: data/forecasts/{first}/; `prescient round template --due {first}` writes a file to fill)"
            )
        else:
            where = "no round is open now: the next one opens with a nightly run (`prescient rounds --open` lists the open ones)"
        other = [p for p in self.errors if p.file not in late]
        fix = "; fix the other files' errors and push again" if other else ""
        files = "its file" if len(late) == 1 else f"its {len(late)} files"
        return head + f"What you can still do: take {files} out of the pull request (or close it); {where}{fix}."

    def summary(self) -> str:
        n = len(self.files)
        if self.ok:
            tail = f" with {len(self.warnings)} warning(s)" if self.warnings else ""
            return f"Passed: {n} file(s) checked at {self.at} (UTC){tail}."
        return f"Failed: {len(self.errors)} error(s) and {len(self.warnings)} warning(s) in {n} file(s) checked at {self.at} (UTC)."


def render(report: Report, fmt: str, submit_page: str = SUBMIT_DOCS, title: str = "Prescient") -> str:
    """The report in ``fmt``; every format ends by naming ``submit_page`` (the Submit page's URL, or its
    source). The Markdown one (the pull-request comment) is headed with the hub's ``title``."""
    if fmt == "markdown":
        return render_markdown(report, submit_page, title)
    return {"text": render_text, "json": render_json}[fmt](report, submit_page)


_HIDDEN = frozenset(("Cc", "Cf", "Cs", "Zl", "Zp"))  # control, format (bidi, zero-width), surrogate, separators
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(ch: str) -> str:
    code = ord(ch)
    if ch in _NAMED:
        return _NAMED[ch]
    if 0xDC80 <= code <= 0xDCFF:  # surrogateescape: the byte of a name that is not UTF-8
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: object) -> str:
    """``text`` with every control, format, line-separator and surrogate character written as an escape.

    The result is one line of valid Unicode: it encodes as UTF-8 and shows what it says."""
    value = "" if text is None else str(text)
    if value.isprintable():  # the common case; isprintable() is False for every character escaped here
        return value
    return "".join(_escape(ch) if unicodedata.category(ch) in _HIDDEN else ch for ch in value)


def _printable_problem(p: Problem) -> Problem:
    return replace(p, file=printable(p.file), column=None if p.column is None else printable(p.column), message=printable(p.message))


SHOWN_ROWS = 5  # rows named in a group of identical problems; the count says how many more


@dataclass(frozen=True)
class Group:
    """Identical problems (file, column, code and message) on different rows: the first, and every row."""

    first: Problem
    rows: tuple[int | None, ...]

    def where(self) -> str:
        """``rows 2, 3, 4, 5, 6, … (70 rows)`` (``row 2`` alone; empty for a problem of the whole file)."""
        rows = [r for r in self.rows if r is not None]
        if len(rows) <= 1:
            return f"row {rows[0]}" if rows else ""
        shown = ", ".join(str(r) for r in rows[:SHOWN_ROWS]) + (", …" if len(rows) > SHOWN_ROWS else "")
        return f"{len(rows):,} rows: rows {shown}"


def grouped(problems: tuple[Problem, ...]) -> list[Group]:
    """The problems with identical ones (all but the row) as one group, in the report's order."""
    groups: dict[tuple, list[Problem]] = {}
    for p in problems:
        groups.setdefault((p.file, p.column, p.code, p.severity, p.message), []).append(p)
    return [Group(found[0], tuple(p.row for p in found)) for found in groups.values()]


def _group_line(g: Group) -> str:
    p = _printable_problem(g.first)
    where = ", ".join(part for part in (p.file, g.where(), f"column {p.column!r}" if p.column else "") if part)
    return f"  {p.severity}: {where}: [{p.code}] {p.message}"


def render_text(report: Report, submit_page: str = SUBMIT_DOCS) -> str:
    lines = [printable(report.summary())]
    lines += [f"  note: {printable(n)}" for n in report.notes]
    lines += [_group_line(g) for g in grouped(report.problems)]
    fix = report.after_due() + " " if report.late_files else "" if report.ok else "Fix every error and push again. "
    lines.append(f"{fix}The rules and every code are on the Submit page: {printable(submit_page)}")
    return "\n".join(lines) + "\n"


def render_json(report: Report, submit_page: str = SUBMIT_DOCS) -> str:
    body = {
        "ok": report.ok,
        "at": report.at,
        "errors": len(report.errors),
        "warnings": len(report.warnings),
        "files": [printable(f) for f in report.files],
        "notes": [printable(n) for n in report.notes],
        "problems": [
            {"file": p.file, "row": p.row, "column": p.column, "code": p.code, "severity": p.severity, "message": p.message}
            for p in map(_printable_problem, report.problems)
        ],
        "submit_page": submit_page,
    }
    return json.dumps(body, indent=2, ensure_ascii=False) + "\n"


_ESCAPES = str.maketrans(
    {
        "|": "\\|",
        "<": "&lt;",
        ">": "&gt;",
        "&": "&amp;",
        "`": "\\`",
        "*": "\\*",
        "_": "\\_",
        "[": "\\[",
        "]": "\\]",
        "@": "@\u200b",
        "#": "\\#\u200b",
        "!": "\\!",
        "~": "\\~",
        "\\": "\\\\",
        "$": "\\$",
    }
)
# GitHub turns www.x, http://x, a@b, #123 and owner/repo#123 into links, mentions or references
# even when escaped; a zero-width space after "@", "#", "www" and "://"'s colon breaks each pattern.
_AUTOLINK = re.compile(r"(?i)(?<=www)(?=\.)|(?<=:)(?=//)")


def md(text: object, limit: int = 300) -> str:
    """Submitter-controlled text made inert in a GitHub Markdown table cell or list item: one line,
    no markup, HTML, link, autolink, mention, issue reference or math."""
    value = printable(text)
    value = value if len(value) <= limit else value[:limit] + "…"
    return _AUTOLINK.sub("\u200b", value.translate(_ESCAPES))


def code(text: object, limit: int = 300) -> str:
    """Submitter-controlled text as one inline code span (outside tables): inside one, GitHub
    renders nothing, so only the fence needs choosing, longer than any run of backticks inside."""
    value = printable(text)
    value = value if len(value) <= limit else value[:limit] + "…"
    fence = "`" * (max((len(run) for run in re.findall("`+", value)), default=0) + 1)
    pad = " " if value[:1] in ("`", " ") or value[-1:] in ("`", " ") else ""
    return f"{fence}{pad}{value}{pad}{fence}"


def render_markdown(report: Report, submit_page: str = SUBMIT_DOCS, title: str = "Prescient") -> str:
    icon = "✅" if report.ok else "❌"
    lines = [f"## {md(title)} submission check", "", f"{icon} **{md(report.summary())}**", ""]
    lines += [f"- {md(n)}" for n in report.notes] + ([""] if report.notes else [])
    lines += ["Files checked:", ""] + _file_list(report.files) + [""]
    if report.problems:
        lines += _problem_table(report.problems) + [""] + _code_legend(report.problems) + [""]
    lines += _next_steps(report) + ["", f"The rules and every code are on the Submit page: {_page_link(submit_page)}"]
    return "\n".join(lines) + "\n"


def _file_list(files: tuple[str, ...]) -> list[str]:
    rows = [f"- {code(f)}" for f in files[:MAX_MARKDOWN_ROWS]]
    if len(files) > MAX_MARKDOWN_ROWS:
        rows.append(f"- … and {len(files) - MAX_MARKDOWN_ROWS} more")
    return rows


def _problem_table(problems: tuple[Problem, ...]) -> list[str]:
    rows = ["| severity | file | row | column | code | message |", "|---|---|---|---|---|---|"]
    groups = grouped(problems)
    rows += [
        f"| {g.first.severity} | {md(g.first.file)} | {g.where().removeprefix('row ')} | {md(g.first.column)} | "
        f"`{g.first.code}` | {md(g.first.message)} |"
        for g in groups[:MAX_MARKDOWN_ROWS]
    ]
    if len(groups) > MAX_MARKDOWN_ROWS:
        rows += ["", f"… and {len(groups) - MAX_MARKDOWN_ROWS} more; run `prescient validate` locally for the full list."]
    return rows


def _code_legend(problems: tuple[Problem, ...]) -> list[str]:
    codes = sorted({p.code for p in problems})
    return ["What the codes mean:", ""] + [f"- `{c}`: {explain(c)}" for c in codes]


def _next_steps(report: Report) -> list[str]:
    if report.late_files:
        return [f"**Next:** {md(report.after_due(), limit=1000)}"]
    if report.ok:
        return [
            ("**Next:** nothing to do; a maintainer merges the pull request. Until the due time you may replace your file by pushing a new commit.")
        ]
    return [
        (
            "**Next:** fix every error above and push a new commit; this check runs again and updates this comment. "
            "Check locally first with `prescient validate data/forecasts/<due>/<team>.<model>.csv`."
        )
    ]


def _page_link(page: str) -> str:
    """A site URL as a Markdown autolink (hub.toml's site_url is checked to hold no space, quote or angle
    bracket); the repository path, when no site is configured, as code."""
    return f"<{page}>" if re.match(r"https?://", page) else code(page)
