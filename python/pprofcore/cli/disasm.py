"""Instructions of matching symbols annotated with flat/cum, like
`pprof -disasm REGEX` (objdump and nm from binutils; addresses are symbolized
first, as pprof does)."""

from __future__ import annotations

from . import _report_args as ra
from . import _symbolize_args as sa

HELP = "annotated disassembly of symbols matching a regex (like pprof -disasm)"


def add_arguments(parser) -> None:
    parser.add_argument("regex", help="regular expression matched against symbol names (mangled or demangled)")
    ra.add_common(parser, granularity=False, nodecount=False)
    sa.add_arguments(parser)


def run(args) -> int:
    p = sa.symbolize(ra.load_all(args), args)
    t = p.disasm(
        args.regex,
        binaries=args.binary or None,
        search_path=args.search_path,
        sample_type=ra.sample_index(args.sample_index),
        relative_percentages=args.relative_percentages,
        intel_syntax=args.intel_syntax,
        divide_by=args.divide_by,
    )
    ra.emit(t, args.format, args=args)
    return 0
