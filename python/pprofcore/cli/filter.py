"""Filter a profile with pprof's focus/ignore/hide/show/tag flags and write
the result as a new profile (like ``go tool pprof -proto FLAGS -output OUT FILE``)."""

from __future__ import annotations

from .. import _io
from . import _filter_args, _profile_output

HELP = "filter a profile (pprof's focus/ignore/tag flags) and write the result"


def add_arguments(parser) -> None:
    parser.add_argument("file", metavar="FILE", help="input profile (gzip or raw profile.proto)")
    parser.add_argument("-o", "--output", required=True, metavar="OUT", help="output file")
    parser.add_argument("--uncompressed", action="store_true", help="write raw profile.proto instead of gzip")
    _profile_output.add_format_argument(parser)
    _filter_args.add_filter_arguments(parser)


def run(args) -> int:
    p = _io.load(args.file)
    q = _filter_args.apply_filter_args(p, args, prog="pprofcore filter")
    _profile_output.save_profile(q, args.output, args.format, args.uncompressed)
    return 0
