"""Profiles recorded by Valgrind's tools (Debian package valgrind) and by
heaptrack for the DHAT, Massif, Callgrind and heaptrack readers' tests: a C
program built with gcc and run under ``valgrind --tool=TOOL`` or
``heaptrack``; the test is skipped with a clear message where a tool is
missing.

``ALLOCATORS`` is C the heap programs share: ``leaf_a`` allocates,
``outer`` allocates through ``inl`` (always inlined into it, so Valgrind
writes two frames at one address) and ``rec(d, n)`` recurses ``d`` times
from one call site before ``leaf_a(n)``."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ALLOCATORS = r"""
#include <stdlib.h>
#include <string.h>
#define NOINLINE __attribute__((noinline))
static inline __attribute__((always_inline)) void* inl(size_t n) { void* p = malloc(n); memset(p, 2, n); return p; }
NOINLINE void* outer(size_t n) { return inl(n); }
NOINLINE void* leaf_a(size_t n) { void* p = malloc(n); memset(p, 1, n); return p; }
NOINLINE void* rec(int d, size_t n) {
  if (d == 0) return leaf_a(n);
  void* p = rec(d - 1, n); __asm__ volatile("" ::: "memory"); return p;
}
"""


def record(tmp: Path, tool: str, program: str) -> Path:
    """Builds ``program`` (C) with ``gcc -g -O1`` in ``tmp``, runs it under
    ``valgrind --tool=TOOL`` and returns the file the tool wrote."""
    if not shutil.which("valgrind") or not shutil.which("gcc"):
        pytest.skip(f"needs valgrind and gcc (apt-get install valgrind gcc) to record a {tool} profile")
    (tmp / "prog.c").write_text(program)
    subprocess.run(["gcc", "-g", "-O1", "prog.c", "-o", "prog"], cwd=tmp, check=True, timeout=120)
    out = tmp / f"{tool}.out.1"
    cmd = ["valgrind", f"--tool={tool}", f"--{tool}-out-file={out}", "./prog"]
    subprocess.run(cmd, cwd=tmp, check=True, capture_output=True, timeout=300)
    return out


def heaptrack_record(tmp: Path, program: str) -> Path:
    """Builds ``program`` (C) and runs it under heaptrack (Debian package
    heaptrack); returns the data file it wrote."""
    if not shutil.which("heaptrack") or not shutil.which("gcc"):
        pytest.skip("needs heaptrack and gcc (apt-get install heaptrack gcc) to record a heaptrack profile")
    (tmp / "prog.c").write_text(program)
    subprocess.run(["gcc", "-g", "-O1", "prog.c", "-o", "prog"], cwd=tmp, check=True, timeout=120)
    subprocess.run(
        ["heaptrack", "-o", str(tmp / "ht"), "./prog"], cwd=tmp, check=True, capture_output=True, timeout=300
    )
    written = sorted(tmp.glob("ht.*"))
    if not written:
        pytest.skip("heaptrack wrote no data file here")
    return written[0]
