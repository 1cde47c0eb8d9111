"""The "Run a hub" page says what to do for every problem the audit can report."""

from __future__ import annotations

from pathlib import Path

from generator.codes import OTHER_CODES

RUNNING = Path(__file__).resolve().parents[2] / "site_src/docs/running.md"
# Codes of the audit's group that a maintainer can meet, plus those of the files of a round the git
# audit reports from the submission table.
EXTRA = ("not-a-regular-file",)


def test_running_md_gives_the_recovery_for_every_audit_code():
    text = RUNNING.read_text(encoding="utf-8")
    section = text[text.index("## 7. When the audit fails") :]
    audit = [code for group, codes in OTHER_CODES.items() if group.startswith("Audit") for code in codes]
    assert len(audit) > 30, "the audit's group of codes was found"
    missing = [code for code in (*audit, *EXTRA, "receipts-mismatch") if f"`{code}`" not in section]
    assert not missing, f"site_src/docs/running.md, 'When the audit fails', says nothing of: {', '.join(missing)}"
