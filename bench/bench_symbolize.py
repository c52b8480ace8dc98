"""Symbolizing N addresses: pprofcore's Profile.symbolize vs google/pprof's
binutils symbolizer (standalone ``pprof -symbolize=local``), same binary, same
tool (llvm-symbolizer, or addr2line with --tool addr2line), same run.

The binary is the standalone pprof command itself (a Go binary with DWARF);
the profile has one sample per address, addresses spread over its .text.
Both sides read the profile, symbolize and write it (pprof: ``-proto``);
pprof's ``-symbolize=none`` run shows its cost without symbolization. Wall
and CPU (user+sys, tools included) medians of alternating runs; the frames of
every address are compared.

    python bench/bench_symbolize.py [--n 100000] [--tool llvm-symbolizer]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "helpers"))

import native_programs as native  # noqa: E402
import wirebuild as w  # noqa: E402

import pprofcore  # noqa: E402
from pprofcore.symbolize import _elf  # noqa: E402


def make_profile(binary: str, n: int) -> bytes:
    elf = _elf.read_elf(binary)
    text = elf.text_segment()
    start, limit, offset = text.vaddr & ~0xFFF, (text.vaddr + text.memsz + 0xFFF) & ~0xFFF, text.offset & ~0xFFF
    step = max(1, (text.memsz - 64) // n)
    addrs = [text.vaddr + 16 + i * step for i in range(n)]
    strings = ["", "samples", "count", binary]
    locs = [w.location(i + 1, 1, a) for i, a in enumerate(addrs)]
    samples = [w.sample([i + 1], [1]) for i in range(n)]
    return w.profile(
        sample_types=[w.value_type(1, 2)],
        samples=samples,
        mappings=[w.mapping(1, start, limit, offset, 3)],
        locations=locs,
        strings=strings,
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--tool", default="llvm-symbolizer", choices=["llvm-symbolizer", "addr2line"])
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        pprof = native.standalone_pprof(d / "bin")
        binary = str(d / "bin" / "pprof")
        prof = d / "addrs.pb"
        prof.write_bytes(make_profile(binary, a.n))
        tools = ["addr2line", "nm", "objdump"] + (["llvm-symbolizer"] if a.tool == "llvm-symbolizer" else [])
        tools_dir = native.only_tools(d / "tools", *tools)

        def ours():
            p = pprofcore.load(prof)
            q, report = p.symbolize(tool=a.tool, search_path=[])
            q.save(d / "ours.pb.gz")
            return report.resolved

        def theirs(mode="local"):
            native.run_pprof(
                pprof, f"-symbolize={mode}", "-proto", "-output", str(d / "out.pb.gz"), str(prof), tools_dir=tools_dir
            )

        rows = {
            "pprofcore load+symbolize+save": [],
            "pprof -symbolize=local -proto": [],
            "pprof -symbolize=none -proto": [],
        }
        for _ in range(a.repeat):  # alternating, so load changes hit both
            for name, fn in (
                ("pprofcore load+symbolize+save", ours),
                ("pprof -symbolize=local -proto", theirs),
                ("pprof -symbolize=none -proto", lambda: theirs("none")),
            ):
                rows[name].append(_timed(fn))
        q = pprofcore.load(d / "ours.pb.gz")
        theirs()
        check = pprofcore.load(d / "out.pb.gz")
        same = _frames(q) == _frames(check)
        print(
            f"addresses: {a.n}, tool: {a.tool}, binary: Go pprof command ({os.path.getsize(binary) >> 20} MiB), "
            f"{a.repeat} runs, median; CPU = user+sys of the process and its tools"
        )
        print(f"same frames for every address as pprof: {same}")
        print("| | wall s | CPU s |\n|---|---|---|")
        for name, times in rows.items():
            wall = statistics.median(t[0] for t in times)
            cpu = statistics.median(t[1] for t in times)
            print(f"| {name} | {wall:.2f} | {cpu:.2f} |")


def _timed(fn):
    """(wall, CPU) seconds of fn(), CPU counting this process and the children it waited for."""
    r0, c0, t0 = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
        time.perf_counter(),
    )
    fn()
    wall = time.perf_counter() - t0
    r1, c1 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = sum(getattr(b, f) - getattr(a_, f) for a_, b in ((r0, r1), (c0, c1)) for f in ("ru_utime", "ru_stime"))
    return wall, cpu


def _frames(p):
    """{address: [(name, file, line), ...]} of a profile (pprof's "file:?" as pprofcore writes it)."""
    s, fn, ln, loc = p._s, p.functions, p.lines, p.locations
    off = loc["line_offsets"]
    return {
        int(a): [
            (
                s(fn["name"][ln["function"][j]]),
                native.pprof_file(s(fn["filename"][ln["function"][j]])),
                int(ln["line"][j]),
            )
            for j in range(off[i], off[i + 1])
        ]
        for i, a in enumerate(loc["address"])
    }


if __name__ == "__main__":
    main()
