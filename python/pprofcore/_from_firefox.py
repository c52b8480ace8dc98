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
build ID (``codeId``, else ``breakpadId``); a frame not symbolicated (its
function named by its address, as samply writes them) is that address only,
as pprof keeps unsymbolized locations.
"""

from __future__ import annotations

import math
import re
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from ._build import TIMESTAMP, ProfileBuilder, input_error, json_document
from ._profile import Profile

FORMAT = "Firefox Profiler"
_CPU_UNITS = {"ns": 1, "µs": 1000, "\u03bcs": 1000, "us": 1000, "ms": 1_000_000}
_MS = 1_000_000
# samply and the profiler name a frame that is not symbolicated by its address.
_ADDRESS_NAME = re.compile(r"0x[0-9a-fA-F]+\Z")


def looks_like_firefox(head: bytes) -> bool:
    """A JSON object with a ``meta`` naming ``preprocessedProfileVersion``, or
    (before version 1 of the format) threads with a ``stringArray``."""
    if head.lstrip()[:1] != b"{":
        return False
    if b'"preprocessedProfileVersion"' in head:
        return True
    return b'"meta"' in head and b'"threads"' in head and b'"stringArray"' in head and b'"stackTable"' in head


def _misplaced(where: str, key: str, v, kind: str) -> Exception:
    """The error for ``where``'s field ``key`` that is missing or not a ``kind``."""
    if v is None:
        return input_error(FORMAT, f"{where} has no '{key}' {kind}")
    return input_error(
        FORMAT,
        f"{where}.{key} must be a{'n' if kind[0] in 'aeiou' else ''} {kind}, not {_json_type(v)} (field '{key}')",
    )


def _json_type(v) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}.get(type(v), "a number")


def _obj(v, where: str) -> dict:
    if not isinstance(v, dict):
        parent, _, key = where.rpartition(".")
        if not parent and "[" in key:  # threads[3]: an element of a list
            raise input_error(FORMAT, f"{where} must be an object, not {_json_type(v) if v is not None else 'null'}")
        raise _misplaced(parent or "the document", key, v, "object")
    return v


def _column(table: dict, key: str, where: str) -> list:
    v = table.get(key)
    if not isinstance(v, list):
        raise _misplaced(where, key, v, "list")
    return v


def _maybe_column(table: dict, key: str, where: str) -> Optional[list]:
    """An optional column: ``None`` when absent or null."""
    return None if table.get(key) is None else _column(table, key, where)


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
        i = next(
            i for i, x in enumerate(col) if x is not None and (isinstance(x, bool) or not isinstance(x, (int, float)))
        )
        raise input_error(FORMAT, f"{where}[{i}] = {col[i]!r:.40} is not a number") from None
    if out.ndim != 1:
        raise input_error(FORMAT, f"{where} must be a list of numbers")
    return out


def lib_file_and_build_id(lib: dict) -> Tuple[str, str]:
    """A library's file (its path, else its debug file or name) and build
    ID (``codeId``, the ELF build ID, else ``breakpadId``), as the processed
    and the Gecko formats both spell them."""
    name = lib.get("path") or lib.get("debugPath") or lib.get("name") or lib.get("debugName") or ""
    build_id = lib.get("codeId") or lib.get("breakpadId") or ""
    return str(name), str(build_id)


def _lib_row(lib, where: str) -> Tuple[str, str]:
    return lib_file_and_build_id(_obj(lib, where))


def _integers(col: Optional[list], n: int, where: str, default: int = 0, none: int = 0) -> np.ndarray:
    """An integer column of ``n`` rows as int64: null, and rows past the end
    of a short (sparse) column, are ``none``; a missing column is
    ``default`` throughout."""
    if col is None:
        return np.full(n, default, np.int64)
    x = _numbers(col[:n], where)
    bad = ~np.isnan(x) & ((x != np.floor(x)) | (np.abs(x) >= 2**62))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise input_error(FORMAT, f"{where}[{i}] = {col[i]!r:.40} is not a whole number")
    out = np.full(n, none, np.int64)
    out[: len(x)] = np.where(np.isnan(x), none, x).astype(np.int64)
    return out


def _in_range(x: np.ndarray, size: int, where: str, target: str, col: list, allow=None) -> None:
    bad = (x < 0) | (x >= size)
    if allow is not None:
        bad &= x != allow
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise input_error(FORMAT, f"{where}[{i}] = {col[i]!r:.40} is not an index into {target} ({size} entries)")


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
        ws, wf = f"{where}.stackTable", f"{where}.frameTable"

        self.func_name = _column(func, "name", f"{where}.funcTable")
        self.func_resource = _maybe_column(func, "resource", f"{where}.funcTable")
        self.func_file = _maybe_column(func, "fileName", f"{where}.funcTable")
        self.func_source = _maybe_column(func, "source", f"{where}.funcTable")
        self.func_line = _maybe_column(func, "lineNumber", f"{where}.funcTable")
        self.resource_lib = _maybe_column(resource, "lib", f"{where}.resourceTable")
        self.source_file = None
        if self.func_source is not None:
            sources = _obj(sources, "shared.sources")
            self.source_file = _column(sources, "filename", "shared.sources")

        # The frame table, column by column: a frame is its function, line,
        # column, address, library and inline depth.
        func_col = _column(frame, "func", wf)
        nf = len(func_col)
        self.frame_func = _integers(func_col, nf, f"{wf}.func", none=-1)
        _in_range(self.frame_func, len(self.func_name), f"{wf}.func", "the function table", func_col)
        self.frame_line = np.maximum(_integers(_maybe_column(frame, "line", wf), nf, f"{wf}.line"), 0)
        self.frame_column = np.maximum(_integers(_maybe_column(frame, "column", wf), nf, f"{wf}.column"), 0)
        address = _integers(_maybe_column(frame, "address", wf), nf, f"{wf}.address", none=-1)
        self.frame_address = np.maximum(address, 0)
        self.frame_depth = np.maximum(_integers(_maybe_column(frame, "inlineDepth", wf), nf, f"{wf}.inlineDepth"), 0)
        lib_col = _maybe_column(frame, "lib", wf)
        self.frame_lib = None
        if lib_col is not None:
            self.frame_lib = _integers(lib_col, nf, f"{wf}.lib", none=-1)
            _in_range(self.frame_lib, len(libs), f"{wf}.lib", "libs", lib_col, allow=-1)

        # The stack table: each node's frame and caller (-1 for a root).
        frame_of = _column(stack, "frame", ws)
        ns = len(frame_of)
        self.stack_frame = _integers(frame_of, ns, f"{ws}.frame", none=-1)
        _in_range(self.stack_frame, nf, f"{ws}.frame", "the frame table", frame_of)
        prefix = _maybe_column(stack, "prefix", ws)
        if prefix is not None:
            self.caller = _integers(prefix, ns, f"{ws}.prefix", none=-1)
            _in_range(self.caller, ns, f"{ws}.prefix", "the stack table", prefix, allow=-1)
        else:
            offsets = _maybe_column(stack, "prefixOffset", ws)
            if offsets is None:
                raise input_error(FORMAT, f"{ws} has neither 'prefix' nor 'prefixOffset'")
            off = _integers(offsets, ns, f"{ws}.prefixOffset")
            node = np.arange(ns)
            bad = (off < 0) | (off > node)
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise input_error(
                    FORMAT, f"{ws}.prefixOffset[{i}] = {offsets[i]!r:.40} does not point back to an earlier stack"
                )
            self.caller = np.where(off == 0, -1, node - off)
        self.size = ns

        # Python lists: the stack walk reads them an element at a time.
        self._frame = [
            x.tolist()
            for x in (self.frame_func, self.frame_line, self.frame_column, self.frame_address, self.frame_depth)
        ]
        self._frame_lib = None if self.frame_lib is None else self.frame_lib.tolist()
        self._caller = self.caller.tolist()
        self._stack_frame = self.stack_frame.tolist()
        self._functions: Dict[int, Tuple[int, int]] = {}
        self._mappings: Dict[int, int] = {}
        self._frame_heads: Dict[int, list] = {}
        # Per stack node, filled as samples reach it: its leaf location
        # (lines innermost first, address, mapping, its id's varint, the
        # leaf frame's inline depth) and the varints of its callers' ids.
        self._head: List[Optional[list]] = [None] * ns
        self._tail: List[bytes] = [b""] * ns

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
        got = self._functions.get(f)
        if got is not None:
            return got
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
            if lib is not None and lib != -1:
                lib = _index(lib, len(self.libs), f"{self.where}.resourceTable.lib[{res}]", "libs")
        if _ADDRESS_NAME.match(name) and not file:
            fid = 0  # unsymbolicated: the frame's address names it
        else:
            fid = self.b.function(name or "(unnamed)", file, None, start)
        got = self._functions[f] = (fid, self.mapping(lib))
        return got

    def _own(self, fr: int) -> list:
        """Frame ``fr`` as a location of its own: [lines, address, mapping
        id, the location id's varint (made when first used), inline depth]."""
        got = self._frame_heads.get(fr)
        if got is None:
            func, lines_of, columns, addresses, depths = self._frame
            fid, mid = self.function(func[fr])
            if self._frame_lib is not None:
                mid = self.mapping(self._frame_lib[fr])
            if fid == 0 and addresses[fr] == 0:  # no address either: keep the name
                fid = self.b.function(self.string(self.func_name[func[fr]], f"{self.where}.funcTable.name"))
            lines = ((fid, lines_of[fr], columns[fr]),) if fid else ()
            if not fid and mid:
                self.b.unsymbolized(mid)
            got = self._frame_heads[fr] = [lines, addresses[fr], mid, None, depths[fr]]
        return got

    def _resolve(self, s: int) -> None:
        """Fills the heads and tails of ``s`` and of its callers not yet filled."""
        path = []
        at = s
        heads, tails, callers = self._head, self._tail, self._caller
        while at != -1 and heads[at] is None:
            path.append(at)
            if len(path) > self.size:
                raise input_error(FORMAT, f"{self.where}.stackTable has a cycle through stack {s}")
            at = callers[at]
        b = self.b
        stack_frame = self._stack_frame
        for x in reversed(path):
            own = self._own(stack_frame[x])
            c = callers[x]
            head = heads[c] if c != -1 else None
            depth = own[4]
            if head is not None and depth > 0 and head[1] == own[1] and head[2] == own[2] and head[4] == depth - 1:
                # Inlined into its caller at the same address: one more line of that location.
                lines = own[0] + head[0]
                heads[x] = [lines, own[1], own[2], b.id_bytes(b.location_at(lines, own[1], own[2])), depth]
                tails[x] = tails[c]
            else:
                if own[3] is None:
                    own[3] = b.id_bytes(b.location_at(own[0], own[1], own[2]))
                heads[x] = own
                tails[x] = b"" if head is None else head[3] + tails[c]

    def stacks(self, nodes: np.ndarray) -> List[bytes]:
        """The encoded stacks (leaf first) of the stack nodes ``nodes``."""
        out = []
        b, heads, tails = self.b, self._head, self._tail
        for s in nodes.tolist():
            if heads[s] is None:
                self._resolve(s)
            out.append(b.stack_of_ids(heads[s][3] + tails[s]))
        return out


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


def thread_labels(
    b: ProfileBuilder, thread: dict, m: int, numeric: Dict[str, bool]
) -> Tuple[List[Tuple[str, Any, str]], List[Tuple[str, Any]]]:
    """The labels of ``m`` samples of ``thread`` for ``add_many``: ``thread``
    and ``process`` (its name and its process's), ``pid`` and ``tid``
    (numbers where ``numeric`` says every thread's are). Shared with the
    Gecko reader, whose threads name the same fields."""
    num_labels: List[Tuple[str, Any, str]] = []
    str_labels: List[Tuple[str, Any]] = []
    for key, label in (("name", "thread"), ("processName", "process")):
        if thread.get(key):
            str_labels.append((label, np.full(m, b.string(str(thread[key])), np.int64)))
    for key in ("pid", "tid"):
        v = thread.get(key)
        if v is not None and numeric[key]:
            num_labels.append((key, np.full(m, _as_number(v), np.int64), ""))
        elif v is not None:
            str_labels.append((key, np.full(m, b.string(str(v)), np.int64)))
    return num_labels, str_labels


def numeric_ids(threads: list) -> Dict[str, bool]:
    """Whether each of ``pid`` and ``tid`` is a number in every thread that
    has one: a label key is numeric or text throughout the profile."""
    out = {}
    for key in ("pid", "tid"):
        values = [t.get(key) for t in threads if isinstance(t, dict) and t.get(key) is not None]
        out[key] = all(_as_number(v) is not None for v in values)
    return out


def read_firefox(doc) -> Profile:
    """Build a Profile from a parsed processed profile (a dict)."""
    if not isinstance(doc, dict):
        raise input_error(FORMAT, "the document is not a JSON object")
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
    units = meta.get("sampleUnits")
    units = units if isinstance(units, dict) else {}
    cpu_scale = _CPU_UNITS.get(str(units.get("threadCPUDelta", "")))
    shared = doc.get("shared")
    shared = _obj(shared, "shared") if shared is not None else {}
    shared_strings = _maybe_column(shared, "stringArray", "shared")
    global_libs: list = doc["libs"] if isinstance(doc.get("libs"), list) else []

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

    numeric = numeric_ids(threads)
    tables_shared: Optional[_Tables] = None
    first, last = math.inf, -math.inf  # the earliest and latest sample times
    for t, (thread, samples, kind) in enumerate(plans):
        where = f"threads[{t}]"
        strings = shared_strings
        if strings is None:
            strings = thread.get("stringArray", thread.get("stringTable"))
            if not isinstance(strings, list):
                raise input_error(FORMAT, f"{where} has no 'stringArray' and the document no 'shared.stringArray'")
        if "stackTable" in thread:
            libs: list = thread["libs"] if isinstance(thread.get("libs"), list) else global_libs
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
        index = _integers(stack_col, n, f"{sw}.stack", none=-1)
        _in_range(index, tables.size, f"{sw}.stack", "the stack table", stack_col, allow=-1)
        keep = index != -1  # samples without a stack are not in the call tree
        if n and keep.any():
            lo, hi = float(times[keep].min()), float(times[keep].max())
            first, last = min(first, lo), max(last, hi)
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
        m = int(keep.sum())
        num_labels, str_labels = thread_labels(b, thread, m, numeric)
        num_labels.insert(0, (TIMESTAMP, stamps.astype(np.int64)[keep], "nanoseconds"))
        if not m:
            continue
        used, rows = np.unique(index[keep], return_inverse=True)
        b.add_many(tables.stacks(used), rows, np.round(values[keep]).astype(np.int64), num_labels, str_labels)
    if first <= last:
        b.duration_nanos = round((last - first + interval) * _MS)
    product = meta.get("product")
    b.comments.append(
        f"Firefox Profiler processed profile, version {version}" + (f", from {product}" if product else "")
    )
    return b.build()


def read_firefox_bytes(data: bytes) -> Profile:
    """Parse processed-profile JSON bytes; bad JSON raises a
    :class:`DecodeError` naming the byte offset."""
    return read_firefox(json_document(FORMAT, data))
