"""V8/Chrome CPU profiles (``.cpuprofile``, as ``node --cpu-prof`` and the
DevTools Performance panel write them) to a profile.

The JSON holds a tree of ``nodes`` (each a call frame with its ``children``
ids), then ``samples`` (a node id per tick) and ``timeDeltas`` (microseconds
since the previous tick). Each tick becomes one sample whose stack is the path
from the root to its node (the synthetic ``(root)`` frame left out), with
``samples/count`` 1 and ``wall/nanoseconds`` the time until the next tick (as
DevTools counts self time; the last tick runs to ``endTime``). V8's clock is
monotonic, not wall time: the ``timestamp_ns`` label is V8's microsecond clock
times 1000. Line and column numbers are 0-based in the file and 1-based here.
``(program)``, ``(idle)`` and ``(garbage collector)`` stay frames of their own.
DevTools' trace-event form (``"traceEvents"`` with ``ProfileChunk`` events)
is a Chrome trace: ``_from_chrome_trace`` reads it, through
:func:`add_cpuprofile`.
"""

from __future__ import annotations

import math
from typing import Dict, List, Sequence, Tuple

import numpy as np

from ._build import TIMESTAMP, ProfileBuilder, input_error, json_document
from ._profile import Profile

FORMAT = "V8 .cpuprofile"


def looks_like_cpuprofile(head: bytes) -> bool:
    """Whether the first bytes of a JSON document name a ``.cpuprofile``'s
    keys. ``samples`` and ``timeDeltas`` follow the nodes, which may fill far
    more than the first bytes, so only ``nodes`` and ``callFrame`` are asked
    for (a Chrome trace, whose profile chunks also hold call frames, is not a
    ``.cpuprofile``)."""
    return b'"nodes"' in head and b'"callFrame"' in head and b'"traceEvents"' not in head


def v8_int(doc: dict, key: str, where: str, default=None, fmt: str = FORMAT) -> int:
    """``doc[key]`` (or ``default``) as an int64; anything else is a
    :class:`DecodeError` of ``fmt`` naming ``where`` and the key."""
    v = doc.get(key, default)
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise input_error(fmt, f"{where}: {key!r} must be a number, not {type(v).__name__}")
    if not (math.isfinite(v) and -(2**63) <= v < 2**63):
        raise input_error(fmt, f"{where}: {key!r} = {v!r:.40} is outside the int64 range")
    return int(v)


def v8_frame(b: ProfileBuilder, node: dict, where: str, fmt: str = FORMAT) -> int:
    """The location of a V8 profile node's ``callFrame`` (0 for the synthetic
    ``(root)``): its function, script URL, and 0-based line and column made
    1-based (0 when V8 gives -1, unknown)."""
    cf = node.get("callFrame")
    if not isinstance(cf, dict):
        raise input_error(fmt, f"{where} has no 'callFrame' object")
    name = str(cf.get("functionName") or "")
    url = str(cf.get("url") or "")
    if name == "(root)" and not url:
        return 0
    line = v8_int(cf, "lineNumber", where, -1, fmt) + 1
    column = v8_int(cf, "columnNumber", where, -1, fmt) + 1
    return b.frame(name or "(anonymous)", url, line, column)


def read_cpuprofile(doc) -> Profile:
    """Build a Profile from a parsed ``.cpuprofile`` document (a dict)."""
    b = ProfileBuilder([("samples", "count"), ("wall", "nanoseconds")])
    b.period_type = ("wall", "nanoseconds")
    start, end, times = add_cpuprofile(b, doc)
    if len(times) > 1:
        b.period = max(int(times[-1] - times[0]) * 1000 // (len(times) - 1), 0)
    b.duration_nanos = max(end - start, 0) * 1000
    return b.build()


def add_cpuprofile(
    b: ProfileBuilder,
    doc,
    fmt: str = FORMAT,
    where: str = "",
    str_labels: Sequence[Tuple[str, int]] = (),
    num_labels: Sequence[Tuple[str, int, str]] = (),
) -> Tuple[int, int, np.ndarray]:
    """Add the ticks of a ``.cpuprofile``-shaped dict (``nodes`` with
    ``children`` or ``parent``, ``samples``, ``timeDeltas``, ``startTime``,
    ``endTime``) to ``b``, each with the given string labels (a string code
    of ``b``) and numeric labels (key, number, unit) besides
    ``timestamp_ns``. Errors name ``fmt`` and start with ``where``. Returns
    ``(startTime, endTime, tick times)`` in V8's microseconds."""
    if not isinstance(doc, dict) or not isinstance(doc.get("nodes"), list):
        raise input_error(fmt, f"{where}the document has no 'nodes' list")
    nodes = doc["nodes"]
    samples = doc.get("samples") or []
    deltas = doc.get("timeDeltas") or []
    if not isinstance(samples, list) or not isinstance(deltas, list):
        raise input_error(fmt, f"{where}'samples' and 'timeDeltas' must be lists")
    if deltas and len(deltas) != len(samples):
        raise input_error(fmt, f"{where}'samples' has {len(samples)} entries but 'timeDeltas' has {len(deltas)}")

    parent: Dict[int, int] = {}
    frame: Dict[int, int] = {}  # node id -> location id (0 for the root)
    for i, node in enumerate(nodes):
        at = f"{where}nodes[{i}]"
        if not isinstance(node, dict):
            raise input_error(fmt, f"{at} is not an object")
        nid = v8_int(node, "id", at, fmt=fmt)
        if nid in frame:
            raise input_error(fmt, f"{at}: node id {nid} appears twice")
        frame[nid] = v8_frame(b, node, at, fmt)
        children = node.get("children") or []
        if not isinstance(children, list):
            raise input_error(fmt, f"{at}: 'children' must be a list")
        for c in children:
            if isinstance(c, bool) or not isinstance(c, int):
                raise input_error(fmt, f"{at}: child id {c!r} is not an integer")
            parent[c] = nid
        if "parent" in node:  # the DevTools trace form names the parent instead
            parent[nid] = v8_int(node, "parent", at, fmt=fmt)

    stacks: Dict[int, bytes] = {}

    def stack_of(nid: int) -> bytes:
        got = stacks.get(nid)
        if got is not None:
            return got
        ids: List[int] = []
        seen = set()
        n = nid
        while n in frame:
            if n in seen:
                raise input_error(fmt, f"{where}the node tree has a cycle through node {n}")
            seen.add(n)
            if frame[n]:
                ids.append(frame[n])
            if n not in parent:
                break
            n = parent[n]
        stacks[nid] = got = b.stack_bytes(ids)
        return got

    start = v8_int(doc, "startTime", f"{where}the document", 0, fmt)
    end = v8_int(doc, "endTime", f"{where}the document", start, fmt)
    ids = _numbers(samples, "samples", fmt, where)
    if ids.dtype.kind == "f":
        raise input_error(fmt, f"{where}'samples' must hold node ids (integers)")
    times = start + np.cumsum(_numbers(deltas, "timeDeltas", fmt, where).astype(np.int64)) if len(deltas) else None
    if times is None:
        times = np.full(len(samples), start, np.int64)
    uniq, which = np.unique(ids, return_inverse=True)
    for nid in uniq.tolist():
        if nid not in frame:
            i = int(np.argmax(ids == nid))
            raise input_error(fmt, f"{where}samples[{i}] names node {nid!r}, which is not in 'nodes'")
    encoded = [stack_of(nid) for nid in uniq.tolist()]
    if len(times):
        n = len(times)
        wall = np.diff(times, append=max(end, int(times[-1])))
        values = np.column_stack([np.ones(n, np.int64), np.maximum(wall, 0) * 1000])
        nums = [(TIMESTAMP, times * 1000, "nanoseconds")]
        nums += [(key, np.full(n, num, np.int64), unit) for key, num, unit in num_labels]
        strs = [(key, np.full(n, code, np.int64)) for key, code in str_labels]
        b.add_many(encoded, which, values, nums, strs)
    return start, end, times


def _numbers(values: list, name: str, fmt: str = FORMAT, where: str = "") -> np.ndarray:
    """A JSON list of numbers as an array; anything else is a DecodeError."""
    try:
        arr = np.asarray(values)
    except (ValueError, TypeError, OverflowError):
        arr = np.asarray([], dtype=object)
    if values and arr.dtype.kind not in "iuf":
        raise input_error(fmt, f"{where}'{name}' must be a list of numbers (within the int64 range)")
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise input_error(fmt, f"{where}'{name}' holds a number that is not finite")
    return arr


def read_cpuprofile_bytes(data: bytes) -> Profile:
    """Parse ``.cpuprofile`` JSON bytes; bad JSON raises a :class:`DecodeError`
    naming the byte offset."""
    return read_cpuprofile(json_document(FORMAT, data))
