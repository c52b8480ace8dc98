"""Totals per label key and value, like `go tool pprof -tags`."""

from __future__ import annotations

from . import _report_args as ra
from ._report_flags import add_ignored

HELP = "label breakdown (like pprof -tags)"


def add_arguments(parser) -> None:
    ra.add_common(parser, granularity=False, nodecount=False)
    add_ignored(parser, "granularity", "noinlines", "mean", "nodecount", "fractions", "sort")


def run(args) -> int:
    return ra.run_report(args, "tags", unit=args.unit, relative_percentages=args.relative_percentages)
