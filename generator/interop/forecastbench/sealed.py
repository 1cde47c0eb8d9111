"""The seals of imported rounds: ForecastBench's published forecast files count as they were published."""

from __future__ import annotations

from ...forecasters.baselines import after_due
from ...store import files, seals
from ...store.git import blob_id
from ...store.hub import Hub
from ...submissions import sealing
from ...timeutil import parse_ts


def seal_imported(hub: Hub, dues: list[str], as_of: str) -> list[str]:
    """Seal the imported past rounds as they were published (evidence ``import``, at the import's time):
    their files are history, not submissions, so the nightly's seal (``pipeline.seal``) leaves them be.
    A round sealed already (a re-import) keeps its seal. Returns the seal files written."""
    layout, later = hub.layout, after_due(files.own_prefix_of(hub.root))
    done = seals.sealed_rounds(seals.load_seals(hub))
    rows: list[dict] = []
    for due in (d for d in dues if d not in done):
        counted = []
        for path in layout.forecast_files(parse_ts(due)):
            target = sealing.target_of(layout.relative(path))
            if target is None or target.model in later:
                continue
            data = files.read_bytes(path)
            version = sealing.Version(layout.relative(path), blob_id(data), as_of, "import")
            counted.append(sealing.row(target, "sealed", version, versions=1, sealed_at=as_of, sha256=hub.cache.sha256(path)))
        rows += [*counted, sealing.marker(due, "forecast", as_of, f"{len(counted)} file(s) imported as published")]
    return seals.append(hub, sealing.frame(rows)) if rows else []
