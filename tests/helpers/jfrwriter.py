"""A tiny JFR writer for tests: one chunk with a metadata event describing a
few types, one checkpoint with their constant pools, and the events given.
Integers are varints (``compressed=True``, as the JDK writes them) or
big-endian. Only what tests/core/test_read_jfr.py needs; written from the format's
description (chunk header, metadata elements, checkpoint pools)."""

from __future__ import annotations

import struct
from typing import Dict, List, Tuple

# type id -> (name, [(field, type id, constant pool?, array?)])
TYPES: Dict[int, Tuple[str, List[Tuple[str, int, bool, bool]]]] = {
    10: ("long", []),
    11: ("int", []),
    12: ("boolean", []),
    13: ("java.lang.String", []),
    20: (
        "java.lang.Thread",
        [("osName", 13, False, False), ("javaName", 13, False, False), ("javaThreadId", 10, False, False)],
    ),
    21: ("jdk.types.Symbol", [("string", 13, False, False)]),
    22: ("java.lang.Class", [("name", 21, True, False)]),
    23: ("jdk.types.Method", [("type", 22, True, False), ("name", 21, True, False), ("descriptor", 21, True, False)]),
    24: ("jdk.types.FrameType", [("description", 13, False, False)]),
    25: (
        "jdk.types.StackFrame",
        [
            ("method", 23, True, False),
            ("lineNumber", 11, False, False),
            ("bytecodeIndex", 11, False, False),
            ("type", 24, True, False),
        ],
    ),
    26: ("jdk.types.StackTrace", [("truncated", 12, False, False), ("frames", 25, False, True)]),
    100: (
        "jdk.ExecutionSample",
        [("startTime", 10, False, False), ("sampledThread", 20, True, False), ("stackTrace", 26, True, False)],
    ),
    27: ("jdk.types.ThreadState", [("name", 13, False, False)]),
    101: (
        "jdk.ObjectAllocationSample",
        [
            ("startTime", 10, False, False),
            ("eventThread", 20, True, False),
            ("stackTrace", 26, True, False),
            ("objectClass", 22, True, False),
            ("weight", 10, False, False),
        ],
    ),
    # async-profiler's own events (its jfrMetadata.cpp names the fields) and the JDK 25 CPU-time sampler's.
    102: (
        "profiler.WallClockSample",
        [
            ("startTime", 10, False, False),
            ("sampledThread", 20, True, False),
            ("stackTrace", 26, True, False),
            ("state", 27, True, False),
            ("samples", 11, False, False),
            ("timeSpan", 10, False, False),
        ],
    ),
    103: (
        "profiler.Malloc",
        [
            ("startTime", 10, False, False),
            ("eventThread", 20, True, False),
            ("stackTrace", 26, True, False),
            ("address", 10, False, False),
            ("size", 10, False, False),
        ],
    ),
    104: (
        "profiler.LiveObject",
        [
            ("startTime", 10, False, False),
            ("eventThread", 20, True, False),
            ("stackTrace", 26, True, False),
            ("objectClass", 22, True, False),
            ("allocationSize", 10, False, False),
            ("allocationTime", 10, False, False),
        ],
    ),
    105: (
        "profiler.NativeLock",
        [
            ("startTime", 10, False, False),
            ("duration", 10, False, False),
            ("eventThread", 20, True, False),
            ("stackTrace", 26, True, False),
            ("address", 10, False, False),
        ],
    ),
    106: (
        "jdk.CPUTimeSample",
        [
            ("startTime", 10, False, False),
            ("stackTrace", 26, True, False),
            ("eventThread", 20, True, False),
            ("failed", 12, False, False),
            ("samplingPeriod", 10, False, False),
            ("biased", 12, False, False),
        ],
    ),
}


class _W:
    def __init__(self, compressed: bool):
        self.c = compressed
        self.out = bytearray()

    def varint(self, v: int) -> None:
        v &= (1 << 64) - 1
        for _ in range(8):
            if v < 0x80:
                self.out.append(v)
                return
            self.out.append((v & 0x7F) | 0x80)
            v >>= 7
        self.out.append(v & 0xFF)

    def i32(self, v: int) -> None:
        if self.c:
            self.varint(v & 0xFFFFFFFF)
        else:
            self.out += struct.pack(">i", v)

    def i64(self, v: int) -> None:
        if self.c:
            self.varint(v)
        else:
            self.out += struct.pack(">q", v)

    def string(self, s) -> None:
        if s is None:
            self.out.append(0)
            return
        raw = s.encode()
        self.out.append(3)
        self.i32(len(raw))
        self.out += raw

    def value(self, type_id: int, v) -> None:
        name, fields = TYPES[type_id]
        if name in ("long",):
            self.i64(v)
        elif name == "int":
            self.i32(v)
        elif name == "boolean":
            self.out.append(1 if v else 0)
        elif name == "java.lang.String":
            self.string(v)
        else:
            for fname, ftype, pool, array in fields:
                x = v[fname]
                items = x if array else [x]
                if array:
                    self.i32(len(items))
                for item in items:
                    if pool:
                        self.i64(item)
                    else:
                        self.value(ftype, item)


def _event(compressed: bool, type_id: int, body: bytes) -> bytes:
    w = _W(compressed)
    w.i64(type_id)
    inner = bytes(w.out) + body
    size = len(inner) + 4
    if compressed:  # a size padded to four varint bytes, as the JDK writes it
        head = bytes([(size & 0x7F) | 0x80, ((size >> 7) & 0x7F) | 0x80, ((size >> 14) & 0x7F) | 0x80, size >> 21])
    else:
        head = struct.pack(">i", size)
    return head + inner


def _metadata(compressed: bool) -> bytes:
    strings: List[str] = []

    def s(x: str) -> int:
        if x not in strings:
            strings.append(x)
        return strings.index(x)

    def element(w: _W, name: str, attrs: Dict[str, str], children: List) -> None:
        w.i32(s(name))
        w.i32(len(attrs))
        for k, v in attrs.items():
            w.i32(s(k))
            w.i32(s(v))
        w.i32(len(children))
        for child in children:
            element(w, *child)

    classes = []
    for tid, (name, fields) in TYPES.items():
        kids = []
        for fname, ftype, pool, array in fields:
            a = {"name": fname, "class": str(ftype)}
            if pool:
                a["constantPool"] = "true"
            if array:
                a["dimension"] = "1"
            kids.append(("field", a, []))
        classes.append(("class", {"name": name, "id": str(tid)}, kids))
    tree = _W(compressed)
    element(tree, "root", {}, [("metadata", {}, classes), ("region", {}, [])])
    w = _W(compressed)
    w.i64(0)  # start time
    w.i64(0)  # duration
    w.i64(1)  # metadata id
    w.i32(len(strings))
    for x in strings:
        w.string(x)
    return _event(compressed, 0, bytes(w.out) + bytes(tree.out))


def _checkpoint(compressed: bool, pools: Dict[int, Dict[int, object]]) -> bytes:
    w = _W(compressed)
    w.i64(0)  # start time
    w.i64(0)  # duration
    w.i64(0)  # delta to the next checkpoint: none
    w.out.append(1)  # checkpoint type: flush
    w.i32(len(pools))
    for tid, entries in pools.items():
        w.i64(tid)
        w.i32(len(entries))
        for key, v in entries.items():
            w.i64(key)
            w.value(tid, v)
    return _event(compressed, 1, bytes(w.out))


START_NANOS = 1_700_000_000_000_000_000
START_TICKS = 5_000
TICKS_PER_SECOND = 1_000_000  # one tick per microsecond


def sample_pools() -> Dict[int, Dict[int, object]]:
    """Two threads; one stack: A.leaf inlined into A.mid (JIT), called by A.main."""
    return {
        20: {
            1: {"osName": "main", "javaName": "main", "javaThreadId": 1},
            2: {"osName": "w-os", "javaName": None, "javaThreadId": 7},
        },
        21: {
            1: {"string": "com/example/A"},
            2: {"string": "leaf"},
            3: {"string": "mid"},
            4: {"string": "main"},
            5: {"string": "()V"},
            6: {"string": "java/lang/String"},
        },
        22: {1: {"name": 1}, 2: {"name": 6}},
        23: {
            1: {"type": 1, "name": 2, "descriptor": 5},
            2: {"type": 1, "name": 3, "descriptor": 5},
            3: {"type": 1, "name": 4, "descriptor": 5},
        },
        24: {1: {"description": "Interpreted"}, 2: {"description": "Inlined"}, 3: {"description": "JIT compiled"}},
        27: {1: {"name": "STATE_RUNNABLE"}, 2: {"name": "STATE_SLEEPING"}},
        26: {
            1: {
                "truncated": False,
                "frames": [
                    {"method": 1, "lineNumber": 5, "bytecodeIndex": 0, "type": 2},
                    {"method": 2, "lineNumber": 10, "bytecodeIndex": 3, "type": 3},
                    {"method": 3, "lineNumber": 20, "bytecodeIndex": 7, "type": 1},
                ],
            },
            2: {"truncated": True, "frames": [{"method": 3, "lineNumber": 21, "bytecodeIndex": 0, "type": 1}]},
        },
    }


def sample_events() -> List[Tuple[int, dict]]:
    return [
        (100, {"startTime": START_TICKS + 1000, "sampledThread": 1, "stackTrace": 1}),
        (100, {"startTime": START_TICKS + 2000, "sampledThread": 1, "stackTrace": 1}),
        (100, {"startTime": START_TICKS + 3000, "sampledThread": 2, "stackTrace": 2}),
        (101, {"startTime": START_TICKS + 4000, "eventThread": 1, "stackTrace": 1, "objectClass": 2, "weight": 1024}),
    ]


def async_profiler_events() -> List[Tuple[int, dict]]:
    """One event of each of async-profiler's kinds and the JDK's CPU-time sample."""
    t = START_TICKS
    return [
        (102, {"startTime": t + 100, "sampledThread": 1, "stackTrace": 1, "state": 1, "samples": 3, "timeSpan": 30}),
        (102, {"startTime": t + 200, "sampledThread": 2, "stackTrace": 2, "state": 2, "samples": 1, "timeSpan": 10}),
        (103, {"startTime": t + 300, "eventThread": 1, "stackTrace": 1, "address": 0x7F00, "size": 4096}),
        (
            104,
            {
                "startTime": t + 400,
                "eventThread": 1,
                "stackTrace": 1,
                "objectClass": 2,
                "allocationSize": 48,
                "allocationTime": t + 50,
            },
        ),
        (105, {"startTime": t + 500, "duration": 7000, "eventThread": 2, "stackTrace": 2, "address": 0x10}),
        (
            106,
            {
                "startTime": t + 600,
                "stackTrace": 1,
                "eventThread": 1,
                "failed": False,
                "samplingPeriod": 20_000,
                "biased": False,
            },
        ),
        (
            106,
            {
                "startTime": t + 700,
                "stackTrace": 1,
                "eventThread": 2,
                "failed": False,
                "samplingPeriod": 20_000,
                "biased": True,
            },
        ),
    ]


def recording(compressed: bool = True, events=None) -> bytes:
    """A one-chunk recording of ``events`` (:func:`sample_events` by default) over :func:`sample_pools`."""
    pools = sample_pools()
    pools[27] = {1: {"name": "STATE_RUNNABLE"}, 2: {"name": "STATE_SLEEPING"}}
    chosen = sample_events() if events is None else events
    events = b"".join(_event(compressed, tid, _body(compressed, tid, v)) for tid, v in chosen)
    meta = _metadata(compressed)
    cp = _checkpoint(compressed, pools)
    header_size = 68
    meta_offset = header_size + len(events) + len(cp)
    size = meta_offset + len(meta)
    header = struct.pack(
        ">4sHHqqqqqqqi",
        b"FLR\0",
        2,
        0,
        size,
        header_size + len(events),
        meta_offset,
        START_NANOS,
        10**9,
        START_TICKS,
        TICKS_PER_SECOND,
        1 if compressed else 0,
    )
    return header + events + cp + meta


def _body(compressed: bool, tid: int, v: dict) -> bytes:
    w = _W(compressed)
    w.value(tid, v)
    return bytes(w.out)
