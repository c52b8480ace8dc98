"""Totals per label key and value, like `go tool pprof -tags`."""

from __future__ import annotations

from . import _report_args as ra

HELP = "label breakdown (like pprof -tags)"


def add_arguments(parser) -> None:
    ra.add_common(parser, granularity=False, nodecount=False)


def run(args) -> int:
    p = ra.load_all(args)
    t = p.tags(sample_type=ra.sample_index(args.sample_index), unit=args.unit,
               relative_percentages=args.relative_percentages)
    ra.emit(t, args.format, args=args)
    return 0
