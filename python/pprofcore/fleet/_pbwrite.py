"""A vectorized protobuf writer for ``profile.proto``, used to rebuild profiles
from the Parquet store's tables (the C++ decoder then reads them back).

Every record (sample, location, ...) is a *segment* of one byte buffer: a
``Segs`` is ``(buf uint8, off int64[n+1])``. Fields are built for all records at
once with NumPy and joined per record, so nothing loops over samples in Python.
"""

from __future__ import annotations

from typing import List, Sequence

import numpy as np

from .._wire import LEN, VARINT, tag

_SHIFTS = np.arange(0, 70, 7, dtype=np.uint64)  # 10 groups of 7 bits cover 64


class Segs:
    """``n`` byte strings stored as one buffer and ``n + 1`` offsets."""

    __slots__ = ("buf", "off")

    def __init__(self, buf: np.ndarray, off: np.ndarray) -> None:
        self.buf, self.off = buf, off

    def __len__(self) -> int:
        return len(self.off) - 1

    @property
    def lens(self) -> np.ndarray:
        return np.diff(self.off)


def _offsets(lens: np.ndarray) -> np.ndarray:
    off = np.zeros(len(lens) + 1, dtype=np.int64)
    np.cumsum(lens, out=off[1:])
    return off


def varints(values) -> Segs:
    """Each value (int64 two's complement, or uint64) as one varint."""
    v = np.ascontiguousarray(values).astype(np.int64, copy=False).view(np.uint64)
    n_bytes = np.ones(len(v), dtype=np.int64)
    for k in range(1, 10):
        more = v >= (np.uint64(1) << _SHIFTS[k])
        if not more.any():
            break
        n_bytes += more
    width = int(n_bytes.max()) if len(v) else 1  # only as many 7-bit groups as the largest value needs
    shifts = _SHIFTS[:width]
    groups = (v[:, None] >> shifts[None, :]) & np.uint64(0x7F)
    cols = np.arange(width)[None, :]
    cont = (cols < (n_bytes[:, None] - 1)).astype(np.uint64) << np.uint64(7)
    b = (groups | cont).astype(np.uint8)
    return Segs(b[cols < n_bytes[:, None]], _offsets(n_bytes))


def constant(data: bytes, n: int) -> Segs:
    """The same bytes ``n`` times."""
    one = np.frombuffer(data, dtype=np.uint8)
    return Segs(np.tile(one, n), np.arange(n + 1, dtype=np.int64) * len(one))


def concat(parts: Sequence[Segs]) -> Segs:
    """Record ``i`` = part0[i] + part1[i] + ... (all parts have ``n`` records)."""
    n = len(parts[0])
    lens = np.zeros(n, dtype=np.int64)
    for p in parts:
        if len(p) != n:
            raise ValueError("concat: parts of different lengths")
        lens += p.lens
    off = _offsets(lens)
    out = np.empty(int(off[-1]), dtype=np.uint8)
    at = off[:-1].copy()
    for p in parts:
        pl = p.lens
        total = int(pl.sum())
        if total:
            # destination of each byte: its record's write position + its offset in the segment
            dst = np.repeat(at - p.off[:-1], pl) + np.arange(int(p.off[0]), int(p.off[0]) + total)
            out[dst] = p.buf[int(p.off[0]) : int(p.off[0]) + total]
        at += pl
    return Segs(out, off)


def group(s: Segs, counts_off: np.ndarray) -> Segs:
    """Join consecutive records: record ``j`` of the result is records
    ``counts_off[j]:counts_off[j+1]`` of ``s`` (already in order)."""
    return Segs(s.buf, s.off[np.asarray(counts_off, dtype=np.int64)])


def _keep(s: Segs, keep: np.ndarray) -> Segs:
    """Empty the records where ``keep`` is False."""
    if keep.all():
        return s
    lens = np.where(keep, s.lens, 0)
    starts = s.off[:-1][keep]
    kl = lens[keep]
    idx = np.repeat(starts - _offsets(kl)[:-1], kl) + np.arange(int(kl.sum()))
    return Segs(s.buf[idx], _offsets(lens))


def field_varint(field: int, values, *, omit_zero: bool = True) -> Segs:
    """A varint field per record (omitted where 0, as proto3 does)."""
    values = np.asarray(values)
    s = concat([constant(tag(field, VARINT), len(values)), varints(values)])
    return _keep(s, values != 0) if omit_zero else s


def field_bytes(field: int, content: Segs, *, omit_empty: bool = False) -> Segs:
    """A length-delimited field per record around ``content``."""
    lens = content.lens
    s = concat([constant(tag(field, LEN), len(content)), varints(lens), content])
    return _keep(s, lens > 0) if omit_empty else s


def field_packed(field: int, values, off: np.ndarray) -> Segs:
    """A packed repeated varint field per record: ``values[off[i]:off[i+1]]``."""
    v = varints(values)
    return field_bytes(field, group(v, off), omit_empty=True)


def repeated(field: int, messages: Segs, off: np.ndarray) -> Segs:
    """Repeated embedded messages per record: ``messages[off[i]:off[i+1]]``."""
    return group(field_bytes(field, messages), off)


def strings(values: List[str]) -> Segs:
    data = [s.encode("utf-8") for s in values]
    lens = np.fromiter((len(d) for d in data), dtype=np.int64, count=len(data))
    return Segs(np.frombuffer(b"".join(data), dtype=np.uint8), _offsets(lens))


def select(s: Segs, rows) -> bytes:
    """Records ``rows`` of ``s`` (in that order) joined into one byte string."""
    rows = np.asarray(rows, dtype=np.int64)
    lens = s.lens[rows]
    total = int(lens.sum())
    idx = np.repeat(s.off[:-1][rows] - _offsets(lens)[:-1], lens) + np.arange(total)
    return s.buf[idx].tobytes()


def one(s: Segs) -> bytes:
    """All records joined (a whole message)."""
    return s.buf[int(s.off[0]) : int(s.off[-1])].tobytes()
