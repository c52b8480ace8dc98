"""Where a command writes a profile, and in which format: ``--format`` or the
output's name (``.otlp``, ``.otlp.gz``: OpenTelemetry OTLP ProfilesData;
anything else profile.proto). Shared by the commands that write profiles."""

from __future__ import annotations

import os


def add_format_argument(parser) -> None:
    parser.add_argument(
        "--format",
        choices=("pprof", "otlp"),
        default=None,
        help="output format (default: otlp when the output name ends in .otlp or .otlp.gz, else pprof)",
    )


def output_format(path, fmt) -> str:
    if fmt:
        return fmt
    name = os.fsdecode(path).lower()
    return "otlp" if name.endswith((".otlp", ".otlp.gz")) else "pprof"


def save_profile(p, path, fmt=None, uncompressed: bool = False) -> None:
    """``p.save`` in the chosen format: profile.proto is gzipped unless
    ``uncompressed``; OTLP is raw unless the name ends in ``.gz``."""
    if output_format(path, fmt) == "otlp":
        p.save(path, compress=os.fsdecode(path).lower().endswith(".gz") and not uncompressed, format="otlp")
    else:
        p.save(path, compress=not uncompressed)
