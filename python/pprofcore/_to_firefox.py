"""Writing a profile with timestamps in the Firefox Profiler's processed
profile format (``preprocessedProfileVersion`` 58, Gecko format 31: the newest
documented in the profiler's docs-developer/CHANGELOG-formats.md), which
profiler.firefox.com opens without a conversion step. One thread per lane
(thread or goroutine label); each sample keeps its time and its value as the
sample's weight: milliseconds (``tracing-ms``) for a time unit, ``bytes`` for
bytes, a count (``samples``) otherwise. Functions, files and strings are
shared tables (``shared.stringArray``, ``shared.sources``). Not here: the
Chrome trace event format (``_to_chrome_trace``).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple

from . import _timed_samples
from ._units import unit_ratio

if TYPE_CHECKING:  # pragma: no cover
    from ._profile import Profile

PROCESSED_VERSION = 58
GECKO_VERSION = 31
TIME_UNITS = ("nanoseconds", "microseconds", "milliseconds", "seconds")


def weight_kind(unit: str) -> Tuple[str, float]:
    """(weightType, the divisor from the profile's unit to the weight's)."""
    if unit in TIME_UNITS:
        return "tracing-ms", unit_ratio("milliseconds", unit)
    if unit == "bytes":
        return "bytes", 1.0
    return "samples", 1.0


def _column(n: int, value) -> List[Any]:
    return [value] * n


def _thread(
    name: str, index: int, rows: List[int], ts: "_timed_samples.TimedSamples", funcs: Dict[str, Any], divisor: float
) -> Dict[str, Any]:
    """One lane as a thread: its samples and its stack tree over the shared functions."""
    weight_type, _ = weight_kind(ts.unit)
    prefix: List[Optional[int]] = []
    frame: List[int] = []
    node: Dict[Tuple[Optional[int], int], int] = {}
    stack_of: List[Optional[int]] = []
    for i in rows:
        at: Optional[int] = None
        for f in ts.stacks[i]:
            key = (at, f)
            k = node.get(key)
            if k is None:
                k = node[key] = len(frame)
                frame.append(f)
                prefix.append(at)
            at = k
        stack_of.append(at)
    n = len(ts.names)
    weights = [v / divisor if weight_type == "tracing-ms" else v for v in (ts.values[i] for i in rows)]
    return {
        "processType": "default",
        "processStartupTime": 0,
        "processShutdownTime": None,
        "registerTime": 0,
        "unregisterTime": None,
        "pausedRanges": [],
        "name": name,
        "isMainThread": index == 0,
        "pid": "1",
        "tid": index + 1,
        "samples": {
            "length": len(rows),
            "stack": stack_of,
            "time": [ts.times[i] / 1e6 for i in rows],
            "weight": weights,
            "weightType": weight_type,
        },
        "markers": {"length": 0, "data": [], "name": [], "startTime": [], "endTime": [], "phase": [], "category": []},
        "stackTable": {"length": len(frame), "frame": frame, "prefix": prefix},
        # One frame per function: frame i is function i.
        "frameTable": {
            "length": n,
            "address": _column(n, -1),
            "inlineDepth": _column(n, 0),
            "category": _column(n, 0),
            "subcategory": _column(n, 0),
            "func": list(range(n)),
            "nativeSymbol": _column(n, None),
            "innerWindowID": _column(n, 0),
            "line": _column(n, None),
            "column": _column(n, None),
        },
        "funcTable": funcs,
        "resourceTable": {"length": 0, "lib": [], "name": [], "host": [], "type": []},
        "nativeSymbols": {"length": 0, "libIndex": [], "address": [], "name": [], "functionSize": []},
    }


def to_firefox_profiler(p: "Profile", lane: Optional[str] = None, sample_type=None, title: str = "") -> Dict[str, Any]:
    """The processed profile as a JSON-ready dict (see :meth:`Profile.to_firefox_profiler`)."""
    ts = _timed_samples.timed_samples(p, lane, sample_type, "Firefox Profiler profile")
    strings: List[str] = []
    code: Dict[str, int] = {}

    def string(s: str) -> int:
        k = code.get(s)
        if k is None:
            k = code[s] = len(strings)
            strings.append(s)
        return k

    files = sorted({f for f in ts.files if f})
    source = {f: k for k, f in enumerate(files)}
    n = len(ts.names)
    funcs = {
        "length": n,
        "name": [string(s) for s in ts.names],
        "isJS": _column(n, False),
        "relevantForJS": _column(n, False),
        "resource": _column(n, -1),
        "source": [source.get(f) for f in ts.files],
        "lineNumber": _column(n, None),
        "columnNumber": _column(n, None),
    }
    sources = {"length": len(files), "uuid": _column(len(files), None), "filename": [string(f) for f in files]}
    _, divisor = weight_kind(ts.unit)
    lanes = _timed_samples.lane_order(ts.lanes)
    threads = []
    for k, lane_name in enumerate(lanes):
        rows = [i for i, s in enumerate(ts.lanes) if s == lane_name]
        threads.append(_thread(_timed_samples.lane_title(ts.lane_label, lane_name), k, rows, ts, funcs, divisor))
    gaps = sorted(b - a for a, b in zip(ts.times, ts.times[1:]) if b > a)
    interval_ms = gaps[len(gaps) // 2] / 1e6 if gaps else 1.0
    meta = {
        "interval": interval_ms,
        "startTime": ts.t0 / 1e6,
        "processType": 0,
        "product": title or "pprofcore profile",
        "stackwalk": 0,
        "version": GECKO_VERSION,
        "preprocessedProfileVersion": PROCESSED_VERSION,
        "categories": [{"name": "Other", "color": "grey", "subcategories": ["Other"]}],
        "markerSchema": [],
        "importedFrom": "pprofcore",
        "symbolicated": True,
        "usesOnlyOneStackType": True,
        "keepProfileThreadOrder": True,
        "initialVisibleThreads": list(range(len(threads))),
        "extra": [
            {
                "label": "pprof",
                "entries": [
                    {"label": "sample type", "format": "string", "value": f"{ts.sample_type}/{ts.unit}"},
                    {"label": "lane label", "format": "string", "value": ts.lane_label or ""},
                ],
            }
        ],
    }
    return {"meta": meta, "libs": [], "shared": {"stringArray": strings, "sources": sources}, "threads": threads}


def firefox_profiler_bytes(p: "Profile", lane: Optional[str] = None, sample_type=None, title: str = "") -> bytes:
    doc = to_firefox_profiler(p, lane, sample_type, title)
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
