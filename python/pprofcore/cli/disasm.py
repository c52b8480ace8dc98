"""Instructions of matching symbols annotated with flat/cum, like
`pprof -disasm REGEX` (objdump and nm from binutils; addresses are symbolized
first, as pprof does)."""

from __future__ import annotations

from . import _report_args as ra
from . import _symbolize_args as sa
from ._report_flags import add_ignored

HELP = "annotated disassembly of symbols matching a regex (like pprof -disasm)"


def add_arguments(parser) -> None:
    parser.add_argument("regex", help="regular expression matched against symbol names (mangled or demangled)")
    ra.add_common(parser, granularity=False, nodecount=False)
    # pprof's -disasm runs at address granularity without inlines, untrimmed
    add_ignored(parser, "granularity", "noinlines", "nodecount", "fractions", "sort")
    parser.add_argument("--mean", action="store_true", help="not supported with the listings (an error)")
    sa.add_arguments(parser)


def run(args) -> int:
    return ra.run_report(args, "disasm", args.regex, prepare=sa.symbolize, **ra.listing_options(args, objects=True))
