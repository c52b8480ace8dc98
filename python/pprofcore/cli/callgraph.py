"""Writes pprof's call graph of a profile as Graphviz DOT (.dot/.gv) or as SVG
drawn by Graphviz's `dot` (.svg), with pprof's trimming flags."""

from __future__ import annotations

import sys

from .. import _io
from .._report_defaults import GRANULARITIES, NODECOUNT
from . import _filter_args
from . import _report_args as ra
from ._report_args import sample_index
from ._report_flags import add_fractions

HELP = "write pprof's call graph (DOT, or SVG via Graphviz)"


def add_arguments(parser) -> None:
    parser.add_argument("file", metavar="FILE", help="profile file (gzip or raw profile.proto)")
    parser.add_argument(
        "-o",
        "--output",
        required=True,
        help="output file: .dot/.gv (DOT) or .svg (needs Graphviz); - writes DOT to stdout",
    )
    ra.add_sample_index(parser)
    parser.add_argument("--granularity", default="functions", choices=GRANULARITIES)
    parser.add_argument(
        "--nodecount", type=int, default=NODECOUNT, help=f"keep at most N nodes (0 = all; default {NODECOUNT})"
    )
    add_fractions(parser)
    parser.add_argument("--title", default=None, help="title in the legend")
    _filter_args.add_filter_arguments(parser)


def run(args) -> int:
    p = _filter_args.apply_filter_args(_io.load(args.file), args)
    g = p.callgraph(
        sample_index(args.sample_index),
        by=args.granularity,
        nodecount=args.nodecount,
        nodefraction=args.nodefraction,
        edgefraction=args.edgefraction,
        title=args.title,
    )
    if args.output == "-":
        sys.stdout.write(g.to_dot())
        return 0
    try:
        g.save(args.output)
    except RuntimeError as e:  # Graphviz missing or failing
        print(f"pprofcore callgraph: error: {e}", file=sys.stderr)
        return 1
    print(f"wrote {args.output}: {len(g.nodes())} nodes, {len(g.edges())} edges", file=sys.stderr)
    return 0
