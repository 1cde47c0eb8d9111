"""Submission validation: small checks that yield coded Problems, and the report they make.

``validate_files`` checks files in a working tree, ``validate_pr`` the files a pull request
changed (read through git plumbing, never executed); ``render`` prints a Report as text, Markdown
or JSON. Every code is registered, with its meaning, in ``codes.CODES``.
"""

from __future__ import annotations

from ..codes import CODES, problem
from ..errors import SubmissionInvalid
from .report import FORMATS, Report, render
from .validate import validate_files, validate_pr

__all__ = ["CODES", "FORMATS", "Report", "SubmissionInvalid", "problem", "render", "validate_files", "validate_pr"]
