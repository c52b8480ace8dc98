"""A profile built from another profiler's parsed data: :class:`ProfileBuilder`
interns strings, functions and locations, encodes ``profile.proto`` and
decodes it with the core, so every reader of a foreign format (``_from_*``)
ends in the same checks as :func:`pprofcore.load`. It also makes the
:class:`DecodeError` those readers raise. It does not parse anything."""

from __future__ import annotations

import json
import sys
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np

from . import _core
from ._profile import Profile
from ._wire import varint

_MASK64 = (1 << 64) - 1

#: Label keys shared by every reader (docs/producers.md): the sample's time in
#: nanoseconds, and the thread, process and command it ran in.
TIMESTAMP = "timestamp_ns"
#: The system name of a function of an interpreted language (Python, Ruby):
#: none. pprof leaves a function's name alone only when its system name
#: differs, and would cut ``<module>`` or ``<listcomp>`` as C++ template
#: arguments (``<unknown>`` in every report).
NO_SYSTEM_NAME = ""
# Source files of languages whose names are never mangled C++.
_INTERPRETED_SUFFIXES = (".py", ".pyw", ".rb", ".js", ".mjs", ".cjs", ".ts", ".php", ".lua", ".pl", ".pm")


def _varint(n: int) -> bytes:
    n &= _MASK64
    if n < 0x80:  # most numbers here are one byte: no loop, no bytearray
        return _SMALL[n]
    if n < 0x4000:
        return bytes((n & 0x7F | 0x80, n >> 7))
    if n < 0x200000:
        return bytes((n & 0x7F | 0x80, (n >> 7) & 0x7F | 0x80, n >> 14))
    return varint(n)


_SMALL = [bytes([i]) for i in range(0x80)]


def _ld(field: int, body: bytes) -> bytes:
    return _SMALL[(field << 3) | 2] + _varint(len(body)) + body


def _vf(field: int, n: int) -> bytes:
    return b"" if n == 0 else _SMALL[field << 3] + _varint(n)


# Many samples at once (add_many): a message is a list of parts, each the
# same for every row ("c": bytes), a varint per row ("v": byte matrix and
# lengths), a piece per row ("g": blob, piece starts and lengths) or a nested
# length-delimited field ("m": key byte and parts). Lengths are summed first,
# then every part is written once at its rows' offsets: a few NumPy passes per
# part instead of a Python loop per sample.


def _varint_part(v) -> tuple:
    u = np.asarray(v, dtype=np.int64).view(np.uint64)
    length = np.ones(u.shape[0], np.int64)
    for i in range(1, 10):
        length += u >= np.uint64(1 << (7 * i))
    width = int(length.max()) if u.shape[0] else 1
    groups = np.empty((u.shape[0], width), np.uint8)
    for i in range(width):
        groups[:, i] = ((u >> np.uint64(7 * i)) & np.uint64(0x7F)).astype(np.uint8)
        groups[:, i] |= (length > i + 1).astype(np.uint8) << 7
    return ("v", groups, length)


def _part_lengths(part: tuple, n: int) -> np.ndarray:
    kind = part[0]
    if kind == "c":
        return np.full(n, len(part[1]), np.int64)
    if kind == "v":
        return part[2]
    if kind == "g":
        return part[3]
    body = sum((_part_lengths(x, n) for x in part[2]), np.zeros(n, np.int64))
    return 1 + _varint_part(body)[2] + body


def _write(out: np.ndarray, pos: np.ndarray, parts: Sequence[tuple], n: int) -> np.ndarray:
    """Writes ``parts`` at ``pos`` (per row) and returns the positions after them."""
    for part in parts:
        kind = part[0]
        if kind == "c":
            for k, byte in enumerate(part[1]):
                out[pos + k] = byte
            pos = pos + len(part[1])
        elif kind == "v":
            groups, length = part[1], part[2]
            for k in range(groups.shape[1]):
                rows = length > k
                out[pos[rows] + k] = groups[rows, k]
            pos = pos + length
        elif kind == "g":
            blob, starts, plen = part[1], part[2], part[3]
            if plen.sum():
                within = np.arange(int(plen.sum())) - np.repeat(np.cumsum(plen) - plen, plen)
                out[np.repeat(pos, plen) + within] = blob[np.repeat(starts, plen) + within]
            pos = pos + plen
        else:
            body = sum((_part_lengths(x, n) for x in part[2]), np.zeros(n, np.int64))
            pos = _write(out, pos, [("c", part[1]), _varint_part(body)], n)
            pos = _write(out, pos, part[2], n)
    return pos


def _scalar_messages(fields: Sequence[Sequence[int]], key: bytes) -> bytes:
    """One message of field ``key`` per row whose fields 1, 2, ... are the
    varints ``fields[0][row]``, ``fields[1][row]``, ... (zeros written out)."""
    n = len(fields[0])
    parts: List[tuple] = []
    for k, col in enumerate(fields):
        parts += [("c", bytes([(k + 1) << 3])), _varint_part(np.asarray(col, np.uint64).view(np.int64))]
    return _encode_rows(parts, n, key)


def _encode_rows(parts: Sequence[tuple], n: int, key: bytes = b"\x12") -> bytes:
    """``n`` Profile fields of ``key`` (default 0x12, a sample) whose bodies are ``parts``."""
    row = [("m", key, list(parts))]
    total = _part_lengths(row[0], n)
    out = np.empty(int(total.sum()), np.uint8)
    _write(out, np.cumsum(total) - total, row, n)
    return out.tobytes()


def input_error(fmt: str, reason: str, offset: Optional[int] = None, field: str = "") -> "_core.DecodeError":
    """A :class:`DecodeError` for input of format ``fmt`` (e.g. ``"cpuprofile"``):
    the message names the format and, when known, where (``offset`` is a byte
    offset, or a line number when ``field`` is ``"line"``)."""
    where = ""
    if offset is not None:
        where = f" at line {offset}" if field == "line" else f" at byte offset {offset}"
    message = f"{fmt}{where}: {reason}"
    exc = _core.DecodeError(message)
    exc.reason = reason
    exc.field = field
    exc.offset = offset
    exc.path = None  # type: ignore[assignment]  # set by load() for files
    return exc


class ProfileBuilder:
    """Collects samples over interned frames and returns a :class:`Profile`.

    ``sample_types`` are ``(type, unit)`` pairs; every sample carries one
    value per type. Stacks are lists of location ids, leaf first, as in
    ``profile.proto``. Labels are ``(key, str)`` pairs and ``(key, num,
    unit)`` triples.
    """

    def __init__(self, sample_types: Sequence[Tuple[str, str]]):
        self._strings: Dict[str, int] = {"": 0}
        self.sample_types = list(sample_types)
        self._functions: Dict[Tuple[str, str, str, int], int] = {}
        self._locations: Dict[Tuple[Tuple, int, int], int] = {}
        self._mappings: Dict[Tuple[str, str, int, int, int], int] = {}
        self._unsymbolized: set = set()
        self._main_mapping = 0
        self._samples: List[bytes] = []
        self._id_bytes: List[bytes] = []  # the varint of each id, made once (stacks repeat them)
        self.period_type: Optional[Tuple[str, str]] = None
        self.period = 0
        self.time_nanos = 0
        self.duration_nanos = 0
        self.comments: List[str] = []
        self.default_sample_type = ""

    def string(self, s: str) -> int:
        """The string table index of ``s``."""
        i = self._strings.get(s)
        if i is None:
            i = self._strings[s] = len(self._strings)
        return i

    def function(self, name: str, filename: str = "", system_name: Optional[str] = None, start_line: int = 0) -> int:
        """The id of the function with these fields (one per distinct tuple)."""
        key = (name, system_name if system_name is not None else name, filename, start_line)
        fid = self._functions.get(key)
        if fid is None:
            fid = self._functions[key] = len(self._functions) + 1
        return fid

    def main_mapping(self, mapping_id: int) -> None:
        """Writes ``mapping_id`` first: the main binary, which pprof's reports
        name on their ``File:`` line."""
        self._main_mapping = mapping_id

    def unsymbolized(self, mapping_id: int) -> None:
        """Marks a mapping as holding frames without functions (addresses
        only), so ``has_functions`` is false and symbolizers look at it."""
        self._unsymbolized.add(mapping_id)

    def mapping(self, filename: str, build_id: str = "") -> int:
        """The id of a mapping named ``filename`` (a DSO, a JAR): it carries no
        addresses, only the name that ``-tags`` and the call graph show."""
        return self.mapping_at(filename, build_id, 0, 0, 0)

    def mapping_at(self, filename: str, build_id: str, start: int, limit: int, offset: int) -> int:
        """The id of a mapping of ``filename`` at the addresses ``[start,
        limit)`` of the process, from ``offset`` in the file."""
        key = (filename, build_id, start, limit, offset)
        mid = self._mappings.get(key)
        if mid is None:
            mid = self._mappings[key] = len(self._mappings) + 1
        return mid

    def location(self, function_id: int, line: int = 0, column: int = 0, address: int = 0, mapping_id: int = 0) -> int:
        """The id of the location of one frame (one per distinct content);
        ``function_id`` 0 makes an unsymbolized location (an address only)."""
        lines = ((function_id, line, column),) if function_id else ()
        return self._location(lines, address, mapping_id)

    def location_lines(self, lines: Sequence[Tuple[int, int]]) -> int:
        """The id of a location holding several ``(function_id, line)``
        frames, innermost inlined first and the function they were inlined
        into last, as ``profile.proto`` orders ``Location.line``."""
        return self._location(tuple((f, max(ln, 0), 0) for f, ln in lines), 0, 0)

    def location_at(self, lines: Sequence[Tuple[int, int, int]], address: int = 0, mapping_id: int = 0) -> int:
        """The id of a location at ``address`` of mapping ``mapping_id``
        holding ``(function_id, line, column)`` frames, innermost inlined
        first (one frame when nothing is inlined)."""
        return self._location(tuple(lines), address, mapping_id)

    def _location(self, lines: Tuple, address: int, mapping_id: int) -> int:
        key = (lines, address, mapping_id)
        lid = self._locations.get(key)
        if lid is None:
            lid = self._locations[key] = len(self._locations) + 1
        return lid

    def frame(
        self, name: str, filename: str = "", line: int = 0, column: int = 0, system_name: Optional[str] = None
    ) -> int:
        """A location of one frame named ``name`` at ``filename:line``; the
        function's start line is unknown, so functions are keyed on name and
        file alone. ``system_name`` as in :meth:`function`; ``""`` for the
        names of interpreted languages (``<module>``, ``<listcomp>``), which
        pprof's demangler would otherwise take for C++ templates and cut. By
        default ``""`` where the file is an interpreted language's source or
        a frozen Python module (``<frozen runpy>``) (formats that mix languages: speedscope, collapsed stacks, traces),
        else the name."""
        return self.location(self.frame_function(name, filename, system_name), max(line, 0), max(column, 0))

    def frame_function(self, name: str, filename: str = "", system_name: Optional[str] = None) -> int:
        """The function of :meth:`frame`, for a caller that builds its own
        locations (several inlined frames in one)."""
        if system_name is None and (filename.endswith(_INTERPRETED_SUFFIXES) or filename.startswith("<frozen ")):
            system_name = NO_SYSTEM_NAME
        return self.function(name, filename, system_name)

    def stack_bytes(self, location_ids: Iterable[int]) -> bytes:
        """A stack (leaf first) encoded once, for :meth:`add_encoded` of many
        samples over the same stack."""
        ids = location_ids if isinstance(location_ids, (list, tuple)) else list(location_ids)
        if not ids:
            return b""
        enc = self._id_bytes
        top = max(ids)
        if top >= len(enc):
            enc += [_varint(i) for i in range(len(enc), top + 1)]
        return _ld(1, b"".join([enc[x] for x in ids]))

    def id_bytes(self, location_id: int) -> bytes:
        """The varint of a location id: stacks that share their callers
        (a call tree's nodes) are built as ``id_bytes(leaf) + callers``."""
        return _varint(location_id)

    def stack_of_ids(self, ids: bytes) -> bytes:
        """A stack for :meth:`add_encoded` from its location ids' varints
        (leaf first, from :meth:`id_bytes`)."""
        return _ld(1, ids) if ids else b""

    def label_bytes(self, str_labels: Iterable[Tuple[str, str]] = (), num_labels: Iterable[Tuple] = ()) -> bytes:
        """Labels encoded once, for :meth:`add_encoded`."""
        out = []
        for key, value in str_labels:
            out.append(_ld(3, _vf(1, self.string(key)) + _vf(2, self.string(value))))
        for key, num, unit in num_labels:
            body = _vf(1, self.string(key)) + _vf(3, num) + (_vf(4, self.string(unit)) if unit else b"")
            out.append(_ld(3, body))
        return b"".join(out)

    def add_encoded(self, stack: bytes, values: Sequence[int], labels: bytes = b"") -> None:
        """A sample from :meth:`stack_bytes` and :meth:`label_bytes` pieces."""
        body = b"".join(_varint(v) for v in values)
        self._samples.append(_ld(2, stack + _ld(2, body) + labels))

    def add(
        self,
        location_ids: Sequence[int],
        values: Sequence[int],
        str_labels: Iterable[Tuple[str, str]] = (),
        num_labels: Iterable[Tuple] = (),
    ) -> None:
        """One sample: its stack (location ids, leaf first), one value per
        sample type, and its labels."""
        self.add_encoded(self.stack_bytes(location_ids), values, self.label_bytes(str_labels, num_labels))

    def add_many(
        self,
        stacks: Sequence[bytes],
        stack_index,
        values,
        num_labels: Sequence[Tuple[str, object, str]] = (),
        str_labels: Sequence[Tuple[str, object]] = (),
    ) -> None:
        """Many samples at once, encoded with NumPy: sample ``i`` has the
        stack ``stacks[stack_index[i]]`` (from :meth:`stack_bytes`), the
        values ``values[i]`` (an n x types array), for each ``(key, array,
        unit)`` of ``num_labels`` the number ``array[i]``, and for each
        ``(key, codes)`` of ``str_labels`` the string of index ``codes[i]``
        (from :meth:`string`; 0 leaves the label out)."""
        if len(stack_index) == 0:  # before the reshape: no row count can be inferred from none
            return
        values = np.asarray(values, np.int64).reshape(len(stack_index), -1)
        n = values.shape[0]
        index = np.asarray(stack_index, np.int64)
        lens = np.array([len(x) for x in stacks], np.int64)
        blob = np.frombuffer(b"".join(stacks) + b"\0", np.uint8)
        parts: List[tuple] = [("g", blob, (np.cumsum(lens) - lens)[index], lens[index])]
        parts.append(("m", b"\x12", [_varint_part(values[:, j]) for j in range(values.shape[1])]))
        for key, nums, unit in num_labels:
            label = [("c", _vf(1, self.string(key)) + b"\x18"), _varint_part(nums)]
            if unit:
                label.append(("c", _vf(4, self.string(unit))))
            parts.append(("m", b"\x1a", label))
        for key, codes in str_labels:
            # Code 0 (no string) leaves the label out: its row's piece is empty.
            codes = np.asarray(codes, np.int64)
            uniq = np.unique(codes[codes != 0])
            pieces = [b""] + [_ld(3, _vf(1, self.string(key)) + _vf(2, c)) for c in uniq.tolist()]
            which = np.zeros(n, np.int64)
            if uniq.size:
                which[codes != 0] = np.searchsorted(uniq, codes[codes != 0]) + 1
            plens = np.array([len(x) for x in pieces], np.int64)
            pblob = np.frombuffer(b"".join(pieces) + b"\0", np.uint8)
            parts.append(("g", pblob, (np.cumsum(plens) - plens)[which], plens[which]))
        self._samples.append(_encode_rows(parts, n))

    def encode(self) -> bytes:
        """The ``profile.proto`` bytes of everything added so far."""
        s = self.string
        head = [_ld(1, _vf(1, s(t)) + _vf(2, s(u))) for t, u in self.sample_types]
        mappings = []
        order = sorted(self._mappings.items(), key=lambda item: item[1] != self._main_mapping)
        for (filename, build_id, start, limit, offset), mid in order:
            has_functions = _vf(7, 0 if mid in self._unsymbolized else 1)
            ranges = _vf(2, start) + _vf(3, limit) + _vf(4, offset)
            mappings.append(_ld(3, _vf(1, mid) + ranges + _vf(5, s(filename)) + _vf(6, s(build_id)) + has_functions))
        locations = [self._locations_encoded()]
        functions = []
        if self._functions:
            keys = list(self._functions)
            fields = [list(self._functions.values())]
            fields += [[s(key[0]) for key in keys], [s(key[1]) for key in keys], [s(key[2]) for key in keys]]
            fields.append([key[3] & _MASK64 for key in keys])
            functions.append(_scalar_messages(fields, b"\x2a"))
        tail = []
        if self.period_type is not None:
            tail.append(_ld(11, _vf(1, s(self.period_type[0])) + _vf(2, s(self.period_type[1]))))
        tail.append(_vf(12, self.period) + _vf(9, self.time_nanos) + _vf(10, self.duration_nanos))
        tail += [_vf(13, s(c)) for c in self.comments]
        if self.default_sample_type:
            tail.append(_vf(14, s(self.default_sample_type)))
        strings = [_ld(6, x.encode("utf-8", "surrogateescape")) for x in self._strings]
        return b"".join(head + self._samples + mappings + locations + functions + tail + strings)

    def _locations_encoded(self) -> bytes:
        """Every location: those of one line with NumPy, the rest (inlined
        lines, or none) one by one."""
        single: List[Tuple] = []
        other = []
        for (lines, address, mid), lid in self._locations.items():
            if len(lines) == 1:
                f, ln, col = lines[0]
                m = _MASK64  # as _varint writes them: two's complement, 64 bits
                single.append((lid, mid, address & m, f, ln & m, col & m))
            else:  # no lines (an address only) or inlined ones
                line_msgs = b"".join(_ld(4, _vf(1, f) + _vf(2, ln) + _vf(3, col)) for f, ln, col in lines)
                other.append(_ld(4, _vf(1, lid) + _vf(2, mid) + _vf(3, address) + line_msgs))
        if not single:
            return b"".join(other)
        cols = np.array(single, np.uint64).T.view(np.int64)
        n = cols.shape[1]
        line = [("c", b"\x08"), _varint_part(cols[3]), ("c", b"\x10"), _varint_part(cols[4])]
        line += [("c", b"\x18"), _varint_part(cols[5])]
        parts = [("c", b"\x08"), _varint_part(cols[0]), ("c", b"\x10"), _varint_part(cols[1])]
        parts += [("c", b"\x18"), _varint_part(cols[2]), ("m", b"\x22", line)]
        return _encode_rows(parts, n, b"\x22") + b"".join(other)

    def build(self) -> Profile:
        """The profile, decoded by the core (so it passes every check of
        :func:`pprofcore.loads`)."""
        data = self.encode()
        return Profile._wrap(_core.decode(data, len(data) + 1))


def json_document(fmt: str, data: bytes):
    """The JSON document in ``data``; invalid JSON or non-UTF-8 bytes raise a
    :class:`DecodeError` naming the format and the byte offset."""
    try:
        return json.loads(data)
    except json.JSONDecodeError as e:
        raise input_error(fmt, f"invalid JSON: {e.msg}", e.pos) from None
    except UnicodeDecodeError as e:
        raise input_error(fmt, "the JSON is not UTF-8", e.start) from None
    except RecursionError:  # the json module reads nesting up to the recursion limit
        limit = sys.getrecursionlimit()
        raise input_error(
            fmt, f"the JSON nests deeper than Python's json module reads (about {limit} levels)"
        ) from None
