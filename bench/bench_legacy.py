"""Legacy-format parsing: pprofcore.loads vs google/pprof's profile.Parse on the
same bytes (Go debug=1 text and gperftools binary CPU profiles).

Inputs: the legacy files of the corpus, plus a large Go heap debug=1 text and a
large gperftools CPU profile synthesised from them (many samples over the same
addresses, as a long-running process writes). Prints one line per file with the
best of several runs on each side. Target (issue 15): at least 10x.

Usage: python bench/bench_legacy.py [FILE ...]
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import go_helper  # one builder of tools/goref, the tests' (sets up sys.path for pprofcore)

import pprofcore


def _best(fn, min_time=0.5, reps=5):
    best, t_end, n = float("inf"), time.perf_counter() + min_time, 0
    while n < reps or time.perf_counter() < t_end:
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
        n += 1
    return best


def _synthetic(tmp: Path) -> list:
    """A 200,000-sample Go heap debug=1 text and a 200,000-record gperftools CPU profile."""
    import random

    rnd = random.Random(1)
    addrs = [0x400000 + 16 * i for i in range(5000)]
    lines = ["heap profile: 10: 20480 [30: 61440] @ heap/1048576"]
    for _ in range(200_000):
        stack = " ".join(hex(a) for a in rnd.sample(addrs, rnd.randint(5, 30)))
        c = rnd.randint(1, 9)
        lines.append(f"{c}: {c * 512} [{c * 3}: {c * 1536}] @ {stack}")
        lines.append("#\t0x400010\tmain.f+0x10\t/src/main.go:12")
    heap = tmp / "synthetic-go-heap.debug1.txt"
    heap.write_text("\n".join(lines) + "\n")
    words = [0, 3, 0, 10000, 0]
    for _ in range(200_000):
        stack = rnd.sample(addrs, rnd.randint(5, 30))
        words += [rnd.randint(1, 5), len(stack), *stack]
    words += [0, 1, 0]
    cpu = tmp / "synthetic-gperftools.cpu.prof"
    cpu.write_bytes(b"".join(w.to_bytes(8, "little") for w in words) + b"00400000-00500000 r-xp 0 00:00 0 /bin/x\n")
    return [heap, cpu]


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    with tempfile.TemporaryDirectory() as d:
        files = [Path(a) for a in argv] or _synthetic(Path(d))
        go = subprocess.run(
            [go_helper("parsebench"), "-min-time", "1", *map(str, files)], capture_output=True, text=True, check=True
        ).stdout.splitlines()
        print(f"{'file':44} {'bytes':>11} {'pprofcore ms':>13} {'pprof ms':>10} {'speedup':>8}")
        for path, line in zip(files, go):
            data = path.read_bytes()
            ours = _best(lambda: pprofcore.loads(data))
            theirs = json.loads(line)["best_s"]
            print(
                f"{path.name[:44]:44} {len(data):>11,} {ours * 1e3:>13.2f} {theirs * 1e3:>10.2f} {theirs / ours:>7.1f}x"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
