"""Print a summary of each profile: producer hints, sample types and totals,
table sizes, time and duration."""

from __future__ import annotations

import json
import os
import sys

from .. import _io
from .._summary import format_duration, format_time, summary
from ..errors import DecodeError

HELP = "summarize profiles"


def add_arguments(parser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="profile files (gzip or raw profile.proto)")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format")


def describe(path: str) -> dict:
    p = _io.load(path)
    d = summary(p)
    d["file"] = path
    d["file_bytes"] = os.path.getsize(path)
    return d


def format_text(d: dict) -> str:
    lines = [f"{d['file']}:"]
    if d["producer_hints"]:
        lines.append(f"  producer:  {'; '.join(d['producer_hints'])}")
    lines.append("  sample types and totals:")
    for name, total in d["totals"].items():
        default = "  (default)" if d["default_sample_type"] and name.startswith(d["default_sample_type"] + "/") else ""
        lines.append(f"    {name:<32} {total:>20,}{default}")
    if d["period_type"]:
        lines.append(f"  period:    {d['period']:,} {d['period_type']}")
    lines.append(
        f"  counts:    {d['samples']:,} samples, {d['locations']:,} locations, {d['functions']:,} functions, "
        f"{d['mappings']:,} mappings, {d['strings']:,} strings"
    )
    if d["labels"]:
        lines.append(f"  labels:    {', '.join(d['labels'])}")
    lines.append(f"  time:      {format_time(d['time_nanos'])}   duration: {format_duration(d['duration_nanos'])}")
    lines.append(f"  size:      {d['file_bytes']:,} bytes on disk, {d['memory_bytes']:,} bytes decoded")
    for c in d["comments"]:
        lines.append(f"  comment:   {c}")
    return "\n".join(lines)


def run(args) -> int:
    status = 0
    results = []
    for path in args.files:
        try:
            d = describe(path)
        except (DecodeError, OSError) as e:
            print(f"{path}: error: {e}", file=sys.stderr)
            status = 2
            continue
        if args.format == "json":
            results.append(d)
        else:
            print(format_text(d))
    if args.format == "json":
        json.dump(results, sys.stdout, indent=2)
        print()
    return status
