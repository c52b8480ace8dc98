"""A tiny profile.proto writer for hand-made (often deliberately broken) test inputs.

Messages are nested lists of (field, value) pairs: int -> varint, bytes/str ->
length-delimited, list -> nested message. Nothing is validated, on purpose.
"""

from __future__ import annotations

from wirebuild import ld, vint


def msg(fields) -> bytes:
    out = bytearray()
    for f, v in fields:
        if isinstance(v, int):
            out += vint(f, v)
        else:
            if isinstance(v, str):
                v = v.encode()
            elif isinstance(v, list):
                v = msg(v)
            out += ld(f, v)
    return bytes(out)


def profile(*, strings=("",), sample_types=(), samples=(), locations=(), functions=(), mappings=(), extra=()):
    """samples: (location ids, values); locations: (id, mapping id, [function ids]);
    functions: (id, name code); mappings: (id,). Strings go last, like Go writes them."""
    fields = []
    for t, u in sample_types:
        fields.append((1, [(1, t), (2, u)]))
    for locs, vals in samples:
        fields.append((2, [(1, i) for i in locs] + [(2, v) for v in vals]))
    for (mid,) in mappings:
        fields.append((3, [(1, mid), (2, 0x1000), (3, 0x2000)]))
    for lid, mid, fids in locations:
        fields.append((4, [(1, lid), (2, mid)] + [(4, [(1, f), (2, 1)]) for f in fids]))
    for fid, name in functions:
        fields.append((5, [(1, fid), (2, name)]))
    fields.extend(extra)
    for s in strings:
        fields.append((6, s))
    return msg(fields)
