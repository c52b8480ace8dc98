"""Benchmark: the CPU time of two pprofcore builds on the fleet workloads.

On a loaded machine wall-clock times mostly measure the other jobs; the CPU
time a call spends is far steadier. For each workload this runs the builds in
alternating fresh processes (the order flips every round); each process
does one warm-up call and then keeps the least CPU time of ``--reps`` calls.
Reported: the median of each build's minima and the median of the
same-round ratios old / new (above 1: the new build does less work).

Workloads (the files of bench_merge.synthetic_fleet and fleet/heapseries):

- ``merge``: ``pprofcore.merge`` of the 1,000 decoded files (the calling
  thread's CPU time: the merge alone, which runs on one thread);
- ``merge_files``: ``merge_files(paths).to_bytes(level="fast")`` (the
  process's CPU time, all threads: decode, merge and encode);
- ``delta``: ``delta_bytes`` over the 50 uncompressed heap profiles, 10 times
  (the calling thread's CPU time);
- ``series``: ``ProfileSet(paths).series()`` (the process's CPU time);
- ``series_zone``: ``ProfileSet(paths).series(by="label:zone")``, the same
  files by their ``zone`` label (the process's CPU time).

    python3 bench/bench_builds_cpu.py --old OLD/python --new python [--rounds 6] [--reps 5]

Never run from tests; timings are not asserted anywhere.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))

from bench_merge import CORPUS, synthetic_fleet  # noqa: E402

CHILD = r"""
import gzip, sys, time
sys.path.insert(0, sys.argv[1])
import pprofcore
workload, reps, paths = sys.argv[2], int(sys.argv[3]), sys.argv[4:]
clock = time.thread_time
if workload == "merge":
    profiles = pprofcore.load_many(paths)
    work = lambda: pprofcore.merge(profiles)
elif workload == "merge_files":
    clock = time.process_time
    work = lambda: pprofcore.merge_files(paths).to_bytes(level="fast")
elif workload == "delta":
    raw = [gzip.decompress(open(p, "rb").read()) for p in paths] * 10
    def work():
        dc = pprofcore.DeltaComputer(["alloc_objects", "alloc_space"])
        for b in raw:
            dc.delta_bytes(b, compress=False)
else:
    import pandas  # noqa: F401  (imported before the clock, like the series peers)
    clock = time.process_time
    by = "label:zone" if workload == "series_zone" else "functions"
    work = lambda: pprofcore.ProfileSet(paths).series(by=by)
work()
best = float("inf")
for _ in range(reps):
    t = clock()
    work()
    best = min(best, clock() - t)
print(best)
"""


def child_cpu(build: str, workload: str, reps: int, paths: list) -> float:
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")  # numpy's idle BLAS threads would spin on our CPU time
    out = subprocess.run(
        [sys.executable, "-c", CHILD, build, workload, str(reps), *paths],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return float(out.stdout.split()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", required=True, help="PYTHONPATH holding the old build's pprofcore")
    ap.add_argument("--new", default=str(REPO / "python"), help="PYTHONPATH holding the new build's pprofcore")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--only", default="merge,merge_files,delta,series", help="comma-separated workloads")
    args = ap.parse_args(argv)

    fleet = synthetic_fleet(Path(tempfile.gettempdir()) / "pprofcore-bench-fleet")
    heap = sorted(str(p) for p in (CORPUS / "fleet" / "heapseries").glob("*.pb.gz"))
    inputs = {"merge": fleet, "merge_files": fleet, "delta": heap, "series": fleet, "series_zone": fleet}
    for workload in args.only.split(","):
        builds = [("old", args.old), ("new", args.new)]
        cpu: dict = {"old": [], "new": []}
        loads = []
        for r in range(args.rounds):
            loads.append(os.getloadavg()[0])
            for name, path in builds if r % 2 == 0 else builds[::-1]:
                cpu[name].append(child_cpu(path, workload, args.reps, inputs[workload]))
        ratios = [o / n for o, n in zip(cpu["old"], cpu["new"])]
        print(
            f"{workload:12s} old {statistics.median(cpu['old']) * 1e3:7.1f} ms  "
            f"new {statistics.median(cpu['new']) * 1e3:7.1f} ms  "
            f"old/new {statistics.median(ratios):.2f}x  [{' '.join(f'{x:.2f}' for x in ratios)}]  "
            f"load {min(loads):.1f}-{max(loads):.1f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
