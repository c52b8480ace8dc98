"""Callers and callees of matching functions, like `go tool pprof -peek REGEX`."""

from __future__ import annotations

from . import _report_args as ra

HELP = "callers and callees of functions matching a regex (like pprof -peek)"


def add_arguments(parser) -> None:
    parser.add_argument("regex", help="regular expression searched in node names")
    # pprof takes -nodecount and the fractions here and ignores them (-peek is untrimmed)
    ra.add_common(parser, trim=True)


def run(args) -> int:
    return ra.run_report(args, "peek", args.regex, divide_by=args.divide_by, **ra.node_options(args))
