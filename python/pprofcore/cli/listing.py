"""Source lines of matching functions annotated with flat/cum, like
`go tool pprof -list REGEX` (addresses are symbolized first, as pprof does)."""

from __future__ import annotations

from . import _report_args as ra
from . import _symbolize_args as sa

HELP = "annotated source of functions matching a regex (like pprof -list)"


def add_arguments(parser) -> None:
    parser.add_argument("regex", help="regular expression matched against function names")
    ra.add_common(parser, granularity=False, nodecount=False)
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
    p = sa.symbolize(ra.load_all(args), args)
    t = p.list(
        args.regex,
        source_path=args.source_path,
        trim_path=args.trim_path,
        sample_type=ra.sample_index(args.sample_index),
        relative_percentages=args.relative_percentages,
        divide_by=args.divide_by,
    )
    ra.emit(t, args.format, args=args)
    return 0
