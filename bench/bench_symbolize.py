"""Symbolizing N addresses: pprofcore's Profile.symbolize vs google/pprof's
binutils symbolizer (standalone ``pprof -symbolize=local``), same binary, same
tool (llvm-symbolizer, or addr2line with --tool addr2line), same run.

The binary is the standalone pprof command itself (a Go binary with DWARF);
the profile has one sample per address, addresses spread over its .text.
pprof's time includes reading and writing the profile (``-proto``), measured
against ``-symbolize=none`` on the same file to leave only symbolization.

    python bench/bench_symbolize.py [--n 100000] [--tool llvm-symbolizer]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

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
    return w.profile(sample_types=[w.value_type(1, 2)], samples=samples,
                     mappings=[w.mapping(1, start, limit, offset, 3)], locations=locs, strings=strings)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--tool", default="llvm-symbolizer", choices=["llvm-symbolizer", "addr2line"])
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        pprof = native.standalone_pprof(d / "bin")
        binary = str(d / "bin" / "pprof")
        prof = d / "addrs.pb"
        prof.write_bytes(make_profile(binary, a.n))
        tools = ["addr2line", "nm", "objdump"] + (["llvm-symbolizer"] if a.tool == "llvm-symbolizer" else [])
        tools_dir = native.only_tools(d / "tools", *tools)

        p = pprofcore.load(prof)
        t0 = time.perf_counter()
        q, report = p.symbolize(tool=a.tool, search_path=[])
        ours = time.perf_counter() - t0

        def pprof_time(mode):
            t0 = time.perf_counter()
            native.run_pprof(pprof, f"-symbolize={mode}", "-proto", "-output", str(d / "out.pb.gz"), str(prof),
                             tools_dir=tools_dir)
            return time.perf_counter() - t0

        base = pprof_time("none")
        theirs = pprof_time("local")
        check = pprofcore.load(d / "out.pb.gz")
        print(f"addresses: {a.n}, tool: {a.tool}, binary: Go pprof command ({os.path.getsize(binary) >> 20} MiB)")
        print(f"pprofcore symbolize: {ours:.2f} s ({report.resolved} resolved)")
        print(f"google/pprof -symbolize=local: {theirs:.2f} s total, {theirs - base:.2f} s symbolizing "
              f"(-symbolize=none: {base:.2f} s)")
        print(f"speedup (symbolizing only): {(theirs - base) / ours:.1f}x; "
              f"pprof resolved {sum(1 for x in check.locations['line_offsets'][1:] - check.locations['line_offsets'][:-1] if x)}")


if __name__ == "__main__":
    main()
