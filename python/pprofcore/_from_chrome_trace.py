"""Chrome traces (the Trace Event JSON of chrome://tracing, Perfetto's JSON
export, DevTools' saved Performance recordings and ``node
--trace-events-enabled``) to a profile: the V8 CPU profiles they hold.

V8's sampler writes a ``Profile`` event (``ph: "P"``, its ``startTime``) then
``ProfileChunk`` events with the same ``pid`` and ``id``, each adding
``cpuProfile.nodes`` (naming their ``parent``), ``cpuProfile.samples`` and
``timeDeltas`` to that profile. Each profile is read as its ``.cpuprofile``
form would be (``_from_cpuprofile``), and all of them go into one profile
whose samples say where they came from: ``pid`` and ``tid`` (the thread the
``Profile`` event names, the one sampled, not V8's event thread that wrote
the chunks) and the ``thread`` and ``process`` names of the trace's
``thread_name``/``process_name`` metadata events.

A trace without CPU profile chunks but with spans (complete ``X`` events,
``B``/``E`` pairs: clang's ``-ftime-trace``, viztracer, Bazel's
``--profile``, Perfetto exports, pprofcore's own ``to_chrome_trace``) is read
as a wall-time profile of its spans: on each thread, every stretch of time
with spans open becomes a sample of the open spans (outermost first) lasting
that stretch, so a span's self time is what its children leave, as the
viewers' flame charts draw it. Counters and instants are not samples; a trace
with neither profile chunks nor spans is refused naming the category to
record.
"""

from __future__ import annotations

import re
from typing import Dict, List, Optional, Tuple

import numpy as np

from ._build import TIMESTAMP, ProfileBuilder, input_error, json_document
from ._from_cpuprofile import add_cpuprofile, v8_int
from ._profile import Profile

FORMAT = "Chrome trace"
CATEGORY = "disabled-by-default-v8.cpu_profiler"


def looks_like_chrome_trace(head: bytes) -> bool:
    """Whether the start of a JSON document is a Chrome trace: the object
    form names ``traceEvents``; the array form's first events have a phase
    (``"ph"``) and a process or a timestamp."""
    text = head.lstrip()
    if text[:1] == b"{":
        return b'"traceEvents"' in head
    if text[:1] == b"[":
        start = text[:4096]
        return b'"ph"' in start and (b'"ts"' in start or b'"pid"' in start)
    return False


def _events(doc) -> list:
    events = doc.get("traceEvents") if isinstance(doc, dict) else doc
    if not isinstance(events, list):
        raise input_error(FORMAT, "'traceEvents' must be a list of events")
    return events


def _int(event: dict, key: str, where: str) -> int:
    v = event.get(key, 0)
    if isinstance(v, str) and v.lstrip("-").isdigit():  # some writers quote pids and tids
        v = int(v)
    return v8_int({key: v}, key, where, fmt=FORMAT)


def _profile_id(event: dict, where: str):
    """The ``id`` that ties a Profile event to its chunks: a string or a
    number as V8 writes it (``"0x1"``), or absent."""
    v = event.get("id")
    if v is not None and (isinstance(v, bool) or not isinstance(v, (str, int, float))):
        raise input_error(FORMAT, f"{where}: 'id' must be a string or a number")
    return v


def _args_data(event: dict, where: str) -> dict:
    """The event's ``args.data`` object (empty when absent)."""
    args = event.get("args") or {}
    if not isinstance(args, dict):
        raise input_error(FORMAT, f"{where}: 'args' must be an object")
    data = args.get("data") or {}
    if not isinstance(data, dict):
        raise input_error(FORMAT, f"{where}: 'args.data' must be an object")
    return data


class _V8Profile:
    """One profile's pieces in trace order: its header and its chunks."""

    def __init__(self, pid: int, tid: int, start: int, where: str):
        self.pid, self.tid, self.start, self.where = pid, tid, start, where
        self.nodes: List[dict] = []
        self.samples: List[int] = []
        self.deltas: List[int] = []
        self.end: Optional[int] = None

    def add_chunk(self, data: dict, where: str) -> None:
        cpu = data.get("cpuProfile") or {}
        if not isinstance(cpu, dict):
            raise input_error(FORMAT, f"{where}: 'cpuProfile' must be an object")
        nodes, samples, deltas = cpu.get("nodes") or [], cpu.get("samples") or [], data.get("timeDeltas") or []
        if not all(isinstance(x, list) for x in (nodes, samples, deltas)):
            raise input_error(FORMAT, f"{where}: 'nodes', 'samples' and 'timeDeltas' must be lists")
        if deltas and len(deltas) != len(samples):
            raise input_error(FORMAT, f"{where}: {len(samples)} samples but {len(deltas)} timeDeltas")
        self.nodes += nodes
        self.samples += samples
        self.deltas += deltas if deltas else [0] * len(samples)
        if "endTime" in data:
            self.end = v8_int(data, "endTime", where, fmt=FORMAT)

    def document(self) -> dict:
        doc = {"nodes": self.nodes, "samples": self.samples, "timeDeltas": self.deltas, "startTime": self.start}
        if self.end is not None:
            doc["endTime"] = self.end
        return doc


def read_chrome_trace(doc) -> Profile:
    """Build a Profile from a parsed Chrome trace (object or array form)."""
    events = _events(doc)
    names: Dict[Tuple[str, int, int], str] = {}  # ("thread"|"process", pid, tid) -> name
    profiles: Dict[Tuple[int, object], _V8Profile] = {}
    chunks: List[Tuple[int, int, dict, str]] = []  # (ts, order, event, where) of ProfileChunk events
    spans: List[Tuple[int, dict, str]] = []  # (order, event, where) of X, B and E events
    for i, e in enumerate(events):
        if not isinstance(e, dict):
            continue  # the array form may end in a stray value; nothing here needs it
        name = e.get("name")
        where = f"traceEvents[{i}]"
        if e.get("ph") == "M" and name in ("thread_name", "process_name"):
            args = e.get("args") or {}
            if isinstance(args, dict) and isinstance(args.get("name"), str):
                kind = "thread" if name == "thread_name" else "process"
                names[(kind, _int(e, "pid", where), _int(e, "tid", where) if kind == "thread" else 0)] = args["name"]
        elif name == "Profile" and e.get("ph") == "P":
            data = _args_data(e, where)
            pid = _int(e, "pid", where)
            start = v8_int(data, "startTime", where, _int(e, "ts", where), FORMAT)
            profiles[(pid, _profile_id(e, where))] = _V8Profile(pid, _int(e, "tid", where), start, where)
        elif name == "ProfileChunk":
            chunks.append((_int(e, "ts", where), i, e, where))
        elif e.get("ph") in ("X", "B", "E"):
            spans.append((i, e, where))
    if not chunks and spans:
        return _read_spans(spans, names)
    if not chunks:
        raise input_error(
            FORMAT,
            f"the trace holds no V8 CPU profile (no ProfileChunk events) and no spans (X, B or E events): "
            f"record it with the {CATEGORY!r} category (DevTools' Performance panel does), or save a .cpuprofile",
        )
    for _, _, e, where in sorted(chunks, key=lambda c: (c[0], c[1])):
        key = (_int(e, "pid", where), _profile_id(e, where))
        p = profiles.get(key)
        if p is None:  # a chunk whose Profile event the trace lost: its own event names the process
            p = profiles[key] = _V8Profile(key[0], _int(e, "tid", where), _int(e, "ts", where), where)
        p.add_chunk(_args_data(e, where), where)

    b = ProfileBuilder([("samples", "count"), ("wall", "nanoseconds")])
    b.period_type = ("wall", "nanoseconds")
    first, last, ticks, span, sampled = None, None, 0, 0, 0
    for (pid, pid_id), p in profiles.items():
        if not p.samples:
            continue
        strs = [
            ("thread", b.string(names.get(("thread", pid, p.tid), ""))),
            ("process", b.string(names.get(("process", pid, 0), ""))),
        ]
        nums = [("pid", pid, ""), ("tid", p.tid, "")]
        start, end, times = add_cpuprofile(
            b, p.document(), FORMAT, f"profile {pid_id} of pid {pid} (from {p.where}): ", strs, nums
        )
        if len(times):
            sampled += 1
            ticks += len(times)
            span += int(times[-1] - times[0])
            first = start if first is None else min(first, start)
            last = max(end, int(times[-1])) if last is None else max(last, end, int(times[-1]))
    if ticks > 1:
        b.period = max(span * 1000 // max(ticks - sampled, 1), 0)  # the mean tick interval
    if first is not None and last is not None:
        b.duration_nanos = max(last - first, 0) * 1000
    return b.build()


def _micros(event: dict, key: str, where: str) -> int:
    """``event[key]`` (the format's microseconds, possibly fractional) in nanoseconds."""
    v = event.get(key, 0)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not (-(2**53) < v < 2**53):
        raise input_error(FORMAT, f"{where}: {key!r} must be a number of microseconds, not {v!r:.40}")
    return int(round(v * 1000))


# viztracer names a Python function's span "name (path:line)".
_WHERE = re.compile(r"^(.+) \(([^()]+):(\d+)\)$")


def _span_frame(e: dict) -> Tuple[str, str, int]:
    """(function, file, line) of a span: viztracer's ``name (path:line)``
    split, clang's ``args.detail`` (the file or entity) shown after the name."""
    name = str(e.get("name") or "(unnamed)")
    where = _WHERE.match(name)
    if where:
        return where.group(1), where.group(2), int(where.group(3))
    args = e.get("args")
    detail = args.get("detail") if isinstance(args, dict) else None
    return (f"{name} ({detail})" if isinstance(detail, str) and detail else name), "", 0


def _read_spans(spans: List[Tuple[int, dict, str]], names: Dict[Tuple[str, int, int], str]) -> Profile:
    """The wall-time profile of a trace's spans (module docstring)."""
    b = ProfileBuilder([("wall", "nanoseconds")])
    b.period_type = ("wall", "nanoseconds")
    # Per thread, the span boundaries: (time, 0 = close / 1 = open, order key, span).
    lanes: Dict[Tuple[int, int], List[tuple]] = {}
    for i, e, where in spans:
        lane = lanes.setdefault((_int(e, "pid", where), _int(e, "tid", where)), [])
        ts, ph = _micros(e, "ts", where), e["ph"]
        if ph == "X":
            dur = max(_micros(e, "dur", where), 0)
            lane.append((ts, 1, -dur, i, "X", _span_frame(e)))  # the longest of spans opening together is outermost
            lane.append((ts + dur, 0, dur, i, "X", None))  # the shortest of those closing together closes first
        else:
            lane.append((ts, 1 if ph == "B" else 0, 0, i, ph, _span_frame(e) if ph == "B" else None))
    first: Optional[int] = None
    last: Optional[int] = None
    for (pid, tid), boundaries in lanes.items():
        boundaries.sort(key=lambda x: (x[0], x[1], x[2], x[3]))
        thread = b.string(names.get(("thread", pid, tid), ""))
        process = b.string(names.get(("process", pid, 0), ""))
        open_: List[Tuple[str, int]] = []  # (kind, order) of the open spans, outermost first
        frames: List[int] = []  # their locations
        stacks: Dict[Tuple[int, ...], int] = {}
        encoded: List[bytes] = []
        which: List[int] = []
        starts: List[int] = []
        walls: List[int] = []
        prev = None
        for t, opens, _, order, kind, where in boundaries:
            if prev is not None and t > prev and frames:
                key = tuple(frames)
                k = stacks.get(key)
                if k is None:
                    k = stacks[key] = len(encoded)
                    encoded.append(b.stack_bytes(frames[::-1]))
                which.append(k)
                starts.append(prev)
                walls.append(t - prev)
            prev = t if prev is None else max(prev, t)
            if opens:
                open_.append((kind, order))
                frames.append(b.frame(*where))
                continue
            # A close: an X span by its own entry, an E the innermost open B;
            # spans opened inside it and still open close with it.
            at = len(open_) - 1
            while at >= 0 and not (open_[at] == (kind, order) if kind == "X" else open_[at][0] == "B"):
                at -= 1
            if at >= 0:
                del open_[at:], frames[at:]
        if not walls:
            continue
        n = len(walls)
        times = np.asarray(starts, np.int64)
        b.add_many(
            encoded,
            np.asarray(which, np.int64),
            np.asarray(walls, np.int64).reshape(n, 1),
            [(TIMESTAMP, times, "nanoseconds"), ("pid", np.full(n, pid), ""), ("tid", np.full(n, tid), "")],
            [("thread", np.full(n, thread)), ("process", np.full(n, process))],
        )
        first = starts[0] if first is None else min(first, starts[0])
        end = starts[-1] + walls[-1]
        last = end if last is None else max(last, end)
    if first is None or last is None:
        raise input_error(FORMAT, "the trace's spans cover no time (every X event has dur 0, or no B has its E)")
    b.duration_nanos = last - first
    return b.build()


def read_chrome_trace_bytes(data: bytes) -> Profile:
    """Parse Chrome trace JSON bytes; bad JSON raises a :class:`DecodeError`
    naming the byte offset."""
    return read_chrome_trace(json_document(FORMAT, data))
