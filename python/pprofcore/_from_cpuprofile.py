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
Not supported: DevTools' trace-event form (``"traceEvents"`` with
``ProfileChunk`` events), which is a Chrome trace, not a ``.cpuprofile``.
"""

from __future__ import annotations

import json
from typing import Dict, List

from ._build import TIMESTAMP, ProfileBuilder, input_error
from ._profile import Profile

FORMAT = "V8 .cpuprofile"


def looks_like_cpuprofile(head: bytes) -> bool:
    """Whether the first bytes of a JSON document name a ``.cpuprofile``'s keys."""
    return b'"nodes"' in head and (b'"timeDeltas"' in head or b'"samples"' in head) and b'"callFrame"' in head


def _int(doc: dict, key: str, where: str, default=None) -> int:
    v = doc.get(key, default)
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise input_error(FORMAT, f"{where}: {key!r} must be a number, not {type(v).__name__}")
    return int(v)


def read_cpuprofile(doc) -> Profile:
    """Build a Profile from a parsed ``.cpuprofile`` document (a dict)."""
    if not isinstance(doc, dict) or not isinstance(doc.get("nodes"), list):
        raise input_error(FORMAT, "the document has no 'nodes' list")
    nodes = doc["nodes"]
    samples = doc.get("samples") or []
    deltas = doc.get("timeDeltas") or []
    if not isinstance(samples, list) or not isinstance(deltas, list):
        raise input_error(FORMAT, "'samples' and 'timeDeltas' must be lists")
    if deltas and len(deltas) != len(samples):
        raise input_error(FORMAT, f"'samples' has {len(samples)} entries but 'timeDeltas' has {len(deltas)}")
    b = ProfileBuilder([("samples", "count"), ("wall", "nanoseconds")])
    b.period_type = ("wall", "nanoseconds")

    parent: Dict[int, int] = {}
    frame: Dict[int, int] = {}  # node id -> location id (0 for the root)
    for i, node in enumerate(nodes):
        where = f"nodes[{i}]"
        if not isinstance(node, dict):
            raise input_error(FORMAT, f"{where} is not an object")
        nid = _int(node, "id", where)
        if nid in frame:
            raise input_error(FORMAT, f"{where}: node id {nid} appears twice")
        cf = node.get("callFrame")
        if not isinstance(cf, dict):
            raise input_error(FORMAT, f"{where} has no 'callFrame' object")
        name = str(cf.get("functionName") or "")
        url = str(cf.get("url") or "")
        if name == "(root)" and not url:
            frame[nid] = 0
        else:
            line = _int(cf, "lineNumber", where, -1) + 1
            column = _int(cf, "columnNumber", where, -1) + 1
            frame[nid] = b.frame(name or "(anonymous)", url, line, column)
        children = node.get("children") or []
        if not isinstance(children, list):
            raise input_error(FORMAT, f"{where}: 'children' must be a list")
        for c in children:
            if isinstance(c, bool) or not isinstance(c, int):
                raise input_error(FORMAT, f"{where}: child id {c!r} is not an integer")
            parent[c] = nid
        if "parent" in node:  # the DevTools trace form names the parent instead
            parent[nid] = _int(node, "parent", where)

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
                raise input_error(FORMAT, f"the node tree has a cycle through node {n}")
            seen.add(n)
            if frame[n]:
                ids.append(frame[n])
            if n not in parent:
                break
            n = parent[n]
        stacks[nid] = got = b.stack_bytes(ids)
        return got

    start = _int(doc, "startTime", "the document", 0)
    end = _int(doc, "endTime", "the document", start)
    times: List[int] = []
    t = start
    for i, d in enumerate(deltas):
        if isinstance(d, bool) or not isinstance(d, (int, float)):
            raise input_error(FORMAT, f"timeDeltas[{i}] is not a number")
        t += int(d)
        times.append(t)
    if not times:
        times = [start] * len(samples)
    for i, nid in enumerate(samples):
        if nid not in frame:
            raise input_error(FORMAT, f"samples[{i}] names node {nid!r}, which is not in 'nodes'")
        nxt = times[i + 1] if i + 1 < len(times) else max(end, times[i])
        label = b.label_bytes(num_labels=[(TIMESTAMP, times[i] * 1000, "nanoseconds")])
        b.add_encoded(stack_of(nid), (1, max(nxt - times[i], 0) * 1000), label)
    b.duration_nanos = max(end - start, 0) * 1000
    if samples and len(times) > 1:
        b.period = max((times[-1] - times[0]) * 1000 // (len(times) - 1), 0)
    return b.build()


def read_cpuprofile_bytes(data: bytes) -> Profile:
    """Parse ``.cpuprofile`` JSON bytes; bad JSON raises a :class:`DecodeError`
    naming the byte offset."""
    try:
        doc = json.loads(data)
    except json.JSONDecodeError as e:
        raise input_error(FORMAT, f"invalid JSON: {e.msg}", e.pos) from None
    except UnicodeDecodeError as e:
        raise input_error(FORMAT, "the JSON is not UTF-8", e.start) from None
    return read_cpuprofile(doc)
