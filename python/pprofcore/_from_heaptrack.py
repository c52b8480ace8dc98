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
from typing import Dict, List, Optional, Tuple

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
        self.events: List[int] = []  # +info for an allocation, -(info + 1) for a deallocation
        self.last_time = 0


def _read(text: str) -> _Records:
    r = _Records()
    legacy: Dict[Tuple[int, int], int] = {}  # version 0: (size, trace) -> info
    pointers: Dict[int, int] = {}  # version 0: live pointer -> info
    for number, raw in enumerate(text.split("\n"), start=1):
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
        elif mode == "t":
            parts = rest.split()
            if len(parts) != 2:
                raise input_error(FORMAT, "a 't' line needs an instruction pointer and a parent trace", number, "line")
            r.traces.append((_hex(parts[0], number), _hex(parts[1], number)))
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


def _measures(r: _Records) -> np.ndarray:
    """heaptrack's measures (the columns of _TYPES) per allocation info."""
    n = len(r.infos)
    out = np.zeros((n, len(_TYPES)), np.int64)
    if not r.events:
        return out
    ev = np.array(r.events, np.int64)
    plus = ev >= 0
    info = np.where(plus, ev, -ev - 1)
    sizes = np.array([s for s, _ in r.infos], np.int64)
    delta = np.where(plus, sizes[info], -sizes[info])
    live = np.cumsum(delta)
    peak_at = int(np.argmax(live)) if live.max() > 0 else -1
    out[:, 0] = np.bincount(info[plus], minlength=n)
    out[:, 1] = out[:, 0] * sizes
    # Temporary: a deallocation of what the event just before it allocated.
    temp = np.zeros(len(ev), bool)
    temp[1:] = ~plus[1:] & plus[:-1] & (info[1:] == info[:-1])
    out[:, 2] = np.bincount(info[temp], minlength=n)
    if peak_at >= 0:
        out[:, 3] = np.bincount(info[: peak_at + 1], weights=delta[: peak_at + 1], minlength=n).round().astype(np.int64)
    counted = np.bincount(info, weights=np.where(plus, 1, -1), minlength=n).round().astype(np.int64)
    out[:, 4] = np.maximum(counted, 0)
    out[:, 5] = out[:, 4] * sizes
    return out


def read_heaptrack_bytes(data: bytes) -> Profile:
    """Build a heap profile from heaptrack's interpreted data file."""
    r = _read(data.decode("utf-8", "surrogateescape"))
    b = ProfileBuilder(_TYPES)
    b.default_sample_type = "peak_space"

    def string(i: int, what: str) -> str:
        if not 0 <= i < len(r.strings):
            raise input_error(FORMAT, f"{what} names string {i:#x}, but {len(r.strings) - 1} are defined ('s' lines)")
        return r.strings[i]

    locations: Dict[int, Optional[int]] = {}

    def location(ip: int) -> Optional[int]:
        """The location of instruction pointer ``ip`` (None: operator new)."""
        if ip in locations:
            return locations[ip]
        if not 0 < ip < len(r.ips):
            raise input_error(
                FORMAT, f"a trace names instruction pointer {ip:#x}, but {len(r.ips) - 1} are defined ('i' lines)"
            )
        address, module, frames = r.ips[ip]
        lines = []
        for function, file, line in frames:
            if function:
                lines.append((b.function(string(function, "a frame"), string(file, "a frame")), line, 0))
        mapping = b.mapping(string(module, "an instruction pointer")) if module else 0
        lid = b.location_at(lines, address, mapping)
        locations[ip] = lid
        return lid

    def is_operator_new(ip: int) -> bool:
        frames = r.ips[ip][2] if 0 < ip < len(r.ips) else []
        return bool(frames) and string(frames[0][0], "a frame").startswith("operator new")

    stacks: Dict[int, List[int]] = {}

    def stack(trace: int) -> List[int]:
        got = stacks.get(trace)
        if got is not None:
            return got
        ids: List[int] = []
        seen = 0
        at = trace
        while at != 0:
            if not 0 < at < len(r.traces):
                raise input_error(FORMAT, f"trace {at:#x} is not among the {len(r.traces) - 1} defined ('t' lines)")
            seen += 1
            if seen > len(r.traces):
                raise input_error(FORMAT, f"the traces have a cycle through trace {trace:#x}")
            ip, parent = r.traces[at]
            if ids or not is_operator_new(ip):
                ids.append(location(ip))  # type: ignore[arg-type]
            at = parent
        stacks[trace] = ids
        return ids

    values = _measures(r)
    by_trace: Dict[int, np.ndarray] = {}
    for (size, trace), row in zip(r.infos, values):
        got = by_trace.get(trace)
        by_trace[trace] = row.copy() if got is None else got + row
    encoded: List[bytes] = []
    rows = []
    for trace, row in by_trace.items():
        if row.any():
            encoded.append(b.stack_bytes(stack(trace)))
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
