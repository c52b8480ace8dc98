"""Firefox Profiler processed profiles written from a plain description, in
the shape of a chosen format version, for the reader's tests; and the
samples the reader must give for them, worked out from the description alone.

The shapes follow the profiler's docs-developer/CHANGELOG-formats.md and
processed-profile-versioning.ts: libraries per thread before version 41,
strings per thread before 56, ``funcTable.fileName`` before 58 (then
``shared.sources``), tables per thread before 60 (then in ``shared``),
``stackTable.prefix`` before 66 (then ``prefixOffset``), ``resourceTable.lib``
before 70 (then ``frameTable.lib``); ``timeDeltas`` from 50 when asked for.

A description::

    {"interval": 1.0, "start": 1.7e12, "weight_type": "samples",
     "libs": [("libfoo.so", "/usr/lib/libfoo.so", "ab12...")],
     "funcs": [(name, file or None, start line or None, lib or None)],
     "threads": [{"name": "main", "pid": "12", "tid": 12, "process": "app",
                  "samples": [(stack or None, time_ms, weight or None, cpu_us or None)]}]}

A stack is a list of frames, root first; a frame is ``(func, line or None,
address or None, inline depth)``. Frames inlined at one address follow the
frame they were inlined into, with depths 1, 2, ...
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

VERSIONS = (24, 40, 41, 50, 53, 55, 56, 57, 58, 59, 60, 65, 66, 69, 70)


class _Strings:
    def __init__(self) -> None:
        self.array: List[str] = []
        self.code: Dict[str, int] = {}

    def __call__(self, s: str) -> int:
        k = self.code.get(s)
        if k is None:
            k = self.code[s] = len(self.array)
            self.array.append(s)
        return k


def _tables(desc: dict, threads: List[dict], version: int, strings: _Strings, sources: Optional[dict], lib_of) -> dict:
    """The stack, frame, function and resource tables of ``threads``' samples."""
    funcs = desc["funcs"]
    func_index: Dict[int, int] = {}
    ft: Dict[str, list] = {k: [] for k in ("name", "isJS", "relevantForJS", "resource", "lineNumber", "columnNumber")}
    ft["source" if version >= 58 else "fileName"] = []
    rt: Dict[str, list] = {"name": [], "host": [], "type": []}
    if version < 70:
        rt["lib"] = []
    resource_of: Dict[Any, int] = {}
    frames: Dict[Tuple, int] = {}
    fr: Dict[str, list] = {
        k: [] for k in ("address", "inlineDepth", "category", "subcategory", "func", "line", "column")
    }
    fr["nativeSymbol"] = []
    if version >= 70:
        fr["lib"] = []
    stacks: Dict[Tuple, int] = {}
    st: Dict[str, list] = {"frame": [], "prefix": []}

    def func(f: int) -> int:
        k = func_index.get(f)
        if k is not None:
            return k
        name, file, start, lib = funcs[f]
        k = func_index[f] = len(ft["name"])
        ft["name"].append(strings(name))
        ft["isJS"].append(False)
        ft["relevantForJS"].append(False)
        ft["lineNumber"].append(start)
        ft["columnNumber"].append(None)
        if version >= 58:
            ft["source"].append(None if file is None else sources_index(file))
        else:
            ft["fileName"].append(None if file is None else strings(file))
        if lib is None:
            ft["resource"].append(-1)
        else:
            r = resource_of.get(lib)
            if r is None:
                r = resource_of[lib] = len(rt["name"])
                rt["name"].append(strings(desc["libs"][lib][0]))
                rt["host"].append(None)
                rt["type"].append(1)
                if version < 70:
                    rt["lib"].append(lib_of(lib))
            ft["resource"].append(r)
        return k

    def sources_index(file: str) -> int:
        fn = sources["filename"]
        code = strings(file)
        if code not in fn:
            fn.append(code)
            sources["id" if version >= 61 else "uuid"].append(None)
            sources["length"] += 1
        return fn.index(code)

    def frame(f: Tuple) -> int:
        key = f
        k = frames.get(key)
        if k is None:
            fi, line, address, depth = f
            k = frames[key] = len(fr["func"])
            fr["func"].append(func(fi))
            fr["line"].append(line)
            fr["column"].append(None)
            fr["address"].append(-1 if address is None else address)
            fr["inlineDepth"].append(depth)
            fr["category"].append(0)
            fr["subcategory"].append(0)
            fr["nativeSymbol"].append(None)
            if version >= 70:
                lib = funcs[fi][3]
                fr["lib"].append(-1 if lib is None else lib_of(lib))
        return k

    def stack(frames_root_first: List[Tuple]) -> int:
        parent = None
        for i in range(len(frames_root_first)):
            key = tuple(frames_root_first[: i + 1])
            k = stacks.get(key)
            if k is None:
                k = stacks[key] = len(st["frame"])
                st["frame"].append(frame(frames_root_first[i]))
                st["prefix"].append(parent)
            parent = k
        return parent

    for t in threads:
        t["_stacks"] = [None if s[0] is None else stack(s[0]) for s in t["samples"]]
    if version >= 66:
        st["prefixOffset"] = [0 if p is None else i - p for i, p in enumerate(st.pop("prefix"))]
    if version < 53:
        st["category"] = [0] * len(st["frame"])
        st["subcategory"] = [0] * len(st["frame"])
    out = {
        "stackTable": dict(st, length=len(st["frame"])),
        "frameTable": dict(fr, length=len(fr["func"])),
        "funcTable": dict(ft, length=len(ft["name"])),
        "resourceTable": dict(rt, length=len(rt["name"])),
        "nativeSymbols": {"length": 0, "libIndex": [], "address": [], "name": [], "functionSize": []},
    }
    if version < 54:
        out["frameTable"]["implementation"] = [None] * out["frameTable"]["length"]
    return out


def _lib(desc: dict, i: int, version: int) -> dict:
    name, path, code_id = desc["libs"][i]
    lib = {"arch": "x86_64", "name": name, "path": path, "debugName": name, "debugPath": path}
    lib["breakpadId"] = (code_id[:32].upper() + "0") if code_id else ""
    if version >= 41:
        lib["codeId"] = code_id
    else:
        lib.update(start=0x10000 * (i + 1), end=0x10000 * (i + 2), offset=0)
    return lib


def _samples(t: dict, version: int, deltas: bool, with_cpu: bool, weight_type: str) -> dict:
    rows = t["samples"]
    times = [r[1] for r in rows]
    out: Dict[str, Any] = {"length": len(rows), "stack": t.pop("_stacks")}
    if deltas and version >= 50:
        out["timeDeltas"] = [b - a for a, b in zip([0.0] + times, times)]
    else:
        out["time"] = times
    if any(r[2] is not None for r in rows) or weight_type != "samples":
        out["weight"] = [r[2] for r in rows]
    out["weightType"] = weight_type
    if with_cpu:
        out["threadCPUDelta"] = [r[3] for r in rows]
    return out


def processed_profile(desc: dict, version: int, deltas: bool = False) -> dict:
    """The processed profile of ``desc`` in the shape of ``version``."""
    strings = _Strings()
    shared: Dict[str, Any] = {}
    with_cpu = any(r[3] is not None for t in desc["threads"] for r in t["samples"])
    meta: Dict[str, Any] = {
        "interval": desc.get("interval", 1.0),
        "startTime": desc.get("start", 0.0),
        "processType": 0,
        "product": "test",
        "version": 24,
        "preprocessedProfileVersion": version,
        "categories": [{"name": "Other", "color": "grey", "subcategories": ["Other"]}],
        "markerSchema": [],
    }
    if with_cpu:
        meta["sampleUnits"] = {"time": "ms", "eventDelay": "ms", "threadCPUDelta": "µs"}
    threads = [dict(t) for t in desc["threads"]]
    sources = {"length": 0, "filename": [], ("id" if version >= 61 else "uuid"): []} if version >= 58 else None
    doc: Dict[str, Any] = {"meta": meta}
    if version >= 41:
        doc["libs"] = [_lib(desc, i, version) for i in range(len(desc["libs"]))]
    if version >= 60:
        shared.update(_tables(desc, threads, version, strings, sources, lambda lib: lib))
    out_threads = []
    for t in threads:
        thread_strings = strings if version >= 56 else _Strings()
        th: Dict[str, Any] = {"name": t["name"], "processType": "default", "pid": t["pid"], "tid": t["tid"]}
        if t.get("process"):
            th["processName"] = t["process"]
        if version < 60:
            used: List[int] = []

            def lib_of(lib: int, used=used) -> int:
                if version >= 41:
                    return lib
                if lib not in used:
                    used.append(lib)
                return used.index(lib)

            th.update(_tables(desc, [t], version, thread_strings, sources, lib_of))
            if version < 41:
                th["libs"] = [_lib(desc, i, version) for i in used]
        th["samples"] = _samples(t, version, deltas, with_cpu, desc.get("weight_type", "samples"))
        th["markers"] = {
            "length": 0,
            "data": [],
            "name": [],
            "startTime": [],
            "endTime": [],
            "phase": [],
            "category": [],
        }
        if version < 56:
            th["stringArray"] = thread_strings.array
        out_threads.append(th)
    if version >= 56:
        shared["stringArray"] = strings.array
    if sources is not None:
        shared["sources"] = sources
    if shared:
        doc["shared"] = shared
    doc["threads"] = out_threads
    doc["pages"] = []
    doc["counters"] = []
    return doc


def expected_samples(desc: dict) -> List[dict]:
    """What the reader must give for ``desc``, sample by sample in thread
    order: labels, values by sample type, and the stack as locations (leaf
    first) of ``(address, library path, ((function, file, line), ...)
    innermost inlined first)``."""
    interval = desc.get("interval", 1.0)
    kind = desc.get("weight_type", "samples")
    numeric_pids = all(str(t["pid"]).isdigit() for t in desc["threads"])  # one kind of label per key
    out = []
    for t in desc["threads"]:
        for stack, time, weight, cpu in t["samples"]:
            if stack is None:
                continue
            values = {}
            w = 1 if weight is None else weight
            if kind == "samples":
                values["samples"] = w
                if interval:
                    values["wall"] = round(w * interval * 1e6)
            elif kind == "tracing-ms":
                values["samples"] = 1
                values["wall"] = round(w * 1e6)
            else:
                values["samples"] = 1
                values["space"] = w
            values["cpu"] = round((cpu or 0) * 1000)
            locations = []
            group: List[Tuple] = []
            frames = list(reversed(stack))  # leaf first
            for i, (fi, line, address, depth) in enumerate(frames):
                name, file, _, lib = desc["funcs"][fi]
                if not (name.startswith("0x") and not file and address):  # unsymbolicated: an address only
                    group.append((name, file or "", line or 0))
                nxt = frames[i + 1] if i + 1 < len(frames) else None
                if depth > 0 and nxt is not None and nxt[2] == address and nxt[3] == depth - 1:
                    if desc["funcs"][nxt[0]][3] == lib:
                        continue
                path = desc["libs"][lib][1] if lib is not None else ""
                locations.append((address or 0, path, tuple(group)))
                group = []
            labels = {"thread": t["name"], "tid": t["tid"], "process": t.get("process")}
            labels["pid"] = int(t["pid"]) if numeric_pids else str(t["pid"])
            labels["timestamp_ns"] = round((desc.get("start", 0.0) + time) * 1e6)
            out.append({"values": values, "labels": labels, "stack": locations})
    return out
