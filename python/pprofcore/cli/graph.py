"""pprof's call graph outputs: ``-dot`` (pprof's DOT text, byte for byte) and
``-svg``, ``-png``, ``-pdf``, ``-ps``, ``-gif`` (that DOT drawn by Graphviz's
``dot``), to stdout or ``-output``. One module registered under six subcommand
names; the name chosen is the format."""

from __future__ import annotations

import sys
from typing import Union

from ..display.callgraph import CallGraph
from ..display.calltree_graph import CallTreeGraph
from ..display.dot import pprof_dot
from ..display.graphviz import render
from . import _output
from . import _report_args as ra

HELP = "pprof's call graph: DOT text, or svg/png/pdf/ps/gif drawn by Graphviz (like pprof -dot, -svg ...)"
FORMATS = ("dot", "svg", "png", "pdf", "ps", "gif")

# pprof's defaults for graph outputs (-nodecount defaults to 80 for them)
DEFAULT_NODECOUNT = 80


def add_arguments(parser) -> None:
    ra.add_common(parser, trim=True, fmt=False)


def dot_text(args) -> str:
    """The DOT text of the profile the flags describe."""
    p = ra.load_all(args)
    nodecount = DEFAULT_NODECOUNT if args.nodecount is None else args.nodecount
    options = dict(
        by=args.granularity,
        nodecount=nodecount,
        nodefraction=args.nodefraction,
        edgefraction=args.edgefraction,
        inline=not args.noinlines,
        drop_negative=args.drop_negative,
    )
    st = ra.sample_index(args.sample_index)
    g: Union[CallGraph, CallTreeGraph] = (
        CallTreeGraph(p, st, unit=args.unit, mean=args.mean, **options)
        if args.call_tree
        else p.callgraph(st, mean=args.mean, **options)
    )
    return pprof_dot(
        g,
        nodefraction=args.nodefraction,
        edgefraction=args.edgefraction,
        unit=args.unit,
        relative_percentages=args.relative_percentages,
        ratio=1.0 / args.divide_by,
        drop_negative=args.drop_negative,
    )


def run(args) -> int:
    text = dot_text(args)
    if args.command == "dot":
        sys.stdout.write(text)
        return 0
    _output.report_bytes(render(text, args.command), args.command)  # a terminal gets a file instead
    return 0
