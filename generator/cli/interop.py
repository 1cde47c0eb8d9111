"""Other benchmarks' files: `import forecastbench`, `import oracle` and `export forecastbench`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .common import add_cache_options, add_common, command_time, emit, hub_dir, opened, time_option


def cmd_import_forecastbench(args: argparse.Namespace) -> int:
    """Import FB question/resolution/forecast sets, then score every round."""
    from ..interop.forecastbench.importer import collector_spared, import_forecastbench
    from ..parallel import default_processes
    from ..pipeline.recompute import board_warnings, hub_view, write_round_scores_in_parallel
    from ..store import readers

    as_of = command_time(args)
    # its read cache takes the forecast files as the import writes them; data/hub.toml may be the import's own
    with opened(args, "import", settings=False) as hub:
        report = import_forecastbench(hub, Path(args.dir), Path(args.forecasts) if args.forecasts else None, as_of=as_of)
        for warning in report.warnings[:20]:
            print(f"warning: {warning}", file=sys.stderr)
        with collector_spared():  # the frames the import handed over live until the end
            view = hub_view(hub, readers.load_observations(hub), as_of)
            scored, written = write_round_scores_in_parallel(hub, view, hub.settings.scoring.impute_value, default_processes())
            for warning in board_warnings(hub, as_of):
                print(f"warning: {warning}", file=sys.stderr)
    print(
        f"imported {len(report.rounds)} round(s); {report.questions_added} question version(s), "
        f"{report.statements_added} stated resolution(s), {report.forecast_files} forecast file(s) added; "
        f"{scored} forecast(s) scored, {len(report.written) + len(written)} file(s) written"
    )
    return 0


def cmd_export_forecastbench(args: argparse.Namespace) -> int:
    """A round's question set in ForecastBench question-set JSON, to stdout or --out."""
    from ..interop.forecastbench.export import export_forecastbench

    due = time_option("--round", args.round)
    data = export_forecastbench(hub_dir(args.hub), due)
    emit(data, args.out, f" ({len(data)} bytes)")
    return 0


def cmd_import_oracle(args: argparse.Namespace) -> int:
    """Load a Daily Oracle-style question file (.csv or .jsonl) into data/oracle/<set>/."""
    from ..oracle import import_oracle

    report = import_oracle(hub_dir(args.hub), Path(args.file), args.set, command_time(args))
    for warning in report.warnings[:20]:
        print(f"warning: {warning}", file=sys.stderr)
    print(f"oracle set {report.qset}: {report.questions} question(s) read; {report.added} new or changed version(s) added to {report.path}")
    return 0


def add_import(sub):
    """`import forecastbench`; returns the import's kinds, for `import oracle` (``add_import_oracle``)."""
    importer = sub.add_parser("import", help="import another benchmark's files into the hub")
    kinds = importer.add_subparsers(dest="importer", required=True, metavar="FORMAT")
    fb = kinds.add_parser("forecastbench", help="ForecastBench question, resolution and forecast sets (JSON)")
    fb.add_argument("dir", help="folder holding datasets/question_sets and datasets/resolution_sets (or datasets/ itself), or the same as a .tar.gz")
    fb.add_argument(
        "--forecasts",
        metavar="DIR",
        help="folder of FB forecast-set JSON files (any depth), or a bundle as FB "
        "publishes it (forecast_sets.tar.gz, processed_forecast_sets.tar.gz), "
        "its members checked before anything is unpacked",
    )
    add_common(fb)
    add_cache_options(fb)  # the files it writes, checked, are kept for the next nightly
    fb.set_defaults(func=cmd_import_forecastbench)
    return kinds


def add_import_oracle(kinds) -> None:
    """`import oracle FILE --set NAME` (Daily Oracle)."""
    imp = kinds.add_parser("oracle", help="Daily Oracle-style questions (.csv or .jsonl; see the Data page)")
    imp.add_argument("file", metavar="FILE", help="the question file")
    imp.add_argument("--set", required=True, metavar="NAME", help="the question set to load it into, e.g. daily-oracle")
    add_common(imp)
    imp.set_defaults(func=cmd_import_oracle)


def add_export(sub) -> None:
    """`export forecastbench`."""
    exporter = sub.add_parser("export", help="write a round in another benchmark's format")
    out_kinds = exporter.add_subparsers(dest="exporter", required=True, metavar="FORMAT")
    fb_out = out_kinds.add_parser("forecastbench", help="a round's question set as ForecastBench question-set JSON")
    fb_out.add_argument("--round", required=True, metavar="DUE", help="the round's due date, e.g. 2026-02-08")
    fb_out.add_argument("--out", metavar="FILE", help="write here instead of to standard output")
    add_common(fb_out, as_of=False)
    fb_out.set_defaults(func=cmd_export_forecastbench)
