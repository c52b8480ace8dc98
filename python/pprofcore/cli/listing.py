"""Source lines of matching functions annotated with flat/cum, like
`go tool pprof -list REGEX` (addresses are symbolized first, as pprof does)."""

from __future__ import annotations

from . import _report_args as ra
from . import _symbolize_args as sa
from ._report_flags import add_ignored

HELP = "annotated source of functions matching a regex (like pprof -list)"


def add_arguments(parser) -> None:
    parser.add_argument("regex", help="regular expression matched against function names")
    ra.add_common(parser, granularity=False, nodecount=False)
    # pprof's -list runs at line granularity, untrimmed, whatever these say
    add_ignored(parser, "granularity", "nodecount", "fractions", "sort")
    parser.add_argument("--noinlines", action="store_true", help="attribute inlined lines to their callers")
    parser.add_argument("--mean", action="store_true", help="not supported with the listings (an error)")
    parser.add_argument(
        "--source-path",
        "--source_path",
        dest="source_path",
        default=None,
        help="directories to search for source files (default: the current directory)",
    )
    parser.add_argument(
        "--trim-path",
        "--trim_path",
        dest="trim_path",
        default="",
        help="path prefixes to remove from file names before searching",
    )
    sa.add_arguments(parser)


def run(args) -> int:
    options = ra.listing_options(args, source=True)
    return ra.run_report(args, "list", args.regex, prepare=sa.symbolize, inline=not args.noinlines, **options)
