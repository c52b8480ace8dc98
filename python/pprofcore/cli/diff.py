"""Compare two profiles (NEW minus BASE, as `go tool pprof -base`) and print the
functions whose flat value changed most: pprof's -top of the difference."""

from __future__ import annotations

import pprofcore

from .._report_defaults import GRANULARITIES
from . import _report_args as ra

HELP = "show what changed between two profiles"


def add_arguments(parser) -> None:
    parser.add_argument("base", metavar="BASE")
    parser.add_argument("new", metavar="NEW")
    parser.add_argument("-n", "--nodecount", type=int, default=20, help="rows to show")
    ra.add_sample_index(parser)
    parser.add_argument("--granularity", default="functions", choices=GRANULARITIES)
    parser.add_argument("--normalize", action="store_true", help="scale NEW to BASE's totals first")


def run(args) -> int:
    base, new = pprofcore.load(args.base), pprofcore.load(args.new)
    d = new.diff(base, mode="base", normalize=args.normalize)
    col = d.sample_type_index(ra.sample_index(args.sample_index))
    name, unit = d.sample_types[col]
    base_total = base.total(name) if name in [t for t, _ in base.sample_types] else 0
    change = d.total(col)
    print(
        f"{name} ({unit}): base total {base_total:,}, new total {new.total(name):,}, "
        f"change {change:+,} ({(100.0 * change / base_total) if base_total else float('nan'):+.1f}% of base)"
    )
    # pprof's -top of NEW - BASE: every node, largest |flat| change first.
    t = d.top(sample_type=col, by=args.granularity, n=args.nodecount, nodefraction=0, edgefraction=0)
    print(f"{'change':>16} {'% of base':>9}  {args.granularity[:-1]}")
    for key, v in zip(t["name"], t["flat"].tolist()):
        pct = 100.0 * v / base_total if base_total else float("nan")
        print(f"{v:>+16,} {pct:>+8.2f}%  {key}")
    return 0
