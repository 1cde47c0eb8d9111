"""The Submit page documents every validation code, with the registry's severity and meaning."""

from __future__ import annotations

import re

from generator.cli import EPILOG
from generator.codes import CODES

from helpers import ROOT

SUBMIT = ROOT / "site_src" / "docs" / "submit.md"
ROW = re.compile(r"^\| `([a-z0-9-]+)` \| (error|warning) \| (.+) \|$")


def documented() -> dict[str, tuple[str, str]]:
    rows = (ROW.match(line) for line in SUBMIT.read_text(encoding="utf-8").splitlines())
    return {m[1]: (m[2], m[3].replace("\\|", "|")) for m in rows if m}


def test_every_code_is_documented_and_every_documented_code_exists():
    assert set(documented()) == set(CODES)


def test_documented_severity_and_meaning_match_the_registry():
    docs = documented()
    assert {c: (v.severity, v.meaning) for c, v in CODES.items()} == docs


def test_codes_are_kebab_case_and_meanings_are_one_sentence():
    for code, entry in CODES.items():
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", code)
        assert entry.meaning.endswith(".") and entry.meaning.count(". ") == 0, code


def test_the_validate_exit_code_is_documented():
    assert "9 a submission has errors" in " ".join(EPILOG.split())


def test_every_code_is_reported_somewhere_in_the_code():
    package = ROOT / "generator"
    source = "\n".join(p.read_text(encoding="utf-8") for p in (package / "submissions").glob("*.py") if p.name != "codes.py")
    source += (package / "models.py").read_text(encoding="utf-8")
    source += (package / "store" / "forecast_file.py").read_text(encoding="utf-8")  # the forecast-file parser
    unused = [c for c in CODES if f'"{c}"' not in source]
    assert unused == []
