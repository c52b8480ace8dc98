"""Compare two profiles (NEW minus BASE, as `go tool pprof -base`) and print the
functions whose flat value changed most."""

from __future__ import annotations

import numpy as np

HELP = "show what changed between two profiles"


def add_arguments(parser) -> None:
    parser.add_argument("base", metavar="BASE")
    parser.add_argument("new", metavar="NEW")
    parser.add_argument("-n", "--nodecount", type=int, default=20, help="rows to show")
    parser.add_argument("--sample-type", default=None, help="sample type (default: pprof's default)")
    parser.add_argument("--normalize", action="store_true", help="scale NEW to BASE's totals first")


def flat_by_function(p, column: int) -> dict:
    """Flat value per leaf function name."""
    if len(p) == 0:
        return {}
    so, sl = p.stack_offsets, p.stack_locations
    lengths = np.diff(so)
    nonempty = lengths > 0
    leaf_loc = sl[so[:-1][nonempty]]
    lo = p.locations["line_offsets"]
    has_line = lo[leaf_loc + 1] > lo[leaf_loc]
    fn_rows = np.where(has_line, p.lines["function"][np.minimum(lo[leaf_loc], max(len(p.lines["function"]) - 1, 0))]
                       if len(p.lines["function"]) else -1, -1)
    names = p.functions["name"]
    vals = p.values[nonempty, column]
    out: dict = {}
    for f, v, loc in zip(fn_rows.tolist(), vals.tolist(), leaf_loc.tolist()):
        key = p.strings[int(names[f])] if f >= 0 else f"0x{int(p.locations['address'][loc]):x}"
        out[key] = out.get(key, 0) + v
    return out


def run(args) -> int:
    import pprofcore

    base, new = pprofcore.load(args.base), pprofcore.load(args.new)
    d = new.diff(base, mode="base", normalize=args.normalize)
    col = d.sample_type_index(args.sample_type)
    name, unit = d.sample_types[col]
    base_total = base.total(name) if name in [t for t, _ in base.sample_types] else 0
    change = d.total(col)
    print(f"{name} ({unit}): base total {base_total:,}, new total {new.total(name):,}, "
          f"change {change:+,} ({(100.0 * change / base_total) if base_total else float('nan'):+.1f}% of base)")
    flat = flat_by_function(d, col)
    rows = sorted(flat.items(), key=lambda kv: (-abs(kv[1]), kv[0]))[: args.nodecount]
    print(f"{'change':>16} {'% of base':>9}  function")
    for fname, v in rows:
        pct = 100.0 * v / base_total if base_total else float("nan")
        print(f"{v:>+16,} {pct:>+8.2f}%  {fname}")
    return 0
