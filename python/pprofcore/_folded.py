"""Folded (collapsed) stacks: ``Profile.to_folded`` (C++ collapses the samples)
and :func:`from_folded`, which encodes ``profile.proto`` bytes with a tiny
protobuf writer and decodes them with the regular loader."""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _reports

if TYPE_CHECKING:
    from ._profile import Profile


def to_folded(profile: "Profile", sample_type: Union[int, str, None] = None, lines: bool = False,
              labels: Optional[Sequence[str]] = None, inline: bool = True) -> str:
    ti = profile.sample_type_index(sample_type)
    nodes = _reports.nodes(profile, "lines" if lines else "functions", inline)
    group: List[int] = []
    prefixes: List[str] = []
    if labels:
        from ._dataframes import _label_columns

        cols = _label_columns(profile)
        n = len(profile)
        parts = []
        texts = []
        for key in labels:
            c = cols.get(key)
            if c is None:
                parts.append(np.full(n, -1, dtype=np.int64))
                texts.append(lambda code: None)
            elif hasattr(c, "codes"):
                parts.append(c.codes.astype(np.int64))
                texts.append(lambda code, cats=c.categories, k=key: f"{k}={cats[code]}" if code >= 0 else None)
            else:
                vals, mask = c
                parts.append(np.where(mask, np.iinfo(np.int64).min, vals))
                texts.append(lambda v, k=key: None if v == np.iinfo(np.int64).min else f"{k}={v}")
        uniq, inverse = np.unique(np.stack(parts, axis=1), axis=0, return_inverse=True)
        group = inverse.reshape(-1).astype(np.int32).tolist()
        for row in uniq:
            fr = [t(int(v)) for t, v in zip(texts, row)]
            prefixes.append("".join(f + ";" for f in fr if f is not None))
    return nodes.folded(profile._core, ti, group, prefixes)


# ----------------------------------------------------------------- from_folded
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def _varint(n: int, out: bytearray) -> None:
    n &= (1 << 64) - 1
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)


def _field_varint(field: int, n: int, out: bytearray) -> None:
    _varint(field << 3, out)
    _varint(n, out)


def _field_bytes(field: int, data: bytes, out: bytearray) -> None:
    _varint((field << 3) | 2, out)
    _varint(len(data), out)
    out += data


def _packed(field: int, values: Sequence[int], out: bytearray) -> None:
    body = bytearray()
    for v in values:
        _varint(v, body)
    _field_bytes(field, bytes(body), out)


def _parse_type(sample_type) -> Tuple[str, str]:
    if isinstance(sample_type, str):
        t, _, u = sample_type.partition("/")
        return t, (u or "count")
    t, u = sample_type
    return str(t), str(u)


def from_folded(text: str, sample_type: Union[str, Tuple[str, str]] = ("samples", "count")) -> "Profile":
    """Build a Profile from folded (collapsed) stacks.

    Each non-empty line is ``root;caller;...;leaf VALUE`` (the format of
    Brendan Gregg's ``stackcollapse`` scripts and :meth:`Profile.to_folded`).
    Every distinct frame name becomes one function and one location; repeated
    stacks are kept as separate samples.

    Parameters
    ----------
    text : str
        The folded stacks. Lines starting with ``#`` are ignored.
    sample_type : str or (str, str)
        ``"type/unit"`` or ``(type, unit)`` of the single value column.

    Returns
    -------
    Profile

    Examples
    --------
    >>> p = pprofcore.from_folded("main;work 3\\nmain;idle 1\\n", sample_type="cpu/nanoseconds")
    >>> p.total()
    4
    """
    from ._io import loads

    if not isinstance(text, str):
        raise TypeError(f"from_folded: text must be str, not {type(text).__name__}")
    strings: Dict[str, int] = {"": 0}

    def s(x: str) -> int:
        i = strings.get(x)
        if i is None:
            i = strings[x] = len(strings)
        return i

    frames: Dict[str, int] = {}
    samples = bytearray()
    st, su = _parse_type(sample_type)
    header = bytearray()
    vt = bytearray()
    _field_varint(1, s(st), vt)
    _field_varint(2, s(su), vt)
    _field_bytes(1, bytes(vt), header)
    for lineno, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        stack, sep, value = line.rpartition(" ")
        if not sep and not value.lstrip("-").isdigit():
            raise ValueError(f"folded line {lineno}: expected 'frames VALUE', got {line!r}")
        try:
            v = int(value)
        except ValueError:
            raise ValueError(f"folded line {lineno}: value {value!r} is not an integer") from None
        if not _INT64_MIN <= v <= _INT64_MAX:
            raise ValueError(f"folded line {lineno}: value {value} is outside the int64 range of profile values")
        ids = []
        for name in stack.split(";") if stack else []:
            fid = frames.get(name)
            if fid is None:
                fid = frames[name] = len(frames) + 1
                s(name)
            ids.append(fid)
        body = bytearray()
        _packed(1, ids[::-1], body)
        _packed(2, [v], body)
        _field_bytes(2, bytes(body), samples)
    out = bytearray(header)
    out += samples
    locs = bytearray()
    funcs = bytearray()
    for name, fid in frames.items():
        line_msg = bytearray()
        _field_varint(1, fid, line_msg)
        loc = bytearray()
        _field_varint(1, fid, loc)
        _field_bytes(4, bytes(line_msg), loc)
        _field_bytes(4, bytes(loc), locs)
        fn = bytearray()
        _field_varint(1, fid, fn)
        _field_varint(2, strings[name], fn)
        _field_varint(3, strings[name], fn)
        _field_bytes(5, bytes(fn), funcs)
    out += locs
    out += funcs
    for x in strings:  # dicts keep insertion order = code order
        _field_bytes(6, x.encode("utf-8"), out)
    return loads(bytes(out))
