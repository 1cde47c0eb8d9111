"""ForecastBench's bundles: `prescient import forecastbench` reads a `.tar.gz` as FB publishes
it, and checks every member before anything is unpacked (no path traversal, no links, size caps)."""

from __future__ import annotations

import gzip
import io
import json
import tarfile
import time
from pathlib import Path

import pytest

from generator.errors import SchemaError
from generator.interop.forecastbench.importer import import_forecastbench
from generator.pipeline.recompute import hub_view, write_round_scores
from generator.store import readers
from generator.store.hub import Hub
from generator.store.tarball import unpacked
from generator.timeutil import parse_ts

from helpers import MINI_FSET, mini_fb, run_cli, tree_bytes

AS_OF = "2026-08-21T00:00:00Z"


def _bundle(path: Path, folder: Path, prefix: str = "") -> Path:
    with tarfile.open(path, "w:gz") as archive:
        for file in sorted(folder.rglob("*")):
            archive.add(file, arcname=prefix + file.relative_to(folder).as_posix(), recursive=False)
    return path


def _raw_bundle(path: Path, members: list[tuple[tarfile.TarInfo, bytes]]) -> Path:
    """A bundle written header by header: a member may claim a size its data does not have."""
    buf = io.BytesIO()
    for info, data in members:
        buf.write(info.tobuf(tarfile.GNU_FORMAT))
        buf.write(data + b"\0" * (-len(data) % tarfile.BLOCKSIZE))
    buf.write(b"\0" * tarfile.BLOCKSIZE * 2)
    path.write_bytes(gzip.compress(buf.getvalue(), mtime=0))
    return path


def _info(name: str, size: int = 0, kind: bytes = tarfile.REGTYPE, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.size, info.type, info.linkname = size, kind, link
    return info


def test_bundles_import_exactly_as_their_folders(tmp_path):
    data, forecasts = mini_fb(tmp_path)
    import_forecastbench(tmp_path / "plain", data, forecasts, as_of=AS_OF)
    bundled = (_bundle(tmp_path / "datasets.tar.gz", data), _bundle(tmp_path / "forecast_sets.tar.gz", forecasts, "2026-01-04/"))
    report = import_forecastbench(tmp_path / "bundled", *bundled, as_of=AS_OF)
    assert report.forecast_files >= 1 and tree_bytes(tmp_path / "bundled") == tree_bytes(tmp_path / "plain")


@pytest.mark.parametrize(
    ("member", "code"),
    [
        (_info("../evil.json", 2), "unsafe-member"),
        (_info("/etc/evil.json", 2), "unsafe-member"),
        (_info("sets/a\\b.json", 2), "unsafe-member"),
        (_info("sets/link.json", 0, tarfile.SYMTYPE, "../../x"), "unsafe-member"),
        (_info("sets/hard.json", 0, tarfile.LNKTYPE, "sets/ok.json"), "unsafe-member"),
        (_info("sets/fifo", 0, tarfile.FIFOTYPE), "unsafe-member"),
    ],
)
def test_an_unsafe_member_is_refused_with_its_code_and_nothing_is_written(tmp_path, member, code):
    data, _ = mini_fb(tmp_path)
    bundle = _raw_bundle(tmp_path / "forecast_sets.tar.gz", [(_info("sets/ok.json", 2), b"{}"), (member, b"{}"[: member.size])])
    with pytest.raises(SchemaError) as caught:
        import_forecastbench(tmp_path / "hub", data, bundle, as_of=AS_OF)
    (problem,) = caught.value.problems
    assert (problem.code, problem.file, problem.row) == (code, "forecast_sets.tar.gz", 2)
    assert not (tmp_path / "hub").exists()


def test_a_member_claiming_10_gb_is_refused_at_its_header_without_reading_on(tmp_path):
    bundle = _raw_bundle(tmp_path / "processed_forecast_sets.tar.gz", [(_info("huge.json", 10 * 2**30), b"")])
    started = time.monotonic()
    with pytest.raises(SchemaError) as caught, unpacked(bundle):
        pass
    assert time.monotonic() - started < 5
    (problem,) = caught.value.problems
    assert problem.code == "member-too-large" and "10,737,418,240 bytes" in problem.message


def test_the_caps_hold_for_the_bundle_as_a_whole_and_a_broken_file_is_not_an_archive(tmp_path):
    bundle = _raw_bundle(tmp_path / "b.tar.gz", [(_info(f"{i}.json", 3), b"abc") for i in range(3)])
    with pytest.raises(SchemaError) as caught, unpacked(bundle, max_member=3, max_total=8):
        pass
    assert caught.value.problems[0].code == "member-too-large" and caught.value.problems[0].row == 3
    with unpacked(bundle, max_member=3, max_total=9) as folder:
        assert folder is not None and sorted(p.name for p in folder.iterdir()) == ["0.json", "1.json", "2.json"]
    assert not folder.exists()  # the temporary folder goes with the block
    (tmp_path / "junk.tar.gz").write_bytes(b"not gzip at all")
    with pytest.raises(SchemaError) as caught, unpacked(tmp_path / "junk.tar.gz"):
        pass
    assert caught.value.problems[0].code == "bad-archive"


def test_the_cli_refuses_a_traversing_bundle_with_exit_3_and_the_code(tmp_path):
    data, _ = mini_fb(tmp_path)
    bundle = _raw_bundle(tmp_path / "forecast_sets.tar.gz", [(_info("../../x.json", 2), b"{}")])
    result = run_cli("import", "forecastbench", str(data), "--forecasts", str(bundle), "--hub", str(tmp_path / "hub"), "--as-of", AS_OF)
    assert result.returncode == 3 and "[unsafe-member]" in result.stderr and "Traceback" not in result.stderr


def test_a_processed_file_keeps_the_model_s_forecasts_and_leaves_fb_imputations_to_the_hub(tmp_path):
    # a processed forecast set carries what FB scored: its own imputations marked imputed, the
    # crowd value at the due date, the outcome; only the model's own forecasts are imported
    processed = json.loads(json.dumps(MINI_FSET))
    processed["forecasts"] = [{**row, "imputed": False, "market_value_on_due_date": 0.7, "resolved": True} for row in processed["forecasts"]]
    processed["forecasts"].append(
        {
            "id": "F1",
            "source": "fred",
            "forecast": 0.5,
            "resolution_date": "2026-02-03",
            "reasoning": None,
            "imputed": True,
            "resolved_to": 1.0,
            "resolved": True,
        }
    )
    data, forecasts = mini_fb(tmp_path, fset=processed)
    bundle = _bundle(tmp_path / "processed_forecast_sets.tar.gz", forecasts)
    report = import_forecastbench(tmp_path / "hub", data, bundle, as_of=AS_OF)
    (warning,) = [w for w in report.warnings if w.code == "imputed-forecast"]
    assert "1 row(s) marked imputed" in warning.message and warning.severity == "warning"
    hub = Hub(tmp_path / "hub")
    scores, _ = write_round_scores(hub, hub_view(hub, readers.load_observations(hub), parse_ts(AS_OF)), 0.5)
    x = scores[scores["model"] == "team-a.model-x-1.0"].set_index(["question_id", "resolution_date"])
    assert x.loc[("fred:F1", "2026-02-03"), "imputed"] == 1 and x.loc[("fred:F1", "2026-01-11"), "imputed"] == 0
