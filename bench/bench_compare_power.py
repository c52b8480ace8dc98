"""Power curve of pprofcore.compare (issue 12): the smallest change to a leaf
function that compare() finds in at least nine of ten trials, against the
samples per profile and the number of profiles per group; and the false
positives on random splits with nothing changed.

    python3 bench/bench_compare_power.py [--series DIR] [--test mannwhitney|welch] [--trials 10]

Input: the series of CPU profiles of one Go process in
tests/data/goseries/series (see its README). Fewer samples per profile are
made by binomial thinning of every stack's count (what a shorter profile
would have seen); a change of +d to the leaf function is made by counting its
stacks' samples (1 + d) times in the "new" group, as the test does. Each
trial draws a random split of the series into the two groups. Prints
Markdown tables; never run from the tests.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import _common  # noqa: F401  (puts this checkout's python/ first unless PPROFCORE_BENCH_INSTALLED=1)
import numpy as np

import pprofcore
from pprofcore.testing import compare

SERIES = Path(__file__).resolve().parent.parent / "tests" / "data" / "goseries" / "series"
CHANGES = [0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5]


def folded(p: pprofcore.Profile):
    """(stacks, sample counts) of a profile."""
    stacks, counts = [], []
    for line in p.to_folded(sample_type="samples").splitlines():
        stack, _, n = line.rpartition(" ")
        stacks.append(stack)
        counts.append(int(n))
    return stacks, np.array(counts, dtype=np.int64)


def build(stacks, counts, leaf: str, change: float) -> pprofcore.Profile:
    """Counts as values of one sample type, the leaf's stacks counted (1 + change) times."""
    mult = np.array([1 + change if s.rpartition(";")[2] == leaf else 1.0 for s in stacks])
    values = np.rint(counts * 1000 * mult).astype(np.int64)
    text = "".join(f"{s} {v}\n" for s, v in zip(stacks, values.tolist()) if v)
    return pprofcore.from_folded(text, sample_type="cpu/microseconds")


def pick_leaf(profiles) -> str:
    """The smallest function that is only ever a leaf and holds >= 2%."""
    t = pprofcore.merge(profiles).top(sample_type="samples")
    total = t.meta["total"]
    leaves = [(r["flat"], r["name"]) for r in t.rows() if r["flat"] == r["cum"] and r["flat"] >= 0.02 * total]
    return min(leaves)[1]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--series", type=Path, default=SERIES)
    ap.add_argument("--test", default="mannwhitney", choices=["mannwhitney", "welch"])
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--samples", default="250,500,1000,full")
    ap.add_argument("--profiles", default="5,10,20")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)

    paths = sorted(str(p) for p in args.series.glob("cpu-*.pb.gz"))
    profiles = pprofcore.load_many(paths)
    leaf = pick_leaf(profiles)
    parsed = [folded(p) for p in profiles]
    sizes = [int(c.sum()) for _, c in parsed]
    share = pprofcore.merge(profiles).top(sample_type="samples")
    share = dict((r["name"], r["flat"]) for r in share.rows())[leaf] / sum(sizes)
    print(
        f"{len(profiles)} profiles of one process, {min(sizes)}-{max(sizes)} samples each; leaf {leaf} holds "
        f"{share:.1%}; test={args.test}, {args.trials} trials per cell, seed {args.seed}"
    )
    print()
    rng = np.random.default_rng(args.seed)
    sample_levels = [x for x in args.samples.split(",")]
    group_sizes = [int(x) for x in args.profiles.split(",")]
    rows = []
    false_rows = []
    for level in sample_levels:
        if level == "full":
            thinned = [c for _, c in parsed]
            label = f"all (~{int(np.mean(sizes))})"
        else:
            target = int(level)
            thinned = [rng.binomial(c, min(1.0, target / c.sum())) for _, c in parsed]
            label = level
        cache = {}

        def version(i, change):
            key = (i, change)
            if key not in cache:
                cache[key] = build(parsed[i][0], thinned[i], leaf, change)
            return cache[key]

        cells = []
        for n in group_sizes:
            if 2 * n > len(profiles):
                cells.append("-")
                continue
            splits = [rng.permutation(len(profiles))[: 2 * n] for _ in range(args.trials)]
            # False positives with nothing changed.
            fp = [
                int(
                    np.sum(
                        compare([version(i, 0.0) for i in s[:n]], [version(i, 0.0) for i in s[n:]], test=args.test)[
                            "significant"
                        ]
                    )
                )
                for s in splits
            ]
            false_rows.append((label, n, sum(x <= 1 for x in fp), max(fp)))
            found = "> 150%"
            for change in CHANGES:
                hits = 0
                for s in splits:
                    t = compare([version(i, 0.0) for i in s[:n]], [version(i, change) for i in s[n:]], test=args.test)
                    names = list(t["name"])
                    if leaf in names:
                        r = names.index(leaf)
                        hits += bool(t["significant"][r]) and t["delta"][r] > 0
                if hits >= 9 * args.trials / 10:
                    found = f"+{change:.0%}"
                    break
            cells.append(found)
        rows.append((label, cells))

    print("Smallest change to the leaf found in >= 9 of 10 trials:")
    print()
    print("| samples per profile | " + " | ".join(f"{n} vs {n} profiles" for n in group_sizes) + " |")
    print("| --- | " + " | ".join("---:" for _ in group_sizes) + " |")
    for label, cells in rows:
        print(f"| {label} | " + " | ".join(cells) + " |")
    print()
    print(
        "Random splits, nothing changed (splits with at most one significant function, of "
        f"{args.trials}; most found in one split):"
    )
    print()
    print("| samples per profile | profiles per group | splits with <= 1 | max |")
    print("| --- | ---: | ---: | ---: |")
    for label, n, ok, worst in false_rows:
        print(f"| {label} | {n} | {ok} | {worst} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
