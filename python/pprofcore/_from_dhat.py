"""DHAT's JSON (``valgrind --tool=dhat``, ``dhat.out.<pid>``; the Rust
``dhat`` crate's ``dhat-heap.json`` and ``dhat-ad-hoc.json``) to a profile.

A DHAT file is a list of program points (``pps``), each an allocation stack
(``fs``: indexes into the frame table ``ftbl``, innermost first) with its
totals: bytes and blocks allocated (``tb``, ``tbk``), live at the time of the
global heap peak (``gb``, ``gbk``, "at t-gmax") and at exit (``eb``, ``ebk``,
"at t-end"), the blocks' summed lifetimes (``tl``, in the file's time unit
``tu``) and the bytes read from and written to them (``rb``, ``wb``). Each
program point becomes one sample with these as its values; ``mb``/``mbk``
(the point's own maximum) are not summable over points and are left out.
Which sample types there are follows the file's mode: heap profiles
(``heap``, ``rust-heap``) give ``alloc_objects``/``alloc_space`` and, with
block lifetimes (``bklt``), ``gmax_objects``/``gmax_space``,
``end_objects``/``end_space`` and ``lifetime``, with block accesses
(``bkacc``) ``read_space``/``write_space``; copy profiles (``copy``)
``copies/count`` and ``copied/bytes``; ad-hoc profiles their own units
(``bsu``, ``bksu``: ``units``, ``events`` by default).

Frames are Valgrind's text (``_valgrind_frames``: inlined calls become
inline lines, recursion from one call site stays). Valgrind's own allocator
frames (its ``vgpreload_*`` objects: the replaced ``malloc``) at the top of
a stack are dropped, as pprof drops the allocator from heap profiles, so
the program's call of the allocator is the leaf.
"""

from __future__ import annotations

import math
from typing import Dict, List, Tuple

import numpy as np

from ._build import ProfileBuilder, input_error, json_document
from ._profile import Profile
from ._valgrind_frames import Frame, locations, parse_frame

FORMAT = "DHAT"


def looks_like_dhat(head: bytes) -> bool:
    """A JSON object naming ``dhatFileVersion``."""
    return head.lstrip()[:1] == b"{" and b'"dhatFileVersion"' in head


def _count(pp: dict, key: str, where: str) -> int:
    v = pp.get(key, 0)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0 or v >= 2**63:
        raise input_error(FORMAT, f"{where}.{key} = {v!r:.40} is not a count (a whole number of at least 0)")
    if v != int(v):
        raise input_error(FORMAT, f"{where}.{key} = {v!r:.40} is not a whole number")
    return int(v)


def _time_type(unit: str) -> Tuple[Tuple[str, str], int]:
    """The sample type of summed lifetimes in the file's unit ``tu``."""
    if unit in ("µs", "us"):
        return ("lifetime", "nanoseconds"), 1000
    if unit == "instrs":
        return ("lifetime", "instructions"), 1
    return ("lifetime", unit or "count"), 1


def _columns(doc: dict) -> List[Tuple[Tuple[str, str], str, int]]:
    """``((type, unit), program point key, scale)`` of each sample type."""
    mode = str(doc.get("mode", ""))
    if mode in ("heap", "rust-heap"):
        out = [(("alloc_objects", "count"), "tbk", 1), (("alloc_space", "bytes"), "tb", 1)]
        if doc.get("bklt"):
            out += [(("gmax_objects", "count"), "gbk", 1), (("gmax_space", "bytes"), "gb", 1)]
            out += [(("end_objects", "count"), "ebk", 1), (("end_space", "bytes"), "eb", 1)]
            life, scale = _time_type(str(doc.get("tu", "")))
            out.append((life, "tl", scale))
        if doc.get("bkacc"):
            out += [(("read_space", "bytes"), "rb", 1), (("write_space", "bytes"), "wb", 1)]
        return out
    if mode == "copy":
        return [(("copies", "count"), "tbk", 1), (("copied", "bytes"), "tb", 1)]
    if mode in ("ad-hoc", "rust-ad-hoc"):
        events, units = str(doc.get("bksu") or "events"), str(doc.get("bsu") or "units")
        return [((events, "count"), "tbk", 1), ((units, "count"), "tb", 1)]
    raise input_error(
        FORMAT, f"'mode' is {mode[:40]!r}, not heap, copy or ad-hoc (nor the Rust crate's rust-heap or rust-ad-hoc)"
    )


class _Frames:
    """The frame table's entries, parsed once each."""

    def __init__(self, b: ProfileBuilder, table: list):
        self.b = b
        self.table = table
        self._parsed: Dict[int, Frame] = {}

    def parse(self, i: int, where: str) -> Frame:
        got = self._parsed.get(i) if type(i) is int else None  # a list or dict cannot be a key: checked below
        if got is not None:
            return got
        if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < len(self.table):
            raise input_error(FORMAT, f"{where} = {i!r:.40} is not an index into ftbl ({len(self.table)} entries)")
        text = self.table[i]
        if not isinstance(text, str):
            raise input_error(FORMAT, f"ftbl[{i}] is not a string")
        got = self._parsed[i] = parse_frame(self.b, text, FORMAT, f"ftbl[{i}]")
        return got

    def stack(self, fs: list, where: str) -> List[int]:
        """Location ids (leaf first) of a program point's frames."""
        frames = [self.parse(x, f"{where}[{k}]") for k, x in enumerate(fs)]
        while frames and "/vgpreload_" in frames[0][4]:
            frames.pop(0)  # Valgrind's replacement allocator, not the program
        return locations(self.b, frames)


def read_dhat(doc) -> Profile:
    """Build a Profile from a parsed DHAT document (a dict)."""
    if not isinstance(doc, dict):
        raise input_error(FORMAT, "the document is not a JSON object")
    version = doc.get("dhatFileVersion")
    if version != 2:
        raise input_error(FORMAT, f"'dhatFileVersion' is {version!r:.40}, not 2, the version this reader knows")
    pps, table = doc.get("pps"), doc.get("ftbl")
    if not isinstance(pps, list) or not isinstance(table, list):
        raise input_error(FORMAT, "the document needs 'pps' and 'ftbl' lists")
    columns = _columns(doc)
    b = ProfileBuilder([st for st, _, _ in columns])
    b.default_sample_type = columns[1][0][0]
    frames = _Frames(b, table)
    stacks: List[bytes] = []
    rows = np.zeros((len(pps), len(columns)), np.int64)
    for i, pp in enumerate(pps):
        where = f"pps[{i}]"
        if not isinstance(pp, dict):
            raise input_error(FORMAT, f"{where} is not an object")
        fs = pp.get("fs")
        if not isinstance(fs, list):
            raise input_error(FORMAT, f"{where} has no 'fs' list of frames")
        stacks.append(b.stack_bytes(frames.stack(fs, f"{where}.fs")))
        for j, (_, key, scale) in enumerate(columns):
            v = _count(pp, key, where) * scale
            if v >= 2**63:
                raise input_error(FORMAT, f"{where}.{key} is outside the int64 range of profile values")
            rows[i, j] = v
    if pps:
        b.add_many(stacks, np.arange(len(pps)), rows)
    cmd = doc.get("cmd")
    b.comments.append(f"DHAT {doc.get('mode', '')} profile" + (f" of {cmd}" if cmd else ""))
    if doc.get("pid") is not None:
        b.comments.append(f"pid {doc['pid']}")
    return b.build()


def read_dhat_bytes(data: bytes) -> Profile:
    """Parse DHAT JSON bytes; bad JSON raises a :class:`DecodeError` naming
    the byte offset."""
    return read_dhat(json_document(FORMAT, data))
