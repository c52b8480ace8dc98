#!/usr/bin/env python3
"""load_many benchmark: parallel decode with N threads vs one thread.

File sets (paths relative to the corpus):

* ``fleet``: ``fleet/cpu/*.pb.gz`` (100 small CPU profiles) repeated to
  ``--count`` paths (default 1000);
* ``big``: the large files of bench_decode.py, each repeated ``--big-copies``
  times (default 2) so that two threads have work to share;
* ``mixed``: both together.

For each set: ``pprofcore.load_many(paths, threads=1)`` vs
``threads=--threads`` (default 2; the target is >= 1.7x on 2 cores), best and
median of ``--reps`` runs, plus a plain Python loop of ``pprofcore.load`` for
reference. The page cache is warmed by a first untimed run. Because the
wall-clock speedup needs two idle cores, the per-thread CPU time of the
parallel run is also sampled, giving an estimate of the speedup on idle cores.

Usage::

    python bench/bench_load_many.py [--corpus DIR] [--threads 2] [--reps 3] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402
from bench_decode import FILES as BIG_FILES  # noqa: E402

TARGET = 1.7


def file_sets(corpus: Path, count: int, big_copies: int) -> dict:
    fleet = sorted(str(p) for p in (corpus / "fleet" / "cpu").glob("*.pb.gz"))
    sets = {}
    if fleet:
        sets["fleet"] = (fleet * (count // len(fleet) + 1))[:count]
    big = [str(corpus / f) for f in BIG_FILES if (corpus / f).exists()]
    if big:
        sets["big"] = big * big_copies
    if fleet and big:
        sets["mixed"] = sets["fleet"] + sets["big"]
    return sets


def bench_set(name: str, paths: list, threads: int, reps: int) -> dict:
    import pprofcore

    sizes = [os.path.getsize(p) for p in paths]
    res = {
        "set": name,
        "n_paths": len(paths),
        "unique_files": len(set(paths)),
        "file_bytes": sum(sizes),
        "loadavg_before": C.loadavg(),
    }
    profiles = pprofcore.load_many(paths, threads=1)  # warms the page cache, counts samples
    res["n_samples"] = sum(len(p) for p in profiles)
    del profiles
    print(f"  {name}: {len(paths)} paths", file=sys.stderr, flush=True)
    t1 = C.timeit(lambda: pprofcore.load_many(paths, threads=1), reps, warmup=False)
    tn = C.timeit(lambda: pprofcore.load_many(paths, threads=threads), reps, warmup=False)
    loop = C.timeit(lambda: [pprofcore.load(p) for p in paths], max(1, reps - 1), warmup=False)
    res["times"] = {"threads_1": t1.as_dict(), f"threads_{threads}": tn.as_dict(), "python_loop": loop.as_dict()}
    res["threads"] = threads
    res["loadavg_after"] = C.loadavg()
    res["speedup_best"] = t1.best / tn.best
    res["speedup_median"] = t1.median / tn.median
    # Total CPU time of the parallel run / one thread's: ~1.0 means the threads
    # add no work (no lock contention, no false sharing), the precondition for a
    # speedup near `threads` on otherwise idle cores.
    res["cpu_ratio"] = min(tn.cpu_times) / min(t1.cpu_times)
    # Contention-independent estimate for idle cores: the parallel run takes
    # about as long as its busiest thread's CPU time. Best of `reps` runs.
    per = [C.per_thread_cpu(lambda: pprofcore.load_many(paths, threads=threads)) for _ in range(reps)]
    per = [p for p in per if p]
    if per:
        busiest = min(p[0] for p in per)
        res["thread_cpu_s"] = min(per, key=lambda p: p[0])
        res["estimated_idle_speedup"] = min(t1.cpu_times) / busiest
    return res


def markdown(results: list, threads: int) -> str:
    lines = [
        f"| file set | paths | MB on disk | samples | threads=1 best ms | threads={threads} best ms | "
        f"Python loop of load() best ms | speedup (best) | speedup (median) | target >= {TARGET}x | CPU time ratio {threads} thr / 1 thr | "  # noqa: E501
        f"estimated speedup on idle cores | load avg |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|",
    ]
    for r in results:
        t = r["times"]
        ok = r["speedup_best"] >= TARGET
        lines.append(
            f"| {r['set']} | {r['n_paths']:,} ({r['unique_files']} unique) | {r['file_bytes'] / 1e6:,.1f} | "
            f"{r['n_samples']:,} | {C.ms(t['threads_1']['best_s'])} | {C.ms(t[f'threads_{threads}']['best_s'])} | "
            f"{C.ms(t['python_loop']['best_s'])} | {r['speedup_best']:.2f}x | {r['speedup_median']:.2f}x | "
            f"{'met' if ok else '**not met**'} | {r['cpu_ratio']:.2f} | "
            f"{('%.2fx' % r['estimated_idle_speedup']) if 'estimated_idle_speedup' in r else 'n/a'} | {r['loadavg_before'][0] if r['loadavg_before'] else ''} |"  # noqa: E501
        )
    lines.append("")
    lines.append(
        "Estimated speedup on idle cores: CPU time of the one-thread run divided by the CPU time of the "
        "busiest thread of the parallel run (per-thread CPU sampled from /proc/self/task/*/schedstat every "
        "millisecond); a model of what the wall-clock speedup would be if no other process competed for "
        "the CPUs, not a measurement of it."
    )
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, default=C.DEFAULT_CORPUS, help="corpus directory (default: %(default)s)")
    ap.add_argument("--threads", type=int, default=2, help="threads of the parallel run (default 2)")
    ap.add_argument("--count", type=int, default=1000, help="paths in the fleet set (default 1000)")
    ap.add_argument("--big-copies", type=int, default=2, help="copies of each big file in the big set")
    ap.add_argument("--sets", nargs="+", default=["fleet", "big", "mixed"], help="which file sets to run")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--json", type=Path, help="write raw results (JSON) here")
    args = ap.parse_args(argv)
    sets = file_sets(args.corpus.resolve(), args.count, args.big_copies)
    if not sets:
        print(f"error: no corpus files found under {args.corpus}", file=sys.stderr)
        return 2
    results = [bench_set(name, sets[name], args.threads, args.reps) for name in args.sets if name in sets]
    report = {"machine": C.machine_info(), "results": results}
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=1))
    print(markdown(results, args.threads))
    return 0


if __name__ == "__main__":
    sys.exit(main())
