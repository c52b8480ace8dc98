"""Resolve addresses to functions, files and lines with the binaries on this
machine (llvm-symbolizer or addr2line), like `pprof -symbolize=local -proto`."""

from __future__ import annotations

from .. import _io
from . import _symbolize_args as sa

HELP = "resolve address-only locations with llvm-symbolizer/addr2line and write the profile"


def add_arguments(parser) -> None:
    parser.add_argument("file", metavar="FILE", help="profile to symbolize")
    parser.add_argument("-o", "--output", required=True, help="where to write the symbolized profile (gzipped)")
    sa.add_arguments(parser)


def run(args) -> int:
    p = sa.symbolize(_io.load(args.file), args, quiet=False)
    p.save(args.output)
    return 0
