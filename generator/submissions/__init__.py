"""Submission validation: small checks that yield coded Problems, and the report they make.

``validate_files`` checks files in a working tree, ``validate_pr`` the files a pull request
changed (read through git plumbing, never executed); ``render`` prints a Report as text, Markdown
or JSON. Every code is registered, with its meaning, in ``codes.CODES``.

- ``validate``: run every check over the changed files and gather one Report
- ``own``: ``prescient validate FILE``: a submitter's files, and the hub's own forecasters' by the nightly's rules
- ``paths``: what a changed path is (a forecast file, model metadata, or neither)
- ``policy``: who may change what, and when: deadline, metadata, maintainers, immutability
- ``content``: a parsed forecast file against its round's question set
- ``reading``: the hub's own reader run on the rows parsed (what the nightly would read)
- ``bets``: an Arena bet file
- ``oracle``: an oracle forecast file against its question set
- ``report``: the Report and its three renderings
- ``deadline``: a change to a round's files against its due time and its seal
- ``sealing``: the rule that picks the version that counts (pure)
- ``commitment``: a commit–reveal round's commitment and salt files
- ``commit_hash``: the commitment's byte layout (``prescient-commit-v2``): hub, round, model, kind, salt, file
- ``reveals``: a reveal against the commitment that counts, as the check and the reveal seal judge it
- ``maintainer``: the maintainers' ledger in a pull request (and before ``prescient void`` writes a row)
"""

from __future__ import annotations

from ..codes import CODES, problem
from ..errors import SubmissionInvalid
from .report import FORMATS, Report, render
from .validate import validate_files, validate_pr

__all__ = ["CODES", "FORMATS", "Report", "SubmissionInvalid", "problem", "render", "validate_files", "validate_pr"]
