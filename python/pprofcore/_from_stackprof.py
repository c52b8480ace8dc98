"""stackprof's profiles (Ruby; ``StackProf.run(out: ...)`` writes a Ruby
Marshal dump, ``stackprof FILE --json`` the same data as JSON) to a profile.

The data: ``mode`` (``cpu``, ``wall``, ``object`` or ``custom``),
``interval`` (microseconds between samples; allocations between samples in
``object`` mode), ``frames`` (each frame id's ``name``, ``file``, ``line``,
``samples`` (self), ``total_samples``, ``edges`` {callee id: samples} and
``lines`` {line: [total, self]}) and, when recorded with ``raw: true``,
``raw``: each distinct run of samples as the stack's height, its frame ids
root first, and how many samples in a row had that stack
(``raw_sample_timestamps``, microseconds, one per sample; ``raw_lines``, a
line per frame entry, in newer versions). stackprof's clock is monotonic,
not wall time: the ``timestamp_ns`` label is that clock times 1000.

With ``raw``, every sample keeps its stack (and its timestamp when the
timestamps add up). Without it (stackprof's default), stackprof kept only
each frame's self samples per line and its calls: stacks are rebuilt from
those under gprof's assumption, as the Callgrind reader does
(``_from_callgrind``): flat per function and line is exact, cum is exact
outside recursion.

Sample types: ``samples`` (count) and, by mode, ``cpu`` or ``wall``
(nanoseconds: samples x interval) or ``objects`` (count: samples x
interval). stackprof's garbage collector frames (``(garbage collection)``,
``(marking)``, ``(sweeping)``) are kept as the stacks it recorded.
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Tuple

import numpy as np

from . import _ruby_marshal
from ._build import NO_SYSTEM_NAME, TIMESTAMP, ProfileBuilder, input_error, json_document
from ._from_callgrind import CallCosts, add_call_tree
from ._profile import Profile

FORMAT = "stackprof"
_MODES = {"cpu": ("cpu", "nanoseconds", 1000), "wall": ("wall", "nanoseconds", 1000), "object": ("objects", "count", 1)}


def looks_like_stackprof(head: bytes) -> bool:
    """stackprof's Marshal dump (a hash whose first key is ``:version``,
    then ``:mode``) or its JSON (``"mode"``, ``"interval"`` and ``"frames"``)."""
    if _ruby_marshal.is_ruby_marshal(head):
        return b":\x0cversion" in head[:16] and b":\tmode" in head[:64]
    text = head.lstrip()
    return (
        text[:1] == b"{"
        and b'"mode"' in text
        and b'"interval"' in text
        and b'"frames"' in text
        and b'"version"' in text
    )


def _count(v: Any, where: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < 2**62:
        raise input_error(FORMAT, f"{where} = {v!r:.40} is not a count")
    return v


def _frame_id(v: Any, where: str) -> int:
    """Frame ids are integers (addresses); JSON writes them as object keys."""
    if isinstance(v, str) and v.isdigit():
        v = int(v)
    if isinstance(v, bool) or not isinstance(v, int):
        raise input_error(FORMAT, f"{where} = {v!r:.40} is not a frame id")
    return v


class _Frames:
    """The frame table (a dump's symbols and the JSON's strings both read as
    str keys, so one reader serves both)."""

    def __init__(self, b: ProfileBuilder, frames: Any):
        if not isinstance(frames, dict):
            raise input_error(FORMAT, "'frames' must be a hash of frame ids")
        self.b = b
        self.info: Dict[int, dict] = {}
        for k, f in frames.items():
            fid = _frame_id(k, "a key of 'frames'")
            where = f"frames[{fid}]"
            if not isinstance(f, dict):
                raise input_error(FORMAT, f"{where} is not a hash")
            name, file, line = f.get("name"), f.get("file"), f.get("line")
            if not isinstance(name, str):
                name = "(unknown)"
            if not isinstance(file, str):
                file = ""
            if isinstance(line, bool) or not isinstance(line, int) or not 0 <= line < 2**31:
                line = 0
            self.info[fid] = {"name": name, "file": file, "line": line, "raw": f, "where": where}

    def location(self, fid: int, line: int, where: str) -> int:
        """The location of frame ``fid`` at ``line`` (the builder interns both)."""
        f = self.info.get(fid)
        if f is None:
            raise input_error(FORMAT, f"{where}: frame id {fid} is not in 'frames'")
        # "block (2 levels) in <main>" looks like C++ to pprof's demangler: no system name.
        return self.b.location(self.b.function(f["name"], f["file"], NO_SYSTEM_NAME, f["line"]), line)


def _types(mode: str, interval: int) -> Tuple[List[Tuple[str, str]], int]:
    """Sample types and the second type's value per sample."""
    if mode in _MODES:
        name, unit, scale = _MODES[mode]
        return [("samples", "count"), (name, unit)], interval * scale
    return [("samples", "count")], 0


def _raw_samples(b: ProfileBuilder, frames: _Frames, doc: dict, per_sample: int) -> None:
    raw = doc.get("raw")
    if not isinstance(raw, list):
        raise input_error(FORMAT, "'raw' must be a list")
    lines = doc.get("raw_lines")
    if lines is not None and (not isinstance(lines, list) or len(lines) != len(raw)):
        lines = None  # not as this reader knows it: each frame's own line instead
    stacks: Dict[tuple, int] = {}
    encoded: List[bytes] = []
    index: List[int] = []
    counts: List[int] = []
    i = 0
    while i < len(raw):
        where = f"raw[{i}]"
        height = _count(raw[i], where)
        if i + height + 2 > len(raw):
            raise input_error(FORMAT, f"{where}: a stack of {height} frames runs past the end of 'raw'")
        ids = raw[i + 1 : i + 1 + height]
        at = lines[i + 1 : i + 1 + height] if lines is not None else None
        key = (tuple(ids), tuple(at) if at is not None else None)
        try:
            k = stacks.get(key)
        except TypeError:
            raise input_error(FORMAT, f"{where}: a frame id is not a number") from None
        if k is None:
            locs = []
            for j in range(height - 1, -1, -1):  # leaf first
                fid = _frame_id(ids[j], f"raw[{i + 1 + j}]")
                line = at[j] if at is not None and isinstance(at[j], int) and 0 <= at[j] < 2**31 else None
                if line is None:
                    line = frames.info[fid]["line"] if fid in frames.info else 0
                locs.append(frames.location(fid, line, f"raw[{i + 1 + j}]"))
            k = stacks[key] = len(encoded)
            encoded.append(b.stack_bytes(locs))
        index.append(k)
        counts.append(_count(raw[i + height + 1], f"raw[{i + height + 1}]"))
        i += height + 2
    n = np.array(counts, np.int64)
    times = doc.get("raw_sample_timestamps")
    if (
        isinstance(times, list)
        and len(times) == int(n.sum())
        and all(isinstance(t, int) and not isinstance(t, bool) and 0 <= t < 2**53 for t in times)
    ):
        # One sample per timestamp: each run of n samples becomes n samples.
        rows = np.repeat(np.arange(len(index)), n)
        values = np.ones((len(rows), 2 if per_sample else 1), np.int64)
        if per_sample:
            values[:, 1] = per_sample
        stamps = np.array(times, np.int64) * 1000
        b.add_many(encoded, np.asarray(index, np.int64)[rows], values, num_labels=[(TIMESTAMP, stamps, "nanoseconds")])
        return
    values = np.stack([n, n * per_sample], axis=1) if per_sample else n[:, None]
    b.add_many(encoded, np.asarray(index, np.int64), values)


def _call_tree(b: ProfileBuilder, frames: _Frames, per_sample: int) -> bool:
    """No ``raw``: each frame's self samples per line and its calls, as
    Callgrind gives them, to stacks under gprof's assumption (a frame id is
    a function, as stackprof counts them). Returns whether the tree was cut."""
    costs = CallCosts(["samples", "value"] if per_sample else ["samples"])
    both = (lambda n: [n, n]) if per_sample else (lambda n: [n])
    for fid in frames.info:
        costs.functions[fid] = None
    for fid, f in frames.info.items():
        raw, where = f["raw"], f["where"]
        per_line = raw.get("lines")
        kept = 0
        if isinstance(per_line, dict):
            for line, counts in per_line.items():
                ln = _frame_id(line, f"a key of {where}.lines")
                if not isinstance(counts, list) or len(counts) != 2:
                    raise input_error(FORMAT, f"{where}.lines[{ln}] must be [total, self]")
                own = _count(counts[1], f"{where}.lines[{ln}][1]")
                if own:
                    costs.self_cost[(fid, f["file"], ln, 0)] = both(own)
                    kept += own
        own = _count(raw.get("samples", 0), f"{where}.samples")
        if own > kept:  # samples on no line (C functions)
            costs.self_cost[(fid, f["file"], f["line"], 0)] = both(own - kept)
        edges = raw.get("edges") or {}
        if not isinstance(edges, dict):
            raise input_error(FORMAT, f"{where}.edges must be a hash")
        for callee, n in edges.items():
            g = _frame_id(callee, f"a key of {where}.edges")
            if g not in frames.info:
                raise input_error(FORMAT, f"{where}.edges: frame id {g} is not in 'frames'")
            count = _count(n, f"{where}.edges[{g}]")
            costs.calls[(fid, f["file"], f["line"], 0, g)] = [count, both(count)]
    scale = np.array([1, per_sample] if per_sample else [1], np.int64)
    return add_call_tree(
        costs, b, scale, lambda fid, _file, line, _address: frames.location(fid, line, "frames"), FORMAT
    )


def read_stackprof(doc: Any) -> Profile:
    """Build a Profile from stackprof's data (the Marshal dump's hash, or
    its JSON form)."""
    if not isinstance(doc, dict):
        raise input_error(FORMAT, "the data is not a hash")
    mode = doc.get("mode")
    if not isinstance(mode, str):
        raise input_error(FORMAT, f"'mode' = {mode!r:.40} is not a name")
    interval = doc.get("interval")
    if isinstance(interval, float) and math.isfinite(interval) and interval.is_integer():
        interval = int(interval)
    interval = _count(interval, "'interval'")
    types, per_sample = _types(mode, interval)
    b = ProfileBuilder(types)
    b.default_sample_type = types[-1][0]
    if mode in ("cpu", "wall"):
        b.period_type, b.period = types[1], per_sample
    frames = _Frames(b, doc.get("frames"))
    b.comments.append(f"stackprof, mode {mode}, interval {interval}")
    if doc.get("raw") is not None:
        _raw_samples(b, frames, doc, per_sample)
    else:
        b.comments.append("no raw samples: stacks rebuilt from each frame's calls (gprof's assumption)")
        if _call_tree(b, frames, per_sample):
            b.comments.append("call tree cut at its size limit: each function's flat value is exact")
    for key in ("samples", "gc_samples", "missed_samples"):
        v = doc.get(key)
        if isinstance(v, int) and not isinstance(v, bool):
            b.comments.append(f"{key}: {v}")
    meta = doc.get("metadata")
    if isinstance(meta, dict):
        b.comments.extend(f"{k}: {v}"[:200] for k, v in meta.items())
    return b.build()


def read_stackprof_bytes(data: bytes) -> Profile:
    """Parse a stackprof dump (Ruby Marshal) or its JSON; damage raises a
    :class:`DecodeError` naming the byte offset or the place."""
    if _ruby_marshal.is_ruby_marshal(data):
        try:
            doc = _ruby_marshal.loads(data)
        except _ruby_marshal.RubyMarshalError as e:
            raise input_error(FORMAT, f"the Ruby Marshal dump is damaged: {e.reason}", e.offset) from None
    else:
        doc = json_document(FORMAT, data)
    return read_stackprof(doc)
