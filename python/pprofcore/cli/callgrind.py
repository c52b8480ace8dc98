"""Callgrind text for KCachegrind/QCachegrind, like `go tool pprof -callgrind`
(with ``-call_tree``: a node per calling context)."""

from __future__ import annotations

from ..display.calltree_callgrind import calltree_callgrind
from . import _output
from . import _report_args as ra
from ._report_flags import add_ignored

HELP = "callgrind output for KCachegrind (like pprof -callgrind)"


def add_arguments(parser) -> None:
    # -nodecount, -nodefraction and -edgefraction are taken and ignored, as pprof does
    ra.add_common(parser, granularity=False, fmt=False, trim=True)
    add_ignored(parser, "granularity")  # pprof's callgrind is at address granularity
    # pprof's callgrind keeps inlined frames whatever -noinlines says
    parser.add_argument("--noinlines", action="store_true", help="accepted and ignored, as pprof does")
    parser.add_argument("--mean", action="store_true", help="show flat costs divided by the first (count) sample type")


def run(args) -> int:
    p = ra.load_all(args)
    st, sort = ra.sample_index(args.sample_index), "cum" if args.cum else "flat"
    if args.call_tree:
        text = calltree_callgrind(p, st, args.unit, sort=sort, mean=args.mean, drop_negative=args.drop_negative)
    else:
        text = p.to_callgrind(sample_type=st, unit=args.unit, sort=sort, mean=args.mean)
    _output.report_bytes(text.encode("utf-8"), "callgrind")  # -output: cli/_output.py writes the file
    return 0
