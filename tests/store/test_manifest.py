"""The forecast manifest: sha256 of every forecast file, first time seen, plus one root hash per run."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd

from generator.audit.verify import check_timing, verify
from generator.pipeline.nightly import nightly
from generator.schemas import MANIFEST
from generator.store import manifest, seals
from generator.store.csvio import empty_frame
from generator.store.hub import Hub
from generator.store.layout import Layout
from generator.timeutil import parse_ts

from helpers import tree_bytes

DUE = "2026-01-25"
MODEL_YML = "name: {name}\norganization: Team\nkind: llm\nmaintainers: [someone]\n"


def test_new_rows_records_each_content_once_with_a_root_hash():
    first = manifest.new_rows(empty_frame(MANIFEST), {"b.csv": "22", "a.csv": "11"}, parse_ts("2026-01-01T00:00:00Z"))
    assert list(first["path"]) == ["a.csv", "b.csv", "*"]
    assert first["sha256"].iloc[-1] == manifest.sha256(b"a.csv 11\nb.csv 22\n")
    assert set(first["recorded_at"]) == {"2026-01-01T00:00:00Z"}
    assert manifest.new_rows(first, {"b.csv": "22", "a.csv": "11"}, parse_ts("2026-01-02T00:00:00Z")).empty
    changed = manifest.new_rows(first, {"a.csv": "11", "b.csv": "33"}, parse_ts("2026-01-03T00:00:00Z"))
    assert list(zip(changed["path"], changed["sha256"], strict=True)) == [("b.csv", "33"), ("*", manifest.root_hash({"a.csv": "11", "b.csv": "33"}))]
    both = pd.concat([first, changed], ignore_index=True)
    assert manifest.first_recorded(both)[("b.csv", "22")] == "2026-01-01T00:00:00Z"


def test_no_files_no_rows():
    assert manifest.new_rows(empty_frame(MANIFEST), {}, parse_ts("2026-01-01T00:00:00Z")).empty


def _submit(root: Path, model: str) -> str:
    """A team's forecast file for the round due 2026-01-25 (a copy of Always 0.5), and its model card."""
    path = f"data/forecasts/{DUE}/{model}.csv"
    shutil.copy(root / f"data/forecasts/{DUE}/prescient.always-0.csv", root / path)
    (root / f"data/models/{model}.yml").write_text(MODEL_YML.format(name=model), encoding="utf-8")
    return path


def test_a_rerun_writes_no_byte_and_the_manifest_proves_what_was_there_before_due(sim_hub: Path):
    nightly(sim_hub, parse_ts("2026-01-16T00:00:00Z"))
    early = _submit(sim_hub, "team.early")
    nightly(sim_hub, parse_ts("2026-01-20T00:00:00Z"))
    before = tree_bytes(sim_hub)
    nightly(sim_hub, parse_ts("2026-01-20T00:00:00Z"))
    assert tree_bytes(sim_hub) == before
    recorded = manifest.load_manifest(Hub(sim_hub))
    assert manifest.first_recorded(recorded)[(early, manifest.sha256((sim_hub / early).read_bytes()))] == "2026-01-20T00:00:00Z"
    assert list(recorded.loc[recorded["path"] == "*", "recorded_at"]) == ["2026-01-16T00:00:00Z", "2026-01-20T00:00:00Z"]

    late = _submit(sim_hub, "team.late")  # appears after the due time: no record shows it before
    assert [(p.file, p.code, p.severity) for p in check_timing(Hub(sim_hub), parse_ts("2026-02-20T00:00:00Z"), None)[0]] == [
        (late, "timing-unproven", "warning")
    ]
    nightly(sim_hub, parse_ts("2026-02-20T00:00:00Z"))  # the seal rules it out (unproven) and removes it
    assert not (sim_hub / late).exists() and (sim_hub / early).exists()
    sealed = seals.load_seals(Hub(sim_hub)).set_index("model")
    assert sealed.loc["team.late", "status"] == "unproven" and sealed.loc["team.early", "status"] == "sealed"
    assert sealed.loc["team.early", "attested_at"] == "2026-01-20T00:00:00Z"  # the manifest's record is its evidence
    report = verify(sim_hub)
    assert report.ok and not report.problems, report.problems


def test_a_changed_file_is_recorded_again(sim_hub: Path):
    nightly(sim_hub, parse_ts("2026-01-16T00:00:00Z"))
    path = sim_hub / f"data/forecasts/{DUE}/prescient.always-1.csv"
    path.write_text(path.read_text().replace("1.000000", "0.900000"))
    nightly(sim_hub, parse_ts("2026-01-17T00:00:00Z"))
    recorded = manifest.load_manifest(Hub(sim_hub))
    rows = recorded[recorded["path"] == Layout(sim_hub).relative(path)]
    assert list(rows["recorded_at"]) == ["2026-01-16T00:00:00Z", "2026-01-17T00:00:00Z"]
    assert rows["sha256"].iloc[-1] == manifest.sha256(path.read_bytes())
