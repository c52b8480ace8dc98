"""Folded (collapsed) stack text to a profile: :func:`from_folded` encodes
``profile.proto`` bytes with the small writer of :mod:`._wire` and decodes them
with the regular loader, so every check of :func:`load` applies."""

from __future__ import annotations

import re
from typing import Dict, List, Tuple, Union

from ._io import loads
from ._profile import Profile
from ._proto_fields import FunctionField, LineField, LocationField, ProfileField, SampleField, ValueTypeField
from ._wire import put_field_bytes as _field_bytes
from ._wire import put_field_varint as _field_varint
from ._wire import put_packed as _packed

_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def _parse_type(sample_type) -> Tuple[str, str]:
    if isinstance(sample_type, str):
        t, _, u = sample_type.partition("/")
        return t, (u or "count")
    t, u = sample_type
    return str(t), str(u)


_HEADER_TOKEN = re.compile(r"^[^\s;/]+/[^\s;/]+$")


def _header_types(line: str):
    """The sample types of a pprofutils header line ("samples/count
    cpu/nanoseconds"), or None when ``line`` is a stack line."""
    tokens = line.split()
    if tokens and all(_HEADER_TOKEN.match(t) for t in tokens) and not tokens[-1].lstrip("-").isdigit():
        return [_parse_type(t) for t in tokens]
    return None


def from_folded(text: str, sample_type: Union[str, Tuple[str, str], List] = ("samples", "count")) -> "Profile":
    """Build a Profile from folded (collapsed) stacks.

    Each non-empty line is ``root;caller;...;leaf VALUE`` (the format of
    Brendan Gregg's ``stackcollapse`` scripts and :meth:`Profile.to_folded`).
    Every distinct frame name becomes one function and one location; repeated
    stacks are kept as separate samples. The visible escapes
    :meth:`Profile.to_folded` writes for line breaks and ``;`` in names
    (``\\x0a``, ``\\x3b``) stay as they are: the replacement is one-way.

    Parameters
    ----------
    text : str
        The folded stacks. Lines starting with ``#`` are ignored. As in
        pprofutils, the first line may be a header naming the value columns
        (``samples/count cpu/nanoseconds``); then every line carries one value
        per column: ``root;...;leaf 5 50000000``.
    sample_type : str, (str, str) or list of them
        ``"type/unit"`` or ``(type, unit)`` of the value column (a list: one per
        column), used when the text has no header.

    Returns
    -------
    Profile

    Examples
    --------
    >>> p = pprofcore.from_folded("main;work 3\\nmain;idle 1\\n", sample_type="cpu/nanoseconds")
    >>> p.total()
    4
    """
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
    lines = [(n, ln.strip()) for n, ln in enumerate(text.splitlines(), 1)]
    lines = [(n, ln) for n, ln in lines if ln and not ln.startswith("#")]
    types = _header_types(lines[0][1]) if lines else None
    if types is not None:
        lines = lines[1:]
    elif isinstance(sample_type, list):
        types = [_parse_type(t) for t in sample_type]
    else:
        types = [_parse_type(sample_type)]
    if not types:
        raise ValueError("from_folded: no sample types given")
    header = bytearray()
    for st, su in types:
        vt = bytearray()
        _field_varint(ValueTypeField.TYPE, s(st), vt)
        _field_varint(ValueTypeField.UNIT, s(su), vt)
        _field_bytes(ProfileField.SAMPLE_TYPE, bytes(vt), header)
    nv = len(types)
    for lineno, line in lines:
        parts = line.rsplit(" ", nv)
        if len(parts) == nv:  # a stackless sample: values only
            parts = [""] + parts
        stack, values = parts[0], parts[1:]
        if len(values) != nv:
            raise ValueError(f"folded line {lineno}: expected 'frames' and {nv} value(s), got {line!r}")
        vals = []
        for v in values:
            try:
                vals.append(int(v))
            except ValueError:
                raise ValueError(
                    f"folded line {lineno}: value {v!r} is not an integer (expected 'frames' and {nv} value(s))"
                ) from None
            if not _INT64_MIN <= vals[-1] <= _INT64_MAX:
                raise ValueError(f"folded line {lineno}: value {v} is outside the int64 range of profile values")
        ids = []
        for name in stack.split(";") if stack else []:
            fid = frames.get(name)
            if fid is None:
                fid = frames[name] = len(frames) + 1
                s(name)
            ids.append(fid)
        body = bytearray()
        _packed(SampleField.LOCATION_ID, ids[::-1], body)
        _packed(SampleField.VALUE, vals, body)
        _field_bytes(ProfileField.SAMPLE, bytes(body), samples)
    out = bytearray(header)
    out += samples
    locs = bytearray()
    funcs = bytearray()
    for name, fid in frames.items():
        line_msg = bytearray()
        _field_varint(LineField.FUNCTION_ID, fid, line_msg)
        loc = bytearray()
        _field_varint(LocationField.ID, fid, loc)
        _field_bytes(LocationField.LINE, bytes(line_msg), loc)
        _field_bytes(ProfileField.LOCATION, bytes(loc), locs)
        fn = bytearray()
        _field_varint(FunctionField.ID, fid, fn)
        _field_varint(FunctionField.NAME, strings[name], fn)
        _field_varint(FunctionField.SYSTEM_NAME, strings[name], fn)
        _field_bytes(ProfileField.FUNCTION, bytes(fn), funcs)
    out += locs
    out += funcs
    for x in strings:  # dicts keep insertion order = code order
        _field_bytes(ProfileField.STRING_TABLE, x.encode("utf-8"), out)
    return loads(bytes(out))
