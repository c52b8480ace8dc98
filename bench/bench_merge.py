"""Benchmark: merge and delta, pprofcore vs google/pprof, in the same run.

Each measurement runs in a fresh subprocess (so peak RSS is its own, read from
os.wait4's rusage) and times its own work (decode + merge + encode for merge;
decode + delta + encode per profile for delta). The Go side is
tools/goref/mergeref built against Debian's google/pprof `profile` package:
`merge` = Parse each file + profile.Merge + Write; `delta` = the pprof way
(Parse + ScaleN(-1 on alloc_*, 0 otherwise) of the previous + Merge + Write).

Workloads: fleet/cpu (100 files), a 1,000-file synthetic fleet (fleet/cpu
rewritten 10 times with a `zone` label from 20 values and scaled values), and
delta over fleet/heapseries (50 files, run 10 times
over: 500 deltas).

    PYTHONPATH=python python3 bench/bench_merge.py [--repeat 3] [--markdown]

Never run from tests; timings are not asserted anywhere.
"""

from __future__ import annotations

import argparse
import glob
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if os.environ.get("PPROFCORE_BENCH_INSTALLED") != "1":  # else the installed pprofcore (or $PYTHONPATH's)
    sys.path.insert(0, str(REPO / "python"))
sys.path.insert(0, str(REPO / "tests" / "helpers"))
# $PPROFCORE_CORPUS, else ../shared/corpus beside the repository.
CORPUS = Path(os.environ.get("PPROFCORE_CORPUS", Path(__file__).resolve().parents[2] / "shared" / "corpus"))

OURS_MERGE = """
import sys, time, pprofcore
paths = sys.argv[1:]
t = time.perf_counter()
data = pprofcore.merge_files(paths).to_bytes()
print(time.perf_counter() - t)
"""

OURS_DELTA = """
import sys, time, pprofcore
paths = sys.argv[1:]
t = time.perf_counter()
dc = pprofcore.DeltaComputer(["alloc_objects", "alloc_space"])
for p in paths:
    with open(p, "rb") as f:
        out = dc.delta_bytes(f.read())
print(time.perf_counter() - t)
"""

BASELINE = "import pprofcore; print(0.0)"


# The first lines of every timed child script: the package's names load before
# the timer, as `import pprofcore` did before it loaded them on first use.
CHILD_PRELUDE = """
import resource, sys, time, pprofcore
for _name in pprofcore.__all__: getattr(pprofcore, _name)
"""


def run(cmd, env=None):
    """(seconds reported by the child, peak RSS in MiB, process CPU seconds)."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    out, err = proc.stdout.read().decode(), proc.stderr.read().decode()
    proc.stdout.close()
    proc.stderr.close()
    if status != 0:
        raise RuntimeError(f"{cmd[:3]} failed: {err}")
    text = out if out.strip() else err
    seconds = float([l for l in text.splitlines() if l.strip()][-1].split()[-1])
    return seconds, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


def best(cmd, repeat, env=None):
    runs = [run(cmd, env) for _ in range(repeat)]
    return min(r[0] for r in runs), max(r[1] for r in runs), min(r[2] for r in runs)


def synthetic_fleet(dest: Path, n_variants: int = 10) -> list:
    """fleet/cpu rewritten ``n_variants`` times: a ``zone`` label from 20
    values, values scaled, times shifted by a minute per variant."""
    import pprofcore

    files = sorted((CORPUS / "fleet" / "cpu").glob("*.pb.gz"))
    if not files:
        raise SystemExit(f"no fleet/cpu corpus under {CORPUS}")
    out = []
    dest.mkdir(parents=True, exist_ok=True)
    for v in range(n_variants):
        for i, f in enumerate(files):
            path = dest / f"v{v:02d}-{i:03d}.pb.gz"
            out.append(str(path))
            if not path.exists():
                p = pprofcore.load(f).set_label("zone", f"zone-{(v * 7 + i) % 20}").scale(1 + v / 10)
                p.save(path)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args(argv)

    from testenv import go_helper

    go = go_helper("mergeref")
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    py = sys.executable
    cpu = sorted(glob.glob(str(CORPUS / "fleet" / "cpu" / "*.pb.gz")))
    heap = sorted(glob.glob(str(CORPUS / "fleet" / "heapseries" / "*.pb.gz")))
    synth = synthetic_fleet(Path(tempfile.gettempdir()) / "pprofcore-bench-fleet")
    _, base_rss, base_cpu = best([py, "-c", BASELINE], 3, env)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, files in [("merge fleet/cpu (100 files)", cpu), ("merge synthetic fleet (1,000 files)", synth)]:
            ours = best([py, "-c", OURS_MERGE, *files], args.repeat, env)
            theirs = best([go, "-n", "-t", "merge", os.path.join(tmp, "m.pb.gz"), *files], args.repeat)
            rows.append((name, ours, theirs))
        series = heap * 10  # the series 10 times over: 500 deltas, enough work to time
        ours = best([py, "-c", OURS_DELTA, *series], args.repeat, env)
        theirs = best([go, "-n", "-t", "delta", tmp, "alloc_objects,alloc_space", *series], args.repeat)
        rows.append(("delta fleet/heapseries (50 files x 10 = 500 deltas)", ours, theirs))

    ncpu = os.cpu_count()
    load = os.getloadavg()[0]
    if args.markdown:
        print(
            f"Machine: {ncpu} cores, shared (load average {load:.1f} during the run); best of {args.repeat}. "
            f"Wall = the work's own timer (decode + merge/delta + encode); CPU = user+sys of the whole "
            f"process (pprofcore: minus the {base_cpu * 1e3:.0f} ms of a bare `import pprofcore`); peak RSS of "
            f"the whole process (a bare `import pprofcore` process is {base_rss:.0f} MiB).\n"
        )
        print(
            "| workload | pprofcore wall | google/pprof wall | wall speed-up | pprofcore CPU | google/pprof CPU "
            "| CPU ratio | pprofcore peak RSS | google/pprof peak RSS |"
        )
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for name, (ot, orss, ocpu), (gt, grss, gcpu) in rows:
            ocpu = max(ocpu - base_cpu, 1e-3)
            print(
                f"| {name} | {ot * 1e3:.0f} ms | {gt * 1e3:.0f} ms | {gt / ot:.1f}x | {ocpu * 1e3:.0f} ms "
                f"| {gcpu * 1e3:.0f} ms | {gcpu / ocpu:.1f}x | {orss:.0f} MiB ({orss - base_rss:+.0f} over import) "
                f"| {grss:.0f} MiB |"
            )
    else:
        for name, (ot, orss, ocpu), (gt, grss, gcpu) in rows:
            ocpu = max(ocpu - base_cpu, 1e-3)
            print(
                f"{name:38s} ours {ot * 1e3:7.0f} ms (cpu {ocpu * 1e3:6.0f}) {orss:5.0f} MiB | "
                f"pprof {gt * 1e3:7.0f} ms (cpu {gcpu * 1e3:6.0f}) {grss:5.0f} MiB | {gt / ot:5.1f}x"
            )
        print(f"(bare `import pprofcore` process: {base_rss:.0f} MiB, {base_cpu * 1e3:.0f} ms CPU; load {load:.1f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
