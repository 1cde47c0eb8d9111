"""The nightly's work shared among forked processes gives what one process gives: the after-due files
a first nightly after an import writes, and the rounds ``recompute`` scores, to the byte, with the
same report and the same digests in the disk cache."""

from __future__ import annotations

from pathlib import Path

from generator.store import readers
from generator.store.cache import ReadCache

from helpers import two_rounds_fb


def test_the_after_due_files_written_by_forked_processes_equal_those_written_one_by_one(tmp_path, monkeypatch):
    """The first nightly after an import writes every round's after-due baselines: shared among
    forked processes, the hub's files, the run's report and the disk cache's digests are those of
    one process writing them."""
    from generator.interop.forecastbench.importer import import_forecastbench
    from generator.pipeline import nightly
    from generator.store.cache.disk import DiskCache
    from generator.store.hub import Hub
    from generator.timeutil import parse_ts

    data, forecasts = two_rounds_fb(tmp_path / "in")
    outcomes = []
    for processes in (1, 2):
        monkeypatch.setattr(nightly, "default_processes", lambda n=processes: n)
        root, folder = tmp_path / f"hub{processes}", tmp_path / f"cache{processes}"
        import_forecastbench(root, data, forecasts, as_of="2026-08-21T00:00:00Z")
        hub = Hub.load(root, ReadCache(disk=DiskCache.open(folder, root)))
        report = nightly.nightly(hub, parse_ts("2026-08-21T00:00:00Z"))
        files = {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file() and ".lock" not in p.name}
        digests = {str(Path(k).relative_to(root)): v[1] for k, v in hub.cache.disk.digests.items()}
        outcomes.append((report.written, repr(report.quarantined), files, digests))
    assert outcomes[1] == outcomes[0]
    assert sum("imputed" in f or "naive" in f for f in outcomes[0][0]) >= 4, outcomes[0][0]


def test_rounds_scored_by_forked_processes_equal_those_scored_one_by_one(tmp_path):
    """``recompute.write_round_scores_in_parallel`` with two processes: the counts, the files written (score files and
    the disk cache's frames) and the digests the cache keeps are those of scoring in one process."""
    from generator.interop.forecastbench.importer import import_forecastbench
    from generator.pipeline.recompute import hub_view, write_round_scores, write_round_scores_in_parallel
    from generator.store.cache.disk import DiskCache
    from generator.store.hub import Hub
    from generator.timeutil import parse_ts

    data, forecasts = two_rounds_fb(tmp_path / "in")
    outcomes = []
    for processes in (1, 2):
        root, folder = tmp_path / f"hub{processes}", tmp_path / f"cache{processes}"
        hub = Hub(root, ReadCache(disk=DiskCache.open(folder, root)))
        import_forecastbench(hub, data, forecasts, as_of="2026-08-21T00:00:00Z")
        view = hub_view(hub, readers.load_observations(hub), parse_ts("2026-08-21T00:00:00Z"))
        counted = write_round_scores_in_parallel(hub, view, 0.5, processes)
        files = {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}
        digests = {str(Path(k).relative_to(root)): v[1] for k, v in hub.cache.disk.digests.items()}
        outcomes.append((counted, files, digests, len(list((folder / "frames").iterdir())), hub.cache.disk.dirty))
        assert counted[0] == len(write_round_scores(Hub(root), view, 0.5)[0]) and len(readers.round_dues(hub)) == 2
    assert outcomes[1] == outcomes[0] and any("scores" in k for k in outcomes[0][1])
