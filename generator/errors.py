"""The error hierarchy and the CLI's exit codes. Every error the CLI reports without a traceback
derives from PrescientError; its ``exit_code`` is what the CLI returns, and ``EXIT_CODES`` gives
each code its one-line meaning (``prescient --help`` lists them).

A ``Problem`` is one located defect in an input (file, row, column, stable code). Validation
collects all of them and raises one error carrying the list, so a user fixes everything at once.
"""

from __future__ import annotations

import errno
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

R = TypeVar("R")


@dataclass(frozen=True, order=True)
class Problem:
    """One defect: a stable kebab-case ``code`` and where it is (row is 1-based, header = 1)."""

    file: str
    row: int | None
    column: str | None
    code: str
    message: str
    severity: str = "error"

    def sort_key(self) -> tuple:
        """An order over any problems: a problem of a whole file (no row or column) before its rows'."""
        return self.file, -1 if self.row is None else self.row, self.column or "", self.code, self.message, self.severity

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


class PartialFailure(PrescientError, Generic[R]):
    """A nightly run wrote what succeeded, but at least one source failed or at least one submitted
    file could not be read (it is quarantined: reported, not scored; everything else is); or the
    LLM forecaster wrote its answers but some calls failed. ``run_report`` is what the run did (a
    NightlyReport, an LLMReport), so the CLI still prints it."""

    exit_code = 6

    def __init__(self, message: str, problems: list[Problem] | tuple[Problem, ...] = (), run_report: R | None = None):
        super().__init__(message, problems)
        self.run_report = run_report


class Unreachable(PrescientError):
    """``prescient submit`` or ``round fetch`` could not reach GitHub or the hub's site, or the
    validation run gave no verdict in time: what was sent stays sent, and running it again resumes."""

    exit_code = PartialFailure.exit_code


class LockError(PrescientError):
    """Another run holds the hub's lock."""

    exit_code = 7


class BuildError(PrescientError):
    """MkDocs refused to build the site (strict mode turns every warning into this)."""

    exit_code = 8


class SubmissionInvalid(PrescientError):
    """A submission has at least one error-severity problem."""

    exit_code = 9


class StorageError(PrescientError):
    """The operating system refused a read or write (disk full, file too large, read-only file
    system, permission denied). Every write is atomic, so the files on disk are as before it."""

    exit_code = 11


OK = 0
VERIFY_FAILED = 10  # `prescient verify`: a recomputed file differs, or the git history breaks a rule
INTERRUPTED = 130  # Ctrl+C: the shell's convention (128 + SIGINT)

# Every exit code `prescient --help` lists, with its one-line meaning.
EXIT_CODES: dict[int, str] = {
    OK: "ok",
    PrescientError.exit_code: "error",
    ConfigError.exit_code: "bad configuration or usage (hub.toml, an unknown option or value, no hub found)",
    SchemaError.exit_code: "a file does not match its schema",
    LedgerError.exit_code: "refused to rewrite history (a conflicting row, or an --as-of before the ledgers' latest record)",
    SourceError.exit_code: "source error",
    PartialFailure.exit_code: "partial failure (some sources failed or some submitted files were quarantined; the rest was written), "
    "or GitHub or a hub's site unreachable (`submit`, `round fetch`; `submit --wait`: no verdict in time)",
    LockError.exit_code: "another run holds the lock",
    BuildError.exit_code: "site build failed",
    SubmissionInvalid.exit_code: "a submission has errors",
    VERIFY_FAILED: "verify found a difference or a history violation",
    StorageError.exit_code: "the system refused a read or write (disk full, read-only, permission; nothing was half-written)",
}


WRITE_ERRNOS = frozenset({errno.ENOSPC, errno.EFBIG, errno.EROFS, errno.EDQUOT})


def storage_error(exc: OSError, where: str | None = None, root: Path | None = None) -> StorageError:
    """One coded line for an OSError: what could not be done, to which file, and the system's reason.

    ``where`` names the file when the error itself does not (a write on an open descriptor); names
    are shown relative to ``root`` (the hub), and an atomic write's temp file by its target's name."""
    if isinstance(exc, shutil.Error) and exc.args and isinstance(exc.args[0], list) and exc.args[0]:
        src, dst, why = exc.args[0][0]  # a copy of a folder tree: the first file that failed, and how many
        more = f" (and {len(exc.args[0]) - 1} more file(s))" if len(exc.args[0]) > 1 else ""
        return StorageError(f"[os-error] could not copy {src} to {_shown(str(dst), root)}: {why}{more}")
    target = exc.filename if exc.filename is not None else where
    verb = "write" if exc.errno in WRITE_ERRNOS else "read or write"
    reason = exc.strerror or str(exc) or type(exc).__name__
    if target is None:
        return StorageError(f"[os-error] {reason}")
    return StorageError(f"[os-error] could not {verb} {_shown(str(target), root)}: {reason}")


def _shown(name: str, root: Path | None) -> str:
    name = re.sub(r"(^|/)\.([^/]+)\.[^./]+\.tmp$", r"\1\2", name)  # atomic.write_bytes_atomic's temp file
    if root is not None and Path(name).is_relative_to(root):
        return Path(name).relative_to(root).as_posix()
    return name
