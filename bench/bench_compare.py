"""Benchmark of pprofcore.compare (issue 12): two groups of 50 profiles with
10,000 functions each, the target being under 1 s.

    python3 bench/bench_compare.py [--functions 10000] [--profiles 50] [--runs 5]

The profiles are built once from folded stacks (10,000 leaf functions under
100 callers, each in every profile, multinomial counts, 20,000 samples each). Timed: compare()
alone, with Mann-Whitney and with Welch, min and median of the runs, plus its
parts (C++ aggregation of every profile, alignment of names, the statistics).
The node tables are cached per profile, so the first run also builds them:
reported apart as "cold". Prints a Markdown table; never run from the tests.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import _common  # noqa: F401  (puts this checkout's python/ first unless PPROFCORE_BENCH_INSTALLED=1)
import numpy as np

import pprofcore  # noqa: E402
from pprofcore import testing  # noqa: E402
from pprofcore.testing import _keys  # noqa: E402
from pprofcore.testing import statistics as stats  # noqa: E402


def build(n_profiles: int, n_functions: int, samples: int, seed: int):
    rng = np.random.default_rng(seed)
    weights = rng.pareto(1.2, n_functions) + 0.01
    weights /= weights.sum()
    stacks = [f"main;svc.handler{i % 100};pkg{i % 37}.Func{i}" for i in range(n_functions)]
    out = []
    for _ in range(n_profiles):
        counts = 1 + rng.multinomial(samples - n_functions, weights)  # every function in every profile
        text = "".join(f"{s} {c}\n" for s, c in zip(stacks, counts.tolist()) if c)
        out.append(pprofcore.from_folded(text, sample_type="cpu/nanoseconds"))
    return out


def timed(fn, runs):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times), statistics.median(times)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--functions", type=int, default=10_000)
    ap.add_argument("--profiles", type=int, default=50, help="profiles per group")
    ap.add_argument("--samples", type=int, default=20_000)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args(argv)

    t = time.perf_counter()
    base = build(args.profiles, args.functions, args.samples, 1)
    new = build(args.profiles, args.functions, args.samples, 2)
    build_s = time.perf_counter() - t
    keys = len(_keys.key_matrix(base[:1], [0], "functions", False)[0])

    def fresh():
        return [pprofcore.loads(p.to_bytes(compress=False)) for p in base + new]

    cold_profiles = fresh()
    t = time.perf_counter()
    testing.compare(cold_profiles[: args.profiles], cold_profiles[args.profiles :])
    cold = time.perf_counter() - t

    rows = []
    for test in ("mannwhitney", "welch"):
        lo, med = timed(lambda: testing.compare(base, new, test=test), args.runs)
        rows.append((f"compare(test={test!r})", lo, med))
    # Parts, on the warm profiles.
    idx = _keys.resolve_type(base + new, None)[2]
    lo, med = timed(lambda: _keys.key_matrix(base + new, idx, "functions", False), args.runs)
    rows.append(("  aggregation lookup + name alignment", lo, med))
    _, m, totals = _keys.key_matrix(base + new, idx, "functions", False)
    v = testing._as_shares(m, totals)
    a, b = v[: args.profiles], v[args.profiles :]
    rows.append(("  Mann-Whitney U", *timed(lambda: stats.mannwhitney(a, b), args.runs)))
    rows.append(("  Welch t-test", *timed(lambda: stats.welch(a, b), args.runs)))
    rows.append(("  Welch interval", *timed(lambda: stats.welch_interval(a, b, 0.05), args.runs)))

    print(
        f"{args.profiles} + {args.profiles} profiles, {m.shape[1]} functions in all "
        f"({keys} in the first profile), {args.samples} samples each; built in {build_s:.1f} s"
    )
    print()
    print("| step | min | median |")
    print("| --- | ---: | ---: |")
    print(f"| compare, cold (node tables built on the way) | {cold * 1e3:.0f} ms | |")
    for name, lo, med in rows:
        print(f"| {name} | {lo * 1e3:.0f} ms | {med * 1e3:.0f} ms |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
