"""speedscope JSON files (https://www.speedscope.app/file-format-schema.json,
written by py-spy ``--format speedscope``, rbspy, pprofcore's own
``FlameGraph.to_speedscope`` and others) to a profile.

``shared.frames`` become functions (``name``, ``file``, ``line``, ``col``).
Every profile of the file goes into one pprof profile, its samples labelled
``profile`` with the profile's name (py-spy writes one profile per thread):

- ``sampled``: each ``samples[i]`` (frame indexes, root first) is a sample
  worth ``weights[i]``;
- ``evented``: ``O``/``C`` (open/close) events are replayed; the time between
  two events is a sample on the stack open then (self time, as speedscope's
  left-heavy view counts it).

The ``unit`` picks the sample type: ``none`` is ``samples/count``, ``bytes``
is ``space/bytes``, and time units are ``wall/nanoseconds`` (converted).
Profiles with different units give several sample types (zero where a sample
has no value). Samples of a time unit carry ``timestamp_ns``: the profile's
``startValue`` plus the weights before it (speedscope's own clock, not wall
time)."""

from __future__ import annotations

import math
from typing import Dict, List, Tuple

from ._build import TIMESTAMP, ProfileBuilder, input_error, json_document
from ._profile import Profile

FORMAT = "speedscope"

_TIME = {"nanoseconds": 1, "microseconds": 1000, "milliseconds": 1_000_000, "seconds": 1_000_000_000}


def looks_like_speedscope(head: bytes) -> bool:
    """Whether the first bytes of a JSON document name speedscope's schema."""
    return b"speedscope.app/file-format-schema" in head


def _type_of(unit: str, where: str) -> Tuple[Tuple[str, str], int]:
    if unit in _TIME:
        return ("wall", "nanoseconds"), _TIME[unit]
    if unit == "bytes":
        return ("space", "bytes"), 1
    if unit in ("none", ""):
        return ("samples", "count"), 1
    raise input_error(FORMAT, f"{where}: unknown unit {unit!r} (expected none, bytes or a time unit)")


def _num(v, where: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise input_error(FORMAT, f"{where} must be a number, not {type(v).__name__}")
    if not math.isfinite(v):  # NaN and infinity have no int64 value
        raise input_error(FORMAT, f"{where} = {v} is not a finite number")
    return v


def _scaled(v: float, scale: int, where: str) -> int:
    x = v * scale
    if not (math.isfinite(x) and -(2**63) <= round(x) < 2**63):
        raise input_error(FORMAT, f"{where} = {v} is outside the int64 range of profile values")
    return round(x)


def read_speedscope(doc) -> Profile:
    """Build a Profile from a parsed speedscope document (a dict)."""
    if not isinstance(doc, dict):
        raise input_error(FORMAT, "the document is not a JSON object")
    shared = doc.get("shared") or {}
    frames_in = shared.get("frames") if isinstance(shared, dict) else None
    profiles = doc.get("profiles")
    if not isinstance(frames_in, list) or not isinstance(profiles, list):
        raise input_error(FORMAT, "the document needs 'shared.frames' and 'profiles' lists")
    types: List[Tuple[str, str]] = []
    plan = []
    for i, prof in enumerate(profiles):
        if not isinstance(prof, dict):
            raise input_error(FORMAT, f"profiles[{i}] is not an object")
        st, scale = _type_of(str(prof.get("unit", "none")), f"profiles[{i}]")
        if st not in types:
            types.append(st)
        plan.append((prof, types.index(st), scale))
    b = ProfileBuilder(types)

    locs: List[int] = []
    for i, f in enumerate(frames_in):
        if not isinstance(f, dict):
            raise input_error(FORMAT, f"shared.frames[{i}] is not an object")
        line = f.get("line") or 0
        col = f.get("col") or 0
        _num(line, f"shared.frames[{i}].line")
        _num(col, f"shared.frames[{i}].col")
        locs.append(b.frame(str(f.get("name", "")), str(f.get("file") or ""), int(line), int(col)))

    def loc(idx, where: str) -> int:
        if isinstance(idx, bool) or not isinstance(idx, int) or not 0 <= idx < len(locs):
            raise input_error(FORMAT, f"{where}: frame index {idx!r} is not in shared.frames")
        return locs[idx]

    ntypes = len(types)
    for i, (prof, column, scale) in enumerate(plan):
        name = str(prof.get("name", ""))
        where = f"profiles[{i}]"
        timed = types[column][1] == "nanoseconds"
        start = _num(prof.get("startValue", 0), f"{where}.startValue")
        labels = [("profile", name)] if name else []
        kind = prof.get("type")
        if kind == "sampled":
            samples = prof.get("samples")
            weights = prof.get("weights")
            if not isinstance(samples, list) or not isinstance(weights, list) or len(samples) != len(weights):
                raise input_error(FORMAT, f"{where}: 'samples' and 'weights' must be lists of the same length")
            t = start
            stacks: Dict[Tuple, bytes] = {}
            for j, (stack, w) in enumerate(zip(samples, weights)):
                w = _num(w, f"{where}.weights[{j}]")
                if not isinstance(stack, list):
                    raise input_error(FORMAT, f"{where}.samples[{j}] is not a list")
                key = tuple(stack)
                try:
                    enc = stacks.get(key)
                except TypeError:  # a list or object among the frames: no key, and no frame index
                    raise input_error(FORMAT, f"{where}.samples[{j}] holds a frame that is not an index") from None
                if enc is None:
                    enc = stacks[key] = b.stack_bytes([loc(x, f"{where}.samples[{j}]") for x in reversed(stack)])
                values = [0] * ntypes
                values[column] = _scaled(w, scale, f"{where}.weights[{j}]")
                nums = [(TIMESTAMP, _scaled(t, scale, f"{where} time"), "nanoseconds")] if timed else []
                b.add_encoded(enc, values, b.label_bytes(labels, nums))
                t += w
        elif kind == "evented":
            events = prof.get("events")
            if not isinstance(events, list):
                raise input_error(FORMAT, f"{where}: 'events' must be a list")
            open_stack: List[int] = []
            last = start
            for j, ev in enumerate(events):
                ew = f"{where}.events[{j}]"
                if not isinstance(ev, dict):
                    raise input_error(FORMAT, f"{ew} is not an object")
                at = _num(ev.get("at"), f"{ew}.at")
                if at < last:
                    raise input_error(FORMAT, f"{ew}: events go back in time ({at} after {last})")
                if open_stack and at > last:
                    values = [0] * ntypes
                    values[column] = _scaled(at - last, scale, f"{ew}.at")
                    nums = [(TIMESTAMP, _scaled(last, scale, f"{ew}.at"), "nanoseconds")] if timed else []
                    b.add(open_stack[::-1], values, labels, nums)
                last = at
                frame = loc(ev.get("frame"), ew)
                if ev.get("type") == "O":
                    open_stack.append(frame)
                elif ev.get("type") == "C":
                    if not open_stack or open_stack[-1] != frame:
                        raise input_error(FORMAT, f"{ew} closes a frame that is not the innermost open one")
                    open_stack.pop()
                else:
                    raise input_error(FORMAT, f"{ew}: event type {ev.get('type')!r} is neither 'O' nor 'C'")
        else:
            raise input_error(FORMAT, f"{where}: profile type {kind!r} is neither 'sampled' nor 'evented'")
    if doc.get("name"):
        b.comments.append(f"speedscope: {doc['name']}")
    if doc.get("exporter"):
        b.comments.append(f"exporter: {doc['exporter']}")
    return b.build()


def read_speedscope_bytes(data: bytes) -> Profile:
    """Parse speedscope JSON bytes; bad JSON raises a :class:`DecodeError`
    naming the byte offset."""
    return read_speedscope(json_document(FORMAT, data))
