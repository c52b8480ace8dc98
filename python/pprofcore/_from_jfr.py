"""Java Flight Recorder recordings (``.jfr``, as the JDK writes them with
``-XX:StartFlightRecording`` or ``jcmd JFR.dump``, and as async-profiler
writes them) to profiles.

A recording is one or more chunks; each chunk has a header, a metadata event
describing every event and constant-pool type (names, fields, which fields
refer to a constant pool), checkpoint events holding the constant pools
(threads, stack traces, methods, classes, symbols, strings) and the events
themselves. Integers are LEB128 varints when the chunk says so (every JDK
since 11 does), else big-endian. The reader walks the metadata, so it needs
no table of the JDK's types, and only decodes the events it turns into
samples; others are skipped by their size.

Events read, by kind (``load_all`` keys, and the sample types of each):

- ``cpu``: ``jdk.ExecutionSample`` (JDK and async-profiler CPU samples) as
  ``cpu_samples/count``;
- ``wall``: ``jdk.NativeMethodSample`` (threads in native code; async-profiler
  wall-clock samples) as ``wall_samples/count``;
- ``alloc``: ``jdk.ObjectAllocationInNewTLAB`` (weight: the TLAB size),
  ``jdk.ObjectAllocationOutsideTLAB`` (the allocation size) and
  ``jdk.ObjectAllocationSample`` (its ``weight``) as ``alloc_objects/count``
  and ``alloc_space/bytes``, with string labels ``class`` (the allocated
  class) and ``allocation`` (``in_new_tlab``, ``outside_tlab``, ``sample``);
- ``lock``: ``jdk.JavaMonitorEnter`` and ``jdk.ThreadPark`` as
  ``contentions/count`` and ``delay/nanoseconds`` (the event's duration), with
  ``class`` (the monitor or parked-on class) and ``event`` labels.

Every sample has the labels ``thread`` (the Java thread name, else the OS
one), ``thread_id`` (the Java thread id) and ``timestamp_ns`` (the event's
start time, Unix epoch nanoseconds from the chunk's clock). A frame's
function is ``package.Class.method`` (system name with the JVM descriptor),
its line the frame's line number; frames of type ``Inlined`` become inline
lines of the location of the frame they were inlined into, as in pprof.
:func:`pprofcore.load` returns one profile with the sample types of every
kind present side by side (a sample has values in its own kind's columns
only; the first kind is the default sample type, so ``-sample_index`` picks
another in the CLI); :func:`pprofcore.load_all` returns each kind as its own
profile, with its samples only.
"""

from __future__ import annotations

import struct
from typing import Any, Dict, List, NoReturn, Optional, Tuple

from . import _core
from ._build import TIMESTAMP, ProfileBuilder, input_error
from ._profile import Profile

FORMAT = "JFR"
MAGIC = b"FLR\0"
_HEADER = struct.Struct(">4sHHqqqqqqqi")
_MAX_DEPTH = 32

# Event type name -> (kind, detail). Kinds in the order load() prefers them.
_EVENTS = {
    "jdk.ExecutionSample": ("cpu", ""),
    "jdk.NativeMethodSample": ("wall", ""),
    "jdk.ObjectAllocationInNewTLAB": ("alloc", "in_new_tlab"),
    "jdk.ObjectAllocationOutsideTLAB": ("alloc", "outside_tlab"),
    "jdk.ObjectAllocationSample": ("alloc", "sample"),
    "jdk.JavaMonitorEnter": ("lock", "jdk.JavaMonitorEnter"),
    "jdk.ThreadPark": ("lock", "jdk.ThreadPark"),
}
KINDS = ["cpu", "wall", "alloc", "lock"]
_TYPES = {
    "cpu": [("cpu_samples", "count")],
    "wall": [("wall_samples", "count")],
    "alloc": [("alloc_objects", "count"), ("alloc_space", "bytes")],
    "lock": [("contentions", "count"), ("delay", "nanoseconds")],
}


def looks_like_jfr(head: bytes) -> bool:
    """Whether ``head`` opens a JFR chunk (magic ``FLR\\0``)."""
    return head[:4] == MAGIC


class Ref:
    """A reference into the constant pool of a type, resolved after all the
    chunk's pools are read (a pool may refer to one read later)."""

    __slots__ = ("type", "key")

    def __init__(self, type_id: int, key: int):
        self.type = type_id
        self.key = key


class _Field:
    __slots__ = ("name", "type", "pool", "array")

    def __init__(self, name: str, type_id: int, pool: bool, array: bool):
        self.name, self.type, self.pool, self.array = name, type_id, pool, array


class _Class:
    __slots__ = ("name", "fields")

    def __init__(self, name: str):
        self.name = name
        self.fields: List[_Field] = []


class _Reader:
    """Reads the values of one chunk (``data[start:end]``)."""

    def __init__(self, data: bytes, start: int, end: int, compressed: bool):
        self.d = data
        self.pos = start
        self.end = end
        self.compressed = compressed
        self.classes: Dict[int, _Class] = {}
        self.readers: Dict[int, Any] = {}

    def fail(self, reason: str, at: Optional[int] = None) -> NoReturn:
        raise input_error(FORMAT, reason, self.pos if at is None else at)

    def byte(self) -> int:
        if self.pos >= self.end:
            self.fail("unexpected end of the chunk")
        b = self.d[self.pos]
        self.pos += 1
        return b

    def varint(self) -> int:
        """An unsigned LEB128 of up to 9 bytes (the 9th holds 8 bits)."""
        d, p = self.d, self.pos
        if p < self.end and d[p] < 0x80:  # most values fit in one byte
            self.pos = p + 1
            return d[p]
        end = self.end
        result = shift = 0
        for i in range(9):
            if p >= end:
                self.pos = p
                self.fail("unexpected end of the chunk inside an integer")
            b = d[p]
            p += 1
            if i == 8:
                result |= b << 56
                break
            result |= (b & 0x7F) << shift
            if b < 0x80:
                break
            shift += 7
        self.pos = p
        return result

    def i64(self) -> int:
        v = self.varint() if self.compressed else self.fixed(8)
        return v - (1 << 64) if v >= 1 << 63 else v

    def i32(self) -> int:
        v = (self.varint() if self.compressed else self.fixed(4)) & 0xFFFFFFFF
        return v - (1 << 32) if v >= 1 << 31 else v

    def i16(self) -> int:
        v = (self.varint() if self.compressed else self.fixed(2)) & 0xFFFF
        return v - (1 << 16) if v >= 1 << 15 else v

    def fixed(self, n: int) -> int:
        if self.pos + n > self.end:
            self.fail("unexpected end of the chunk inside an integer")
        v = int.from_bytes(self.d[self.pos : self.pos + n], "big")
        self.pos += n
        return v

    def count(self, what: str) -> int:
        """A length or count: never negative, never more than the bytes left."""
        at = self.pos
        n = self.i32()
        if n < 0 or n > self.end - self.pos:
            self.fail(f"{what} count {n} is negative or larger than the rest of the chunk", at)
        return n

    def string(self) -> Any:
        at = self.pos
        enc = self.byte()
        if enc == 0:
            return None
        if enc == 1:
            return ""
        if enc == 2:
            return Ref(self.string_pool, self.i64())
        if enc in (3, 5):
            n = self.count("string byte")
            raw = self.d[self.pos : self.pos + n]
            self.pos += n
            return raw.decode("utf-8" if enc == 3 else "latin-1", "replace")
        if enc == 4:
            n = self.count("string char")
            read = self.varint if self.compressed else (lambda: self.fixed(2))
            return "".join([chr(read() & 0xFFFF) for _ in range(n)])
        self.fail(f"unknown string encoding {enc}", at)

    string_pool = -1  # the type id of java.lang.String, from the metadata

    def value(self, type_id: int, depth: int = 0) -> Any:
        read = self.readers.get(type_id)
        if read is not None:
            return read()
        cls = self.classes.get(type_id)
        if cls is None:
            self.fail(f"a field refers to type id {type_id}, which the metadata does not describe")
        if depth > _MAX_DEPTH:
            self.fail(f"type {cls.name} nests deeper than {_MAX_DEPTH} levels")
        return {f.name: self.field(f, depth) for f in cls.fields}

    def field(self, f: _Field, depth: int) -> Any:
        if f.array:
            return [self.one(f, depth) for _ in range(self.count(f"array {f.name}"))]
        return self.one(f, depth)

    def one(self, f: _Field, depth: int) -> Any:
        if f.pool:
            key = self.i64()
            return Ref(f.type, key) if key else None
        return self.value(f.type, depth + 1)


_PRIMITIVES: Dict[str, Any] = {
    "boolean": lambda r: r.byte() != 0,
    "byte": lambda r: r.byte(),
    "char": lambda r: chr(r.i16() & 0xFFFF),
    "short": lambda r: r.i16(),
    "int": lambda r: r.i32(),
    "long": lambda r: r.i64(),
    "java.lang.String": lambda r: r.string(),
}


def _float(r: _Reader, n: int, fmt: str) -> float:
    at = r.pos
    if at + n > r.end:
        r.fail("unexpected end of the chunk inside a number")
    r.pos += n
    return struct.unpack(fmt, r.d[at : at + n])[0]


_PRIMITIVES["float"] = lambda r: _float(r, 4, ">f")
_PRIMITIVES["double"] = lambda r: _float(r, 8, ">d")


def _element(r: _Reader, strings: List[str], depth: int) -> Tuple[str, Dict[str, str], List]:
    if depth > _MAX_DEPTH:
        r.fail("the metadata nests too deep")

    def s(i: int) -> str:
        if not 0 <= i < len(strings) or strings[i] is None:
            r.fail(f"the metadata refers to string {i} of {len(strings)}")
        return strings[i]

    name = s(r.i32())
    attrs = {}
    for _ in range(r.count("metadata attribute")):
        k = s(r.i32())
        attrs[k] = s(r.i32())
    children = [_element(r, strings, depth + 1) for _ in range(r.count("metadata element"))]
    return name, attrs, children


def _metadata(r: _Reader, at: int) -> None:
    """Reads the chunk's metadata event into ``r.classes`` and ``r.readers``."""
    r.pos = at
    r.i32()  # size
    if r.i64() != 0:
        r.fail("the chunk header's metadata offset does not point to a metadata event", at)
    r.i64(), r.i64(), r.i64()  # start time, duration, metadata id
    strings: List[Any] = []
    for _ in range(r.count("metadata string")):
        v = r.string()
        strings.append(v if isinstance(v, str) else None)
    _root, _attrs, children = _element(r, strings, 0)
    for name, _a, kids in children:
        if name != "metadata":
            continue
        for cname, cattrs, fields in kids:
            if cname != "class":
                continue
            try:
                tid = int(cattrs["id"])
            except (KeyError, ValueError):
                r.fail(f"a metadata class has no numeric id: {cattrs}")
            cls = _Class(cattrs.get("name", ""))
            for fname, fattrs, _k in fields:
                if fname != "field":
                    continue
                try:
                    ftype = int(fattrs["class"])
                except (KeyError, ValueError):
                    r.fail(f"field {fattrs.get('name')} of {cls.name} has no numeric class")
                pool = fattrs.get("constantPool") == "true"
                cls.fields.append(_Field(fattrs.get("name", ""), ftype, pool, fattrs.get("dimension") == "1"))
            r.classes[tid] = cls
            prim = _PRIMITIVES.get(cls.name)
            if prim is not None and not cls.fields:
                r.readers[tid] = (lambda f: lambda: f(r))(prim)
            if cls.name == "java.lang.String":
                r.string_pool = tid


class _Chunk:
    """One chunk's pools and wanted events."""

    def __init__(self, r: _Reader, start_nanos: int, start_ticks: int, ticks_per_second: int):
        self.r = r
        self.pools: Dict[int, Dict[int, Any]] = {}
        self.events: List[Tuple[str, Dict[str, Any]]] = []
        self.start_nanos = start_nanos
        self.start_ticks = start_ticks
        self.tps = ticks_per_second or 1_000_000_000

    def nanos(self, ticks: int) -> int:
        return self.start_nanos + (ticks - self.start_ticks) * 1_000_000_000 // self.tps

    def duration(self, ticks: int) -> int:
        return ticks * 1_000_000_000 // self.tps

    def resolve(self, v: Any) -> Any:
        """The pool value a :class:`Ref` names (one level; ``None`` if absent)."""
        if isinstance(v, Ref):
            return self.pools.get(v.type, {}).get(v.key)
        return v

    def text(self, v: Any) -> str:
        """A string field, resolved through the string and symbol pools."""
        for _ in range(4):
            if isinstance(v, Ref):
                v = self.resolve(v)
            elif isinstance(v, dict) and "string" in v:
                v = v["string"]
            else:
                break
        return v if isinstance(v, str) else ""


def _checkpoint(r: _Reader, c: _Chunk) -> None:
    r.i64(), r.i64(), r.i64()  # start time, duration, delta to the next checkpoint
    r.byte()  # checkpoint type (flush / chunk header / statics / thread)
    for _ in range(r.count("constant pool")):
        tid = r.i64()
        pool = c.pools.setdefault(tid, {})
        for _ in range(r.count("constant pool entry")):
            key = r.i64()
            pool[key] = r.value(tid)


def _read_chunk(data: bytes, start: int) -> Tuple[_Chunk, int]:
    if start + _HEADER.size > len(data):
        raise input_error(FORMAT, "the chunk header is truncated", start)
    magic, major, _minor, size, _cp, meta, start_nanos, _dur, start_ticks, tps, features = _HEADER.unpack_from(
        data, start
    )
    if magic != MAGIC:
        raise input_error(FORMAT, "a chunk does not start with the magic FLR\\0", start)
    if major not in (1, 2):
        raise input_error(FORMAT, f"unsupported format version {major} (pprofcore reads versions 1 and 2)", start)
    end = start + size
    if size < _HEADER.size or end > len(data):
        raise input_error(FORMAT, f"chunk size {size} runs past the end of the input ({len(data)} bytes)", start)
    if not _HEADER.size <= meta < size:
        raise input_error(FORMAT, f"metadata offset {meta} is outside the chunk", start)
    r = _Reader(data, start, end, bool(features & 1))
    _metadata(r, start + meta)
    names = {tid: cls.name for tid, cls in r.classes.items()}
    wanted = {tid: names[tid] for tid in names if names[tid] in _EVENTS}
    c = _Chunk(r, start_nanos, start_ticks, tps)
    pos = start + _HEADER.size
    while pos < end:
        r.pos = pos
        size_ev = r.i32()
        if size_ev <= 0 or pos + size_ev > end:
            raise input_error(FORMAT, f"event size {size_ev} is outside the chunk", pos)
        r.end = pos + size_ev  # an event never reads past its own size
        tid = r.i64()
        if tid == 1:
            _checkpoint(r, c)
        elif tid in wanted:
            c.events.append((wanted[tid], r.value(tid)))
        r.end = end
        pos += size_ev
    return c, end


def _method_name(c: _Chunk, method: Any) -> Tuple[str, str]:
    m = c.resolve(method)
    if not isinstance(m, dict):
        return "<unknown method>", ""
    cls = c.resolve(m.get("type"))
    cname = c.text(cls.get("name")) if isinstance(cls, dict) else ""
    cname = cname.replace("/", ".")
    name = c.text(m.get("name"))
    full = f"{cname}.{name}" if cname else name
    return full, full + c.text(m.get("descriptor"))


class _Out:
    """The one builder of a recording, its columns per kind, and its stacks."""

    def __init__(self, kinds: List[str]) -> None:
        types: List[Tuple[str, str]] = []
        self.column: Dict[str, int] = {}
        for kind in kinds:
            self.column[kind] = len(types)
            types += _TYPES[kind]
        self.b = ProfileBuilder(types)
        self.width = len(types)
        self.stacks: Dict[Tuple[int, int], bytes] = {}
        self.times: List[int] = []

    def stack(self, c: _Chunk, ref: Any, chunk_no: int) -> bytes:
        key = (chunk_no, ref.key if isinstance(ref, Ref) else 0)
        got = self.stacks.get(key)
        if got is not None:
            return got
        b = self.b
        st = c.resolve(ref)
        frames = st.get("frames") if isinstance(st, dict) else None
        if not isinstance(frames, list):
            frames = []
        ids: List[int] = []
        pending: List[Tuple[int, int]] = []  # inlined frames waiting for the frame they are inlined into
        for f in frames:
            if not isinstance(f, dict):
                continue
            name, system = _method_name(c, f.get("method"))
            line = f.get("lineNumber")
            line = line if isinstance(line, int) and line > 0 else 0
            pending.append((b.function(name, "", system), line))
            ftype = c.resolve(f.get("type"))
            if isinstance(ftype, dict) and c.text(ftype.get("description")) == "Inlined":
                continue
            ids.append(b.location_lines(pending))
            pending = []
        if pending:
            ids.append(b.location_lines(pending))
        if isinstance(st, dict) and st.get("truncated"):
            ids.append(b.frame("[truncated]"))
        got = self.stacks[key] = b.stack_bytes(ids)
        return got


def _thread(c: _Chunk, ref: Any) -> Tuple[str, int]:
    t = c.resolve(ref)
    if not isinstance(t, dict):
        return "", 0
    name = c.text(t.get("javaName")) or c.text(t.get("osName"))
    tid = t.get("javaThreadId")
    return name, tid if isinstance(tid, int) else 0


def _add(out: _Out, c: _Chunk, chunk_no: int, etype: str, ev: Dict[str, Any]) -> None:
    kind, detail = _EVENTS[etype]
    b = out.b
    thread_ref = ev.get("sampledThread", ev.get("eventThread"))
    tname, tid = _thread(c, thread_ref)
    start = ev.get("startTime")
    ts = c.nanos(start) if isinstance(start, int) else 0
    out.times.append(ts)
    strs = [("thread", tname)] if tname else []
    nums = [(TIMESTAMP, ts, "nanoseconds"), ("thread_id", tid, "")]
    if kind == "alloc":
        cls = c.resolve(ev.get("objectClass"))
        cname = c.text(cls.get("name")).replace("/", ".") if isinstance(cls, dict) else ""
        weight = ev.get("tlabSize") if detail == "in_new_tlab" else ev.get("allocationSize")
        if detail == "sample":
            weight = ev.get("weight")
        kv = [1, weight if isinstance(weight, int) else 0]
        strs += [("class", cname), ("allocation", detail)]
    elif kind == "lock":
        cls = c.resolve(ev.get("monitorClass", ev.get("parkedClass")))
        cname = c.text(cls.get("name")).replace("/", ".") if isinstance(cls, dict) else ""
        dur = ev.get("duration")
        kv = [1, c.duration(dur) if isinstance(dur, int) else 0]
        strs += [("class", cname), ("event", detail)] if cname else [("event", detail)]
    else:
        kv = [1]
    values = [0] * out.width
    values[out.column[kind] : out.column[kind] + len(kv)] = kv
    b.add_encoded(out.stack(c, ev.get("stackTrace"), chunk_no), values, b.label_bytes(strs, nums))


def read_jfr_bytes(data: bytes) -> Profile:
    """One profile of every event kind the recording holds: their sample
    types side by side (in the order of :data:`KINDS`; each sample has values
    in its kind's columns only), the first present kind the default."""
    chunks = []
    pos = 0
    while pos < len(data):
        c, pos = _read_chunk(data, pos)
        chunks.append(c)
    present = {_EVENTS[etype][0] for c in chunks for etype, _ in c.events}
    kinds = [k for k in KINDS if k in present]
    if not kinds:
        raise input_error(
            FORMAT,
            "the recording has none of the events pprofcore reads ("
            + ", ".join(_EVENTS)
            + "); record with settings=profile, or with async-profiler",
        )
    out = _Out(kinds)
    for chunk_no, c in enumerate(chunks):
        for etype, ev in c.events:
            _add(out, c, chunk_no, etype, ev)
    b = out.b
    b.default_sample_type = _TYPES[kinds[0]][-1][0]
    b.time_nanos = min(out.times)
    b.duration_nanos = max(out.times) - min(out.times)
    b.comments.append("JFR events: " + ", ".join(kinds))
    return b.build()


def split_kinds(p: Profile) -> Dict[str, Profile]:
    """``{kind: Profile}`` of a profile :func:`read_jfr_bytes` made: each
    kind's sample types, and only the samples of that kind (compacted)."""
    out = {}
    names = [t for t, _ in p.sample_types]
    for kind in KINDS:
        types = [t for t, _ in _TYPES[kind]]
        if types[0] not in names:
            continue
        q = p.select_sample_types(types)
        keep = (q.values[:, 0] != 0).astype("uint8")
        out[kind] = q._derive(_core.keep_samples(q._core, keep)).compact()
    return out
