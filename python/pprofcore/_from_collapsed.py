"""Collapsed stacks read by :func:`pprofcore.load`: plain folded text
(``root;caller;leaf 12``, as stackcollapse and FlameGraph write it), py-spy's
``--format raw`` and austin's output with its ``# key: value`` header.

- Folded and py-spy ``raw``: each line is a sample of ``samples/count``. A
  frame written ``name (file:line)`` (py-spy) is split into function name,
  file and line; other frames are names only. py-spy's ``--threads`` and
  ``--subprocesses`` frames (``thread (0x...)``, ``process 12:"cmd"``) stay
  frames, as py-spy draws them; a line without frames (py-spy's `` 12`` for
  samples taken outside Python code) is a sample with an empty stack.
- FlameGraph's frame annotations (async-profiler's ``ann`` option,
  ``stackcollapse-perf.pl --all``): a frame ending in ``_[j]`` (JIT
  compiled), ``_[0]`` (interpreted), ``_[1]`` (C1 compiled) or ``_[k]``
  (kernel) is the function named without it; ``_[i]`` (inlined) makes the
  frame an inline line of its caller's location, so ``inline=False``
  reports fold it in as pprof does. The annotated text stays as the
  function's system name, so the kind is kept.
- austin: lines ``P<pid>;T<iid>:<tid>;file:function:line;... <metric>`` under
  a header naming the ``mode`` (``cpu``, ``wall``, ``memory`` or ``full``)
  and ``interval`` (microseconds). ``P``/``T`` become the labels ``pid``
  (numeric) and ``thread``; time metrics (microseconds) are
  ``cpu/nanoseconds`` or ``wall/nanoseconds``, memory ``memory/bytes``; full
  mode's ``time,alloc,dealloc`` triple gives three sample types. The
  ``duration`` footer (microseconds) is the profile's duration; every header
  line is kept as a comment.

The text has no timestamps, so samples have none. pprofutils' folded text
with a header line of sample types is read by :func:`pprofcore.from_folded`.
"""

from __future__ import annotations

import re
from typing import Dict, List, Optional, Tuple

from ._build import ProfileBuilder, input_error
from ._profile import Profile

FORMAT = "collapsed stacks"

_COUNT = re.compile(rb"^(.*?) (-?\d+(?:,-?\d+)*)\r?$")
_PYSPY_FRAME = re.compile(r"^(.*) \(([^()]*):(\d+)\)$")
_AUSTIN_FRAME = re.compile(r"^(.*):([^:]*):L?(\d+)$")
_AUSTIN_HEAD = re.compile(rb"^# (\w+): ?(.*?)\r?$")
# FlameGraph's colour annotations of a frame's kind (JIT, inlined, kernel,
# interpreted, C1), which async-profiler writes and reads back the same way.
_ANNOTATION = re.compile(r"_\[([jik01])\]$")
_INT64 = 1 << 63


def looks_collapsed(head: bytes) -> bool:
    """Whether the first lines are collapsed stacks: every line (at most 20,
    ``#`` comments aside) is ``frames count`` and at least one stack has a
    ``;`` (or the text opens with austin's header)."""
    lines = head.split(b"\n")
    if len(head) >= (64 << 10) and len(lines) > 1:
        lines = lines[:-1]  # cut by the window
    austin = head.startswith(b"# austin:")
    semicolon = False
    n = 0
    for line in lines:
        if not line.strip() or line.startswith(b"#"):
            continue
        m = _COUNT.match(line)
        if not m:
            return False
        if not m.group(1).strip():
            continue  # a sample without frames (py-spy writes " 12" for those)
        semicolon |= b";" in m.group(1)
        n += 1
        if n == 20:
            break
    return n > 0 and (semicolon or austin)


class FrameStacks:
    """Stacks of frame texts to location ids, with FlameGraph's annotations
    read (see the module docstring); shared with async-profiler's text."""

    def __init__(self, b: ProfileBuilder, austin: bool = False):
        self.b = b
        self.austin = austin
        self.cache: Dict[str, int] = {}
        # Annotated stacks: a frame's text -> (its line, its kind).
        self.lines: Dict[str, Tuple[Tuple[int, int, int], str]] = {}

    def stack(self, text: str) -> List[int]:
        """Location ids, leaf first, of a stack's ``;``-joined frames (root first)."""
        return self.of_frames(text.split(";") if text else [])

    def of_frames(self, parts: List[str]) -> List[int]:
        """Location ids, leaf first, of frame texts root first."""
        if self.austin or not any("_[" in x for x in parts):
            return [self.location(x) for x in reversed(parts)]
        return self.annotated(parts)

    def location(self, text: str) -> int:
        lid = self.cache.get(text)
        if lid is None:
            line, _ = self.line(text)
            lid = self.cache[text] = self.b.location_at((line,))
        return lid

    def line(self, text: str) -> Tuple[Tuple[int, int, int], str]:
        got = self.lines.get(text)
        if got is None:
            name, kind, system_name = text, "", None
            a = None if self.austin else _ANNOTATION.search(text)
            if a is not None:
                name, kind, system_name = text[: a.start()], a.group(1), text
            m = (_AUSTIN_FRAME if self.austin else _PYSPY_FRAME).match(name)
            if m is None:
                fn, file, ln = name, "", 0
            elif self.austin:
                fn, file, ln = m.group(2), m.group(1), int(m.group(3))
            else:
                fn, file, ln = m.group(1), m.group(2), int(m.group(3))
            got = self.lines[text] = ((self.b.frame_function(fn, file, system_name), max(ln, 0), 0), kind)
        return got

    def annotated(self, parts: List[str]) -> List[int]:
        # An inlined frame joins its caller's location (innermost line first).
        groups: List[List[Tuple[int, int, int]]] = []
        for text in parts:
            line, kind = self.line(text)
            if kind == "i" and groups:
                groups[-1].insert(0, line)
            else:
                groups.append([line])
        return [self.b.location_at(tuple(g)) for g in reversed(groups)]


def _austin_types(meta: Dict[str, str], width: int, lineno: int) -> List[Tuple[str, str]]:
    mode = meta.get("mode", "wall")
    time = ("cpu" if mode == "cpu" else "wall", "microseconds")
    if width == 1:
        return [("memory", "bytes")] if mode == "memory" else [time]
    if width == 3:
        return [time, ("alloc", "bytes"), ("dealloc", "bytes")]
    if width == 2:
        return [time, ("memory", "bytes")]
    raise input_error(FORMAT, f"austin sample with {width} metrics (expected 1, 2 or 3)", lineno, "line")


def read_collapsed_bytes(data: bytes) -> Profile:
    """Build a Profile from collapsed-stack text (see the module docstring)."""
    meta: Dict[str, str] = {}
    lines = data.split(b"\n")
    austin = data.startswith(b"# austin:")
    rows = []
    width: Optional[int] = None
    for lineno, raw in enumerate(lines, 1):
        if raw.startswith(b"#"):
            m = _AUSTIN_HEAD.match(raw)
            if m and austin:
                meta[m.group(1).decode("ascii")] = m.group(2).decode("utf-8", "replace")
            continue
        if not raw.strip():
            continue
        m = _COUNT.match(raw)
        if not m:
            excerpt = raw[:60].decode("utf-8", "backslashreplace")
            raise input_error(FORMAT, f"expected 'frame;frame;... count', got {excerpt!r}", lineno, "line")
        values = [int(v) for v in m.group(2).split(b",")]
        if any(not -_INT64 <= v < _INT64 for v in values):
            raise input_error(FORMAT, "value outside the int64 range of profile values", lineno, "line")
        if width is None:
            width = len(values)
        elif len(values) != width:
            raise input_error(FORMAT, f"{len(values)} values where earlier lines have {width}", lineno, "line")
        rows.append((lineno, m.group(1).decode("utf-8", "surrogateescape"), values))
    if austin:
        types = _austin_types(meta, width or 1, 1)
    elif width == 1 or width is None:
        types = [("samples", "count")]
    else:
        types = [(f"value{i}", "count") for i in range(width)]
    # austin measures time in microseconds; pprof's unit is nanoseconds.
    scale = [1000 if u == "microseconds" else 1 for _, u in types]
    types = [(t, "nanoseconds" if u == "microseconds" else u) for t, u in types]
    b = ProfileBuilder(types)
    frame = FrameStacks(b, austin)
    for lineno, stack, values in rows:
        str_labels: List[Tuple[str, str]] = []
        num_labels: List[Tuple] = []
        if austin:
            parts = stack.split(";") if stack else []
            if parts and parts[0].startswith("P") and parts[0][1:].isdigit():
                num_labels.append(("pid", int(parts[0][1:]), ""))
                parts = parts[1:]
            if parts and parts[0].startswith("T"):
                str_labels.append(("thread", parts[0][1:]))
                parts = parts[1:]
            stack = ";".join(parts)
        ids = frame.stack(stack)
        b.add(ids, [v * s for v, s in zip(values, scale)], str_labels, num_labels)
    if austin:
        interval = meta.get("interval", "")
        if interval.isdigit():
            b.period = int(interval) * 1000
            b.period_type = types[0] if types[0][1] == "nanoseconds" else None
        duration = meta.get("duration", "")
        if duration.isdigit():
            b.duration_nanos = int(duration) * 1000  # microseconds, as the interval
        b.comments += [f"austin {k}: {v}" for k, v in meta.items()]
    return b.build()
