"""Benchmark: fleet series by label. ``ProfileSet.series(by="label:KEY")``
over 1,000 files against google/pprof (Parse + sums per label value in Go,
tools/goref/labelseries), in the same run.

Two fleets: the generated web-shop fleet (``pprofcore.fleet.example_fleet``,
1,000 CPU profiles with ``endpoint``, ``version`` and a numeric ``payload``
label; built once under the temp directory, runs anywhere), and, when the
corpus is there, bench_merge's synthetic fleet (fleet/cpu rewritten 10 times
with a ``zone`` label). Each measurement runs in a fresh subprocess; times are
the children's own timers, best of ``--repeat``, and so is the CPU time each
spent on the work (Go's garbage collector included), the steadier figure on
a machine shared with others' builds.

    PYTHONPATH=python python3 bench/bench_fleet_labels.py [--repeat 3]

Never run from tests; timings are not asserted anywhere.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(REPO / "tests" / "helpers"))

from bench_fleet import PANDAS_PRELUDE  # noqa: E402
from bench_merge import CHILD_PRELUDE, CORPUS, synthetic_fleet  # noqa: E402

OURS = (
    CHILD_PRELUDE
    + PANDAS_PRELUDE
    + """
cpu = lambda: sum(resource.getrusage(resource.RUSAGE_SELF)[:2])
by, paths = sys.argv[1].split(","), sys.argv[2:]
t, c = time.perf_counter(), cpu()
rows = sum(len(pprofcore.ProfileSet(paths).series(by="label:" + k)) for k in by)
elapsed = time.perf_counter() - t
print(rows, file=sys.stderr)
print("cpu", cpu() - c)
print(elapsed)
"""
)


def timed(cmd, repeat, env=None):
    """Best (elapsed, CPU) seconds over ``repeat`` runs of a child that prints
    ``cpu S`` and then its elapsed seconds on stdout."""
    runs = []
    for _ in range(repeat):
        out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True).stdout.split()
        runs.append((float(out[-1]), float(out[out.index("cpu") + 1])))
    return min(r[0] for r in runs), min(r[1] for r in runs)


def shop_fleet(n: int = 1000) -> list:
    """The generated fleet, written once (same seed: same files)."""
    from pprofcore.fleet import example_fleet

    dest = Path(tempfile.gettempdir()) / f"pprofcore-bench-shop-{n}"
    paths = sorted(str(p) for p in dest.glob("shop-*.pb.gz"))
    if len(paths) != n:
        paths = example_fleet(dest, n)
    return paths


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)

    from testenv import go_helper

    go = go_helper("labelseries")
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    py = sys.executable
    fleets = [("shop fleet", shop_fleet(), ["endpoint", "payload"])]
    if (CORPUS / "fleet" / "cpu").is_dir():
        synth = synthetic_fleet(Path(tempfile.gettempdir()) / "pprofcore-bench-fleet")
        fleets.append(("fleet/cpu x10 (zone label)", synth, ["zone"]))
    print(f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f} (shared machine)")
    for name, paths, keys in fleets:
        for k in keys:
            ours = timed([py, "-c", OURS, k, *paths], args.repeat, env)
            theirs = timed([go, "-t", "-k", k, *paths], args.repeat)
            print(
                f"{name}, {len(paths)} files, label {k}: pprofcore {ours[0] * 1e3:.0f} ms | "
                f"google/pprof {theirs[0] * 1e3:.0f} ms | {theirs[0] / ours[0]:.1f}x; CPU "
                f"{ours[1] * 1e3:.0f} ms | {theirs[1] * 1e3:.0f} ms | {theirs[1] / ours[1]:.1f}x"
            )
    print(f"load at the end {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
