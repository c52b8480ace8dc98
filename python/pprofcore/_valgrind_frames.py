"""Valgrind's frame text, shared by the DHAT and Massif readers (and the Rust
``dhat`` crate, which writes the same): ``0xADDR: function (file:line)``,
``(file:line:column)``, ``(in object)`` without debug information, and
``???`` for an unknown function or file. Inlined calls are written as
consecutive frames at one address, which become one location's lines."""

from __future__ import annotations

import re
from typing import List, Sequence, Tuple

from ._build import ProfileBuilder, input_error

_FRAME = re.compile(r"(0x[0-9A-Fa-f]+): (.*?)(?: \((?:in (.+)|(.*?):(\d+)(?::(\d+))?)\))?\Z", re.S)
UNKNOWN = "???"

#: ``(address, function name, function id, (line, column), object)``; a
#: function id of 0 is an unknown function (the location is its address).
Frame = Tuple[int, str, int, Tuple[int, int], str]


def parse_frame(b: ProfileBuilder, text: str, fmt: str, where: str) -> Frame:
    """One frame's text; text without an address (DHAT's ``[root]``,
    Massif's threshold entries) is a function name alone. Numbers too large
    for a profile are a DecodeError of ``fmt`` naming ``where``."""
    m = _FRAME.match(text)
    if m is None:
        return (0, text, b.function(text), (0, 0), "")
    name, obj, file, line, column = m.group(2), m.group(3), m.group(4), m.group(5), m.group(6)
    address, line, column = int(m.group(1), 16), int(line or 0), int(column or 0)
    if address >= 1 << 64 or line >= 1 << 63 or column >= 1 << 63:
        raise input_error(fmt, f"{where}: {text[:80]!r} has an address or line number too large for a profile")
    fid = 0 if name == UNKNOWN else b.function(name, "" if file in (None, UNKNOWN) else file)
    return (address, name, fid, (line, column), obj or "")


def locations(b: ProfileBuilder, frames: Sequence[Frame]) -> List[int]:
    """Location ids of ``frames`` (leaf first). Consecutive frames at one
    address with different functions are one location, innermost line
    first; the same function again at that address is recursion from one
    call site, and starts a new location. A frame's object, when given, is
    its location's mapping."""
    out = []
    k = 0
    while k < len(frames):
        address, obj = frames[k][0], frames[k][4]
        group = [frames[k]]
        names = {frames[k][1]}
        k += 1
        while address and k < len(frames) and frames[k][0] == address and frames[k][1] not in names:
            group.append(frames[k])
            names.add(frames[k][1])
            k += 1
        lines = [(f[2], f[3][0], f[3][1]) for f in group if f[2]]
        out.append(b.location_at(lines, address, b.mapping(obj) if obj else 0))
    return out
