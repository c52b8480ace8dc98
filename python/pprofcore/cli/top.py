"""Flat and cum per function (or file, line, address), like `go tool pprof -top`."""

from __future__ import annotations

from . import _report_args as ra
from . import quick_top

HELP = "top functions by flat or cum value (like pprof -top)"


def add_arguments(parser) -> None:
    quick_top.add_arguments(parser)  # the quick path parses the same flags


def run(args) -> int:
    return ra.run_report(
        args,
        "top",
        by=args.granularity,
        n=args.nodecount,
        sort="cum" if args.cum else "flat",
        mean=args.mean,
        unit=args.unit,
        inline=not args.noinlines,
        nodefraction=args.nodefraction,
        edgefraction=args.edgefraction,
        relative_percentages=args.relative_percentages,
        divide_by=args.divide_by,
    )
