"""Benchmark: each filter on an already-decoded large profile, against the time
google/pprof needs to parse that file and against `go tool pprof -proto` with
the same flags.

    PYTHONPATH=python python3 bench/bench_filters.py [--file F] [--repeat 3] [--go-pprof]

Reports wall-clock minima (the machine may be shared: minima are the least
noisy statistic) and CPU seconds of this process. The target (issue 5) is any
single filter in under 1/10 of pprof's parse time of the same file.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

from _common import go_helper  # one builder of tools/goref, the tests' (sets up sys.path for pprofcore)

import pprofcore

# $PPROFCORE_CORPUS, else ../shared/corpus beside the repository.
DEFAULT = (
    Path(os.environ.get("PPROFCORE_CORPUS", Path(__file__).resolve().parents[2] / "shared" / "corpus"))
    / "go/generated/gen-bigheap-500k.pb.gz"
)

# (name, Profile method call, equivalent pprof flags or None)
CASES = [
    ("focus", lambda p: p.focus("main"), ["-focus=main"]),
    ("ignore", lambda p: p.ignore("runtime"), ["-ignore=runtime"]),
    ("hide", lambda p: p.hide(r"runtime\."), [r"-hide=runtime\."]),
    ("show", lambda p: p.show("main"), ["-show=main"]),
    ("show_from", lambda p: p.show_from("main"), ["-show_from=main"]),
    ("prune_from", lambda p: p.prune_from(r"runtime\.mallocgc"), [r"-prune_from=runtime\.mallocgc"]),
    ("prune (drop_frames)", lambda p: p.prune(r"runtime\..*"), None),
    ("tagfocus numeric range", lambda p: p.tagfocus("bytes=1kb:"), ["-tagfocus=bytes=1kb:"]),
    ("tagignore numeric range", lambda p: p.tagignore(":512b"), ["-tagignore=:512b"]),
    ("taghide", lambda p: p.taghide("bytes"), ["-taghide=bytes"]),
    ("tagroot", lambda p: p.tagroot("bytes"), ["-tagroot=bytes"]),
    (
        "filter(focus, ignore, tagfocus)",
        lambda p: p.filter(focus="main", ignore="gc", tagfocus="bytes=1kb:"),
        ["-focus=main", "-ignore=gc", "-tagfocus=bytes=1kb:"],
    ),
]


def best(fn, repeat: int):
    walls, cpus = [], []
    for _ in range(repeat):
        c, t = time.process_time(), time.perf_counter()
        fn()
        walls.append(time.perf_counter() - t)
        cpus.append(time.process_time() - c)
    return min(walls), min(cpus)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", default=str(DEFAULT))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--go-pprof", action="store_true", help="also time `go tool pprof -proto` per filter (slow)")
    ap.add_argument(
        "--go-cases",
        default="focus,tagfocus numeric range",
        help="comma-separated case names timed with go tool pprof (default: two)",
    )
    ap.add_argument("--json", help="write results as JSON here")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore", pprofcore.FilterWarning)

    load_wall, load_cpu = best(lambda: pprofcore.load(args.file), args.repeat)
    p = pprofcore.load(args.file)
    res = json.loads(
        subprocess.run(
            [go_helper("parsetime"), "-n", str(args.repeat), args.file], capture_output=True, text=True, check=True
        ).stdout
    )
    go_parse = res["parse_seconds"]
    print(f"{args.file}: {len(p):,} samples")
    print(
        f"pprofcore.load: {load_wall:.3f} s wall ({load_cpu:.3f} s CPU); google/pprof profile.Parse: {go_parse:.3f} s"
    )
    rows = []
    wanted = set(args.go_cases.split(",")) if args.go_pprof else set()
    for name, fn, flags in CASES:
        wall, cpu = best(lambda: fn(p), args.repeat)
        go = None
        if flags is not None and name in wanted:
            with tempfile.TemporaryDirectory() as d:
                t = time.perf_counter()
                subprocess.run(
                    ["go", "tool", "pprof", "-proto", "-symbolize=none", *flags, f"-output={d}/o.pb", args.file],
                    check=True,
                    capture_output=True,
                )
                go = time.perf_counter() - t
        rows.append(dict(filter=name, wall=wall, cpu=cpu, ratio_to_parse=wall / go_parse, go_pprof=go))
        print(
            f"  {name:<34} {wall * 1e3:8.1f} ms  ({cpu * 1e3:7.1f} ms CPU)  {wall / go_parse:6.3f} x parse"
            + (f"   go tool pprof -proto: {go:.2f} s" if go is not None else "")
        )
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                dict(file=args.file, samples=len(p), load_wall=load_wall, go_parse=go_parse, filters=rows), indent=2
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
