"""Benchmark: fleets. ``ProfileSet.series`` over a 1,000-file synthetic fleet
against google/pprof (Parse + flat sums per function in Go,
tools/goref/fleetseries), in the same run; peak RSS of series as the fleet
grows; ingest into the Parquet store and a SQL aggregation by function.

The synthetic fleet is fleet/cpu rewritten 10 times (a ``zone`` label, scaled
values; bench_merge.synthetic_fleet), cached under the temp directory. Each
measurement runs in a fresh subprocess: its own timer, peak RSS from wait4.

    PYTHONPATH=python python3 bench/bench_fleet.py [--repeat 3] [--ingest 10000]

Never run from tests; timings are not asserted anywhere.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(REPO / "tests" / "helpers"))

from bench_merge import CHILD_PRELUDE, best, run, synthetic_fleet  # noqa: E402

# pandas, imported before the timer as Go's runtime starts before its timer,
# and pandas' one-time set-up of its Arrow-backed strings (12-60 ms at the
# first string column a process builds: it imports pyarrow's pandas
# compatibility modules), which is start-up too, not work on the files.
PANDAS_PRELUDE = """
import pandas
pandas.Categorical.from_codes([0], categories=["x"])
"""

# what every pprofcore child imports before its timer; subtracted from its CPU time
BASELINE = "import pprofcore" + PANDAS_PRELUDE + "print(0.0)"

OURS_SERIES = (
    CHILD_PRELUDE
    + PANDAS_PRELUDE
    + """
paths = sys.argv[1:]
t = time.perf_counter()
df = pprofcore.ProfileSet(paths).series()
print(len(df), file=sys.stderr)
print(time.perf_counter() - t)
"""
)

OURS_INGEST = (
    CHILD_PRELUDE
    + """
import duckdb, pandas, pyarrow.parquet
out, paths = sys.argv[1], sys.argv[2:]
t = time.perf_counter()
pprofcore.ProfileSet(paths).to_parquet(out)
print(time.perf_counter() - t)
"""
)

OURS_REBUILD = (
    CHILD_PRELUDE
    + """
store = pprofcore.open_store(sys.argv[1])
t = time.perf_counter()
merged = store.profile("profile_id < 1000")
print(len(merged), file=sys.stderr)
print(time.perf_counter() - t)
"""
)

OURS_SQL = (
    CHILD_PRELUDE
    + """
store = pprofcore.open_store(sys.argv[1])
t = time.perf_counter()
df = store.sql('''
    select f.name, sum(s.values[2]) as cpu
    from samples s join stacks k using (stack_id)
    join locations l on l.location_id = k.location_ids[1]
    join functions f on f.function_id = l.function_ids[1]
    group by f.name order by cpu desc''')
print(len(df), file=sys.stderr)
print(time.perf_counter() - t)
"""
)


def fleet_of(n: int, synth: list) -> list:
    """``n`` paths cycling over the synthetic fleet (series reads each in turn)."""
    return [synth[i % len(synth)] for i in range(n)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--ingest", type=int, default=10_000, help="files to ingest into the store (0: skip)")
    args = ap.parse_args(argv)

    from testenv import go_helper

    go = go_helper("fleetseries")
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    py = sys.executable
    synth = synthetic_fleet(Path(tempfile.gettempdir()) / "pprofcore-bench-fleet-series")
    _, base_rss, base_cpu = best([py, "-c", BASELINE], 3, env)
    print(
        f"bare `import pprofcore, pandas` process: {base_rss:.0f} MiB, {base_cpu * 1e3:.0f} ms CPU; "
        f"{os.cpu_count()} cores, "
        f"load {os.getloadavg()[0]:.1f}"
    )

    ours = best([py, "-c", OURS_SERIES, *synth], args.repeat, env)
    theirs = best([go, "-t", *synth], args.repeat)
    ocpu = max(ours[2] - base_cpu, 1e-3)
    print(
        f"series, {len(synth)} files: pprofcore {ours[0] * 1e3:.0f} ms (CPU {ocpu * 1e3:.0f} ms), "
        f"{ours[1]:.0f} MiB | google/pprof {theirs[0] * 1e3:.0f} ms (CPU {theirs[2] * 1e3:.0f} ms), "
        f"{theirs[1]:.0f} MiB | wall {theirs[0] / ours[0]:.1f}x, CPU {theirs[2] / ocpu:.1f}x"
    )
    for n in (1_000, 4_000):
        t, rss, _ = run([py, "-c", OURS_SERIES, *fleet_of(n, synth)], env)
        print(f"series peak RSS, {n} files: {rss:.0f} MiB ({t:.1f} s)")

    if args.ingest:
        store = Path(tempfile.mkdtemp(prefix="pprofcore-bench-store-"))
        try:
            files = fleet_of(args.ingest, synth)
            t, rss, _ = run([py, "-c", OURS_INGEST, str(store), *files], env)
            size = sum(f.stat().st_size for f in store.rglob("*.parquet"))
            print(f"ingest {len(files)} files: {t:.1f} s, peak {rss:.0f} MiB, store {size / 2**20:.1f} MiB")
            t, rss, _ = best([py, "-c", OURS_SQL, str(store)], args.repeat, env)
            print(f"sql aggregation by function over {len(files)} profiles: {t * 1e3:.0f} ms, peak {rss:.0f} MiB")
            t, rss, _ = best([py, "-c", OURS_REBUILD, str(store)], args.repeat, env)
            print(f"store.profile() of 1,000 profiles rebuilt from the tables: {t * 1e3:.0f} ms, peak {rss:.0f} MiB")
        finally:
            shutil.rmtree(store, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
