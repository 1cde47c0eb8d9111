"""The commitment's byte layout (``submissions.commit_hash``): one hub, round, model and kind, a salt
of fixed length and the file's canonical bytes, with separators that split one way only; and the
Methodology page's recipe, run with bash, printf and sha256sum, gives the digest the code gives."""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from generator.submissions import commit_hash
from generator.submissions.commit_hash import Binding, canonical, digest_v1, digest_v2

from helpers import ROOT

SALT = "0123456789abcdef" * 4
HER = Binding("https://github.com/acme/hub", "2026-01-25", "acme.gpt-x")


def test_the_digest_is_the_sha256_of_the_documented_fields_separated_by_nul():
    data = b"question_id,probability\nq1,0.8\n"
    expected = b"prescient-commit-v2\0https://github.com/acme/hub\x002026-01-25\0acme.gpt-x\0forecast\0" + SALT.encode() + b"\0" + data
    assert digest_v2(HER, SALT, data) == hashlib.sha256(expected).hexdigest()


def test_a_commitment_names_its_model_round_and_hub():
    data = b"q,p\n1,0.5\n"
    mine = digest_v2(HER, SALT, data)
    assert mine != digest_v2(Binding(HER.hub, HER.due, "rival.copy"), SALT, data)
    assert mine != digest_v2(Binding(HER.hub, "2026-02-08", HER.model), SALT, data)
    assert mine != digest_v2(Binding("https://github.com/other/hub", HER.due, HER.model), SALT, data)


def test_bytes_moved_between_the_salt_and_the_file_never_hash_alike():
    """v1 hashed the salt file's bytes and the file's with nothing between: ``hex\\n`` + ``csv`` and
    ``hex`` + ``\\ncsv`` were one commitment."""
    assert digest_v1(SALT.encode() + b"\n", b"csv") == digest_v1(SALT.encode(), b"\ncsv")
    opened = commit_hash.Commitment("v2", digest_v2(HER, SALT, b"csv"))
    assert commit_hash.opens(opened, [HER], SALT.encode() + b"\n", b"csv")
    assert not commit_hash.opens(opened, [HER], SALT.encode(), b"\ncsv")


def test_line_ends_are_made_lf_on_both_sides():
    assert canonical(b"a\r\nb\rc\n\r\n") == b"a\nb\nc\n\n"
    committed = commit_hash.Commitment("v2", digest_v2(HER, SALT, b"h,p\r\nq,0.8\r\n"))
    assert commit_hash.opens(committed, [HER], SALT.encode() + b"\r\n", b"h,p\nq,0.8\n")


def test_a_salt_is_64_hex_digits_and_no_field_may_hold_a_nul():
    assert commit_hash.salt_value(SALT.encode() + b"\n") == SALT
    assert commit_hash.salt_value(b"ab" * 16 + b"\n") is None  # a v1 salt of 32 digits is too short for v2
    with pytest.raises(ValueError):
        digest_v2(Binding("a\0b", HER.due, HER.model), SALT, b"")


def test_both_formats_of_the_commitment_file_are_read():
    digest = "ab" * 32
    assert commit_hash.read(commit_hash.commitment_line(digest)) == commit_hash.Commitment("v2", digest)
    assert commit_hash.read(f"{digest}\n".encode()) == commit_hash.Commitment("v1", digest)
    assert commit_hash.read(b"prescient-commit-v3 " + digest.encode()) is None


@pytest.mark.skipif(not (shutil.which("bash") and shutil.which("perl") and shutil.which("sha256sum")), reason="bash, perl and sha256sum")
def test_the_methodology_pages_recipe_recomputes_the_commitment(tmp_path: Path):
    page = (ROOT / "site_src/docs/methodology.md").read_text(encoding="utf-8")
    recipe = re.search(r"```sh\n(HUB=.*?)```", page, re.DOTALL)
    assert recipe, "the Methodology page shows the recipe as a sh block starting HUB="
    data = b'question_id,resolution_date,probability,reasoning\r\nmanifold:abc,,0.8,"a\r\nb"\r\n'
    (tmp_path / "my-forecast.csv").write_bytes(data)
    (tmp_path / "my-forecast.csv.2026-01-25.acme.my-bot.forecast.salt").write_bytes(SALT.encode() + b"\n")
    done = subprocess.run(["bash", "-c", recipe.group(1)], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert done.stdout.split()[0] == digest_v2(Binding("", "2026-01-25", "acme.my-bot"), SALT, data)


def test_the_hub_identity_is_read_from_hub_toml_bytes():
    from generator.submissions.reveals import hub_id_in

    assert hub_id_in(b'[hub]\ntitle = "x"\nrepo_url = "https://github.com/acme/hub"\n') == "https://github.com/acme/hub"
    assert hub_id_in(b'[hub]\ntitle = "x"\n') == ""
    assert hub_id_in(b"[hub\n") is None and hub_id_in(None) is None
