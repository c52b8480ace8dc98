"""memray capture files (Python's memory profiler, ``memray run -o
out.bin``) to a profile, through memray's own reader.

The capture is memray's binary record stream (lz4-compressed unless
``--no-compress``), whose layout changes between memray releases; memray's
``FileReader`` reads it and aggregates the allocations in C++. So, as
``perf.data`` goes through ``perf script``, a capture goes through the
installed ``memray`` package (``pip install memray``; without it the input is
refused naming the package).

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

import os
import tempfile
from datetime import datetime, timezone
from typing import Dict, List, Tuple

from ._build import NO_SYSTEM_NAME, ProfileBuilder, input_error
from ._profile import Profile

FORMAT = "memray capture"
_LZ4 = b"\x04\x22\x4d\x18"  # an lz4 frame: memray compresses its captures by default
_MAGIC = b"memray\0"


def looks_like_memray(head: bytes) -> bool:
    """A capture: memray's magic at the start, or within the first literals
    of an lz4 frame."""
    return head.startswith(_MAGIC) or (head.startswith(_LZ4) and _MAGIC in head[:32])


def _nanoseconds(when: datetime) -> int:
    """A datetime (UTC when naive) in integer nanoseconds since the epoch,
    without a float's rounding."""
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    since = when - datetime(1970, 1, 1, tzinfo=timezone.utc)
    return (since.days * 86400 + since.seconds) * 10**9 + since.microseconds * 1000


def _memray():
    try:
        import memray
    except ImportError as e:
        raise input_error(
            FORMAT,
            "reading a memray capture needs the memray package, which is not installed (pip install memray); "
            "where it is, `memray transform` or `memray flamegraph` read the file",
        ) from e
    return memray


def _samples(b: ProfileBuilder, memray, reader, native: bool) -> Dict[Tuple, List[int]]:
    """The four values of each (stack, thread, allocator): at the high-water
    mark, and leaked."""
    names = {a.value: a.name.lower() for a in memray.AllocatorType}
    frames: Dict[Tuple, int] = {}
    rows: Dict[Tuple, List[int]] = {}
    peak = reader.get_high_watermark_allocation_records(merge_threads=False)
    leaked = reader.get_leaked_allocation_records(merge_threads=False)
    for column, records in ((0, peak), (2, leaked)):
        for r in records:
            ids = []
            for frame in r.hybrid_stack_trace() if native else r.stack_trace():
                lid = frames.get(frame)
                if lid is None:
                    function, filename, line = frame[0], frame[1], frame[2]
                    python = filename.endswith((".py", ".pyw")) or filename.startswith("<frozen")
                    system_name = NO_SYSTEM_NAME if python else None
                    lid = frames[frame] = b.frame(function, filename, line, system_name=system_name)
                ids.append(lid)
            key = (tuple(ids), r.thread_name or str(r.tid), names.get(r.allocator, str(r.allocator)))
            values = rows.setdefault(key, [0, 0, 0, 0])
            values[column] += r.n_allocations
            values[column + 1] += r.size
    return rows


def read_memray_bytes(data: bytes) -> Profile:
    """Read a memray capture (see the module docstring)."""
    memray = _memray()
    b = ProfileBuilder(
        [("inuse_objects", "count"), ("inuse_space", "bytes"), ("leaked_objects", "count"), ("leaked_space", "bytes")]
    )
    b.default_sample_type = "inuse_space"
    with tempfile.TemporaryDirectory(prefix="pprofcore-memray-") as tmp:
        path = os.path.join(tmp, "capture.bin")
        with open(path, "wb") as f:
            f.write(data)
        try:
            reader = memray.FileReader(path, report_progress=False)
            try:
                meta = reader.metadata
                native = bool(meta.has_native_traces)
                rows = _samples(b, memray, reader, native)
            finally:
                reader.close()
        except (OSError, RuntimeError, ValueError) as e:  # UnicodeDecodeError too: damaged names
            raise input_error(FORMAT, f"memray {memray.__version__} could not read it: {e}") from e
    for (ids, thread, allocator), values in rows.items():
        b.add(list(ids), values, [("thread", thread), ("allocator", allocator)])
    b.time_nanos = _nanoseconds(meta.start_time)
    b.duration_nanos = max(_nanoseconds(meta.end_time) - b.time_nanos, 0)
    b.comments += [
        f"memray capture of pid {meta.pid}: {meta.command_line}",
        f"memray: peak memory {meta.peak_memory} bytes, {meta.total_allocations} allocations, "
        f"python allocator {meta.python_allocator}, native traces {'yes' if native else 'no'}",
    ]
    return b.build()
