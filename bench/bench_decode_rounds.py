#!/usr/bin/env python3
"""Decode, round by round: builds of pprofcore against each other and against
Debian's google/pprof, on a quiet or a deliberately loaded machine.

Each round runs, one after the other and in a rotating order, every build's
``pprofcore.loads`` and google/pprof's ``profile.Parse``
(``tools/goref/parsebench``) on each file, every one in a fresh process (N
timed calls after one warm-up; the round keeps their median). Ratios are taken
*within* a round, where all contenders saw about the same background load, and
the report gives the median over rounds of those same-round ratios, with the
load average of each round.

``--load K`` starts K busy-looping processes for the whole run, so the
numbers show how decode holds up when other work competes for the CPUs.
``--rss`` adds, per build and file, the peak resident memory growth of one
``loads`` in a fresh process (VmHWM after the call minus VmHWM after reading
the input) and the Python heap peak seen by tracemalloc.

Usage::

    python bench/bench_decode_rounds.py [--build LABEL=DIR ...] [--rounds 5]
        [--load K] [--rss] [--files F ...] [--json OUT]

``DIR`` is a directory holding a ``pprofcore`` package (a copy of an older
build's installed package, say); without ``--build`` the pprofcore that
``bench/_common.py`` picks is measured, labelled ``current``.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402

FILES = [
    "go/generated/gen-bigheap-500k.pb.gz",
    "go/pprof__internal_proftest_testdata_large.cpu",
]

# Timed calls per process: enough for a stable median of short calls.
REPS_SMALL, REPS_LARGE = 30, 7


def worker(path: str, reps: int) -> None:
    """Times ``pprofcore.loads`` on one file in this (fresh) process."""
    import gc

    import pprofcore

    data = Path(path).read_bytes()
    pprofcore.loads(data)  # warm-up
    times, cpu = [], []
    for _ in range(reps):
        gc.collect()
        c0, t0 = time.process_time(), time.perf_counter()
        p = pprofcore.loads(data)
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        del p
    print(json.dumps({"times_s": times, "cpu_s": cpu, "pprofcore": pprofcore.__file__}))


def rss_worker(path: str) -> None:
    """Peak memory of one ``loads`` in this (fresh) process."""
    import gc
    import tracemalloc

    import pprofcore

    data = Path(path).read_bytes()
    gc.collect()
    base = C.max_rss_bytes()
    tracemalloc.start()
    p = pprofcore.loads(data)
    _, py_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(json.dumps({"peak_delta": C.max_rss_bytes() - base, "python_peak": py_peak, "memory_bytes": p.memory_bytes}))


def burn() -> None:
    """A competing CPU load: spins until killed."""
    x = 0
    while True:
        x += 1


def run_build(build_dir: str | None, args: list) -> dict:
    env = C.child_env()
    if build_dir:
        env["PYTHONPATH"] = os.pathsep.join([build_dir, str(C.BENCH)])
        env["PPROFCORE_BENCH_INSTALLED"] = "1"  # keep _common from putting this checkout's python/ first
    r = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True, env=env, timeout=600)
    if r.returncode != 0:
        raise RuntimeError(f"worker {args} failed:\n{r.stderr.strip()}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def run_go(path: str, reps: int) -> dict:
    exe = C.go_helper("parsebench")
    r = subprocess.run([exe, "-reps", str(reps), path], capture_output=True, text=True, timeout=900)
    go = json.loads(r.stdout.strip().splitlines()[-1])
    if go.get("error"):
        raise RuntimeError(f"parsebench: {go['error']}")
    return {"times_s": go["times_s"], "cpu_s": go["cpu_times_s"]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, default=C.DEFAULT_CORPUS)
    ap.add_argument("--files", nargs="+", default=FILES)
    ap.add_argument(
        "--build",
        action="append",
        default=[],
        metavar="LABEL=DIR",
        help="a build to measure: DIR holds its pprofcore package (repeatable)",
    )
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--reps", type=int, help="timed calls per process (default: 30 below 5 MB, else 7)")
    ap.add_argument("--load", type=int, default=0, help="busy-looping processes competing for the CPUs")
    ap.add_argument("--no-go", action="store_true", help="skip google/pprof")
    ap.add_argument("--rss", action="store_true", help="also measure peak memory of one loads per build and file")
    ap.add_argument("--json", type=Path, help="write every round's numbers here")
    ap.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    ap.add_argument("--rss-worker", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.worker:
        worker(a.worker[0], int(a.worker[1]))
        return 0
    if a.rss_worker:
        rss_worker(a.rss_worker)
        return 0

    builds = dict(b.split("=", 1) for b in a.build) or {"current": None}
    builds = {k: (str(Path(v).resolve()) if v else None) for k, v in builds.items()}
    if not a.no_go and not C.go_available():
        print("note: go or google/pprof sources missing; skipping the pprof comparison", file=sys.stderr)
        a.no_go = True
    corpus = a.corpus.resolve()
    paths = [Path(f) if Path(f).is_absolute() else corpus / f for f in a.files]
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        print(f"error: missing files (corpus at {corpus}?): {', '.join(missing)}", file=sys.stderr)
        return 2

    burners = [multiprocessing.Process(target=burn, daemon=True) for _ in range(a.load)]
    for b in burners:
        b.start()
    rounds: list = []
    try:
        if burners:
            time.sleep(2)  # let the load average notice them
        contenders = list(builds) + ([] if a.no_go else ["pprof"])
        for i in range(a.rounds):
            rnd: dict = {"loadavg": C.loadavg(), "files": {}}
            order = contenders[i % len(contenders) :] + contenders[: i % len(contenders)]
            for path in paths:
                reps = a.reps or (REPS_SMALL if path.stat().st_size < 5_000_000 else REPS_LARGE)
                got = {}
                for name in order:
                    if name == "pprof":
                        got[name] = run_go(str(path), reps)
                    else:
                        got[name] = run_build(builds[name], ["--worker", str(path), str(reps)])
                rnd["files"][path.name] = {
                    k: {"median_s": statistics.median(v["times_s"]), "median_cpu_s": statistics.median(v["cpu_s"])}
                    for k, v in got.items()
                }
            rounds.append(rnd)
            print(f"round {i + 1}/{a.rounds}: load {rnd['loadavg']}", file=sys.stderr, flush=True)
    finally:
        for b in burners:
            b.terminate()
    rss = {}
    if a.rss:
        for name, d in builds.items():
            rss[name] = {p.name: run_build(d, ["--rss-worker", str(p)]) for p in paths}
        for name in rss:
            for p in paths:
                rss[name][p.name]["raw_bytes"] = len(
                    C.gunzip_py(p.read_bytes()) if C.is_gzip(p.read_bytes()) else p.read_bytes()
                )

    print(report(rounds, list(builds), rss, a))
    if a.json:
        a.json.parent.mkdir(parents=True, exist_ok=True)
        a.json.write_text(
            json.dumps(
                {"machine": C.machine_info(), "builds": builds, "load": a.load, "rounds": rounds, "rss": rss}, indent=1
            )
        )
    return 0


def report(rounds: list, builds: list, rss: dict, a) -> str:
    """Markdown: per file, each contender's median time (median over rounds)
    and the medians of the same-round ratios."""
    loads = [r["loadavg"][0] for r in rounds if r["loadavg"]]
    out = [
        f"{len(rounds)} rounds, {a.load} competing busy processes, load average (1 min) "
        f"{min(loads):.2f}-{max(loads):.2f} over the rounds."
        if loads
        else f"{len(rounds)} rounds.",
        "",
    ]
    head = "| file | " + " | ".join(f"{b} ms" for b in builds)
    line = "|---|" + "---:|" * len(builds)
    have_go = "pprof" in rounds[0]["files"][next(iter(rounds[0]["files"]))]
    if have_go:
        head += " | pprof ms | " + " | ".join(f"pprof / {b}" for b in builds)
        line += "---:|" * (1 + len(builds))
    if len(builds) > 1:
        head += " | " + " | ".join(f"{b} / {builds[0]}" for b in builds[1:])
        line += "---:|" * (len(builds) - 1)
    out += [head + " |", line]
    for f in rounds[0]["files"]:
        per = [r["files"][f] for r in rounds]

        def med(k, field="median_s"):
            return statistics.median(x[k][field] for x in per)

        def ratio(num, den):
            return statistics.median(x[num]["median_s"] / x[den]["median_s"] for x in per)

        cells = [f"{med(b) * 1e3:.2f}" for b in builds]
        if have_go:
            cells.append(f"{med('pprof') * 1e3:.1f}")
            cells += [f"{ratio('pprof', b):.1f}x" for b in builds]
        cells += [f"{ratio(b, builds[0]):.3f}" for b in builds[1:]]
        out.append(f"| `{f}` | " + " | ".join(cells) + " |")
    if rss:
        out += [
            "",
            "| build | file | peak RSS growth | / uncompressed | Python heap peak | memory_bytes |",
            "|---|---|---:|---:|---:|---:|",
        ]
        for b, files in rss.items():
            for f, m in files.items():
                out.append(
                    f"| {b} | `{f}` | {C.mb(m['peak_delta'])} | {m['peak_delta'] / m['raw_bytes']:.2f}x | "
                    f"{C.mb(m['python_peak'])} | {C.mb(m['memory_bytes'])} |"
                )
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.exit(main())
