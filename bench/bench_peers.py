"""Benchmark: pprofcore against its peers in interleaved A/B rounds.

Every round runs each contender of each workload once, in a fresh subprocess
(wall time from the work's own timer, CPU time of the whole process minus, for
pprofcore, that of a bare import measured in the same round; peak RSS),
one right after the other, so the contenders of a round share the machine's
load; the ratio peer / pprofcore is taken *within* the round and the median of
those same-round ratios is reported (with the medians of the raw times, peak
RSS and the load average of each round).

Workloads (the files are built once and cached under the temp directory):

- ``merge-synth``: merge 1,000 files (fleet/cpu rewritten 10 times with a
  ``zone`` label, bench_merge.synthetic_fleet): decode + merge + gzip encode,
  pprofcore's output at ``level="fast"`` (the fastest deflate of the build)
  and at the default level 6 (what google/pprof's Write uses).
- ``merge-parca``: merge 1,000 files cycling over the 237 files of
  go/parca-many-samples (heavy overlap between files: few distinct samples).
- ``delta-heap``: 500 deltas over fleet/heapseries (50 files, 10 times):
  decode + delta + encode per profile (``delta_bytes``, at the same levels).
- ``delta-heap-raw``: the same on the uncompressed files, uncompressed out
  (the delta work alone, without inflate and deflate).
- ``delta-bigheap`` / ``delta-bigheap-raw``: 10 deltas of a cumulative series
  made from go/generated/gen-bigheap-150k (150,000 samples; step i has the
  allocation values times i + 1, so every sample changes at every step).
- ``series``: ``ProfileSet(paths).series()`` over the 1,000-file synthetic
  fleet against Parse + flat sums per function (tools/goref/fleetseries).

Peers:

- Debian's google/pprof (always; ``tools/goref/mergeref`` and ``fleetseries``,
  built in GOPATH mode against golang-github-google-pprof-dev).
- Upstream google/pprof: ``--pprof-upstream DIR`` or
  ``$PPROFCORE_BENCH_PPROF_UPSTREAM``: a directory holding ``mergeref`` and/or
  ``fleetseries`` built from ``tools/goref`` against a checkout of upstream
  google/pprof (same command lines as the Debian ones).
- Datadog's fastdelta: ``--fastdelta BIN`` or ``$PPROFCORE_BENCH_FASTDELTA``:
  a program taking ``-n -t delta OUTDIR TYPES FILE...`` like mergeref's delta
  mode, computing each delta with fastdelta and printing ``elapsed SECONDS``
  on stderr; gzip input is inflated first and the output deflated at its
  fastest level, uncompressed input gives uncompressed output.

- An older pprofcore build: ``--baseline DIR`` or ``$PPROFCORE_BENCH_BASELINE``
  (a directory to put on ``PYTHONPATH`` that holds its ``pprofcore`` package),
  run at the default gzip level: before/after ratios from the same rounds.

A peer that is not given is skipped with a note. No peer code is part of this
repository. Never run from tests; timings are not asserted anywhere.

    PYTHONPATH=python python3 bench/bench_peers.py [--rounds 5] [--only merge-synth,delta-heap] [--json out.json]

pprofcore is this checkout's ``python/`` (build it with tools/dev-build.sh);
with ``PPROFCORE_BENCH_INSTALLED=1`` the installed one (or ``$PYTHONPATH``'s),
e.g. to measure an older build with the same harness (``--levels default``
for builds without ``level="fast"``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(REPO / "tests" / "helpers"))

from bench_fleet import OURS_SERIES  # noqa: E402
from bench_merge import CHILD_PRELUDE, CORPUS, run, synthetic_fleet  # noqa: E402

OURS_MERGE = (
    CHILD_PRELUDE
    + """
level, paths = sys.argv[1], sys.argv[2:]
t = time.perf_counter()
data = pprofcore.merge_files(paths).to_bytes(level=None if level == "default" else level)
print(len(data), file=sys.stderr)
print(time.perf_counter() - t)
"""
)

OURS_DELTA = (
    CHILD_PRELUDE
    + """
level, paths = sys.argv[1], sys.argv[2:]
compress = level != "raw"  # raw: uncompressed in and out
level = None if level in ("default", "raw") else level
t = time.perf_counter()
dc = pprofcore.DeltaComputer(["alloc_objects", "alloc_space"])
for p in paths:
    with open(p, "rb") as f:
        out = dc.delta_bytes(f.read(), compress=compress, level=level)
print(time.perf_counter() - t)
"""
)


def _parca_fleet(n: int = 1000) -> list:
    files = sorted((CORPUS / "go" / "parca-many-samples").glob("*"))
    return [str(files[i % len(files)]) for i in range(n)] if files else []


def _uncompressed(paths: list, dest: Path) -> list:
    """The files inflated into `dest` (cached), in the same order."""
    import gzip

    dest.mkdir(parents=True, exist_ok=True)
    out = []
    for p in paths:
        raw = dest / (Path(p).name.removesuffix(".gz"))
        if not raw.exists():
            raw.write_bytes(gzip.decompress(Path(p).read_bytes()))
        out.append(str(raw))
    return out


def big_heap_series(dest: Path, steps: int = 10) -> list:
    """A cumulative heap series from gen-bigheap-150k: step i scales the
    allocation types by i + 1 (in-use types kept), so each delta is the
    original allocations. Empty when the shared corpus is absent."""
    import pprofcore

    src = CORPUS / "go" / "generated" / "gen-bigheap-150k.raw.pb"
    if not src.exists():
        return []
    dest.mkdir(parents=True, exist_ok=True)
    out = [str(dest / f"bigheap-{i:02d}.pb.gz") for i in range(steps)]
    if all(Path(p).exists() for p in out):
        return out
    p = pprofcore.load(src)
    alloc = [t.startswith("alloc_") for t, _ in p.sample_types]
    for i, path in enumerate(out):
        p.scale_n([i + 1 if a else 1 for a in alloc]).save(path)
    return out


def _delta_contenders(files: list, args, env, base_env, merge_peers, fastdelta, tmp: str, raw: bool) -> list:
    py = sys.executable
    levels = ["raw"] if raw else args.levels.split(",")
    out = [(f"pprofcore level={level}", [py, "-c", OURS_DELTA, level, *files], env) for level in levels]
    if base_env:
        name = "pprofcore baseline" + ("" if raw else " level=default")
        out.append((name, [py, "-c", OURS_DELTA, "raw" if raw else "default", *files], base_env))
    if not raw:  # pprof's Write always gzips: no raw peer
        out += [
            (peer, [exe, "-n", "-t", "delta", tmp, "alloc_objects,alloc_space", *files], None)
            for peer, exe in merge_peers
        ]
    if fastdelta:
        out.append(("fastdelta", [fastdelta, "-n", "-t", "delta", tmp, "alloc_objects,alloc_space", *files], None))
    return out


def contenders(args, tmp: str) -> dict:
    """{workload: [(name, argv, env)]}; the first of each list is pprofcore."""
    from testenv import go_helper

    py = sys.executable
    env = dict(os.environ)
    if not os.environ.get("PPROFCORE_BENCH_INSTALLED"):  # else: the installed pprofcore (or $PYTHONPATH's)
        env["PYTHONPATH"] = str(REPO / "python") + os.pathsep + os.environ.get("PYTHONPATH", "")
    synth = synthetic_fleet(Path(tempfile.gettempdir()) / "pprofcore-bench-fleet")
    heap = sorted(str(p) for p in (CORPUS / "fleet" / "heapseries").glob("*.pb.gz")) * 10
    parca = _parca_fleet()
    upstream = args.pprof_upstream or os.environ.get("PPROFCORE_BENCH_PPROF_UPSTREAM")
    fastdelta = args.fastdelta or os.environ.get("PPROFCORE_BENCH_FASTDELTA")
    merge_peers = [("pprof Debian", go_helper("mergeref"))]
    series_peers = [("pprof Debian", go_helper("fleetseries"))]
    if upstream:
        for peers, name in ((merge_peers, "mergeref"), (series_peers, "fleetseries")):
            path = Path(upstream) / name
            if path.exists():
                peers.append(("pprof upstream", str(path)))
            else:
                print(f"note: no {path}; upstream pprof skipped for {name}", file=sys.stderr)
    else:
        print(
            "note: upstream pprof not given (--pprof-upstream / PPROFCORE_BENCH_PPROF_UPSTREAM); skipped",
            file=sys.stderr,
        )
    if not fastdelta:
        print("note: fastdelta not given (--fastdelta / PPROFCORE_BENCH_FASTDELTA); skipped", file=sys.stderr)
    baseline = args.baseline or os.environ.get("PPROFCORE_BENCH_BASELINE")
    base_env = dict(os.environ, PYTHONPATH=baseline) if baseline else None
    out = {}
    for name, files in (("merge-synth", synth), ("merge-parca", parca)):
        if not files:
            continue
        out[name] = [
            (f"pprofcore level={level}", [py, "-c", OURS_MERGE, level, *files], env) for level in args.levels.split(",")
        ]
        if base_env:
            out[name].append(("pprofcore baseline level=default", [py, "-c", OURS_MERGE, "default", *files], base_env))
        out[name] += [
            (peer, [exe, "-n", "-t", "merge", os.path.join(tmp, "m.pb.gz"), *files], None) for peer, exe in merge_peers
        ]
    cache = Path(tempfile.gettempdir()) / "pprofcore-bench-delta"
    bigheap = big_heap_series(cache / "bigheap")
    for name, files in (("delta-heap", heap), ("delta-bigheap", bigheap)):
        if not files:
            continue
        out[name] = _delta_contenders(files, args, env, base_env, merge_peers, fastdelta, tmp, raw=False)
        raw_files = _uncompressed(files, cache / name)
        out[name + "-raw"] = _delta_contenders(raw_files, args, env, base_env, merge_peers, fastdelta, tmp, raw=True)
    out["series"] = [("pprofcore", [py, "-c", OURS_SERIES, *synth], env)]
    if base_env:
        out["series"].append(("pprofcore baseline", [py, "-c", OURS_SERIES, *synth], base_env))
    out["series"] += [(peer, [exe, "-t", *synth], None) for peer, exe in series_peers]
    if args.only:
        keep = set(args.only.split(","))
        out = {k: v for k, v in out.items() if k in keep}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--only", help="comma-separated workloads")
    ap.add_argument("--pprof-upstream", help="directory with mergeref/fleetseries built against upstream pprof")
    ap.add_argument("--fastdelta", help="fastdelta driver binary (see the module docstring)")
    ap.add_argument(
        "--levels",
        default="fast,default",
        help="gzip levels of pprofcore's merge output, the first one is the reference (default: fast,default)",
    )
    ap.add_argument(
        "--baseline",
        help="PYTHONPATH of an older pprofcore build to run as one more contender "
        "(before/after in the same rounds); also $PPROFCORE_BENCH_BASELINE",
    )
    ap.add_argument("--json", help="write every round's numbers here")
    ap.add_argument("--markdown", action="store_true", help="print the summary as a markdown table")
    args = ap.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        work = contenders(args, tmp)
        env0 = next(cs[0][2] for cs in work.values())
        rounds = []
        for r in range(args.rounds):
            load_before = os.getloadavg()
            row = {}
            # what a pprofcore child spends before its timer starts (imports):
            # subtracted from its CPU time, so CPU ratios compare the work
            base = {
                k: run([sys.executable, "-c", f"import {k}; print(0.0)"], env0)[2]
                for k in ("pprofcore", "pprofcore, pandas")
            }
            for wl, cs in work.items():
                # rotate the order each round so no contender always runs first
                order = cs[r % len(cs) :] + cs[: r % len(cs)]
                row[wl] = {}
                for name, argv_, env in order:
                    secs, rss, cpu = run(argv_, env)
                    if name.startswith("pprofcore"):  # the baseline imports its own build, about as costly
                        cpu = max(cpu - base["pprofcore, pandas" if wl == "series" else "pprofcore"], 1e-3)
                    row[wl][name] = {"wall_s": secs, "peak_rss_mib": rss, "cpu_s": cpu}
            rounds.append({"round": r, "load_before": load_before, "load_after": os.getloadavg(), "results": row})
            print(
                f"round {r + 1}/{args.rounds}: load {load_before[0]:.1f} -> {os.getloadavg()[0]:.1f}", file=sys.stderr
            )

    summary = []
    for wl, cs in work.items():
        ours = cs[0][0]
        for name, _, _ in cs:
            walls = [rd["results"][wl][name]["wall_s"] for rd in rounds]
            ratios = [rd["results"][wl][name]["wall_s"] / rd["results"][wl][ours]["wall_s"] for rd in rounds]
            cpu_ratios = [rd["results"][wl][name]["cpu_s"] / rd["results"][wl][ours]["cpu_s"] for rd in rounds]
            rss = [rd["results"][wl][name]["peak_rss_mib"] for rd in rounds]
            summary.append(
                {
                    "workload": wl,
                    "contender": name,
                    "median_wall_s": statistics.median(walls),
                    "median_ratio": statistics.median(ratios),
                    "median_cpu_ratio": statistics.median(cpu_ratios),
                    "ratios": ratios,
                    "median_peak_rss_mib": statistics.median(rss),
                }
            )
    loads = [rd["load_before"][0] for rd in rounds]
    meta = {
        "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "cpus": os.cpu_count(),
        "rounds": args.rounds,
        "load_1min_per_round": loads,
    }
    if args.json:
        Path(args.json).write_text(json.dumps({"meta": meta, "rounds": rounds, "summary": summary}, indent=1))
    print(
        f"{meta['when']}, {meta['cpus']} CPUs, {args.rounds} interleaved rounds, load average (1 min) per round: "
        + ", ".join(f"{x:.1f}" for x in loads)
    )
    if args.markdown:
        print(
            "\n| workload | contender | median wall | median same-round ratio (wall) | (CPU) | per-round ratios "
            "| median peak RSS |"
        )
        print("|---|---|---:|---:|---:|---|---:|")
    for s in summary:
        per = " ".join(f"{x:.1f}" for x in s["ratios"])
        if args.markdown:
            print(
                f"| {s['workload']} | {s['contender']} | {s['median_wall_s'] * 1e3:,.0f} ms | "
                f"{s['median_ratio']:.1f}x | {s['median_cpu_ratio']:.1f}x | {per} | {s['median_peak_rss_mib']:.0f} MiB |"  # noqa: E501
            )
        else:
            print(
                f"{s['workload']:12s} {s['contender']:18s} {s['median_wall_s'] * 1e3:8.0f} ms  "
                f"ratio {s['median_ratio']:5.1f}x (cpu {s['median_cpu_ratio']:5.1f}x)  [{per}]  "
                f"{s['median_peak_rss_mib']:.0f} MiB"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
