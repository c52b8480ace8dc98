"""memray capture files (Python's memory profiler, ``memray run -o
out.bin``) to a profile, through memray's own reader.

The capture is memray's binary record stream (lz4-compressed unless
``--no-compress``), whose layout changes between memray releases; memray's
``FileReader`` reads it and aggregates the allocations in C++. So, as
``perf.data`` goes through ``perf script``, a capture goes through the
installed ``memray`` package (``pip install memray``; without it the input is
refused naming the package), in a child interpreter: memray's reader can
crash on a damaged capture, which then is a DecodeError, not the end of the
caller's process.

- Samples: one per allocation stack, thread and allocator, with
  ``inuse_objects/count`` and ``inuse_space/bytes`` (what was alive at the
  high-water mark: memray's default flame graph; the default type), then
  ``leaked_objects/count`` and ``leaked_space/bytes`` (what was never freed:
  ``memray flamegraph --leaks``), 0 where a stack has none of one kind.
- Stacks: memray's Python frames (function, file, line), leaf first; with
  ``--native`` captures, its hybrid stacks of Python and native frames.
- Labels: ``thread`` (memray's thread name, or its thread number) and
  ``allocator`` (``malloc``, ``pymalloc_malloc``, ``mmap``, ...).
- The start time and duration are the capture's; the command line, pid,
  peak memory and allocation count are comments.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from datetime import datetime
from typing import Dict, List, Tuple

from ._build import ProfileBuilder, input_error
from ._profile import Profile
from ._timestamps import to_nanoseconds

FORMAT = "memray capture"
_LZ4 = b"\x04\x22\x4d\x18"  # an lz4 frame: memray compresses its captures by default
_MAGIC = b"memray\0"


def looks_like_memray(head: bytes) -> bool:
    """A capture: memray's magic at the start, or within the first literals
    of an lz4 frame."""
    return head.startswith(_MAGIC) or (head.startswith(_LZ4) and _MAGIC in head[:32])


# Run in a child interpreter: memray's C++ reader can crash (SIGSEGV, abort)
# on a damaged capture, which must not take the caller's process with it.
# It prints, as JSON, the metadata and each record of the high-water mark
# (column 0) and of the leaks (column 2).
_CHILD = r"""
import json, sys
import memray
names = {a.value: a.name.lower() for a in memray.AllocatorType}
r = memray.FileReader(sys.argv[1], report_progress=False)
m = r.metadata
native = bool(m.has_native_traces)
records = []
for column, it in ((0, r.get_high_watermark_allocation_records(merge_threads=False)),
                   (2, r.get_leaked_allocation_records(merge_threads=False))):
    for a in it:
        stack = a.hybrid_stack_trace() if native else a.stack_trace()
        records.append([column, [list(f[:3]) for f in stack], a.thread_name or str(a.tid),
                        names.get(a.allocator, str(a.allocator)), a.n_allocations, a.size])
json.dump({"start": m.start_time.isoformat(), "end": m.end_time.isoformat(), "pid": m.pid,
           "command": m.command_line, "peak": m.peak_memory, "allocations": m.total_allocations,
           "python_allocator": str(m.python_allocator), "native": native, "records": records}, sys.stdout)
"""


def _memray_installed() -> None:
    if sys.modules.get("memray", ...) is None or (
        "memray" not in sys.modules and importlib.util.find_spec("memray") is None
    ):
        raise input_error(
            FORMAT,
            "reading a memray capture needs the memray package, which is not installed (pip install memray); "
            "where it is, `memray transform` or `memray flamegraph` read the file",
        )


def _read_in_child(data: bytes) -> dict:
    with tempfile.TemporaryDirectory(prefix="pprofcore-memray-") as tmp:
        path = os.path.join(tmp, "capture.bin")
        with open(path, "wb") as f:
            f.write(data)
        r = subprocess.run(
            [sys.executable, "-c", _CHILD, path], capture_output=True, stdin=subprocess.DEVNULL, check=False
        )
    if r.returncode != 0:
        lines = r.stderr.decode("utf-8", "replace").strip().splitlines()
        why = lines[-1] if lines else "it said nothing"
        how = f"crashed (signal {-r.returncode})" if r.returncode < 0 else f"failed (exit {r.returncode})"
        raise input_error(FORMAT, f"memray's reader {how} on it, a damaged capture: {why}")
    return json.loads(r.stdout)


def read_memray_bytes(data: bytes) -> Profile:
    """Read a memray capture (see the module docstring)."""
    _memray_installed()
    got = _read_in_child(data)
    b = ProfileBuilder(
        [("inuse_objects", "count"), ("inuse_space", "bytes"), ("leaked_objects", "count"), ("leaked_space", "bytes")]
    )
    b.default_sample_type = "inuse_space"
    rows: Dict[Tuple, List[int]] = {}
    for column, stack, thread, allocator, n, size in got["records"]:
        # Python frames get no system name (ProfileBuilder.frame, by their file).
        ids = tuple(b.frame(function, filename, line) for function, filename, line in stack)
        values = rows.setdefault((ids, thread, allocator), [0, 0, 0, 0])
        values[column] += n
        values[column + 1] += size
    for (ids, thread, allocator), values in rows.items():
        b.add(list(ids), values, [("thread", thread), ("allocator", allocator)])
    # A datetime in, so never None out.
    start, end = (to_nanoseconds(datetime.fromisoformat(got[k])) or 0 for k in ("start", "end"))
    b.time_nanos = start
    b.duration_nanos = max(end - start, 0)
    b.comments += [
        f"memray capture of pid {got['pid']}: {got['command']}",
        f"memray: peak memory {got['peak']} bytes, {got['allocations']} allocations, "
        f"python allocator {got['python_allocator']}, native traces {'yes' if got['native'] else 'no'}",
    ]
    return b.build()
