"""The error hierarchy. Every error the CLI reports without a traceback derives from PrescientError.

A ``Problem`` is one located defect in an input (file, row, column, stable code). Validation
collects all of them and raises one error carrying the list, so a user fixes everything at once.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Problem:
    """One defect: a stable kebab-case ``code`` and where it is (row is 1-based, header = 1)."""

    file: str
    row: int | None
    column: str | None
    code: str
    message: str
    severity: str = "error"

    def __str__(self) -> str:
        where = self.file
        if self.row is not None:
            where += f", row {self.row}"
        if self.column:
            where += f", column {self.column!r}"
        return f"{where}: [{self.code}] {self.message}"


class PrescientError(Exception):
    """Base of every expected failure. ``exit_code`` is what the CLI returns."""

    exit_code = 1

    def __init__(self, message: str, problems: list[Problem] | tuple[Problem, ...] = ()):
        super().__init__(message)
        self.problems = list(problems)

    def report(self) -> str:
        lines = [str(self)]
        lines += [f"  {p}" for p in self.problems]
        return "\n".join(lines)


class ConfigError(PrescientError):
    """data/hub.toml is missing, malformed, or names something unknown."""

    exit_code = 2


class SchemaError(PrescientError):
    """A CSV does not match its declared schema (missing column, bad value, duplicate key)."""

    exit_code = 3


class LedgerError(PrescientError):
    """An append would rewrite history: a row's key exists with different values."""

    exit_code = 4


class SourceError(PrescientError):
    """A source could not be fetched or parsed. Caught per source by the pipeline."""

    exit_code = 5


class PartialFailure(PrescientError):
    """A nightly run wrote what succeeded, but at least one source failed."""

    exit_code = 6


class LockError(PrescientError):
    """Another run holds the hub's lock."""

    exit_code = 7
