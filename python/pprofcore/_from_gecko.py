"""Firefox's raw Gecko profile (``MOZ_PROFILER_SHUTDOWN=profile.json``, the
Gecko profiler's own output before profiler.firefox.com processes it; also
Android simpleperf's ``gecko_profile_generator.py``) to a profile. The
processed format that profiler.firefox.com and samply save is
``_from_firefox``.

A Gecko profile is a process (``meta``, ``libs``, ``threads``) with the
profiles of its child processes in ``processes``. Each thread's tables are
``{"schema": {column: index}, "data": [[...], ...]}``: ``samples`` (stack,
time in milliseconds since its process's ``meta.startTime``, optionally
``threadCPUDelta`` and ``weight``), ``stackTable`` (frame, prefix),
``frameTable`` (location, line, column, ...) and a ``stringTable``. A
frame's ``location`` says what it is, as the profiler reads it:

- ``0x7f3a12c4`` (an unsymbolicated address): a location at that address in
  the mapping of the library that holds it (``libs``: ``start``, ``end``,
  ``offset``, path and build ID), so ``Profile.symbolize()`` can name it;
- ``name (in library)``, optionally followed by ``+ 123`` or ``(file:line)``:
  a native function of that library;
- ``name (url:line:column)``, ``url:line:column`` (optionally ``[source]``):
  a JavaScript function (``(root scope) url`` when it has no name);
- anything else: a label frame, named by the text.

Sample types, labels and the rest follow ``_from_firefox``: ``samples/count``
(its weight), ``wall/nanoseconds`` (times ``meta.interval``),
``cpu/nanoseconds`` from ``threadCPUDelta``; ``thread``, ``process``,
``pid``, ``tid`` and ``timestamp_ns`` (Unix epoch nanoseconds).
"""

from __future__ import annotations

import bisect
import json
import math
import re
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from ._build import TIMESTAMP, ProfileBuilder, input_error, json_document
from ._from_firefox import lib_file_and_build_id, numeric_ids, thread_labels
from ._profile import Profile

FORMAT = "Gecko profile"
_MS = 1_000_000
_CPU_UNITS = {"ns": 1, "µs": 1000, "us": 1000, "ms": 1_000_000}
_NATIVE = re.compile(r"(.*) \(in ([^)]*)\)(?: \+ [0-9]+| \((.*):([0-9]+)\))?\Z", re.S)
_JS = re.compile(r"(.*) \((.+?):([0-9]+)(?::([0-9]+))?\)(?:\[\d+\])?\Z", re.S)
_JS_URL = re.compile(r"()(.+?):([0-9]+)(?::([0-9]+))?(?:\[\d+\])?\Z", re.S)
_ADDRESS = re.compile(r"0x[0-9a-fA-F]+\Z")


def looks_like_gecko(head: bytes) -> bool:
    """A JSON object with a Gecko ``meta`` (``version``, ``interval``,
    ``startTime``) and schema-and-data tables (or ``stackwalk``), and no
    ``preprocessedProfileVersion`` (that is the processed format)."""
    if head.lstrip()[:1] != b"{" or b'"preprocessedProfileVersion"' in head:
        return False
    meta = all(k in head for k in (b'"meta"', b'"version"', b'"interval"', b'"startTime"'))
    return meta and (b'"schema"' in head or b'"stackwalk"' in head)


def _number(v, where: str, whole: bool = False) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise input_error(FORMAT, f"{where} = {v!r:.40} is not a number")
    if whole and v != int(v):
        raise input_error(FORMAT, f"{where} = {v!r:.40} is not a whole number")
    return v


def _table(owner: dict, key: str, where: str) -> Tuple[Dict[str, list], int]:
    """A schema-and-data table as columns (rows short of a column: null)."""
    t = owner.get(key)
    if not isinstance(t, dict) or not isinstance(t.get("schema"), dict) or not isinstance(t.get("data"), list):
        raise input_error(FORMAT, f"{where} has no '{key}' table (an object with 'schema' and 'data')")
    rows = t["data"]
    cols: Dict[str, list] = {}
    for name, i in t["schema"].items():
        if isinstance(i, bool) or not isinstance(i, int) or i < 0:
            raise input_error(FORMAT, f"{where}.{key}.schema['{name}'] = {i!r:.40} is not a column index")
        col = []
        for r, row in enumerate(rows):
            if not isinstance(row, list):
                raise input_error(FORMAT, f"{where}.{key}.data[{r}] is not a list")
            col.append(row[i] if i < len(row) else None)
        cols[name] = col
    return cols, len(rows)


def _index(v, size: int, where: str, target: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < size:
        raise input_error(FORMAT, f"{where} = {v!r:.40} is not an index into {target} ({size} entries)")
    return v


class _Libraries:
    """A process's libraries by address range, as mappings of the builder."""

    def __init__(self, b: ProfileBuilder, libs, where: str):
        self.b = b
        self.rows: List[Tuple[int, int, int, str, str]] = []
        for i, lib in enumerate(libs if isinstance(libs, list) else []):
            w = f"{where}[{i}]"
            if not isinstance(lib, dict):
                raise input_error(FORMAT, f"{w} is not an object")
            start, end = _number(lib.get("start", 0), f"{w}.start", True), _number(lib.get("end", 0), f"{w}.end", True)
            offset = _number(lib.get("offset", 0), f"{w}.offset", True)
            name, build_id = lib_file_and_build_id(lib)
            if 0 <= start < end < 2**64 and 0 <= offset < 2**64:
                self.rows.append((int(start), int(end), int(offset), name, build_id))
        self.rows.sort()
        self.starts = [r[0] for r in self.rows]
        self._ids: Dict[int, int] = {}

    def at(self, address: int) -> int:
        """The mapping id of the library holding ``address`` (0: none)."""
        k = bisect.bisect_right(self.starts, address) - 1
        if k < 0 or address >= self.rows[k][1]:
            return 0
        mid = self._ids.get(k)
        if mid is None:
            start, end, offset, name, build_id = self.rows[k]
            mid = self._ids[k] = self.b.mapping_at(name, build_id, start, end, offset)
            self.b.unsymbolized(mid)
        return mid

    def named(self, name: str) -> int:
        return self.b.mapping(name) if name else 0


class _Thread:
    """One thread's frames and stacks, turned into the builder's locations."""

    def __init__(self, b: ProfileBuilder, thread: dict, where: str, libs: _Libraries):
        self.b, self.where, self.libs = b, where, libs
        strings = thread.get("stringTable")
        if not isinstance(strings, list):
            raise input_error(FORMAT, f"{where} has no 'stringTable' list")
        self.strings: list = strings
        self.frames, self.n_frames = _table(thread, "frameTable", where)
        if "location" not in self.frames:
            raise input_error(FORMAT, f"{where}.frameTable has no 'location' column")
        stacks, self.n_stacks = _table(thread, "stackTable", where)
        if "frame" not in stacks or "prefix" not in stacks:
            raise input_error(FORMAT, f"{where}.stackTable needs 'frame' and 'prefix' columns")
        self.stack_frame, self.stack_prefix = stacks["frame"], stacks["prefix"]
        self._locations: Dict[int, bytes] = {}
        self._encoded: Dict[int, bytes] = {}

    def _string(self, v, where: str) -> str:
        return str(self.strings[_index(v, len(self.strings), where, "the stringTable")])

    def _location(self, fr: int) -> bytes:
        """The varint of frame ``fr``'s location id."""
        got = self._locations.get(fr)
        if got is not None:
            return got
        b, w = self.b, f"{self.where}.frameTable"
        text = self._string(self.frames["location"][fr], f"{w}.location[{fr}]")
        line = self.frames.get("line", [None] * self.n_frames)[fr]
        column = self.frames.get("column", [None] * self.n_frames)[fr]
        line = int(_number(line, f"{w}.line[{fr}]", True)) if line is not None else 0
        column = int(_number(column, f"{w}.column[{fr}]", True)) if column is not None else 0
        if _ADDRESS.match(text):
            address = int(text, 16)
            if address >= 1 << 64:
                raise input_error(FORMAT, f"{w}.location[{fr}] = {text[:40]!r} is not a 64-bit address")
            lid = b.location_at((), address, self.libs.at(address))
        else:
            native = _NATIVE.match(text)
            js = None if native else (_JS.match(text) or _JS_URL.match(text))
            if native is not None:
                name, lib, file, at = native.group(1), native.group(2), native.group(3), native.group(4)
                fid = b.function(name, file or "")
                lid = b.location_at(((fid, int(at) if at else max(line, 0), 0),), 0, self.libs.named(lib))
            elif js is not None:
                name, url = js.group(1), js.group(2)
                fid = b.function(name or f"(root scope) {url}", url)
                lines = ((fid, int(js.group(3)), int(js.group(4) or 0)),)
                lid = b.location_at(lines, 0, 0)
            else:  # a label frame
                lid = b.location_at(((b.function(text), max(line, 0), max(column, 0)),), 0, 0)
        got = self._locations[fr] = b.id_bytes(lid)
        return got

    def stack(self, s: int) -> bytes:
        """The encoded stack (leaf first) of stack ``s``."""
        got = self._encoded.get(s)
        if got is not None:
            return got
        w = f"{self.where}.stackTable"
        path = []
        at: Optional[int] = s
        while at is not None and at not in self._encoded:
            path.append(at)
            if len(path) > self.n_stacks:
                raise input_error(FORMAT, f"{w} has a cycle through stack {s}")
            p = self.stack_prefix[at]
            at = None if p is None else _index(p, self.n_stacks, f"{w}.prefix[{at}]", "the stackTable")
        below = self._encoded[at] if at is not None else b""
        for x in reversed(path):
            fr = _index(self.stack_frame[x], self.n_frames, f"{w}.frame[{x}]", "the frameTable")
            below = self._encoded[x] = self._location(fr) + below
        return self._encoded[s]


def _embedded(text: str, where: str):
    """JSON held in a string: version 3 profiles embed each child process
    (as a thread entry) and their ``libs`` so."""
    try:
        return json.loads(text)
    except ValueError as e:
        raise input_error(FORMAT, f"{where} is a string that is not a JSON document ({e})") from None


def _processes(doc, where: str, out: list) -> None:
    """The process ``doc`` and its children, depth first, as ``(profile, its
    JSON path, [(thread path, thread)])``."""
    if not isinstance(doc, dict) or not isinstance(doc.get("meta"), dict):
        raise input_error(FORMAT, f"{where} has no 'meta' object")
    if not isinstance(doc.get("threads"), list):
        raise input_error(FORMAT, f"{where} has no 'threads' list")
    prefix = "" if where == "the document" else f"{where}."
    threads: List[Tuple[str, dict]] = []
    mine = (doc, where, threads)
    out.append(mine)
    for i, t in enumerate(doc["threads"]):
        w = f"{prefix}threads[{i}]"
        if isinstance(t, str):
            _processes(_embedded(t, w), w, out)
        elif isinstance(t, dict):
            threads.append((w, t))
        else:
            raise input_error(FORMAT, f"{w} is not an object")
    children = doc.get("processes") or []
    if not isinstance(children, list):
        raise input_error(FORMAT, f"{prefix}processes is not a list")
    for i, child in enumerate(children):
        _processes(child, f"{prefix}processes[{i}]", out)


def read_gecko(doc) -> Profile:
    """Build a Profile from a parsed Gecko profile (a dict)."""
    if not isinstance(doc, dict):
        raise input_error(FORMAT, "the document is not a JSON object")
    procs: List[Tuple[dict, str, list]] = []
    _processes(doc, "the document", procs)
    meta = doc["meta"]
    interval = _number(meta.get("interval", 0), "meta.interval")
    units = meta.get("sampleUnits") if isinstance(meta.get("sampleUnits"), dict) else {}
    cpu_scale = _CPU_UNITS.get(str(units.get("threadCPUDelta", "")))
    threads = []
    for proc, where, its_threads in procs:
        start = _number(proc["meta"].get("startTime", 0), f"{where}: meta.startTime")
        for w, t in its_threads:
            threads.append((proc, start, t, w, where))
    has_cpu = cpu_scale is not None and any(
        isinstance(t.get("samples"), dict)
        and isinstance(t["samples"].get("schema"), dict)
        and "threadCPUDelta" in t["samples"]["schema"]
        for _, _, t, _, _ in threads
    )
    types = [("samples", "count")] + ([("wall", "nanoseconds")] if interval > 0 else [])
    types += [("cpu", "nanoseconds")] if has_cpu else []
    b = ProfileBuilder(types)
    b.default_sample_type = "samples"
    if interval > 0:
        b.period_type, b.period = ("wall", "nanoseconds"), round(interval * _MS)
    b.time_nanos = round(_number(meta.get("startTime", 0), "meta.startTime") * _MS)
    numeric = numeric_ids([t for _, _, t, _, _ in threads])
    libraries: Dict[int, _Libraries] = {}
    first, last = math.inf, -math.inf
    for proc, start_ms, thread, where, proc_where in threads:
        libs = libraries.get(id(proc))
        if libs is None:
            listed = proc.get("libs")
            at = "libs" if proc_where == "the document" else f"{proc_where}.libs"
            if isinstance(listed, str):
                listed = _embedded(listed, at)
            libs = libraries[id(proc)] = _Libraries(b, listed, at)
        t = _Thread(b, thread, where, libs)
        samples, n = _table(thread, "samples", where)
        if "stack" not in samples or "time" not in samples:
            raise input_error(FORMAT, f"{where}.samples needs 'stack' and 'time' columns")
        keep = [i for i, s in enumerate(samples["stack"]) if s is not None]
        if not keep:
            continue
        times = np.array([_number(samples["time"][i], f"{where}.samples time[{i}]") for i in keep], np.float64)
        weight = samples.get("weight")
        weights = np.array(
            [
                1 if weight is None or weight[i] is None else _number(weight[i], f"{where}.samples weight[{i}]")
                for i in keep
            ],
            np.float64,
        )
        values = np.zeros((len(keep), len(types)), np.float64)
        values[:, 0] = weights
        if interval > 0:
            values[:, 1] = weights * interval * _MS
        if has_cpu and samples.get("threadCPUDelta") is not None:
            cpu = samples["threadCPUDelta"]
            values[:, -1] = [
                0 if cpu[i] is None else _number(cpu[i], f"{where}.samples threadCPUDelta[{i}]") for i in keep
            ]
            values[:, -1] *= cpu_scale or 1
        stamps = np.round((start_ms + times) * _MS)
        if not (np.abs(values).max(initial=0) < 2**63 and np.abs(stamps).max(initial=0) < 2**63):
            raise input_error(FORMAT, f"{where}.samples: a value or time is outside the int64 range")
        first, last = min(first, float(times.min()) + start_ms), max(last, float(times.max()) + start_ms)
        encoded: Dict[Any, int] = {}
        stacks: List[bytes] = []
        rows = np.empty(len(keep), np.int64)
        for k, i in enumerate(keep):
            s = samples["stack"][i]
            pos = encoded.get(s) if type(s) is int else None  # anything else fails _index below
            if pos is None:
                stack = t.stack(_index(s, t.n_stacks, f"{where}.samples stack[{i}]", "the stackTable"))
                pos = encoded[s] = len(stacks)
                stacks.append(b.stack_of_ids(stack))
            rows[k] = pos
        num_labels, str_labels = thread_labels(b, thread, len(keep), numeric)
        num_labels.insert(0, (TIMESTAMP, stamps.astype(np.int64), "nanoseconds"))
        b.add_many(stacks, rows, np.round(values).astype(np.int64), num_labels, str_labels)
    if first <= last:
        b.duration_nanos = round((last - first + interval) * _MS)
    product = meta.get("product")
    b.comments.append(f"Gecko profile, version {meta.get('version')}" + (f", from {product}" if product else ""))
    return b.build()


def read_gecko_bytes(data: bytes) -> Profile:
    """Parse Gecko profile JSON bytes; bad JSON raises a :class:`DecodeError`
    naming the byte offset."""
    return read_gecko(json_document(FORMAT, data))
