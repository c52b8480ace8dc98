"""Scalene's JSON (``scalene run -o profile.json prog.py``, the file its
browser and terminal views read) to a profile.

Scalene profiles Python lines and records the Python stacks it sampled:
``stacks`` is a list of ``[frames, stats]``, each frame the text
``"file function:line;"`` (outermost first) and the stats the stack's
sample ``count`` and its ``python_time`` and ``c_time`` in seconds (time in
Python code and in native code it called). ``memory_stacks`` is a list of
``[frames, megabytes]`` where frames are objects (``display_name``,
``filename_or_module``, ``line``). Each stack becomes one sample:

- ``samples/count`` (its count), ``cpu/nanoseconds`` (Python plus native),
  ``python_cpu/nanoseconds`` and ``native_cpu/nanoseconds`` (Scalene's split,
  so ``-sample_index=native_cpu`` shows where native code ran);
- memory stacks: ``alloc_space/bytes`` (Scalene's megabytes, of 2^20 bytes).

The per-line tables under ``files`` (percentages of the run by line) carry
no stacks and are not read; ``elapsed_time_sec`` becomes the duration and
``start_time_absolute`` the profile's time.
"""

from __future__ import annotations

import math
import re
from typing import List

from ._build import NO_SYSTEM_NAME, ProfileBuilder, input_error, json_document
from ._profile import Profile

FORMAT = "Scalene JSON"
_FRAME = re.compile(r"(.*) (\S+):(\d+);?\Z", re.S)
_MB = 1 << 20
_TYPES = [("samples", "count"), ("cpu", "nanoseconds"), ("python_cpu", "nanoseconds"), ("native_cpu", "nanoseconds")]


def looks_like_scalene(head: bytes) -> bool:
    """A JSON object with Scalene's first keys (its output is sorted by key:
    ``alloc_samples``, ``args``, ...) and its stacks or elapsed time."""
    if head.lstrip()[:1] != b"{" or b'"alloc_samples"' not in head:
        return False
    return any(k in head for k in (b'"combined_stacks"', b'"elapsed_time_sec"', b'"stacks"', b'"max_footprint_mb"'))


def _amount(v, where: str) -> float:
    """A count, seconds or megabytes: a finite number of at least 0 (and
    small enough to stay within int64 once in nanoseconds or bytes)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or not 0 <= v < 9e9:
        raise input_error(FORMAT, f"{where} = {v!r:.40} is not a non-negative number (below 9e9)")
    return float(v)


def read_scalene(doc) -> Profile:
    """Build a Profile from a parsed Scalene JSON document (a dict)."""
    if not isinstance(doc, dict):
        raise input_error(FORMAT, "the document is not a JSON object")
    stacks = doc.get("stacks") or []
    memory = doc.get("memory_stacks") or []
    if not isinstance(stacks, list) or not isinstance(memory, list):
        raise input_error(FORMAT, "'stacks' and 'memory_stacks' must be lists")
    types = list(_TYPES) + ([("alloc_space", "bytes")] if memory else [])
    b = ProfileBuilder(types)
    b.default_sample_type = "cpu"
    for i, entry in enumerate(stacks):
        where = f"stacks[{i}]"
        if not isinstance(entry, list) or len(entry) != 2 or not isinstance(entry[0], list):
            raise input_error(FORMAT, f"{where} is not a [frames, stats] pair")
        names, stats = entry
        if isinstance(stats, (int, float)) and not isinstance(stats, bool):
            stats = {"count": stats}  # a bare sample count, as older releases wrote
        if not isinstance(stats, dict):
            raise input_error(FORMAT, f"{where}[1] is not an object of stats")
        ids: List[int] = []
        for k, text in enumerate(names):
            m = _FRAME.match(text) if isinstance(text, str) else None
            if m is None:
                raise input_error(FORMAT, f"{where}[0][{k}] = {text!r:.60} is not a frame 'file function:line'")
            ids.append(b.frame(m.group(2), m.group(1), int(m.group(3)), system_name=NO_SYSTEM_NAME))
        count = _amount(stats.get("count", 0), f"{where}.count")
        python = _amount(stats.get("python_time", 0), f"{where}.python_time")
        native = _amount(stats.get("c_time", 0), f"{where}.c_time")
        ns = [round(python * 1e9), round(native * 1e9)]
        values = [round(count), ns[0] + ns[1], ns[0], ns[1]] + ([0] if memory else [])
        b.add(ids[::-1], values)
    for i, entry in enumerate(memory):
        where = f"memory_stacks[{i}]"
        if not isinstance(entry, list) or len(entry) != 2 or not isinstance(entry[0], list):
            raise input_error(FORMAT, f"{where} is not a [frames, megabytes] pair")
        ids = []
        for k, f in enumerate(entry[0]):
            if not isinstance(f, dict):
                raise input_error(FORMAT, f"{where}[0][{k}] is not a frame object")
            line = f.get("line") or 0
            if isinstance(line, bool) or not isinstance(line, int) or line < 0:
                raise input_error(FORMAT, f"{where}[0][{k}].line = {line!r:.40} is not a line number")
            name, file = str(f.get("display_name") or "?"), str(f.get("filename_or_module") or "")
            ids.append(b.frame(name, file, line, system_name=NO_SYSTEM_NAME))
        mb = _amount(entry[1], f"{where}[1]")
        b.add(ids[::-1], [0, 0, 0, 0, round(mb * _MB)])
    if doc.get("elapsed_time_sec") is not None:
        b.duration_nanos = round(_amount(doc["elapsed_time_sec"], "elapsed_time_sec") * 1e9)
    if doc.get("start_time_absolute") is not None:
        start = doc["start_time_absolute"]
        if (
            isinstance(start, (int, float))
            and not isinstance(start, bool)
            and math.isfinite(start)
            and 0 <= start < 9e9
        ):
            b.time_nanos = round(start * 1e9)
    program = doc.get("program")
    b.comments.append("Scalene profile" + (f" of {program}" if program else ""))
    return b.build()


def read_scalene_bytes(data: bytes) -> Profile:
    """Parse Scalene JSON bytes; bad JSON raises a :class:`DecodeError`
    naming the byte offset."""
    return read_scalene(json_document(FORMAT, data))
