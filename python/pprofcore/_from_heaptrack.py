"""heaptrack's data files (``heaptrack ./prog`` writes ``heaptrack.prog.<pid>.zst``,
older releases ``.gz``: the interpreted form ``heaptrack --analyze`` and
``heaptrack_print`` read) to a heap profile.

The file is text, one record a line, numbers in hexadecimal:
``v <heaptrack version> <file version>``, ``X <command line>``, ``s``
strings (numbered from 1; from file version 3 ``s <length> <text>``),
``i <address> <module> [<function> <file> <line>]...`` instruction
pointers (numbered from 1; the first frame is the innermost, the next ones
each the function the previous was inlined into, at the call's line),
``t <ip> <parent>`` trace nodes (numbered from 1; 0 is the root), ``a
<size> <trace>`` allocation infos (numbered from 0), and the events: ``+
<info>`` (an allocation), ``- <info>`` (its deallocation), ``c <ms>``
(time), ``R <pages>`` (RSS). Before file version 1, events were ``+ <size>
<trace> <pointer>`` and ``- <pointer>``.

Each trace becomes one sample with heaptrack's measures: ``alloc_objects``
and ``alloc_space`` (every allocation), ``temporary_objects`` (allocations
freed at once, with no allocation in between), ``peak_space`` (bytes live
at the moment the heap was largest: the default, as heaptrack leads with
it) and ``leaked_objects``/``leaked_space`` (live at the end). An
instruction pointer is a location at its address in its module's mapping,
with its inlined frames as lines; ``operator new`` frames at the top of a
stack are dropped, as heaptrack does, so the allocating caller is the leaf.
"""

from __future__ import annotations

import re
from typing import Dict, Iterable, List, Optional, Tuple

import numpy as np

from ._build import ProfileBuilder, input_error
from ._profile import Profile

FORMAT = "heaptrack"
_TYPES = [
    ("alloc_objects", "count"),
    ("alloc_space", "bytes"),
    ("temporary_objects", "count"),
    ("peak_space", "bytes"),
    ("leaked_objects", "count"),
    ("leaked_space", "bytes"),
]
_FIRST = re.compile(rb"v [0-9a-fA-F]+( [0-9a-fA-F]+)?\r?\n")


def looks_like_heaptrack(head: bytes) -> bool:
    """heaptrack's first line, ``v <version> <file version>``, then its records."""
    return _FIRST.match(head) is not None and any(k in head for k in (b"\nX ", b"\ns ", b"\nt ", b"\ni "))


def _hex(tok: str, line: int) -> int:
    try:
        return int(tok, 16)
    except ValueError:
        raise input_error(FORMAT, f"{tok[:40]!r} is not a hexadecimal number", line, "line") from None


class _Records:
    """The file's tables and its allocation events, as read."""

    def __init__(self) -> None:
        self.version = 0
        self.command = ""
        self.strings: List[str] = [""]  # 1-based: 0 is "none"
        self.ips: List[Tuple[int, int, List[Tuple[int, int, int]]]] = [(0, 0, [])]  # 1-based
        self.traces: List[Tuple[int, int]] = [(0, 0)]  # (ip, parent), 1-based; 0 is the root
        self.infos: List[Tuple[int, int]] = []  # (size, trace), 0-based
        # The line each trace, instruction pointer and info was defined on, for errors.
        self.trace_lines: List[int] = [0]
        self.ip_lines: List[int] = [0]
        self.info_lines: List[int] = []
        self.events: List[int] = []  # +info for an allocation, -(info + 1) for a deallocation
        self.last_time = 0


_HEX = np.full(256, -1, np.int64)
_HEX[np.frombuffer(b"0123456789", np.uint8)] = np.arange(10)
_HEX[np.frombuffer(b"abcdef", np.uint8)] = np.arange(10, 16)
_HEX[np.frombuffer(b"ABCDEF", np.uint8)] = np.arange(10, 16)


def _events_at_once(data: bytes) -> Optional[Tuple[np.ndarray, np.ndarray, List[Tuple[int, str]]]]:
    """The ``+ <info>`` and ``- <info>`` lines (most of a file) read with
    NumPy: (events as in _Records.events, their line numbers, the other
    lines as ``(number, text)``), or None when one of them is not exactly
    that shape (the line-by-line reader then reads the whole file, and names
    the line)."""
    arr = np.frombuffer(data, np.uint8)
    nl = np.flatnonzero(arr == 10)
    starts = np.concatenate(([0], nl + 1))
    ends = np.concatenate((nl, [arr.size]))
    keep = ends > starts
    starts, ends, numbers = starts[keep], ends[keep], np.flatnonzero(keep) + 1
    first = arr[starts]
    event = (first == ord("+")) | (first == ord("-"))
    others = [
        (n, data[a:z].decode("utf-8", "surrogateescape"))
        for n, a, z in zip(numbers[~event].tolist(), starts[~event].tolist(), ends[~event].tolist())
    ]
    if not event.any():
        return np.zeros(0, np.int64), np.zeros(0, np.int64), others
    s, e = starts[event], ends[event]
    width = e - s - 2
    if (width < 1).any() or (width > 15).any() or (arr[s + 1] != ord(" ")).any():
        return None
    value = np.zeros(s.size, np.int64)
    for k in range(int(width.max())):
        more = width > k
        digit = _HEX[arr[np.where(more, s + 2 + k, s)]]
        if (more & (digit < 0)).any():
            return None
        value = np.where(more, value * 16 + digit, value)
    events = np.where(first[event] == ord("+"), value, -(value + 1))
    return events, numbers[event], others


def _read(lines: Iterable[Tuple[int, str]]) -> _Records:
    """The records of ``(line number, text)`` lines, one by one."""
    r = _Records()
    legacy: Dict[Tuple[int, int], int] = {}  # version 0: (size, trace) -> info
    pointers: Dict[int, int] = {}  # version 0: live pointer -> info
    for number, raw in lines:
        line = raw.rstrip("\r")
        if not line:
            continue
        mode, rest = line[0], line[2:]
        if mode == "+" or mode == "-":
            if r.version >= 1:
                info = _hex(rest, number)
                if not 0 <= info < len(r.infos):
                    raise input_error(
                        FORMAT,
                        f"allocation {rest[:20]!r} is not among the {len(r.infos)} defined ('a' lines)",
                        number,
                        "line",
                    )
                r.events.append(info if mode == "+" else -(info + 1))
            elif mode == "+":  # version 0: + size trace pointer
                parts = rest.split()
                if len(parts) != 3:
                    raise input_error(FORMAT, "an allocation line needs a size, a trace and a pointer", number, "line")
                size, trace, pointer = (_hex(p, number) for p in parts)
                if size >= 1 << 48:
                    raise input_error(FORMAT, f"allocation size {parts[0][:20]!r} is too large", number, "line")
                info = legacy.setdefault((size, trace), len(r.infos))
                if info == len(r.infos):
                    r.infos.append((size, trace))
                    r.info_lines.append(number)
                pointers[pointer] = info
                r.events.append(info)
            else:  # version 0: - pointer (one allocated before attaching is not known)
                info = pointers.pop(_hex(rest.strip(), number), -1)
                if info >= 0:
                    r.events.append(-(info + 1))
        elif mode == "a":
            parts = rest.split()
            if len(parts) != 2:
                raise input_error(FORMAT, "an 'a' line needs a size and a trace", number, "line")
            size = _hex(parts[0], number)
            if size >= 1 << 48:  # 256 TiB: no allocation is larger, and sums stay within int64
                raise input_error(FORMAT, f"allocation size {parts[0][:20]!r} is too large", number, "line")
            r.infos.append((size, _hex(parts[1], number)))
            r.info_lines.append(number)
        elif mode == "t":
            parts = rest.split()
            if len(parts) != 2:
                raise input_error(FORMAT, "a 't' line needs an instruction pointer and a parent trace", number, "line")
            r.traces.append((_hex(parts[0], number), _hex(parts[1], number)))
            r.trace_lines.append(number)
        elif mode == "i":
            parts = rest.split()
            # The first frame may be a function alone (no debug information: no file and line).
            if len(parts) < 2 or (len(parts) > 3 and (len(parts) - 2) % 3):
                raise input_error(
                    FORMAT, "an 'i' line needs an address, a module and frames of three numbers", number, "line"
                )
            nums = [_hex(p, number) for p in parts] + [0, 0]
            if nums[0] >= 1 << 64 or any(x >= 1 << 63 for x in nums[1:]):
                raise input_error(FORMAT, "an 'i' line's number is too large", number, "line")
            frames = [(nums[k], nums[k + 1], nums[k + 2]) for k in range(2, len(parts), 3)]
            r.ips.append((nums[0], nums[1], frames))
            r.ip_lines.append(number)
        elif mode == "s":
            if r.version >= 3:
                length, _, body = rest.partition(" ")
                n = _hex(length, number)
                raw_body = body.encode("utf-8", "surrogateescape")  # the length counts bytes
                if len(raw_body) < n:
                    raise input_error(FORMAT, f"a string of {n} bytes holds {len(raw_body)}", number, "line")
                r.strings.append(raw_body[:n].decode("utf-8", "surrogateescape"))
            else:
                r.strings.append(rest)
        elif mode == "c":
            r.last_time = min(_hex(rest.strip(), number), (1 << 63) // 1_000_000)
        elif mode == "v":
            parts = rest.split()
            if not parts:
                raise input_error(FORMAT, "the 'v' line gives no version", number, "line")
            heaptrack = _hex(parts[0], number)
            r.version = _hex(parts[1], number) if len(parts) > 1 else (1 if heaptrack == 0x010200 else 0)
            if r.version > 3:
                raise input_error(
                    FORMAT, f"file format version {r.version} is newer than the 3 this reader knows", number, "line"
                )
        elif mode == "X":
            r.command = rest
        elif mode in ("x", "m"):
            raise input_error(
                FORMAT, "this is a raw heaptrack file: interpret it first (heaptrack -i FILE)", number, "line"
            )
        elif mode not in ("#", "R", "I", "A", "S"):
            raise input_error(FORMAT, f"{line[:40]!r} is no heaptrack record", number, "line")
    return r


def _check_infos(r: _Records, events: np.ndarray, event_lines: np.ndarray) -> None:
    """Every event names an allocation info defined ('a' line) before it."""
    if not events.size:
        return
    defined = np.searchsorted(np.array(r.info_lines, np.int64), event_lines)  # 'a' lines before each event
    info = np.where(events >= 0, events, -events - 1)
    bad = info >= defined
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise input_error(
            FORMAT,
            f"allocation '{int(info[k]):x}' is not among the {int(defined[k])} defined ('a' lines)",
            int(event_lines[k]),
            "line",
        )


def _measures(r: _Records) -> np.ndarray:
    """heaptrack's measures (the columns of _TYPES) per allocation info."""
    n = len(r.infos)
    out = np.zeros((n, len(_TYPES)), np.int64)
    if not len(r.events):
        return out
    ev = np.asarray(r.events, np.int64)
    plus = ev >= 0
    info = np.where(plus, ev, -ev - 1)
    sizes = np.array([s for s, _ in r.infos], np.int64)
    delta = np.where(plus, sizes[info], -sizes[info])
    live = np.cumsum(delta)
    peak_at = int(np.argmax(live)) if live.max() > 0 else -1
    out[:, 0] = np.bincount(info[plus], minlength=n)
    out[:, 1] = out[:, 0] * sizes
    # Temporary, as heaptrack counts it: a deallocation of what the event just
    # before it allocated. Its "last allocation" is 0 at the start and after a
    # deallocation, so a deallocation of info 0 then counts too.
    last = np.zeros(len(ev), np.int64)
    last[1:] = np.where(plus[:-1], info[:-1], 0)
    temp = ~plus & (info == last)
    out[:, 2] = np.bincount(info[temp], minlength=n)
    if peak_at >= 0:
        out[:, 3] = np.bincount(info[: peak_at + 1], weights=delta[: peak_at + 1], minlength=n).round().astype(np.int64)
    counted = np.bincount(info, weights=np.where(plus, 1, -1), minlength=n).round().astype(np.int64)
    out[:, 4] = np.maximum(counted, 0)
    out[:, 5] = out[:, 4] * sizes
    return out


def read_heaptrack_bytes(data: bytes) -> Profile:
    """Build a heap profile from heaptrack's interpreted data file."""
    at_once = _events_at_once(data) if data[:2] == b"v " and not re.match(rb"v [0-9a-fA-F]+\s*\n", data) else None
    r = None
    if at_once is not None:
        events, event_lines, others = at_once
        r = _read(others)
        if r.version >= 1:
            _check_infos(r, events, event_lines)
            r.events = events  # type: ignore[assignment]
        else:  # events were "+ size trace pointer": read line by line
            r = None
    if r is None:
        r = _read(enumerate(data.decode("utf-8", "surrogateescape").split("\n"), start=1))
    b = ProfileBuilder(_TYPES)
    b.default_sample_type = "peak_space"

    def string(i: int, what: str, line: int) -> str:
        if not 0 <= i < len(r.strings):
            raise input_error(
                FORMAT, f"{what} names string {i:#x}, but {len(r.strings) - 1} are defined ('s' lines)", line, "line"
            )
        return r.strings[i]

    locations: Dict[int, Optional[int]] = {}

    def location(ip: int, named_at: int) -> Optional[int]:
        """The location of instruction pointer ``ip``, which the 't' line
        ``named_at`` names."""
        if ip in locations:
            return locations[ip]
        if not 0 < ip < len(r.ips):
            raise input_error(
                FORMAT,
                f"instruction pointer {ip:#x} is not among the {len(r.ips) - 1} defined ('i' lines)",
                named_at,
                "line",
            )
        address, module, frames = r.ips[ip]
        at = r.ip_lines[ip]
        lines = []
        for function, file, line in frames:
            if function:
                lines.append((b.function(string(function, "a frame", at), string(file, "a frame", at)), line, 0))
        mapping = b.mapping(string(module, "an instruction pointer", at)) if module else 0
        lid = b.location_at(lines, address, mapping)
        locations[ip] = lid
        return lid

    def is_operator_new(ip: int) -> bool:
        frames = r.ips[ip][2] if 0 < ip < len(r.ips) else []
        return bool(frames) and string(frames[0][0], "a frame", r.ip_lines[ip]).startswith("operator new")

    stacks: Dict[int, List[int]] = {}

    def stack(trace: int, named_at: int) -> List[int]:
        """The location ids (leaf first) of ``trace``, which line ``named_at`` names."""
        got = stacks.get(trace)
        if got is not None:
            return got
        ids: List[int] = []
        seen = 0
        at = trace
        while at != 0:
            if not 0 < at < len(r.traces):
                msg = f"trace {at:#x} is not among the {len(r.traces) - 1} defined ('t' lines)"
                raise input_error(FORMAT, msg, named_at, "line")
            seen += 1
            if seen > len(r.traces):
                raise input_error(
                    FORMAT, f"the traces have a cycle through trace {trace:#x}", r.trace_lines[at], "line"
                )
            ip, parent = r.traces[at]
            if ids or not is_operator_new(ip):
                ids.append(location(ip, r.trace_lines[at]))  # type: ignore[arg-type]
            named_at = r.trace_lines[at]
            at = parent
        stacks[trace] = ids
        return ids

    values = _measures(r)
    by_trace: Dict[int, np.ndarray] = {}
    defined_at: Dict[int, int] = {}  # the first 'a' line naming each trace
    for (size, trace), row, line in zip(r.infos, values, r.info_lines):
        got = by_trace.get(trace)
        by_trace[trace] = row.copy() if got is None else got + row
        defined_at.setdefault(trace, line)
    encoded: List[bytes] = []
    rows = []
    for trace, row in by_trace.items():
        if row.any():
            encoded.append(b.stack_bytes(stack(trace, defined_at[trace])))
            rows.append(row)
    if rows:
        b.add_many(encoded, np.arange(len(rows)), np.array(rows, np.int64))
    program = r.command.split()[0].rsplit("/", 1)[-1] if r.command.split() else ""
    for k, name in enumerate(r.strings):
        if program and k and name.rsplit("/", 1)[-1] == program and any(m == k for _, m, _ in r.ips[1:]):
            b.main_mapping(b.mapping(name))  # the program's own binary names the profile (File:)
            break
    b.duration_nanos = r.last_time * 1_000_000
    b.comments.append("heaptrack profile" + (f" of {r.command.strip()}" if r.command.strip() else ""))
    return b.build()
