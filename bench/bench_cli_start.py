"""Wall time of one ``pprofcore -top FILE`` process against ``go tool pprof -top
FILE`` (Python's and NumPy's start-up included), in interleaved rounds of the
same run so that the machine's load hits both alike.

Targets (issue 30): at most 1/3 of go tool pprof's time on ``large.cpu`` and at
most 0.3 s on a small profile. Also prints ``python -c pass`` (the interpreter
alone) and ``import pprofcore.cli`` as the floor under our number.

    python bench/bench_cli_start.py [--rounds 7] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

from _common import DEFAULT_CORPUS, REPO, child_env, loadavg

SMALL = REPO / "python" / "pprofcore" / "data" / "example-cpu.pb.gz"
LARGE = DEFAULT_CORPUS / "go" / "pprof__internal_proftest_testdata_large.cpu"


def _wall(cmd, env) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    env = child_env()
    go_env = dict(os.environ, PPROF_TMPDIR=os.environ.get("TMPDIR", "/tmp"))
    ours = [sys.executable, "-m", "pprofcore", "-top"]
    cases = {
        "python -c pass": ([sys.executable, "-c", "pass"], env),
        "import pprofcore.cli": ([sys.executable, "-c", "import pprofcore.cli"], env),
        "pprofcore -top small": (ours + [str(SMALL)], env),
    }
    have_go = shutil.which("go") is not None
    if have_go:
        cases["go tool pprof -top small"] = (["go", "tool", "pprof", "-top", str(SMALL)], go_env)
    if LARGE.exists():
        cases["pprofcore -top large.cpu"] = (ours + [str(LARGE)], env)
        if have_go:
            cases["go tool pprof -top large.cpu"] = (["go", "tool", "pprof", "-top", str(LARGE)], go_env)
    for cmd, e in cases.values():  # warm the page cache and Go's build cache
        _wall(cmd, e)
    times: dict = {k: [] for k in cases}
    load_before = loadavg()
    for _ in range(a.rounds):
        for name, (cmd, e) in cases.items():
            times[name].append(_wall(cmd, e))
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"load average before: {load_before}, after: {loadavg()}; {a.rounds} interleaved rounds, medians")
    for k, v in med.items():
        print(f"  {k:32s} {v * 1000:8.0f} ms   (min {min(times[k]) * 1000:.0f} ms)")
    for size in ("small", "large.cpu"):
        us, go = med.get(f"pprofcore -top {size}"), med.get(f"go tool pprof -top {size}")
        if us and go:
            print(f"  {size}: pprofcore / go tool pprof = {us / go:.2f}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"load": load_before, "rounds": a.rounds, "times": times, "median": med}, f, indent=1)


if __name__ == "__main__":
    main()
