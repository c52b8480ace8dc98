"""Merge profiles into one, exactly as google/pprof's profile.Merge does, decoding
and merging on all cores. A progress bar is shown when stderr is a terminal."""

from __future__ import annotations

import sys
import time

import pprofcore

from . import _profile_output
from ._progress import Progress

HELP = "merge profiles into one (pprof's Merge semantics, all cores)"


def add_arguments(parser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="profiles to merge, in order")
    parser.add_argument(
        "-o", "--output", required=True, help="output file (gzip-compressed profile.proto; .otlp: OpenTelemetry OTLP)"
    )
    parser.add_argument(
        "-j",
        "--threads",
        type=int,
        default=None,
        help="decoder threads besides the merging one (default: one fewer than the cores)",
    )
    parser.add_argument("--uncompressed", action="store_true", help="write raw profile.proto instead of gzip")
    _profile_output.add_format_argument(parser)


def run(args) -> int:
    t0 = time.perf_counter()
    bar = Progress(len(args.files), "merging")
    merged = pprofcore.merge_files(args.files, threads=args.threads, progress=bar if bar.enabled else None)
    _profile_output.save_profile(merged, args.output, args.format, args.uncompressed)
    print(
        f"merged {len(args.files)} profiles into {args.output}: {len(merged):,} samples, "
        f"{len(merged.locations['id']):,} locations in {time.perf_counter() - t0:.2f}s",
        file=sys.stderr,
    )
    return 0
