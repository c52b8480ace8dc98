"""The symbolization options of the subcommands that need names for addresses
(``symbolize``, ``list``, ``disasm``), spelled after pprof's ``-symbolize``,
``PPROF_BINARY_PATH`` and ``-tools``."""

from __future__ import annotations

import sys


def add_arguments(parser, *, default: str = "local") -> None:
    if "--symbolize" in parser._option_string_actions:  # declared by the reports' common options
        parser.set_defaults(symbolize=default)
    else:
        parser.add_argument(
            "--symbolize",
            default=default,
            choices=("local", "none", "force"),
            help="resolve address-only locations with llvm-symbolizer/addr2line (local, the default), "
            "not at all (none), or also re-resolve symbolized ones (force)",
        )
    parser.add_argument(
        "--binary",
        action="append",
        default=[],
        metavar="PATH",
        help="binary to use for a mapping (matched by build id, else base name); repeatable",
    )
    parser.add_argument(
        "--search-path",
        "--search_path",
        dest="search_path",
        default=None,
        help="directories searched for binaries (default: $PPROF_BINARY_PATH or ~/pprof/binaries)",
    )
    parser.add_argument("--tool", default="auto", help="auto (default), llvm-symbolizer, addr2line or a path")
    parser.add_argument(
        "--demangle",
        default="simplified",
        choices=("simplified", "templates", "full", "none"),
        help="how C++/Rust names are shown (pprof's -symbolize=demangle=...)",
    )


def symbolize(p, args, *, quiet: bool = True):
    """``p`` symbolized as the options say; problems (missing binaries) go to
    stderr unless ``quiet`` and nothing was missing."""
    if args.symbolize == "none":
        return p
    q, report = p.symbolize(
        binaries=args.binary or None,
        search_path=args.search_path,
        tool=args.tool,
        demangle=args.demangle,
        force=args.symbolize == "force",
    )
    if report.missing or not quiet:
        print(report, file=sys.stderr)
    return q
