"""`perf script` text: pprofcore.loads vs a Python parser written the obvious
way (the baseline below: split into events, a regular expression per line,
one ProfileBuilder.add per sample, as perf_to_profile builds the profile:
a location per frame address in a mapping named by its DSO, comm/pid/tid and
the time as labels). Both build the same profile from the same bytes.

Input: the files given, else a synthetic `perf record -g` script of 40,000
events (callchains of 5 to 40 frames over 12,000 call sites of 3,000 functions
in 4 DSOs, 4 threads).
Target (issue 32): pprofcore at least 3x faster.

Usage: python bench/bench_perf_script.py [--events N] [FILE ...]
"""

from __future__ import annotations

import argparse
import os
import random
import re
import sys
import time
from pathlib import Path

import pprofcore
from pprofcore._build import ProfileBuilder

HEADER = re.compile(r"^\s*(\S.*?)\s+(?:(-?\d+)/)?(-?\d+)\s+(?:\[(\d+)\]\s+)?(\d+)\.(\d+):\s+(?:(\d+)\s+)?(\S+?):")
FRAME = re.compile(r"^\s*([0-9a-fA-F]+)\s+(.*?)\s+\((.*)\)$")


def obvious(data: bytes) -> pprofcore.Profile:
    """The baseline: what one writes first."""
    events = []
    for block in data.decode("utf-8", "surrogateescape").split("\n\n"):
        lines = [ln for ln in block.split("\n") if ln.strip() and not ln.startswith("#")]
        if not lines:
            continue
        m = HEADER.match(lines[0])
        comm, pid, tid, cpu, sec, frac, period, event = m.groups()
        frames = []
        for ln in lines[1:]:
            fm = FRAME.match(ln)
            frames.append((int(fm.group(1), 16), re.sub(r"\+0x[0-9a-fA-F]+$", "", fm.group(2)), fm.group(3)))
        t = int(sec) * 1_000_000_000 + int((frac + "000000000")[:9])
        events.append((comm, int(pid), int(tid), int(cpu), t, int(period or 1), event, frames))
    names = sorted({e[6] for e in events})
    b = ProfileBuilder([("samples", "count")] + [(n, "nanoseconds" if n == "cpu-clock" else "count") for n in names])
    for comm, pid, tid, cpu, t, period, event, frames in events:
        stack = []
        for addr, sym, dso in frames:
            mid = b.mapping(dso) if dso != "[unknown]" else 0
            fid = b.function(sym) if sym != "[unknown]" else 0
            stack.append(b.location(fid, address=addr, mapping_id=mid))
        values = [1] + [period if n == event else 0 for n in names]
        b.add(
            stack,
            values,
            [("comm", comm)],
            [("timestamp_ns", t, "nanoseconds"), ("tid", tid, ""), ("pid", pid, ""), ("cpu", cpu, "")],
        )
    return b.build()


def synthetic(n: int) -> bytes:
    rnd = random.Random(1)
    dsos = ["/usr/bin/app", "/usr/lib/x86_64-linux-gnu/libc.so.6", "[kernel.kallsyms]", "/usr/lib/libssl.so.3"]
    # Each function has a few call sites, each always printed the same way
    # (address, symbol+offset, DSO), as perf prints a return address.
    sites = [
        (0x400000 + 256 * i + 8 * k, f"fn_{i}_{'x' * (i % 17)}+0x{8 * k + 3:x}", dsos[i % 4])
        for i in range(3000)
        for k in range(4)
    ]
    out = []
    t = 12345.000000
    for i in range(n):
        t += 0.0001
        tid = 1000 + i % 4
        out.append(f"  app {tid // 2}/{tid} [00{i % 2}] {t:.6f}:     250000 cpu-clock:")
        for addr, sym, dso in rnd.sample(sites, rnd.randint(5, 40)):
            out.append(f"\t    {addr:x} {sym} ({dso})")
        out.append("")
    return ("\n".join(out) + "\n").encode()


def best(fn, reps: int) -> float:
    out = float("inf")
    for _ in range(reps):
        t = time.process_time()
        fn()
        out = min(out, time.process_time() - t)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=40_000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("files", nargs="*", type=Path)
    args = ap.parse_args(argv)
    inputs = [(f.name, f.read_bytes()) for f in args.files] or [("synthetic", synthetic(args.events))]
    print(f"load average {os.getloadavg()} (process CPU seconds, best of {args.reps})")
    print(f"{'input':12} {'MB':>7} {'samples':>9} {'pprofcore s':>11} {'obvious s':>10} {'speedup':>8}")
    for name, data in inputs:
        p, q = pprofcore.loads(data), obvious(data)
        assert p.values.shape[0] == q.values.shape[0] and p.total() == q.total()
        ours, base = best(lambda: pprofcore.loads(data), args.reps), best(lambda: obvious(data), args.reps)
        print(
            f"{name[:12]:12} {len(data) / 1e6:7.1f} {p.values.shape[0]:9,} {ours:11.3f} {base:10.3f} "
            f"{base / ours:7.1f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
