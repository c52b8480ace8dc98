"""The ``pprofcore`` command line. One module per subcommand, each with
``add_arguments(parser)`` and ``run(args) -> int``."""

from __future__ import annotations

import argparse
import sys
from typing import List, Optional

from . import delta, demo, diff, filter, folded, info, merge, peek, tags, top, traces

_COMMANDS = {
    "info": info,
    "demo": demo,
    "filter": filter,
    "merge": merge,
    "delta": delta,
    "diff": diff,
    "top": top,
    "peek": peek,
    "traces": traces,
    "tags": tags,
    "folded": folded,
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pprofcore", description="Analyse pprof profiles.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name, module in _COMMANDS.items():
        p = sub.add_parser(name, help=module.HELP, description=module.__doc__)
        module.add_arguments(p)
        p.set_defaults(_run=module.run)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    """Entry point of ``pprofcore`` and ``python -m pprofcore``; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args._run(args)
    except BrokenPipeError:  # e.g. piped into `head`
        return 0
    except KeyboardInterrupt:  # Ctrl-C: batch work stops between files
        print(f"pprofcore {args.command}: interrupted", file=sys.stderr)
        return 130
    except (ValueError, OSError) as e:
        print(f"pprofcore {args.command}: error: {e}", file=sys.stderr)
        return 1
