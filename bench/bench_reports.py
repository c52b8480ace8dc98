"""Benchmark of the reports (issue 3): load + top on the largest corpus profile
vs `go tool pprof -top` and vs a pure-Python path (protobuf parse + Python loops),
and to_pandas(kind="samples"/"frames") rows per second.

    PYTHONPATH=python python3 bench/bench_reports.py [FILE] [--pprof-runs N] [--python-runs N]

Prints a Markdown table. Wall-clock times, min (and median) over runs; the
machine is shared, so expect noise. Never run from the tests.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "python"))

import pprofcore  # noqa: E402

DEFAULT = (
    Path(os.environ.get("PPROFCORE_CORPUS", REPO.parent / "shared" / "corpus")) / "go/generated/gen-bigheap-500k.pb.gz"
)
PROTO = Path("/usr/share/gocode/src/github.com/google/pprof/proto/profile.proto")


def timed(fn, runs):
    times = []
    out = None
    for _ in range(runs):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), statistics.median(times), out


def pprofcore_top(path, ti=None):
    p = pprofcore.load(path)
    return p.top(sample_type=ti, n=20)


def top_uncached(p, ti=None):
    p._tables.clear()  # drop the cached node table so aggregation runs again
    return p.top(sample_type=ti, n=20)


def go_pprof_top(path):
    env = dict(os.environ, PPROF_TMPDIR=tempfile.gettempdir())
    subprocess.run(
        ["go", "tool", "pprof", "-top", "-nodecount=20", "-symbolize=none", str(path)],
        check=True,
        capture_output=True,
        env=env,
    )


def python_top(path, pb2, ti=None):
    """Pure Python: protobuf parse, then Python loops for flat/cum per function."""
    import gzip

    data = open(path, "rb").read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    prof = pb2.Profile()
    prof.ParseFromString(data)
    strings = prof.string_table
    fname = {f.id: strings[f.name] for f in prof.function}
    loc_funcs = {loc.id: [fname[l.function_id] for l in loc.line] or ["0x%x" % loc.address] for loc in prof.location}
    if ti is None:
        ti = len(prof.sample_type) - 1
    flat, cum = defaultdict(int), defaultdict(int)
    for s in prof.sample:
        v = s.value[ti]
        if not v:
            continue
        seen = set()
        for lid in s.location_id:
            for f in loc_funcs[lid]:
                if f not in seen:
                    seen.add(f)
                    cum[f] += v
        if s.location_id:
            flat[loc_funcs[s.location_id[0]][0]] += v
    rows = sorted(flat.keys() | cum.keys(), key=lambda f: (-abs(flat[f]), f, -abs(cum[f])))
    return [(f, flat[f], cum[f]) for f in rows[:20]]


def load_pb2():
    d = tempfile.mkdtemp(prefix="pprofcore-bench-")
    subprocess.run(["protoc", f"--proto_path={PROTO.parent}", f"--python_out={d}", str(PROTO)], check=True)
    sys.path.insert(0, d)
    import profile_pb2  # type: ignore

    return profile_pb2


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", nargs="?", default=str(DEFAULT))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--pprof-runs", type=int, default=1)
    ap.add_argument("--python-runs", type=int, default=1)
    args = ap.parse_args(argv)
    path = args.file
    p = pprofcore.load(path)
    print(
        f"file: {path} ({os.path.getsize(path):,} bytes, {len(p):,} samples, "
        f"{len(p.stack_locations):,} frames, types {p.sample_types})"
    )

    rows = []
    lmin, lmed, _ = timed(lambda: pprofcore.load(path), args.runs)
    rows.append(("pprofcore load", lmin, lmed, args.runs))
    cmin, cmed, _ = timed(lambda: pprofcore_top(path), args.runs)
    rows.append(("pprofcore load + top (default type)", cmin, cmed, args.runs))
    tmin, tmed, _ = timed(lambda: top_uncached(p), args.runs)
    rows.append(("pprofcore top only (loaded profile, all types aggregated)", tmin, tmed, args.runs))
    amin, amed, _ = timed(lambda: pprofcore_top(path, 1), args.runs)
    rows.append(("pprofcore load + top (type 1)", amin, amed, args.runs))
    gmin = gmed = float("nan")
    if args.pprof_runs > 0:
        gmin, gmed, _ = timed(lambda: go_pprof_top(path), args.pprof_runs)
        rows.append(("go tool pprof -top (default type)", gmin, gmed, args.pprof_runs))
    pb2 = load_pb2()
    same = True
    for ti, label in ((None, "default type"), (1, "type 1")):
        ours = [(r["name"], r["flat"], r["cum"]) for r in pprofcore.load(path).top(sample_type=ti, n=20).rows()]
        pmin_, pmed_, theirs = timed(lambda: python_top(path, pb2, ti), args.python_runs)
        rows.append((f"pure Python protobuf + loops ({label})", pmin_, pmed_, args.python_runs))
        same &= [(a, int(b), int(c)) for a, b, c in ours] == [(a, int(b), int(c)) for a, b, c in theirs]
        if ti is None:
            pmin = pmin_
        else:
            pmin1 = pmin_

    import pandas  # noqa: F401  (import time excluded)

    q = pprofcore.load(path)
    cold_t = time.perf_counter()
    df = q.to_pandas("samples")
    cold = time.perf_counter() - cold_t
    smin, smed, df = timed(lambda: q.to_pandas("samples"), args.runs)
    fmin, fmed, fdf = timed(lambda: q.to_pandas("frames"), max(1, args.runs // 2))

    print()
    print("| step | min s | median s | runs |")
    print("|---|---:|---:|---:|")
    for name, a, b, n in rows:
        print(f"| {name} | {a:.3f} | {b:.3f} | {n} |")
    print()
    print(f"- load + top speed-up vs go tool pprof: {gmin / cmin:.1f}x (min vs min)")
    print(
        f"- load + top speed-up vs pure Python: {pmin / cmin:.1f}x (default type), "
        f"{pmin1 / amin:.1f}x (type 1); same top-20 as pprofcore: {same}"
    )
    print(
        f"- to_pandas(kind='samples'): {len(df):,} rows, first call {cold:.3f} s "
        f"({len(df) / cold / 1e6:.1f} M rows/s), repeated {smin:.3f} s ({len(df) / smin / 1e6:.1f} M rows/s)"
    )
    print(f"- to_pandas(kind='frames'): {len(fdf):,} rows in {fmin:.3f} s ({len(fdf) / fmin / 1e6:.1f} M rows/s)")


if __name__ == "__main__":
    main()
