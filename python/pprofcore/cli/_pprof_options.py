"""pprof's options that every report accepts (``-trim``/``-notrim``,
``-divide_by``, ``-drop_negative``, ``-call_tree``, ``-intel_syntax``,
``-output``), and ours (``-repair``), declared once and settled after
parsing, before a report reads its trimming options.

pprof takes each of them with every output format and ignores those a format
has no use for; so do we, except ``-divide_by`` on the text reports, which is
refused rather than ignored (only the graph outputs scale their values), and
``-drop_negative``, which only the graph outputs apply. ``-intel_syntax`` goes
to ``disasm`` (``objdump -M intel``).
"""

from __future__ import annotations

import argparse
import sys

from .. import _go_repairs
from ._pprof_flags import go_bool

# the subcommands that apply -divide_by and -drop_negative (cli/graph.py)
GRAPH_COMMANDS = ("dot", "svg", "png", "pdf", "ps", "gif")


def _go_bool(value: str) -> bool:
    truth = go_bool(value)
    if truth is None:
        raise ValueError(f"invalid boolean value {value!r} for -trim")
    return truth


def repair_names(value: str) -> tuple:
    """``-repair``'s value as repair names (argparse's error for an unknown one)."""
    try:
        return _go_repairs.check_repairs(value)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def add_arguments(parser, *, output: bool = True) -> None:
    """Declares the options; ``output=False`` where the subcommand has its own ``-o``."""
    parser.add_argument(
        "--trim",
        type=_go_bool,
        default=True,
        help="honour nodecount/nodefraction/edgefraction (pprof's default; -trim=false turns them off)",
    )
    parser.add_argument("--notrim", action="store_true", help="same as -trim=false")
    parser.add_argument(
        "--divide_by",
        "--divide-by",
        dest="divide_by",
        type=float,
        default=1.0,
        help="divide the values shown by N (graph outputs; pprof -divide_by)",
    )
    parser.add_argument(
        "--drop_negative",
        "--drop-negative",
        dest="drop_negative",
        action="store_true",
        help="leave out nodes with negative values (graph outputs)",
    )
    parser.add_argument(
        "--call_tree", "--call-tree", dest="call_tree", action="store_true", help="pprof -call_tree (not supported yet)"
    )
    parser.add_argument(
        "--intel_syntax", "--intel-syntax", dest="intel_syntax", action="store_true", help="accepted, as pprof does"
    )
    parser.add_argument(
        "--symbolize",
        default=None,
        help="none: leave addresses as they are; local, force ...: resolve address-only locations first",
    )
    parser.add_argument(
        "--repair",
        default=None,
        type=repair_names,
        metavar="truncated,typeparams",
        help="pprofcore's extension: repair Go's truncated stacks and/or drop generic type parameters "
        "from function names before the report; what changed goes to stderr",
    )
    if output:
        parser.add_argument("-o", "--output", default=None, help="write the report to this file instead of stdout")


def symbolized(p, args):
    """``p`` symbolized when ``-symbolize`` asks for it (other than ``none``) on a
    report without its own symbolization options (list and disasm have them)."""
    mode = getattr(args, "symbolize", None)
    if not mode or mode == "none" or hasattr(args, "binary"):
        return p
    q, _ = p.symbolize(force=mode.startswith("force"))
    return q


def repaired(p, args):
    """``p`` with the ``-repair`` repairs applied (their report on stderr)."""
    names = getattr(args, "repair", None)
    if not names:
        return p
    q, reports = _go_repairs.apply_repairs(p, names)
    print(_go_repairs.describe(reports), file=sys.stderr)
    return q


def settle(args) -> None:
    """Applies ``-trim=false``/``-notrim`` (no node count, no fractions) and checks
    ``-divide_by``; a no-op for subcommands without these options."""
    if not hasattr(args, "trim"):
        return
    if args.notrim:
        args.trim = False
    if not args.trim:
        for name in ("nodecount", "nodefraction", "edgefraction"):
            if hasattr(args, name):
                setattr(args, name, 0)
    if args.divide_by == 0:
        raise ValueError("zero divisor specified")
    if args.divide_by != 1 and args.command not in GRAPH_COMMANDS:
        raise ValueError(
            f"-divide_by is supported by the graph outputs only ({', '.join(GRAPH_COMMANDS)}), not -{args.command}"
        )
