"""Benchmark: pprofcore.dask on a LocalCluster (2 worker processes, 1 thread
each) against local ``merge_files`` / ``ProfileSet.series`` with 2 threads
and against google/pprof, in the same run, on a synthetic fleet.

The fleet is fleet/cpu rewritten ``ceil(N / 100)`` times (a ``zone`` label
from 20 values, scaled values: every file distinct), generated once into the
temp directory. Local and Go measurements run in fresh subprocesses (their
own timer, peak RSS from wait4); the Dask ones run in this process against a
cluster started before the timer. Reported for Dask: wall time, scheduler
overhead per task ((wall x worker threads - time tasks spent computing) /
tasks: scheduling, transfers, (de)serialization and idle gaps), and the peak
RSS of each worker process (VmHWM, start-up included).

    python3 bench/bench_dask.py [--files 10000] [--repeat 3]

google/pprof: tools/goref/mergeref (Parse + profile.Merge + Write, one
thread) and tools/goref/fleetseries (Parse + flat sums per function).
Never run from tests; timings are not asserted anywhere.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent / "tests" / "helpers"))

import _common  # noqa: E402  (puts this checkout's python/ first unless PPROFCORE_BENCH_INSTALLED=1)
from bench_merge import CHILD_PRELUDE, best  # noqa: E402

LOCAL_MERGE = (
    CHILD_PRELUDE
    + """
paths = open(sys.argv[1]).read().split("\\n")
t = time.perf_counter()
pprofcore.merge_files(paths, threads=2)
print(time.perf_counter() - t)
"""
)

LOCAL_SERIES = (
    CHILD_PRELUDE
    + """
import pandas
paths = open(sys.argv[1]).read().split("\\n")
t = time.perf_counter()
df = pprofcore.ProfileSet(paths, threads=2).series()
print(len(df), file=sys.stderr)
print(time.perf_counter() - t)
"""
)


def synthetic_fleet(n: int) -> list:
    """``n`` distinct files: fleet/cpu rewritten with a zone label and scaled values."""
    import pprofcore

    src = sorted((_common.DEFAULT_CORPUS / "fleet" / "cpu").glob("*.pb.gz"))
    if not src:
        raise SystemExit(f"no fleet/cpu corpus under {_common.DEFAULT_CORPUS} (set PPROFCORE_CORPUS)")
    dest = Path(tempfile.gettempdir()) / "pprofcore-bench-dask"
    dest.mkdir(parents=True, exist_ok=True)
    out = []
    for v in range(math.ceil(n / len(src))):
        for i, f in enumerate(src):
            if len(out) == n:
                break
            path = dest / f"v{v:03d}-{i:03d}.pb.gz"
            out.append(str(path))
            if not path.exists():
                pprofcore.load(f).set_label("zone", f"zone-{(v * 7 + i) % 20}").scale(1 + v / 100).save(path)
    return out


def worker_peaks(client) -> list:
    """Peak RSS (MiB) of each worker process so far."""

    def vmhwm():
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
        return float("nan")

    return sorted(client.run(vmhwm).values())


def _cpu() -> float:
    import resource

    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def timed_dask(client, fn, repeat: int):
    """(best wall seconds, tasks, scheduler overhead per task in ms, workers' CPU
    seconds) of ``fn()``, after one untimed run (the workers import pprofcore
    and pandas on first use). CPU: all worker processes plus this client."""
    from distributed import get_task_stream

    fn()
    runs = []
    for _ in range(repeat):
        c0, me = client.run(_cpu), _cpu()
        with get_task_stream(client) as ts:
            t = time.perf_counter()
            fn()
            wall = time.perf_counter() - t
        c1 = client.run(_cpu)
        cpu = sum(c1[k] - c0[k] for k in c0) + _cpu() - me
        busy = sum(s["stop"] - s["start"] for d in ts.data for s in d["startstops"] if s["action"] == "compute")
        threads = sum(client.nthreads().values())
        tasks = len(ts.data)
        runs.append((wall, tasks, (wall * threads - busy) / max(tasks, 1) * 1e3, cpu))
    return min(runs, key=lambda r: r[0]), statistics.median(r[2] for r in runs), min(r[3] for r in runs)


def noop_overhead(client, n: int = 2000) -> float:
    """The scheduler's own cost per task (ms): ``n`` independent no-op tasks."""
    import dask

    tasks = [dask.delayed(abs, pure=True)(-i, dask_key_name=f"noop-{i}") for i in range(n)]
    client.compute(tasks[:10], sync=True)
    t = time.perf_counter()
    client.compute(tasks, sync=True)
    return (time.perf_counter() - t) / n * 1e3


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-go", action="store_true", help="skip google/pprof")
    args = ap.parse_args(argv)

    import distributed

    from pprofcore import dask as pdask

    t = time.perf_counter()
    paths = synthetic_fleet(args.files)
    print(
        f"{len(paths)} files ({sum(os.path.getsize(p) for p in paths) / 2**20:.0f} MiB gzip), "
        f"ready in {time.perf_counter() - t:.0f} s; {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}"
    )
    env = _common.child_env()
    py = sys.executable
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        listing = os.path.join(tmp, "paths.txt")
        Path(listing).write_text("\n".join(paths))
        local_merge = best([py, "-c", LOCAL_MERGE, listing], args.repeat, env)
        local_series = best([py, "-c", LOCAL_SERIES, listing], args.repeat, env)
        go_merge = go_series = None
        if not args.no_go:
            from testenv import go_helper

            go_merge = best([go_helper("mergeref"), "-n", "-t", "merge", os.path.join(tmp, "m.pb.gz"), *paths], 1)
            go_series = best([go_helper("fleetseries"), "-t", *paths], 1)

        noop: list = []

        def on_cluster(fn):
            """Run ``fn`` on a fresh LocalCluster: timings and each worker's own peak RSS."""
            with (
                distributed.LocalCluster(
                    n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=40
                ) as cluster,
                distributed.Client(cluster) as client,
            ):
                start = worker_peaks(client)
                timing = timed_dask(client, lambda: fn(client), args.repeat)
                peaks = worker_peaks(client)
                noop.append(noop_overhead(client))
                return timing, start, peaks

        ((dm, dm_tasks, _, _), dm_over, dm_cpu), base, merge_peaks = on_cluster(lambda c: pdask.merge(paths, client=c))
        ((ds, ds_tasks, _, _), ds_over, ds_cpu), _, series_peaks = on_cluster(
            lambda c: pdask.series(paths, client=c).compute()
        )
        load = os.getloadavg()
    rows.append(("merge", local_merge, go_merge, dm, dm_cpu, dm_tasks, dm_over, merge_peaks))
    rows.append(("series", local_series, go_series, ds, ds_cpu, ds_tasks, ds_over, series_peaks))
    print(
        f"Dask workers at start: {', '.join(f'{x:.0f}' for x in base)} MiB; load average after the run "
        f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (1 / 5 / 15 min); best of {args.repeat} "
        f"(google/pprof: one run). CPU: user+sys of the local process (interpreter start-up included), "
        f"of both Dask workers plus the client. The scheduler's own cost per task (2,000 no-op tasks on "
        f"the same cluster): {min(noop):.2f} ms; 'idle per task' below is (wall x 2 worker threads - time "
        f"in tasks) / tasks: scheduling, transfers, (de)serialization, and waiting for the tree's last "
        f"merges\n"
    )
    print(
        "| workload | LocalCluster 2 workers | local, 2 threads | dask / local | google/pprof | CPU dask / local "
        "| tasks | idle per task | peak RSS per worker | local peak RSS |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, (lt, lrss, lcpu), go, dt, dcpu, tasks, over, peaks in rows:
        gotext = f"{go[0]:.1f} s" if go else "-"
        print(
            f"| {name} {len(paths):,} files | {dt:.2f} s | {lt:.2f} s | {dt / lt:.2f}x | {gotext} "
            f"| {dcpu:.1f} s / {lcpu:.1f} s = {dcpu / lcpu:.2f}x | {tasks} | {over:.1f} ms "
            f"| {' / '.join(f'{x:.0f}' for x in peaks)} MiB | {lrss:.0f} MiB |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
