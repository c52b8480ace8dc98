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
        n=args.nodecount,
        nodefraction=args.nodefraction,
        edgefraction=args.edgefraction,
        divide_by=args.divide_by,
        **ra.node_options(args),
    )
