"""Turn a series of cumulative profiles (Go heap allocs, mutex, block) into
deltas with fastdelta's semantics. The first profile is written unchanged; each
output file has the input's name, in OUTDIR."""

from __future__ import annotations

import os
import sys

import pprofcore

from .. import _atomic

HELP = "convert a series of cumulative profiles into deltas"


def add_arguments(parser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="the series, oldest first")
    parser.add_argument("-o", "--output", required=True, metavar="OUTDIR", help="directory for the deltas")
    parser.add_argument(
        "-t",
        "--types",
        default=None,
        help="comma-separated sample types to subtract (default: alloc_objects,alloc_space "
        "for heap profiles, contentions,delay for mutex/block, else all)",
    )


def default_types(sample_types) -> list:
    names = [t for t, _ in sample_types]
    if "alloc_objects" in names or "alloc_space" in names:
        return [t for t in ("alloc_objects", "alloc_space") if t in names]
    if "contentions" in names:
        return [t for t in ("contentions", "delay") if t in names]
    return names


def run(args) -> int:
    os.makedirs(args.output, exist_ok=True)
    dc = None
    for path in args.files:
        with open(path, "rb") as f:
            data = f.read()
        if dc is None:
            types = args.types.split(",") if args.types else default_types(pprofcore.loads(data).sample_types)
            dc = pprofcore.DeltaComputer(types)
        out = os.path.join(args.output, os.path.basename(path))
        if os.path.abspath(out) == os.path.abspath(path):
            raise ValueError(f"refusing to overwrite the input {path}")
        _atomic.write_bytes(out, dc.delta_bytes(data))
    subtracted = ", ".join(dc.sample_types) if dc is not None else ""
    print(f"wrote {len(args.files)} profiles to {args.output} (subtracted: {subtracted})", file=sys.stderr)
    return 0
