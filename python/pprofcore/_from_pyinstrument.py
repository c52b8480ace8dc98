"""pyinstrument's JSON (``pyinstrument -r json``, ``Profiler.output(JSONRenderer())``)
to a profile.

The JSON holds the session's header (``start_time``, ``duration`` in seconds,
``sample_count``, ``cpu_time``, ``target_description``) and ``root_frame``, a
call tree whose nodes have ``function``, ``file_path``, ``line_no``, an
optional ``class_name``, ``time`` (wall seconds spent in the node and below)
and ``children``. Each node becomes one sample of its self time (its ``time``
less its children's) with the stack from the root down to it, of sample type
``wall/nanoseconds``; pyinstrument's synthetic ``[self]`` children are their
parent's self time, not frames. The tree has no per-sample times, so there is
no ``timestamp_ns``.
"""

from __future__ import annotations

import math
from typing import List, Tuple

from ._build import NO_SYSTEM_NAME, ProfileBuilder, input_error, json_document
from ._profile import Profile

FORMAT = "pyinstrument JSON"
_SELF = "[self]"


def looks_like_pyinstrument(head: bytes) -> bool:
    """A JSON object naming ``root_frame`` and pyinstrument's header keys."""
    return head.lstrip()[:1] == b"{" and b'"root_frame"' in head and b'"sample_count"' in head


def _seconds(node: dict, key: str, where: str) -> float:
    v = node.get(key, 0)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
        raise input_error(FORMAT, f"{where}: {key!r} must be a non-negative number of seconds, not {v!r:.40}")
    return float(v)


def _frame(b: ProfileBuilder, node: dict, where: str) -> int:
    name = node.get("function")
    if not isinstance(name, str):
        raise input_error(FORMAT, f"{where}: 'function' must be a string")
    cls = node.get("class_name")
    if isinstance(cls, str) and cls:
        name = f"{cls}.{name}"
    path = node.get("file_path") or node.get("file_path_short") or ""
    line = node.get("line_no") or 0
    if not isinstance(path, str) or isinstance(line, bool) or not isinstance(line, int):
        raise input_error(FORMAT, f"{where}: 'file_path' must be a string and 'line_no' an integer")
    return b.frame(name or "(unknown)", path, line, system_name=NO_SYSTEM_NAME)


def read_pyinstrument(doc) -> Profile:
    """Build a Profile from a parsed pyinstrument JSON document."""
    if not isinstance(doc, dict) or not isinstance(doc.get("root_frame"), dict):
        raise input_error(FORMAT, "the document has no 'root_frame' object")
    b = ProfileBuilder([("wall", "nanoseconds")])
    b.period_type = ("wall", "nanoseconds")
    # Depth first without recursion (trees of deep recursion are deeper than Python's stack).
    todo: List[Tuple[dict, str, List[int]]] = [(doc["root_frame"], "root_frame", [])]
    while todo:
        node, where, parents = todo.pop()
        if not isinstance(node, dict):
            raise input_error(FORMAT, f"{where} is not an object")
        children = node.get("children") or []
        if not isinstance(children, list):
            raise input_error(FORMAT, f"{where}: 'children' must be a list")
        total = _seconds(node, "time", where)
        self_time = total
        stack = parents + [_frame(b, node, where)]
        for i, child in enumerate(children):
            at = f"{where}.children[{i}]"
            if not isinstance(child, dict):
                raise input_error(FORMAT, f"{at} is not an object")
            child_time = _seconds(child, "time", at)
            if child.get("function") == _SELF and not child.get("children"):
                continue  # its time is this node's self time: left in self_time
            self_time -= child_time
            todo.append((child, at, stack))
        nanos = round(max(self_time, 0.0) * 1e9)
        if nanos:
            b.add(stack[::-1], [nanos])
    start = doc.get("start_time")
    if isinstance(start, (int, float)) and not isinstance(start, bool) and math.isfinite(start) and start > 0:
        b.time_nanos = round(start * 1e9)
    duration = doc.get("duration")
    if isinstance(duration, (int, float)) and not isinstance(duration, bool) and math.isfinite(duration):
        b.duration_nanos = max(round(duration * 1e9), 0)
    for key in ("target_description",):
        if isinstance(doc.get(key), str):
            b.comments.append(doc[key])
    if isinstance(doc.get("sample_count"), int) and isinstance(doc.get("cpu_time"), (int, float)):
        b.comments.append(f"pyinstrument: {doc['sample_count']} samples, {doc['cpu_time']:.6f} s of CPU time")
    return b.build()


def read_pyinstrument_bytes(data: bytes) -> Profile:
    """Parse pyinstrument JSON bytes; bad JSON raises a :class:`DecodeError`
    naming the byte offset."""
    return read_pyinstrument(json_document(FORMAT, data))
