"""Run pprofcore on the example profile shipped with the package: summary,
round trip, and (when available) the top functions."""

from __future__ import annotations

import time

import pprofcore

from . import info

HELP = "show pprofcore at work on a bundled example profile"


def add_arguments(parser) -> None:
    parser.add_argument("--kind", choices=("cpu", "heap"), default="cpu", help="which example profile")


def run(args) -> int:
    path = pprofcore.example_path(args.kind)
    print(info.format_text(info.describe(path)))
    t0 = time.perf_counter()
    p = pprofcore.load(path)
    t1 = time.perf_counter()
    again = pprofcore.loads(p.to_bytes())
    t2 = time.perf_counter()
    print(
        f"\ndecoded in {1e3 * (t1 - t0):.2f} ms; re-encoded and decoded in {1e3 * (t2 - t1):.2f} ms; "
        f"round trip equal: {again == p}"
    )
    if hasattr(p, "top"):
        print()
        print(p.top(n=15))
    return 0
