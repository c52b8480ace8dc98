"""A profile's values by stack, spelled as function names: what the readers'
tests compare against what a producer says (Valgrind's tools, hand-written
files)."""

from __future__ import annotations

import pprofcore


def stacks_by_name(p: pprofcore.Profile, sample_type: str) -> dict:
    """{(function names of a stack, leaf first, inlined lines included; "?"
    for a location without lines): summed value of ``sample_type``}."""
    s = p.strings
    col = [t for t, _ in p.sample_types].index(sample_type)
    out: dict = {}
    for i in range(len(p)):
        names = []
        for row in p.stack(i):
            lo, hi = p.locations.line_offsets[row], p.locations.line_offsets[row + 1]
            names += [s[p.functions.name[p.lines.function[k]]] for k in range(lo, hi)] or ["?"]
        key = tuple(names)
        out[key] = out.get(key, 0) + int(p.values[i, col])
    return out
