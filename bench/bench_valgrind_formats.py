"""Valgrind's Callgrind and Massif files and heaptrack's: `pprofcore.load`
against the tools' own readers of the same files, `callgrind_annotate` and
`ms_print` (Perl, Debian package valgrind) and `heaptrack_print` (C++,
package heaptrack), each run as a new process in interleaved rounds
(the ratio is taken within a round). `callgrind_annotate` reads the whole
file and sums self costs per function; pprofcore also rebuilds the call tree
(docs/producers.md), so it does more work per file. The in-process time of
`load` (the interpreter's start and import left out) is printed as well.

Input: the files given (callgrind.out.*, massif.out.*, heaptrack.*.zst),
else recordings made here of `/usr/bin/python3` running a small JSON and
regex workload under `valgrind --tool=callgrind`, `--tool=massif` and, where
installed, heaptrack (about a minute).

Usage: python bench/bench_valgrind_formats.py [--rounds 5] [FILE ...]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import child_env, process_times

WORKLOAD = "import json, re; d = {str(i): list(range(i % 50)) for i in range(3000)}; re.findall(r'\\d+', json.dumps(d))"


def record(tmp: Path) -> list:
    python = "/usr/bin/python3"
    out = []
    for tool in ("callgrind", "massif"):
        path = tmp / f"{tool}.out.bench"
        cmd = ["valgrind", f"--tool={tool}", f"--{tool}-out-file={path}", python, "-c", WORKLOAD]
        subprocess.run(cmd, check=True, capture_output=True, timeout=900)
        out.append(path)
    if shutil.which("heaptrack"):
        cmd = ["heaptrack", "-o", str(tmp / "heaptrack.bench"), python, "-c", WORKLOAD]
        subprocess.run(cmd, check=True, capture_output=True, timeout=900)
        out += sorted(tmp.glob("heaptrack.bench.*"))
    return out


def peer_of(path: Path) -> list:
    head = path.read_bytes()[:4096]
    if head[:4] == b"\x28\xb5\x2f\xfd" or head[:2] == b"\x1f\x8b" or head[:2] == b"v ":
        return ["heaptrack_print", str(path)]
    if b"snapshot=" in head and b"time_unit:" in head:
        return ["ms_print", str(path)]
    return ["callgrind_annotate", str(path)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("files", nargs="*", type=Path)
    args = ap.parse_args()
    for tool in ("valgrind", "callgrind_annotate", "ms_print"):
        if not shutil.which(tool):
            sys.exit(f"needs {tool} (apt-get install valgrind)")
    tmp = Path(tempfile.mkdtemp(prefix="bench-valgrind-"))
    files = args.files or record(tmp)
    env = child_env()
    env_python = [sys.executable, "-c", "import sys, pprofcore; pprofcore.load(sys.argv[1])"]
    for path in files:
        peer = peer_of(path)
        ours = env_python + [str(path)]
        ratios, cpu_ratios, walls, peer_walls = [], [], [], []
        for r in range(args.rounds):
            runs = [("peer", peer), ("pprofcore", ours)]
            if r % 2:
                runs.reverse()
            got = {name: process_times(cmd, env) for name, cmd in runs}
            ratios.append(got["peer"][0] / got["pprofcore"][0])
            cpu_ratios.append(got["peer"][1] / got["pprofcore"][1])
            walls.append(got["pprofcore"][0])
            peer_walls.append(got["peer"][0])
            print(
                f"  round {r + 1}: {peer[0]} {got['peer'][0]:.3f} s, pprofcore {got['pprofcore'][0]:.3f} s "
                f"(ratio {ratios[-1]:.2f}x, CPU {cpu_ratios[-1]:.2f}x), load {os.getloadavg()[0]:.1f}"
            )
        import pprofcore  # this checkout's, as _common put it first

        best = min(_in_process(pprofcore, path) for _ in range(3))
        print(
            f"{path.name} ({path.stat().st_size / 1e6:.2f} MB): "
            f"{peer[0]} median {statistics.median(peer_walls):.3f} s, "
            f"pprofcore median {statistics.median(walls):.3f} s (in process {best:.3f} s); "
            f"median same-round ratio {statistics.median(ratios):.2f}x (CPU {statistics.median(cpu_ratios):.2f}x)"
        )


def _in_process(pprofcore, path: Path) -> float:
    t = time.perf_counter()
    pprofcore.load(path)
    return time.perf_counter() - t


if __name__ == "__main__":
    main()
