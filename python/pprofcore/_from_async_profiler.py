"""async-profiler's text output read by :func:`pprofcore.load`: what
``asprof`` prints when no other format is asked for (``-o text``, or
``summary,traces,flat``)::

    --- Execution profile ---
    Total samples       : 733
    GC_active           : 8 (0.01%)

    --- 8208 bytes (19.58%), 1 sample
      [ 0] byte[]
      [ 1] java.util.jar.Manifest$FastInputStream.<init>

              ns  percent  samples  top
      ----------  -------  -------  ---
      2213410000   34.49%     2213  java.lang.Integer.valueOf

- Each ``--- <value> <unit> (<share>%), <n> samples`` block is one sample
  with its frames, leaf first (``[ 0]``). Sample types ``samples/count`` and
  the value by its unit: ``ns`` is ``<event>/nanoseconds``, where the event
  is the one a ``Started [cpu] profiling`` line names (else ``time``),
  ``bytes`` is ``space/bytes``, any other unit ``<unit>/count``.
- Frames keep FlameGraph's annotations as the collapsed reader does
  (``_[k]``, ``_[j]``, ``_[i]`` inlined into the caller).
- Without traces (``-o flat``) each row of the flat table is a sample with
  one frame, its self value.
- The first comment names the format (and the event); the summary lines
  (``Total samples``, ``GC_active``, ...) are kept as comments, and when
  the traces shown hold fewer samples than the total (``traces=N`` prints
  the N largest), a comment says how many.
"""

from __future__ import annotations

import re
from typing import List, Optional, Tuple

from ._build import ProfileBuilder, input_error
from ._from_collapsed import FrameStacks
from ._profile import Profile

FORMAT = "async-profiler text"

_TITLE = re.compile(rb"^--- Execution profile ---\s*$", re.M)
_TRACE = re.compile(r"^--- (\d+) (\S+) \((-?[\d.,]+)%\), (\d+) samples?\s*$")
_FRAME = re.compile(r"^\s*\[\s*(\d+)\] (.*?)\s*$")
_SUMMARY = re.compile(r"^([A-Za-z_][\w ]*?)\s*:\s*(.*?)\s*$")
_FLAT_HEAD = re.compile(r"^\s*(\S+)\s+percent\s+samples\s+top\s*$")
_FLAT_ROW = re.compile(r"^\s*(\d+)\s+(-?[\d.,]+)%\s+(\d+)\s+(.*?)\s*$")
_DASHES = re.compile(r"^[\s-]+$")
_STARTED = re.compile(r"^Started \[([\w.:-]+)\] profiling", re.M)
_INT64 = (1 << 63) - 1


def looks_like_async_profiler(head: bytes) -> bool:
    """Whether ``head`` holds the ``--- Execution profile ---`` title within
    its first lines (``asprof`` may print a few lines before it)."""
    m = _TITLE.search(head[:4096])
    return m is not None and head.count(b"\n", 0, m.start()) < 20


def _value_type(unit: str, event: str) -> Tuple[str, str]:
    if unit == "ns":
        return (event or "time", "nanoseconds")
    if unit == "bytes":
        return ("space", "bytes")
    return (unit, "count")


def _number(text: str, lineno: int) -> int:
    v = int(text)
    if v > _INT64:
        raise input_error(FORMAT, "a value does not fit in 64 bits", lineno, "line")
    return v


def read_async_profiler_bytes(data: bytes) -> Profile:
    """Build a Profile from async-profiler's text output (see the module docstring)."""
    text = data.decode("utf-8", "surrogateescape")
    lines = text.split("\n")
    started = _STARTED.search(text[:4096])
    event = started.group(1) if started else ""
    comments: List[str] = []
    traces: List[Tuple[int, int, List[str]]] = []  # (value, samples, frames leaf first)
    flat: List[Tuple[int, int, str]] = []
    unit: Optional[str] = None
    flat_unit: Optional[str] = None
    current: Optional[List[str]] = None
    section = "head"
    title_seen = False
    title_line = 0
    total = 0  # the summary's "Total samples"
    for lineno, raw in enumerate(lines, 1):
        line = raw.rstrip("\r")
        if not line.strip():
            current = None
            continue
        if not title_seen:
            title_seen = line.strip() == "--- Execution profile ---"
            title_line = lineno
            continue
        m = _TRACE.match(line)
        if m:
            if unit is not None and m.group(2) != unit:
                raise input_error(FORMAT, f"a trace in {m.group(2)!r} after traces in {unit!r}", lineno, "line")
            unit = m.group(2)
            current = []
            traces.append((_number(m.group(1), lineno), _number(m.group(4), lineno), current))
            section = "traces"
            continue
        m = _FRAME.match(line)
        if m and current is not None:
            if int(m.group(1)) != len(current):
                raise input_error(FORMAT, f"frame [{m.group(1)}] where [{len(current)}] belongs", lineno, "line")
            current.append(m.group(2))
            continue
        m = _FLAT_HEAD.match(line)
        if m:
            flat_unit, section = m.group(1), "flat"
            continue
        if section == "flat":
            if _DASHES.match(line):
                continue  # under the flat table's heading
            m = _FLAT_ROW.match(line)
            if m:
                flat.append((_number(m.group(1), lineno), _number(m.group(3), lineno), m.group(4)))
                continue
        if section == "head":
            m = _SUMMARY.match(line)
            if m:
                comments.append(f"{m.group(1)}: {m.group(2)}")
                if m.group(1) == "Total samples" and m.group(2).isdigit():
                    total = int(m.group(2))
                continue
        excerpt = line[:60]
        raise input_error(FORMAT, f"expected a trace, frame or flat row, got {excerpt!r}", lineno, "line")
    if not title_seen:
        raise input_error(FORMAT, "no '--- Execution profile ---' title")
    if not traces and not flat:
        raise input_error(FORMAT, "no traces and no flat rows after the title", title_line, "line")
    b = ProfileBuilder([("samples", "count"), _value_type(unit or flat_unit or "", event)])
    frames = FrameStacks(b)
    if traces:
        for value, n, leaf_first in traces:
            b.add(frames.of_frames(leaf_first[::-1]), [n, value])
    else:
        for value, n, name in flat:
            b.add(frames.of_frames([name]), [n, value])
    shown = sum(n for _, n, _ in traces) if traces else sum(n for _, n, _ in flat)
    if total > shown:
        comments.append(f"async-profiler printed {shown} of the {total} samples (its traces=N or flat=N limit)")
    comments.insert(0, "async-profiler text output" + (f", event {event}" if event else ""))
    b.comments += comments
    return b.build()
