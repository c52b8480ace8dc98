"""The Firefox Profiler's processed profile format (samply's ``profile.json``,
profiles saved from profiler.firefox.com, pprofcore's own
``to_firefox_profiler``) to a profile.

The format is columnar JSON: ``threads[i].samples`` names stack indexes,
times and weights; a stack is a node of ``stackTable`` (its ``frame`` and its
caller, ``prefix`` or, from version 66, ``prefixOffset``); frames name a
function (``frameTable.func``), an address, an inline depth and a line;
functions a name, a file and a resource whose library is a native binary.
Where the tables live changed over the versions, and the reader follows what
the document has rather than its version number: the strings moved from each
thread to ``shared.stringArray`` (version 56), file names from
``funcTable.fileName`` to ``shared.sources`` (58), the tables from each
thread to ``shared`` (60), libraries from each thread to ``libs`` (41) and
from ``resourceTable.lib`` to ``frameTable.lib`` (70); sample times are
``time`` or, from version 50, ``timeDeltas``.

Sample types: ``samples/count`` (the sample's weight, 1 when there is none),
``wall/nanoseconds`` (the weight times ``meta.interval``; for traced samples,
``weightType: "tracing-ms"``, the weight itself), ``cpu/nanoseconds`` when
threads carry ``threadCPUDelta`` in a time unit (samply's and Firefox's CPU
use since the previous sample), and ``space/bytes`` for byte-weighted
samples. Samples without a stack are left out, as the profiler's call tree
leaves them out. Frames inlined at one address (``inlineDepth`` above 0,
samply's symbolicated inline frames) become the lines of one location, as
``profile.proto`` models inlining. Native frames keep their
library-relative address and a mapping named by the library's path and
build ID (``codeId``, else ``breakpadId``).
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from ._build import TIMESTAMP, ProfileBuilder, input_error, json_document
from ._profile import Profile

FORMAT = "Firefox Profiler"
_CPU_UNITS = {"ns": 1, "µs": 1000, "\u03bcs": 1000, "us": 1000, "ms": 1_000_000}
_MS = 1_000_000


def looks_like_firefox(head: bytes) -> bool:
    """A JSON object with a ``meta`` naming ``preprocessedProfileVersion``, or
    (before version 1 of the format) threads with a ``stringArray``."""
    if head.lstrip()[:1] != b"{":
        return False
    if b'"preprocessedProfileVersion"' in head:
        return True
    return b'"meta"' in head and b'"threads"' in head and b'"stringArray"' in head and b'"stackTable"' in head


def _obj(v, where: str) -> dict:
    if not isinstance(v, dict):
        raise input_error(FORMAT, f"{where} must be an object, not {type(v).__name__}")
    return v


def _column(table: dict, key: str, where: str, required: bool = True) -> Optional[list]:
    v = table.get(key)
    if v is None and not required:
        return None
    if not isinstance(v, list):
        raise input_error(FORMAT, f"{where}.{key} must be a list, not {type(v).__name__}")
    return v


def _index(v, size: int, where: str, target: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < size:
        raise input_error(FORMAT, f"{where} = {v!r:.40} is not an index into {target} ({size} entries)")
    return v


def _optional(col: Optional[list], i: int):
    """Row ``i`` of an optional column; the profiler writes sparse columns
    short, so a missing row is null."""
    return col[i] if col is not None and i < len(col) else None


def _whole(v, where: str) -> int:
    """A line or column number: null and -1 are unknown (0)."""
    if v is None:
        return 0
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v != int(v):
        raise input_error(FORMAT, f"{where} = {v!r:.40} is not a whole number")
    return max(int(v), 0)


def _numbers(col: list, where: str) -> np.ndarray:
    """A numeric column as float64, nulls as NaN."""
    try:
        out = np.asarray(col, dtype=np.float64)
    except (TypeError, ValueError):
        bad = next((x for x in col if x is not None and (isinstance(x, bool) or not isinstance(x, (int, float)))), None)
        raise input_error(FORMAT, f"{where} holds {bad!r:.40}, which is not a number") from None
    if out.ndim != 1:
        raise input_error(FORMAT, f"{where} must be a list of numbers")
    return out


def _lib_row(lib, where: str) -> Tuple[str, str]:
    lib = _obj(lib, where)
    name = lib.get("path") or lib.get("debugPath") or lib.get("name") or lib.get("debugName") or ""
    build_id = lib.get("codeId") or lib.get("breakpadId") or ""
    return str(name), str(build_id)


class _Tables:
    """One set of stack, frame, function and resource tables with the
    strings, sources and libraries they index (shared by every thread from
    version 60, each thread's own before), turned into the builder's
    locations and stacks as samples use them."""

    def __init__(self, b: ProfileBuilder, owner: dict, where: str, strings: list, sources, libs: list):
        self.b = b
        self.where = where
        self.strings = strings
        self.libs = libs
        stack = _obj(owner.get("stackTable"), f"{where}.stackTable")
        frame = _obj(owner.get("frameTable"), f"{where}.frameTable")
        func = _obj(owner.get("funcTable"), f"{where}.funcTable")
        resource = owner.get("resourceTable")
        resource = _obj(resource, f"{where}.resourceTable") if resource is not None else {}
        self.stack_frame = _column(stack, "frame", f"{where}.stackTable")
        self.prefix = _column(stack, "prefix", f"{where}.stackTable", required=False)
        self.prefix_offset = None
        if self.prefix is None:
            self.prefix_offset = _column(stack, "prefixOffset", f"{where}.stackTable", required=False)
            if self.prefix_offset is None:
                raise input_error(FORMAT, f"{where}.stackTable has neither 'prefix' nor 'prefixOffset'")
        self.frame_func = _column(frame, "func", f"{where}.frameTable")
        self.frame_address = _column(frame, "address", f"{where}.frameTable", required=False)
        self.frame_depth = _column(frame, "inlineDepth", f"{where}.frameTable", required=False)
        self.frame_line = _column(frame, "line", f"{where}.frameTable", required=False)
        self.frame_column = _column(frame, "column", f"{where}.frameTable", required=False)
        self.frame_lib = _column(frame, "lib", f"{where}.frameTable", required=False)
        self.func_name = _column(func, "name", f"{where}.funcTable")
        self.func_resource = _column(func, "resource", f"{where}.funcTable", required=False)
        self.func_file = _column(func, "fileName", f"{where}.funcTable", required=False)
        self.func_source = _column(func, "source", f"{where}.funcTable", required=False)
        self.func_line = _column(func, "lineNumber", f"{where}.funcTable", required=False)
        self.resource_lib = _column(resource, "lib", f"{where}.resourceTable", required=False)
        self.source_file = None
        if self.func_source is not None:
            sources = _obj(sources, "shared.sources")
            self.source_file = _column(sources, "filename", "shared.sources")
        self._functions: Dict[int, int] = {}
        self._frames: Dict[int, Tuple[int, int, int, int, int, int]] = {}
        self._mappings: Dict[int, int] = {}
        self._stacks: Dict[int, int] = {}
        self.stack_list: List[bytes] = []

    def string(self, v, where: str) -> str:
        return str(self.strings[_index(v, len(self.strings), where, "the string array")])

    def mapping(self, lib) -> int:
        if lib is None or lib == -1:
            return 0
        got = self._mappings.get(lib)
        if got is None:
            i = _index(lib, len(self.libs), f"{self.where}: library", "libs")
            got = self._mappings[lib] = self.b.mapping(*_lib_row(self.libs[i], f"libs[{i}]"))
        return got

    def function(self, f: int) -> Tuple[int, int]:
        """(builder function id, mapping id) of function ``f``."""
        w = f"{self.where}.funcTable"
        name = self.string(self.func_name[f], f"{w}.name[{f}]")
        file = ""
        if self.source_file is not None:
            src = _optional(self.func_source, f)
            if src is not None:
                src = _index(src, len(self.source_file), f"{w}.source[{f}]", "shared.sources")
                fi = self.source_file[src]
                if fi is not None:
                    file = self.string(fi, f"shared.sources.filename[{src}]")
        else:
            fi = _optional(self.func_file, f)
            if fi is not None:
                file = self.string(fi, f"{w}.fileName[{f}]")
        start = _whole(_optional(self.func_line, f), f"{w}.lineNumber[{f}]")
        lib = None
        res = _optional(self.func_resource, f)
        if res is not None and res != -1 and self.frame_lib is None:
            if isinstance(res, bool) or not isinstance(res, int) or res < 0:
                raise input_error(FORMAT, f"{w}.resource[{f}] = {res!r:.40} is not an index into the resource table")
            lib = _optional(self.resource_lib, res)
        return self.b.function(name or "(unnamed)", file, None, start), (0 if lib is None else self.mapping(lib))

    def frame(self, fr: int) -> Tuple[int, int, int, int, int, int]:
        """(function id, line, column, address, mapping id, inline depth) of frame ``fr``."""
        got = self._frames.get(fr)
        if got is not None:
            return got
        w = f"{self.where}.frameTable"
        f = _index(self.frame_func[fr], len(self.func_name), f"{w}.func[{fr}]", "the function table")
        fid = self._functions.get(f)
        if fid is None:
            fid = self._functions[f] = self.function(f)
        function_id, mid = fid
        if self.frame_lib is not None:
            mid = self.mapping(_optional(self.frame_lib, fr))
        address = _optional(self.frame_address, fr)
        address = 0 if address is None or address == -1 else _whole(address, f"{w}.address[{fr}]")
        depth = _whole(_optional(self.frame_depth, fr), f"{w}.inlineDepth[{fr}]")
        line = _whole(_optional(self.frame_line, fr), f"{w}.line[{fr}]")
        column = _whole(_optional(self.frame_column, fr), f"{w}.column[{fr}]")
        got = self._frames[fr] = (function_id, line, column, address, mid, depth)
        return got

    def caller(self, s: int) -> Optional[int]:
        w = f"{self.where}.stackTable"
        if self.prefix is not None:
            p = _optional(self.prefix, s)
            return None if p is None else _index(p, len(self.stack_frame), f"{w}.prefix[{s}]", "the stack table")
        off = _optional(self.prefix_offset, s)
        if off is None or off == 0:
            return None
        if isinstance(off, bool) or not isinstance(off, int) or not 0 < off <= s:
            raise input_error(FORMAT, f"{w}.prefixOffset[{s}] = {off!r:.40} does not point back to an earlier stack")
        return s - off

    def stack(self, s: int) -> int:
        """The position in :attr:`stack_list` of stack node ``s``'s encoded
        stack (leaf first, inlined frames folded into their location)."""
        got = self._stacks.get(s)
        if got is not None:
            return got
        w = f"{self.where}.stackTable"
        n = len(self.stack_frame)
        frames = []
        at: Optional[int] = s
        while at is not None:
            if len(frames) > n:
                raise input_error(FORMAT, f"{w} has a cycle through stack {s}")
            fr = _index(self.stack_frame[at], len(self.frame_func), f"{w}.frame[{at}]", "the frame table")
            frames.append(self.frame(fr))
            at = self.caller(at)
        locations = []
        lines: List[Tuple[int, int, int]] = []
        for i, (fid, line, column, address, mid, depth) in enumerate(frames):
            lines.append((fid, line, column))
            nxt = frames[i + 1] if i + 1 < len(frames) else None
            if depth > 0 and nxt is not None and nxt[3] == address and nxt[4] == mid and nxt[5] == depth - 1:
                continue  # inlined into the next (calling) frame at the same address
            locations.append(self.b.location_at(lines, address, mid))
            lines = []
        got = self._stacks[s] = len(self.stack_list)
        self.stack_list.append(self.b.stack_bytes(locations))
        return got


def _thread_times(samples: dict, where: str, n: int) -> np.ndarray:
    if samples.get("time") is not None:
        times = _numbers(_column(samples, "time", where), f"{where}.time")
    elif samples.get("timeDeltas") is not None:
        times = np.cumsum(_numbers(_column(samples, "timeDeltas", where), f"{where}.timeDeltas"))
    elif n == 0:
        times = np.zeros(0)
    else:
        raise input_error(FORMAT, f"{where} has neither 'time' nor 'timeDeltas'")
    if len(times) != n:
        raise input_error(FORMAT, f"{where} has {n} stacks but {len(times)} times")
    if not np.isfinite(times).all():
        raise input_error(FORMAT, f"{where}: sample time {times[~np.isfinite(times)][0]} is not a finite number")
    return times


def _as_number(v) -> Optional[int]:
    """A pid or tid as a number when it is one (the format writes pids as text)."""
    if isinstance(v, int) and not isinstance(v, bool) and -(2**63) <= v < 2**63:
        return v
    if isinstance(v, str) and v.isdigit() and len(v) < 19:
        return int(v)
    return None


def _numeric_ids(threads: list) -> Dict[str, bool]:
    """Whether each of ``pid`` and ``tid`` is a number in every thread that
    has one: a label key is numeric or text throughout the profile."""
    out = {}
    for key in ("pid", "tid"):
        values = [t.get(key) for t in threads if isinstance(t, dict) and t.get(key) is not None]
        out[key] = all(_as_number(v) is not None for v in values)
    return out


def read_firefox(doc) -> Profile:
    """Build a Profile from a parsed processed profile (a dict)."""
    doc = _obj(doc, "the document")
    meta = _obj(doc.get("meta"), "meta")
    threads = doc.get("threads")
    if not isinstance(threads, list):
        raise input_error(FORMAT, "the document has no 'threads' list")
    version = meta.get("preprocessedProfileVersion", 0)
    interval = meta.get("interval", 0)
    start_ms = meta.get("startTime", 0)
    for key, v in (("interval", interval), ("startTime", start_ms)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
            raise input_error(FORMAT, f"meta.{key} = {v!r:.40} is not a non-negative number of milliseconds")
    units = meta.get("sampleUnits") if isinstance(meta.get("sampleUnits"), dict) else {}
    cpu_scale = _CPU_UNITS.get(str(units.get("threadCPUDelta", "")))
    shared = doc.get("shared")
    shared = _obj(shared, "shared") if shared is not None else {}
    shared_strings = _column(shared, "stringArray", "shared", required=False)
    global_libs = doc.get("libs") if isinstance(doc.get("libs"), list) else []

    plans = []
    types: List[Tuple[str, str]] = [("samples", "count")]
    for t, thread in enumerate(threads):
        where = f"threads[{t}]"
        thread = _obj(thread, where)
        samples = _obj(thread.get("samples"), f"{where}.samples")
        kind = str(samples.get("weightType") or "samples")
        if kind not in ("samples", "tracing-ms", "bytes"):
            raise input_error(FORMAT, f"{where}.samples.weightType {kind!r} is not samples, tracing-ms or bytes")
        plans.append((thread, samples, kind))
        wanted = {"samples": ("wall", "nanoseconds") if interval else None, "tracing-ms": ("wall", "nanoseconds")}
        wanted["bytes"] = ("space", "bytes")
        for st in (wanted[kind], ("cpu", "nanoseconds") if cpu_scale and samples.get("threadCPUDelta") else None):
            if st is not None and st not in types:
                types.append(st)
    order = {"samples": 0, "wall": 1, "cpu": 2, "space": 3}
    types.sort(key=lambda st: order[st[0]])
    col = {st[0]: i for i, st in enumerate(types)}
    b = ProfileBuilder(types)
    b.default_sample_type = "samples"
    if interval:
        b.period_type = ("wall", "nanoseconds")
        b.period = round(interval * _MS)
    b.time_nanos = round(start_ms * _MS)

    numeric = _numeric_ids(threads)
    tables_shared: Optional[_Tables] = None
    first = last = None
    for t, (thread, samples, kind) in enumerate(plans):
        where = f"threads[{t}]"
        strings = shared_strings
        if strings is None:
            strings = thread.get("stringArray", thread.get("stringTable"))
            if not isinstance(strings, list):
                raise input_error(FORMAT, f"{where} has no 'stringArray' and the document no 'shared.stringArray'")
        if "stackTable" in thread:
            libs = thread.get("libs") if isinstance(thread.get("libs"), list) else global_libs
            tables = _Tables(b, thread, where, strings, shared.get("sources"), libs)
        else:
            if tables_shared is None:
                tables_shared = _Tables(b, shared, "shared", strings, shared.get("sources"), global_libs)
            tables = tables_shared
        sw = f"{where}.samples"
        stack_col = _column(samples, "stack", sw)
        n = len(stack_col)
        times = _thread_times(samples, sw, n)
        weight = samples.get("weight")
        weights = np.ones(n) if weight is None else _numbers(_column(samples, "weight", sw), f"{sw}.weight")
        if len(weights) != n:
            raise input_error(FORMAT, f"{sw} has {n} stacks but {len(weights)} weights")
        weights = np.where(np.isnan(weights), 1.0, weights)
        keep = np.array([s is not None for s in stack_col], bool)
        index = np.empty(n, np.int64)
        for i, s in enumerate(stack_col):
            if s is not None:
                index[i] = tables.stack(_index(s, len(tables.stack_frame), f"{sw}.stack[{i}]", "the stack table"))
        if n and keep.any():
            lo, hi = float(times[keep].min()), float(times[keep].max())
            first = lo if first is None else min(first, lo)
            last = hi if last is None else max(last, hi)
        values = np.zeros((n, len(types)), np.float64)
        if kind == "samples":
            values[:, col["samples"]] = weights
            if "wall" in col:
                values[:, col["wall"]] = weights * interval * _MS
        else:
            values[:, col["samples"]] = 1
            values[:, col["wall" if kind == "tracing-ms" else "space"]] = weights * (_MS if kind == "tracing-ms" else 1)
        cpu = samples.get("threadCPUDelta")
        if cpu is not None and "cpu" in col:
            cpu = _numbers(_column(samples, "threadCPUDelta", sw), f"{sw}.threadCPUDelta")
            if len(cpu) != n:
                raise input_error(FORMAT, f"{sw} has {n} stacks but {len(cpu)} threadCPUDelta values")
            values[:, col["cpu"]] = np.nan_to_num(cpu) * cpu_scale
        if not np.isfinite(values).all() or np.abs(values).max(initial=0) >= 2**63:
            raise input_error(FORMAT, f"{sw}: a sample's value is outside the int64 range of profile values")
        stamps = np.round((start_ms + times) * _MS)
        if stamps.size and np.abs(stamps).max() >= 2**63:
            raise input_error(FORMAT, f"{sw}: a sample time is outside the int64 range of nanoseconds")
        num_labels: List[Tuple[str, Any, str]] = [(TIMESTAMP, stamps.astype(np.int64)[keep], "nanoseconds")]
        str_labels: List[Tuple[str, Any]] = []
        m = int(keep.sum())
        name = thread.get("name")
        if name:
            str_labels.append(("thread", np.full(m, b.string(str(name)), np.int64)))
        if thread.get("processName"):
            str_labels.append(("process", np.full(m, b.string(str(thread["processName"])), np.int64)))
        for key in ("pid", "tid"):
            v = thread.get(key)
            if v is not None and numeric[key]:
                num_labels.append((key, np.full(m, _as_number(v), np.int64), ""))
            elif v is not None:
                str_labels.append((key, np.full(m, b.string(str(v)), np.int64)))
        if not m:
            continue
        # Only the stacks this thread uses: the shared list grows with every thread.
        used, rows = np.unique(index[keep], return_inverse=True)
        stacks = [tables.stack_list[u] for u in used.tolist()]
        b.add_many(stacks, rows, np.round(values[keep]).astype(np.int64), num_labels, str_labels)
    if first is not None:
        b.duration_nanos = round((last - first + interval) * _MS)
    product = meta.get("product")
    b.comments.append(f"Firefox Profiler processed profile, version {version}" + (f", from {product}" if product else ""))
    return b.build()


def read_firefox_bytes(data: bytes) -> Profile:
    """Parse processed-profile JSON bytes; bad JSON raises a
    :class:`DecodeError` naming the byte offset."""
    return read_firefox(json_document(FORMAT, data))

