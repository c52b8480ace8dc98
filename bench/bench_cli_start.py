"""Wall time of one ``pprofcore -top FILE`` process against ``go tool pprof -top
FILE`` (Python's and NumPy's start-up included), in interleaved rounds of the
same run so that the machine's load hits both alike.

Targets (issue 30): at most 1/3 of go tool pprof's time on ``large.cpu`` and at
most 0.3 s on a small profile. Also prints ``python -c pass`` (the interpreter
alone), ``import numpy`` and ``import pprofcore.cli``: the floors under our number.
The package's bytecode is written first, as ``pip install`` does for a wheel.

    python bench/bench_cli_start.py [--rounds 7] [--json out.json] [--baseline DIR]

``--baseline DIR`` adds the same commands run with ``PYTHONPATH=DIR`` (another
checkout's ``python/``, e.g. the commit before a start-up change) in the same rounds.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
from pathlib import Path

from _common import DEFAULT_CORPUS, REPO, child_env, compile_package, loadavg, process_times

SMALL = REPO / "python" / "pprofcore" / "data" / "example-cpu.pb.gz"
LARGE = DEFAULT_CORPUS / "go" / "pprof__internal_proftest_testdata_large.cpu"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--json", default=None)
    ap.add_argument("--baseline", default=None, help="a python/ directory of another checkout to compare with")
    a = ap.parse_args()
    compile_package(REPO / "python" / "pprofcore")  # timed as installed: bytecode written
    if a.baseline:
        compile_package(Path(a.baseline) / "pprofcore")
    env = child_env()
    base_env = dict(env, PYTHONPATH=a.baseline) if a.baseline else None
    go_env = dict(os.environ, PPROF_TMPDIR=os.environ.get("TMPDIR", "/tmp"))
    ours = [sys.executable, "-m", "pprofcore", "-top"]
    cases = {
        "python -c pass": ([sys.executable, "-c", "pass"], env),
        "import numpy": ([sys.executable, "-c", "import numpy"], env),
        "import pprofcore.cli": ([sys.executable, "-c", "import pprofcore.cli"], env),
        "pprofcore -top small": (ours + [str(SMALL)], env),
    }
    if base_env:
        cases["baseline: import pprofcore.cli"] = ([sys.executable, "-c", "import pprofcore.cli"], base_env)
        cases["baseline: pprofcore -top small"] = (ours + [str(SMALL)], base_env)
    have_go = shutil.which("go") is not None
    if have_go:
        cases["go tool pprof -top small"] = (["go", "tool", "pprof", "-top", str(SMALL)], go_env)
    if LARGE.exists():
        cases["pprofcore -top large.cpu"] = (ours + [str(LARGE)], env)
        if base_env:
            cases["baseline: pprofcore -top large.cpu"] = (ours + [str(LARGE)], base_env)
        if have_go:
            cases["go tool pprof -top large.cpu"] = (["go", "tool", "pprof", "-top", str(LARGE)], go_env)
    for cmd, e in cases.values():  # warm the page cache and Go's build cache
        process_times(cmd, e)
    times: dict = {k: [] for k in cases}
    cpu: dict = {k: [] for k in cases}
    load_before = loadavg()
    for _ in range(a.rounds):
        for name, (cmd, e) in cases.items():
            w, c = process_times(cmd, e)
            times[name].append(w)
            cpu[name].append(c)
    med = {k: statistics.median(v) for k, v in times.items()}
    med_cpu = {k: statistics.median(v) for k, v in cpu.items()}
    print(f"load average before: {load_before}, after: {loadavg()}; {a.rounds} interleaved rounds, medians")
    print(f"  {'':36s} {'wall':>8s} {'(min)':>8s} {'CPU':>8s}")
    for k, v in med.items():
        print(f"  {k:36s} {v * 1000:6.0f}ms {min(times[k]) * 1000:6.0f}ms {med_cpu[k] * 1000:6.0f}ms")
    for size in ("small", "large.cpu"):
        us, go = f"pprofcore -top {size}", f"go tool pprof -top {size}"
        if us in med and go in med:
            print(
                f"  {size}: pprofcore / go tool pprof = {med[us] / med[go]:.2f} wall, "
                f"{med_cpu[us] / med_cpu[go]:.2f} CPU"
            )
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"load": load_before, "rounds": a.rounds, "wall": times, "cpu": cpu}, f, indent=1)


if __name__ == "__main__":
    main()
