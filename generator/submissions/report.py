"""A validation report and its three renderings: plain text, Markdown (the PR comment) and JSON.

Rendering is deterministic: problems are sorted by file, row, column and code, and nothing
depends on the clock. Markdown escapes every character that could turn submitter-controlled text
(file names, cell values) into markup, links, mentions or HTML.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from ..errors import Problem
from .codes import ERROR, WARNING, explain

SUBMIT_DOCS = "site_src/docs/submit.md"
MAX_MARKDOWN_ROWS = 200
FORMATS = ("text", "markdown", "json")


def _sort_key(p: Problem) -> tuple:
    return (p.file, p.row if p.row is not None else 0, p.column or "", p.code, p.message)


@dataclass(frozen=True)
class Report:
    at: str
    files: tuple[str, ...]
    problems: tuple[Problem, ...] = ()
    notes: tuple[str, ...] = field(default=())

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

    def summary(self) -> str:
        n = len(self.files)
        if self.ok:
            tail = f" with {len(self.warnings)} warning(s)" if self.warnings else ""
            return f"Passed: {n} file(s) checked at {self.at} (UTC){tail}."
        return (f"Failed: {len(self.errors)} error(s) and {len(self.warnings)} warning(s) "
                f"in {n} file(s) checked at {self.at} (UTC).")


def render(report: Report, fmt: str) -> str:
    return {"text": render_text, "markdown": render_markdown, "json": render_json}[fmt](report)


def render_text(report: Report) -> str:
    lines = [report.summary()]
    lines += [f"  note: {n}" for n in report.notes]
    lines += [f"  {p.severity}: {p}" for p in report.problems]
    if not report.ok:
        lines.append(f"Fix every error and push again; each code is explained in {SUBMIT_DOCS}.")
    return "\n".join(lines) + "\n"


def render_json(report: Report) -> str:
    body = {
        "ok": report.ok, "at": report.at, "errors": len(report.errors), "warnings": len(report.warnings),
        "files": list(report.files), "notes": list(report.notes),
        "problems": [{"file": p.file, "row": p.row, "column": p.column, "code": p.code,
                      "severity": p.severity, "message": p.message} for p in report.problems],
    }
    return json.dumps(body, indent=2, ensure_ascii=False) + "\n"


_ESCAPES = str.maketrans({"|": "\\|", "<": "&lt;", ">": "&gt;", "&": "&amp;", "`": "\\`", "*": "\\*",
                          "_": "\\_", "[": "\\[", "]": "\\]", "@": "@\u200b", "#": "\\#", "!": "\\!",
                          "\n": " ", "\r": " ", "~": "\\~", "\\": "\\\\"})


def md(text: object, limit: int = 300) -> str:
    """Submitter-controlled text made inert in a GitHub Markdown table cell."""
    value = "" if text is None else str(text)
    value = value if len(value) <= limit else value[:limit] + "…"
    return value.translate(_ESCAPES)


def render_markdown(report: Report) -> str:
    icon = "✅" if report.ok else "❌"
    lines = ["## Prescient submission check", "", f"{icon} **{md(report.summary())}**", ""]
    lines += [f"- {md(n)}" for n in report.notes] + ([""] if report.notes else [])
    lines += ["Files checked:", ""] + [f"- `{f.replace('`', '')}`" for f in report.files] + [""]
    if report.problems:
        lines += _problem_table(report.problems) + [""] + _code_legend(report.problems) + [""]
    lines += _next_steps(report)
    return "\n".join(lines) + "\n"


def _problem_table(problems: tuple[Problem, ...]) -> list[str]:
    rows = ["| severity | file | row | column | code | message |", "|---|---|---|---|---|---|"]
    rows += [f"| {p.severity} | {md(p.file)} | {'' if p.row is None else p.row} | {md(p.column)} | "
             f"`{p.code}` | {md(p.message)} |" for p in problems[:MAX_MARKDOWN_ROWS]]
    if len(problems) > MAX_MARKDOWN_ROWS:
        rows += ["", f"… and {len(problems) - MAX_MARKDOWN_ROWS} more; run `prescient validate` locally for the full list."]
    return rows


def _code_legend(problems: tuple[Problem, ...]) -> list[str]:
    codes = sorted({p.code for p in problems})
    return ["What the codes mean:", ""] + [f"- `{c}`: {explain(c)}" for c in codes]


def _next_steps(report: Report) -> list[str]:
    if report.ok:
        return [("**Next:** nothing to do; a maintainer merges the pull request. Until the due time you may "
             "replace your file by pushing a new commit.")]
    return [("**Next:** fix every error above and push a new commit; this check runs again and updates this comment. "
             "Check locally first with `prescient validate data/forecasts/<due>/<team>.<model>.csv`. "
             f"The rules are in `{SUBMIT_DOCS}` (the Submit page).")]
